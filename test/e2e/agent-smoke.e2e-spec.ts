import { validateEvent } from '../../src/events/dto/event-registry.js';
import { allEvents, llmAgent, waitForStatus } from '../support/agent-helpers.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase } from '../support/test-database.js';

describe('agent: a task end to end', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let llm: FakeLlm;
  let alice: HttpClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    llm = await startFakeLlm();
    service = await startServiceProcess({ databaseUrl: database.url, env: { LLM_MAX_RETRIES: '1', LLM_TIMEOUT_MS: '5000' } });
    alice = new HttpClient(service.url, ALICE_KEY);
  });
  afterAll(async () => {
    await service?.stop();
    await llm?.close();
    await database?.drop();
  });

  it('creates a file, edits it, runs it and finishes, every event valid and in order', async () => {
    const created = await alice.post('/api/conversations', { body: { agent: llmAgent(llm.url) } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const dir = created.body.workspace.working_dir;
    llm.enqueue(
      { toolCalls: [{ name: 'file_editor', arguments: { command: 'create', path: `${dir}/hello.sh`, file_text: 'echo hello\n', security_risk: 'LOW' } }] },
      { toolCalls: [{ name: 'file_editor', arguments: { command: 'str_replace', path: `${dir}/hello.sh`, old_str: 'hello', new_str: 'hello world' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'bash hello.sh', summary: 'run the script' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'The script prints hello world.' } }] },
    );
    const sent = await alice.post(`/api/conversations/${id}/events`, { body: { content: [{ type: 'text', text: 'Write and run a hello script' }], run: true } });
    expect(sent.status).toBe(200);
    const record = await waitForStatus(alice, id);
    expect(record.execution_status).toBe('finished');
    const events = await allEvents(alice, id);
    for (const event of events) expect(validateEvent(event)).toEqual([]);
    const dialogue = events.filter((event) => event.kind !== 'ConversationStateUpdateEvent').map((event) => event.kind);
    expect(dialogue).toEqual([
      'MessageEvent', 'SystemPromptEvent',
      'ActionEvent', 'ObservationEvent',
      'ActionEvent', 'ObservationEvent',
      'ActionEvent', 'ObservationEvent',
      'ActionEvent', 'ObservationEvent',
    ]);
    const terminal = events.find((event) => event.kind === 'ObservationEvent' && event.tool_name === 'terminal')!;
    expect(terminal.observation).toMatchObject({ kind: 'TerminalObservation', exit_code: 0 });
    expect(terminal.observation.content[0].text).toContain('hello world');
    const terminalAction = events.find((event) => event.kind === 'ActionEvent' && event.tool_name === 'terminal')!;
    expect(terminalAction).toMatchObject({ summary: 'run the script', action: { kind: 'TerminalAction', command: 'bash hello.sh' } });
    expect(terminal.action_id).toBe(terminalAction.id);
    // The LLM saw the tool results of earlier steps.
    const lastRequest = llm.requests[llm.requests.length - 1].body;
    expect(lastRequest.messages.filter((message: { role: string }) => message.role === 'tool')).toHaveLength(3);
    expect(JSON.stringify(events)).not.toContain('sk-test-llm-secret-0000');
    expect((await alice.get(`/api/conversations/${id}/agent_final_response`)).body).toEqual({ response: 'The script prints hello world.' });
  });
});

// Two instances on one database: when the one running a conversation dies, the other takes the run over.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allEvents } from '../support/agent-helpers.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase } from '../support/test-database.js';
import { createAgentConversation, expectAllValid, sendMessage, statusChanges, toolMessage, waitForRunEnd, expectWellFormedRequests, type Ev } from './agent.support.js';

const TTL_MS = 3000;

describe('agent: one loop per conversation across instances', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let llm: FakeLlm;
  let a: ServiceProcess | undefined;
  let b: ServiceProcess;
  let viaB: HttpClient;
  // Instances of one deployment share the workspaces.
  const workspaceRoot = mkdtempSync(join(tmpdir(), 'acs-shared-workspaces-'));
  const env = (ttl: number) => ({
    RUN_LEASE_TTL_MS: String(ttl),
    LLM_MAX_RETRIES: '0',
    LLM_TIMEOUT_MS: '60000',
    WORKSPACE_ROOT: workspaceRoot,
  });

  beforeAll(async () => {
    database = await createTestDatabase();
    llm = await startFakeLlm();
    b = await startServiceProcess({ databaseUrl: database.url, env: env(TTL_MS) });
    viaB = new HttpClient(b.url, ALICE_KEY);
  });
  beforeEach(() => llm.reset());
  afterEach(() => expectWellFormedRequests(llm));
  afterEach(async () => {
    await a?.kill();
    a = undefined;
  });
  afterAll(async () => {
    await b?.stop();
    await llm?.close();
    await database?.drop();
  });

  async function noOrphans(): Promise<void> {
    const running = await viaB.get('/api/conversations/search', { query: { execution_status: 'running', limit: 100 } });
    expect(running.body.items).toEqual([]);
  }

  it('a taken-over run keeps counting its steps toward max_iterations', async () => {
    a = await startServiceProcess({ databaseUrl: database.url, env: env(TTL_MS) });
    const viaA = new HttpClient(a.url, ALICE_KEY);
    const { id } = await createAgentConversation(viaA, llm, { max_iterations: 3 });
    const think = (thought: string) => ({ toolCalls: [{ name: 'think', arguments: { thought } }] });
    llm.enqueue(think('one'), think('two'), { hang: true });
    llm.setDefault(think('more'));
    await sendMessage(viaA, id, 'Keep thinking');
    await llm.waitForRequests(3);
    await a.kill();
    const { record, events } = await waitForRunEnd(viaB, id, 0, ['finished', 'error', 'stuck'], 20_000);
    // Two steps on A, the hung third is redone on B: three in all, not two plus three.
    expect(record.execution_status).toBe('error');
    expect(events.find((event) => event.kind === 'ConversationErrorEvent')).toMatchObject({ code: 'MaxIterationsReached' });
    expect(events.filter((event) => event.kind === 'ActionEvent')).toHaveLength(3);
    expect(llm.requests).toHaveLength(4);
  });

  it('kill -9 during an LLM call: the other instance takes over within seconds and finishes the run', async () => {
    a = await startServiceProcess({ databaseUrl: database.url, env: env(TTL_MS) });
    const viaA = new HttpClient(a.url, ALICE_KEY);
    const { id } = await createAgentConversation(viaA, llm);
    llm.enqueue({ hang: true }, { toolCalls: [{ name: 'finish', arguments: { message: 'Finished by the survivor.' } }] });
    await sendMessage(viaA, id, 'A task for whoever is alive');
    await llm.waitForRequests(1);
    expect((await viaB.get(`/api/conversations/${id}`)).body.execution_status).toBe('running');
    // The run is held by A: B refuses to start a second loop.
    expect((await viaB.post(`/api/conversations/${id}/run`)).status).toBe(409);

    await a.kill();
    const killedAt = Date.now();
    const { record, events } = await waitForRunEnd(viaB, id, 0, ['finished', 'error', 'stuck'], 20_000);
    const tookMs = Date.now() - killedAt;
    expect(record.execution_status).toBe('finished');
    expect(tookMs).toBeLessThan(TTL_MS + 5000);
    expect(llm.requests).toHaveLength(2);
    expect(JSON.stringify(llm.requests[1].body.messages)).toContain('A task for whoever is alive');
    // Nothing was pending, so nothing is reported interrupted; the run was not restarted from scratch.
    expect(events.some((event) => event.kind === 'AgentErrorEvent')).toBe(false);
    expect(events.filter((event) => event.kind === 'SystemPromptEvent')).toHaveLength(1);
    expect(events.filter((event) => event.kind === 'ActionEvent').map((event) => event.tool_name)).toEqual(['finish']);
    expect(statusChanges(events)).toEqual(['running', 'finished']);
    expect((await viaB.get(`/api/conversations/${id}/agent_final_response`)).body).toEqual({ response: 'Finished by the survivor.' });
    expectAllValid(events);
    await noOrphans();
  });

  it('kill -9 while a tool runs: the survivor reports the action interrupted, the LLM reads it, the run finishes', async () => {
    a = await startServiceProcess({ databaseUrl: database.url, env: env(TTL_MS) });
    const viaA = new HttpClient(a.url, ALICE_KEY);
    const { id } = await createAgentConversation(viaA, llm);
    llm.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 8; echo slept > slept.txt', security_risk: 'LOW' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'Recovered from the restart.' } }] },
    );
    await sendMessage(viaA, id, 'Run something slow');
    // Wait until the action is stored (the command is then running on A).
    const deadline = Date.now() + 15_000;
    let action: Ev | undefined;
    while (!action && Date.now() < deadline) {
      action = (await allEvents(viaB, id)).find((event) => event.kind === 'ActionEvent');
      if (!action) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(action).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await a.kill();

    const { record, events } = await waitForRunEnd(viaB, id, 0, ['finished', 'error', 'stuck'], 20_000);
    expect(record.execution_status).toBe('finished');
    const interrupted = events.filter((event) => event.kind === 'AgentErrorEvent');
    expect(interrupted).toHaveLength(1);
    expect(interrupted[0]).toMatchObject({ tool_call_id: action!.tool_call_id, tool_name: 'terminal' });
    expect(interrupted[0].error).toMatch(/interrupted by a restart/);
    expect(events.some((event) => event.kind === 'ObservationEvent' && event.tool_call_id === action!.tool_call_id)).toBe(false);
    // The LLM was told, as the result of its call.
    expect(llm.requests).toHaveLength(2);
    expect(toolMessage(llm.requests[1].body, action!.tool_call_id)?.content).toMatch(/interrupted by a restart/);
    expectAllValid(events);
    await noOrphans();
  });

  it('a graceful stop (SIGTERM) hands the run over at once, long before the lease would expire', async () => {
    const longTtl = 30_000;
    a = await startServiceProcess({ databaseUrl: database.url, env: env(longTtl) });
    const viaA = new HttpClient(a.url, ALICE_KEY);
    const { id } = await createAgentConversation(viaA, llm);
    llm.enqueue({ hang: true }, { text: 'Answered by the other instance.' });
    await sendMessage(viaA, id, 'Keep going through a deploy');
    await llm.waitForRequests(1);
    const stoppedAt = Date.now();
    await a.stop();
    const { record, events } = await waitForRunEnd(viaB, id, 0, ['finished', 'error', 'stuck'], 20_000);
    expect(record.execution_status).toBe('finished');
    expect(Date.now() - stoppedAt).toBeLessThan(longTtl / 2);
    expect(events.some((event) => event.kind === 'ConversationErrorEvent')).toBe(false);
    expect(events.filter((event) => event.kind === 'MessageEvent' && event.source === 'agent').map((event) => event.llm_message.content[0].text)).toEqual([
      'Answered by the other instance.',
    ]);
    await noOrphans();
  });
});

// An LLM that fails for good (no retries left): the run ends in error, the conversation can run again.
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase } from '../support/test-database.js';
import { createAgentConversation, expectAllValid, runTurn, statusChanges, expectWellFormedRequests } from './agent.support.js';

describe('agent: LLM failures after the last retry', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let llm: FakeLlm;
  let alice: HttpClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    llm = await startFakeLlm();
    service = await startServiceProcess({ databaseUrl: database.url, env: { LLM_MAX_RETRIES: '0', LLM_TIMEOUT_MS: '1000' } });
    alice = new HttpClient(service.url, ALICE_KEY);
  });
  beforeEach(() => llm.reset());
  afterEach(() => expectWellFormedRequests(llm));
  afterAll(async () => {
    await service?.stop();
    await llm?.close();
    await database?.drop();
  });

  it('an LLM that never answers ends the run in a ConversationErrorEvent and status error; a new message runs again', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue({ hang: true }, { text: 'I am back.' });
    const started = Date.now();
    const { record, events } = await runTurn(alice, id, 'Are you there?');
    expect(record.execution_status).toBe('error');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(llm.requests).toHaveLength(1); // no retry with LLM_MAX_RETRIES=0
    const errors = events.filter((event) => event.kind === 'ConversationErrorEvent');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'LlmUnavailableError', detail: expect.stringMatching(/in time/) });
    expect(statusChanges(events)).toEqual(['running', 'error']);
    expectAllValid(events);

    const again = await runTurn(alice, id, 'Try again');
    expect(again.record.execution_status).toBe('finished');
    expect(again.events.filter((event) => event.kind === 'MessageEvent' && event.source === 'agent').pop()?.llm_message.content[0].text).toBe(
      'I am back.',
    );
    // The second run saw the whole dialogue, the failed turn included.
    const texts = JSON.stringify(llm.requests[1].body.messages);
    expect(texts).toContain('Are you there?');
    expect(texts).toContain('Try again');
    expect(again.events.filter((event) => event.kind === 'SystemPromptEvent')).toHaveLength(1);
    expectAllValid(again.events);
  });

  it('a 500 with no retries left ends in error with the status in the detail', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue({ status: 500 });
    const { record, events } = await runTurn(alice, id, 'Hello');
    expect(record.execution_status).toBe('error');
    expect(events.find((event) => event.kind === 'ConversationErrorEvent')).toMatchObject({
      code: 'LlmUnavailableError',
      detail: expect.stringContaining('500'),
    });
  });

  it('a reply that is not JSON ends in error, not in a crash of the service', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue({ rawBody: '<html>gateway error</html>' }, { text: 'fine now' });
    const { record, events } = await runTurn(alice, id, 'Hello');
    expect(record.execution_status).toBe('error');
    expect(events.filter((event) => event.kind === 'ConversationErrorEvent')).toHaveLength(1);
    expect((await alice.get('/health')).status).toBe(200);
    const again = await runTurn(alice, id, 'Hello again');
    expect(again.record.execution_status).toBe('finished');
  });
});

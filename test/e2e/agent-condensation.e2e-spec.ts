// Condensation: a long history is summarised by the LLM and the summary replaces the forgotten events
// in what the LLM sees; POST .../condense asks for it; a context-window error triggers it too.
import { EventSeeder } from '../support/event-seeder.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase } from '../support/test-database.js';
import { createAgentConversation, eventCount, expectAllValid, requestText, runTurn, expectWellFormedRequests, type Ev } from './agent.support.js';

const marker = (n: number) => `old-message-${String(n).padStart(3, '0')};`;

describe('agent: condensation', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let llm: FakeLlm;
  let alice: HttpClient;
  let seeder: EventSeeder;

  beforeAll(async () => {
    database = await createTestDatabase();
    llm = await startFakeLlm();
    // The default threshold (120 events in the view) is what is tested.
    service = await startServiceProcess({ databaseUrl: database.url, env: { LLM_MAX_RETRIES: '0', LLM_TIMEOUT_MS: '10000' } });
    alice = new HttpClient(service.url, ALICE_KEY);
    seeder = await EventSeeder.connect(database.url);
  });
  beforeEach(() => llm.reset());
  afterEach(() => expectWellFormedRequests(llm));
  afterAll(async () => {
    await seeder?.close();
    await service?.stop();
    await llm?.close();
    await database?.drop();
  });

  async function seedDialogue(id: string, count: number): Promise<Ev[]> {
    const seeded: Ev[] = [];
    for (let n = 0; n < count; n++) {
      const source = n % 2 === 0 ? 'user' : 'agent';
      seeded.push(
        await seeder.append(id, {
          kind: 'MessageEvent',
          source,
          llm_message: { role: source === 'user' ? 'user' : 'assistant', content: [{ type: 'text', text: `${marker(n)} some earlier talk` }] },
        }),
      );
    }
    return seeded;
  }

  it('a history past 120 events is condensed: a Condensation is stored and the next request has the summary, not the forgotten events', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue({ text: 'Hello, what is the task?' });
    await runTurn(alice, id, 'The first task: keep this message');
    const seeded = await seedDialogue(id, 124);
    llm.reset();
    llm.enqueue({ text: 'SUMMARY-OF-THE-OLD-WORK', usage: { prompt_tokens: 5000, completion_tokens: 30 } }, { text: 'The final answer.' });
    const { record, events } = await runTurn(alice, id, 'The latest question');
    expect(record.execution_status).toBe('finished');
    expectAllValid(events);

    const condensations = events.filter((event) => event.kind === 'Condensation');
    expect(condensations).toHaveLength(1);
    const condensation = condensations[0];
    expect(condensation.summary).toBe('SUMMARY-OF-THE-OLD-WORK');
    expect(condensation.summary_offset).toEqual(expect.any(Number));
    expect(condensation.llm_response_id).toMatch(/^chatcmpl-fake-/);
    const forgotten = new Set<string>(condensation.forgotten_event_ids);
    expect(forgotten.size).toBeGreaterThanOrEqual(40);
    // The head (first user message, system prompt) stays; the oldest seeded events go, the newest stay.
    const first = events.find((event) => event.kind === 'MessageEvent')!;
    const systemPrompt = events.find((event) => event.kind === 'SystemPromptEvent')!;
    expect(forgotten.has(first.id)).toBe(false);
    expect(forgotten.has(systemPrompt.id)).toBe(false);
    expect(forgotten.has(seeded[0].id as string)).toBe(true);
    expect(forgotten.has(seeded[123].id as string)).toBe(false);

    // Request 1 asked for the summary of what is forgotten; request 2 is the step itself.
    expect(llm.requests).toHaveLength(2);
    expect(requestText(llm.requests[0].body)).toContain(marker(0));
    const step = requestText(llm.requests[1].body);
    expect(step).toContain('SUMMARY-OF-THE-OLD-WORK');
    expect(step).toContain('The first task: keep this message');
    expect(step).toContain('The latest question');
    expect(step).toContain(marker(123));
    const forgottenMarkers = seeded.map((event, n) => (forgotten.has(event.id as string) ? marker(n) : null)).filter(Boolean) as string[];
    expect(forgottenMarkers.length).toBeGreaterThan(0);
    expect(forgottenMarkers.filter((text) => step.includes(text))).toEqual([]);
    const reply = events.filter((event) => event.kind === 'MessageEvent' && event.source === 'agent').pop()!;
    expect(reply.llm_message.content[0].text).toBe('The final answer.');
    expect(reply.llm_response_id).not.toBe(condensation.llm_response_id);
    // The summary call is counted in the stats too.
    expect(record.stats.usage_to_metrics.agent.accumulated_token_usage.prompt_tokens).toBeGreaterThanOrEqual(5100);

    // Later runs keep seeing the summary instead of the forgotten events, without condensing again.
    llm.reset();
    llm.enqueue({ text: 'Still fine.' });
    const later = await runTurn(alice, id, 'And now?');
    expect(later.events.filter((event) => event.kind === 'Condensation')).toHaveLength(1);
    expect(llm.requests).toHaveLength(1);
    const laterText = requestText(llm.requests[0].body);
    expect(laterText).toContain('SUMMARY-OF-THE-OLD-WORK');
    expect(forgottenMarkers.filter((text) => laterText.includes(text))).toEqual([]);
  });

  it('POST .../condense appends a CondensationRequest, and the next step condenses even a short history', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue({ text: 'answer one' }, { text: 'answer two' });
    await runTurn(alice, id, 'question one');
    await runTurn(alice, id, 'question two');
    const before = await eventCount(alice, id);
    const requested = await alice.post(`/api/conversations/${id}/condense`);
    expect(requested.status).toBe(200);
    expect(requested.body).toEqual({ success: true });
    const after = (await alice.get(`/api/conversations/${id}/events`, { query: { start_id: before } })).body.events as Ev[];
    expect(after.map((event) => event.kind)).toEqual(['CondensationRequest']);
    expect((await alice.get(`/api/conversations/${id}`)).body.execution_status).toBe('finished');

    llm.reset();
    llm.enqueue({ text: 'SHORT-SUMMARY' }, { text: 'answer three' });
    const { record, events } = await runTurn(alice, id, 'question three');
    expect(record.execution_status).toBe('finished');
    const condensation = events.find((event) => event.kind === 'Condensation')!;
    expect(condensation).toMatchObject({ summary: 'SHORT-SUMMARY' });
    expect(condensation.forgotten_event_ids.length).toBeGreaterThan(0);
    expect(requestText(llm.requests[1].body)).toContain('SHORT-SUMMARY');
    expectAllValid(events);
    // The request is satisfied: the next run does not condense again.
    llm.reset();
    llm.enqueue({ text: 'answer four' });
    const next = await runTurn(alice, id, 'question four');
    expect(next.events.filter((event) => event.kind === 'Condensation')).toHaveLength(1);
    expect(llm.requests).toHaveLength(1);
  });

  it('an LLM that reports its context window exceeded gets a condensed history and the step succeeds', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue({ text: 'a1' }, { text: 'a2' });
    await runTurn(alice, id, 'q1');
    await runTurn(alice, id, 'q2');
    llm.reset();
    llm.enqueue({ contextWindowExceeded: true }, { text: 'CONTEXT-SUMMARY' }, { text: 'fits now' });
    const { record, events } = await runTurn(alice, id, 'q3');
    expect(record.execution_status).toBe('finished');
    expect(events.find((event) => event.kind === 'Condensation')).toMatchObject({ summary: 'CONTEXT-SUMMARY' });
    expect(llm.requests).toHaveLength(3);
    expect(requestText(llm.requests[2].body)).toContain('CONTEXT-SUMMARY');
    expect(events.filter((event) => event.kind === 'MessageEvent' && event.source === 'agent').pop()!.llm_message.content[0].text).toBe('fits now');
    expect(events.some((event) => event.kind === 'ConversationErrorEvent')).toBe(false);
  });
});

import { EventSeeder } from '../support/event-seeder.js';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase } from '../support/test-database.js';
import { EventSocket, isFullState, sleep, textMessage } from './websocket.support.js';

// Two instances on one database: whatever is appended through one reaches sockets on the other.
describe('WebSocket live delivery across instances', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let first: ServiceProcess;
  let second: ServiceProcess;
  let alice1: HttpClient;
  let alice2: HttpClient;
  let seeder: EventSeeder;
  const sockets: EventSocket[] = [];

  const connect = async (service: ServiceProcess, conversationId: string, query: Record<string, string> = {}) => {
    const socket = await EventSocket.connect(service.url, conversationId, { query: { session_api_key: ALICE_KEY, ...query } });
    sockets.push(socket);
    return socket;
  };

  const createConversation = async (title = 'live') => {
    const response = await alice1.post('/api/conversations', { body: { title } });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };

  const sendMessage = async (client: HttpClient, conversationId: string, text: string) => {
    const response = await client.post(`/api/conversations/${conversationId}/events`, { body: textMessage(text) });
    expect(response.status).toBe(200);
  };

  /** Every stored event in position order, through REST. */
  const storedEvents = async (conversationId: string) => {
    const events: any[] = [];
    let start = 0;
    for (;;) {
      const page = await alice1.get(`/api/conversations/${conversationId}/events`, { query: { start_id: start, limit: 100 } });
      expect(page.status).toBe(200);
      events.push(...page.body.events);
      if (!page.body.has_more) return events;
      start = page.body.next_id;
    }
  };

  const messageSeeds = (count: number, prefix: string) =>
    Array.from({ length: count }, (_, index) => ({
      kind: 'MessageEvent',
      source: 'user',
      llm_message: { role: 'user', content: [{ type: 'text', text: `${prefix} ${index}` }] },
    }));

  beforeAll(async () => {
    database = await createTestDatabase();
    [first, second] = await Promise.all([
      startServiceProcess({ databaseUrl: database.url }),
      startServiceProcess({ databaseUrl: database.url }),
    ]);
    alice1 = new HttpClient(first.url, ALICE_KEY);
    alice2 = new HttpClient(second.url, ALICE_KEY);
    seeder = await EventSeeder.connect(database.url);
  }, 60_000);

  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  });

  afterAll(async () => {
    await seeder?.close();
    await Promise.all([first?.stop(), second?.stop()]);
    await database?.drop();
  });

  it('sends full_state first, then every event appended through the other instance, in order and as REST serves it', async () => {
    const conversationId = await createConversation('across instances');
    const socket = await connect(second, conversationId);
    const [fullState] = await socket.waitFor(() => (socket.frames.length ? socket.frames : undefined), 'full_state');
    expect(fullState).toMatchObject({
      kind: 'ConversationStateUpdateEvent',
      key: 'full_state',
      source: 'environment',
      value: { id: conversationId, title: 'across instances', owner: 'alice', event_count: 0 },
    });

    for (let index = 0; index < 20; index += 1) await sendMessage(alice1, conversationId, `message ${index}`);
    const events = await socket.waitForEvents(20);
    await sleep(200);
    expect(socket.events).toHaveLength(20);
    expect(events.map((event) => event.llm_message.content[0].text)).toEqual(Array.from({ length: 20 }, (_, i) => `message ${i}`));

    const stored = await storedEvents(conversationId);
    expect(events.map((event) => event.id)).toEqual(stored.map((event) => event.id));
    const single = await alice2.get(`/api/conversations/${conversationId}/events/${stored[7].id}`);
    expect(socket.raw[8]).toBe(single.text);
  }, 30_000);

  it('replays 500 stored events while 200 more are appended: exactly 700 distinct events in position order', async () => {
    const conversationId = await createConversation('replay');
    for (const seed of messageSeeds(500, 'stored')) await seeder.append(conversationId, seed);

    const concurrent = messageSeeds(200, 'concurrent');
    const appending = (async () => {
      // Four writers interleave; positions still come out gapless and ordered.
      const lanes = [0, 1, 2, 3].map(async (lane) => {
        for (let index = lane; index < concurrent.length; index += 4) {
          if (index % 2 === 0) await seeder.append(conversationId, concurrent[index]);
          else await sendMessage(alice1, conversationId, concurrent[index].llm_message.content[0].text);
        }
      });
      await Promise.all(lanes);
    })();
    await sleep(30);
    const socket = await connect(second, conversationId, { resend_all: 'true' });
    await appending;

    const events = await socket.waitForEvents(700, 30_000);
    await sleep(300);
    expect(isFullState(socket.frames[0])).toBe(true);
    expect(socket.events).toHaveLength(700);
    expect(new Set(events.map((event) => event.id)).size).toBe(700);
    const stored = await storedEvents(conversationId);
    expect(stored).toHaveLength(700);
    expect(events.map((event) => event.id)).toEqual(stored.map((event) => event.id));
  }, 60_000);

  it('resumes with after_id on the other instance with no gap and no duplicate', async () => {
    const conversationId = await createConversation('resume');
    for (let index = 0; index < 5; index += 1) await sendMessage(alice1, conversationId, `before ${index}`);

    const firstSocket = await connect(first, conversationId, { resend_all: 'true' });
    await firstSocket.waitForEvents(5);
    for (let index = 0; index < 5; index += 1) await sendMessage(alice2, conversationId, `live ${index}`);
    const seen = await firstSocket.waitForEvents(10);
    await firstSocket.close();

    for (let index = 0; index < 7; index += 1) await sendMessage(alice1, conversationId, `missed ${index}`);
    const resumed = await connect(second, conversationId, { after_id: seen[9].id });
    await resumed.waitForEvents(7);
    await sendMessage(alice1, conversationId, 'after resume');
    const resumedEvents = await resumed.waitForEvents(8);
    await sleep(200);

    const all = [...seen.slice(0, 10), ...resumed.events];
    const stored = await storedEvents(conversationId);
    expect(all.map((event) => event.id)).toEqual(stored.map((event) => event.id));
    expect(resumedEvents[0].llm_message.content[0].text).toBe('missed 0');
  }, 30_000);

  it('delivers a title change as a ConversationStateUpdateEvent', async () => {
    const conversationId = await createConversation('old title');
    const socket = await connect(second, conversationId);
    await socket.waitFor(() => socket.frames.length > 0, 'full_state');
    const patched = await alice1.patch(`/api/conversations/${conversationId}`, { body: { title: 'New title' } });
    expect(patched.status).toBe(200);
    const update = await socket.waitForFrame((frame) => frame.key === 'title', 'the title update');
    expect(update).toMatchObject({ kind: 'ConversationStateUpdateEvent', key: 'title', value: 'New title' });
  }, 30_000);

  it('appends a valid message frame, and answers invalid frames with an error frame without appending', async () => {
    const conversationId = await createConversation('client frames');
    const socket = await connect(first, conversationId);
    await socket.waitFor(() => socket.frames.length > 0, 'full_state');

    const invalid: Array<[unknown, string, unknown[]]> = [
      ['{not json', 'json_invalid', ['body']],
      [[1, 2], 'model_attributes_type', ['body']],
      [{ role: 'assistant', content: [{ type: 'text', text: 'x' }] }, 'literal_error', ['body', 'role']],
      [{ role: 'user', content: [] }, 'too_short', ['body', 'content']],
      [{ role: 'user', content: [{ type: 'text', text: 'x' }], extra: 1 }, 'extra_forbidden', ['body', 'extra']],
      [{ type: 'auth', session_api_key: ALICE_KEY }, 'extra_forbidden', ['body', 'type']],
    ];
    for (const [frame, type, loc] of invalid) {
      const before = socket.frames.length;
      socket.send(frame);
      const error = await socket.waitFor(() => socket.frames[before], `an error frame for ${JSON.stringify(frame)}`);
      expect(error.type).toBe('error');
      expect(error.detail).toEqual(expect.arrayContaining([expect.objectContaining({ type, loc })]));
      for (const issue of error.detail) expect(Object.keys(issue).sort()).toEqual(['loc', 'msg', 'type']);
    }
    const count = await alice1.get(`/api/conversations/${conversationId}/events/count`);
    expect(count.body).toBe(0);

    socket.send(textMessage('from the socket'));
    const [message] = await socket.waitForEvents(1);
    expect(message).toMatchObject({
      kind: 'MessageEvent',
      source: 'user',
      llm_message: { role: 'user', content: [{ type: 'text', text: 'from the socket' }] },
    });
    const stored = await storedEvents(conversationId);
    expect(stored[0].id).toBe(message.id);
  }, 30_000);

  it('starts the agent for a message frame without "run" (run defaults to true on the socket)', async () => {
    const conversationId = await createConversation('run default');
    const socket = await connect(second, conversationId);
    await socket.waitFor(() => socket.frames.length > 0, 'full_state');
    socket.send({ role: 'user', content: [{ type: 'text', text: 'go' }] });
    await socket.waitForEvents(1);
    // No model is configured, so the run ends at once; any event after the message shows it started.
    const afterMessage = await socket
      .waitFor(() => (socket.events.length > 1 ? socket.events[1] : undefined), 'an event of the run')
      .catch((error: Error) => {
        throw new Error(`${error.message}\nservice output:\n${second.output().slice(-3000)}`);
      });
    expect(afterMessage.kind).not.toBe('MessageEvent');
  }, 30_000);
});

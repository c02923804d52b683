import { randomUUID } from 'node:crypto';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, BOB_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { completeEvent } from '../../src/events/dto/event-registry.js';
import { createTestDatabase, queryDatabase } from '../support/test-database.js';
import { EventSocket, isFullState, sleep, textMessage } from './websocket.support.js';

const AUTH_TIMEOUT_MS = 1_000;
const PING_INTERVAL_MS = 300;
const RECONCILE_INTERVAL_MS = 500;

describe('WebSocket authentication, close codes and connection options', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let alice: HttpClient;
  let conversationId: string;
  const sockets: EventSocket[] = [];

  const connect = async (id: string, options: Parameters<typeof EventSocket.connect>[2] = {}) => {
    const socket = await EventSocket.connect(service.url, id, options);
    sockets.push(socket);
    return socket;
  };
  const withKey = (key: string, query: Record<string, string> = {}) => ({ query: { session_api_key: key, ...query } });

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startServiceProcess({
      databaseUrl: database.url,
      env: {
        WS_AUTH_TIMEOUT_MS: String(AUTH_TIMEOUT_MS),
        WS_PING_INTERVAL_MS: String(PING_INTERVAL_MS),
        WS_RECONCILE_INTERVAL_MS: String(RECONCILE_INTERVAL_MS),
      },
    });
    alice = new HttpClient(service.url, ALICE_KEY);
    const created = await alice.post('/api/conversations', { body: { title: 'auth' } });
    conversationId = created.body.id;
    for (let index = 0; index < 5; index += 1) {
      await alice.post(`/api/conversations/${conversationId}/events`, { body: textMessage(`stored ${index}`) });
      await sleep(5); // distinct timestamps for resend_mode=since
    }
  }, 60_000);

  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('accepts the key as query parameter, header or first frame, and sends full_state first', async () => {
    const byQuery = await connect(conversationId, withKey(ALICE_KEY));
    const byHeader = await connect(conversationId, { headers: { 'X-Session-API-Key': ALICE_KEY } });
    const byFrame = await connect(conversationId);
    byFrame.send({ type: 'auth', session_api_key: ALICE_KEY });
    for (const socket of [byQuery, byHeader, byFrame]) {
      const fullState = await socket.waitFor(() => socket.frames[0], 'full_state');
      expect(isFullState(fullState)).toBe(true);
      expect(fullState.value).toMatchObject({ id: conversationId, owner: 'alice', event_count: 5 });
    }
    await sleep(100);
    for (const socket of [byQuery, byHeader, byFrame]) expect(socket.frames).toHaveLength(1);
  }, 30_000);

  it('closes with 4001 for a missing, unknown or late key', async () => {
    const cases: Array<[string, () => Promise<EventSocket>]> = [
      ['bad query key', () => connect(conversationId, withKey('not-a-key'))],
      ['empty query key', () => connect(conversationId, withKey(''))],
      ['bad header key', () => connect(conversationId, { headers: { 'X-Session-API-Key': 'not-a-key' } })],
      [
        'bad auth frame',
        async () => {
          const socket = await connect(conversationId);
          socket.send({ type: 'auth', session_api_key: 'not-a-key' });
          return socket;
        },
      ],
      [
        'a message before authenticating',
        async () => {
          const socket = await connect(conversationId);
          socket.send(textMessage('sneaky'));
          return socket;
        },
      ],
      ['unknown key on an unknown conversation', () => connect(randomUUID(), withKey('not-a-key'))],
    ];
    for (const [name, open] of cases) {
      const socket = await open();
      const closed = await socket.waitForClose(5_000);
      expect({ name, code: closed.code, frames: socket.frames.length }).toEqual({ name, code: 4001, frames: 0 });
    }
    const count = await alice.get(`/api/conversations/${conversationId}/events/count`);
    expect(count.body).toBe(5);
  }, 30_000);

  it('closes with 4001 when no auth frame arrives within the timeout', async () => {
    const started = Date.now();
    const socket = await connect(conversationId);
    const closed = await socket.waitForClose(AUTH_TIMEOUT_MS + 5_000);
    expect(closed.code).toBe(4001);
    expect(Date.now() - started).toBeGreaterThanOrEqual(AUTH_TIMEOUT_MS - 100);
  }, 30_000);

  it("closes with 4003 for another user's conversation, however the key is sent", async () => {
    const byQuery = await connect(conversationId, withKey(BOB_KEY));
    const byHeader = await connect(conversationId, { headers: { 'X-Session-API-Key': BOB_KEY } });
    const byFrame = await connect(conversationId);
    byFrame.send({ type: 'auth', session_api_key: BOB_KEY });
    for (const socket of [byQuery, byHeader, byFrame]) {
      expect((await socket.waitForClose(5_000)).code).toBe(4003);
      expect(socket.frames).toHaveLength(0);
    }
  }, 30_000);

  it('closes with 4004 for an unknown or malformed conversation id, and accepts 32 hex digits', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', '12345']) {
      const socket = await connect(id, withKey(ALICE_KEY));
      expect((await socket.waitForClose(5_000)).code).toBe(4004);
    }
    const compact = await connect(conversationId.replaceAll('-', '').toUpperCase(), withKey(ALICE_KEY));
    const fullState = await compact.waitFor(() => compact.frames[0], 'full_state');
    expect(fullState.value.id).toBe(conversationId);
  }, 30_000);

  it('refuses an upgrade on another path with 404', async () => {
    await expect(EventSocket.connect(service.url, conversationId, { path: '/sockets/other', ...withKey(ALICE_KEY) })).rejects.toThrow(
      'upgrade refused: 404',
    );
  }, 30_000);

  it('answers invalid query parameters with an error frame and 4022', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ after_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 'after_id'],
      [{ resend_all: 'maybe' }, 'resend_all'],
      [{ resend_mode: 'some' }, 'resend_mode'],
      [{ resend_mode: 'since' }, 'after_timestamp'],
      [{ resend_mode: 'since', after_timestamp: 'yesterday' }, 'after_timestamp'],
    ];
    for (const [query, field] of cases) {
      const socket = await connect(conversationId, withKey(ALICE_KEY, query));
      const closed = await socket.waitForClose(5_000);
      expect({ query, code: closed.code }).toEqual({ query, code: 4022 });
      expect(socket.frames).toHaveLength(1);
      expect(socket.frames[0]).toMatchObject({ type: 'error', detail: [expect.objectContaining({ loc: ['query', field] })] });
    }
  }, 30_000);

  it("replays with the reference's resend_mode=all and resend_mode=since", async () => {
    const stored = (await alice.get(`/api/conversations/${conversationId}/events`, { query: { limit: 100 } })).body.events;
    const all = await connect(conversationId, withKey(ALICE_KEY, { resend_mode: 'all' }));
    expect((await all.waitForEvents(5)).map((event) => event.id)).toEqual(stored.map((event: any) => event.id));

    const since = await connect(conversationId, withKey(ALICE_KEY, { resend_mode: 'since', after_timestamp: stored[2].timestamp }));
    await since.waitForEvents(3);
    await sleep(200);
    expect(since.events.map((event) => event.id)).toEqual(stored.slice(2).map((event: any) => event.id));

    const after = await connect(conversationId, withKey(ALICE_KEY, { after_id: stored[3].id }));
    await after.waitForEvents(1);
    await sleep(200);
    expect(after.events.map((event) => event.id)).toEqual([stored[4].id]);
  }, 30_000);

  it('terminates a peer that does not answer pings and keeps one that does', async () => {
    const silent = await connect(conversationId, { ...withKey(ALICE_KEY), clientOptions: { autoPong: false } });
    const answering = await connect(conversationId, withKey(ALICE_KEY));
    const closed = await silent.waitForClose(PING_INTERVAL_MS * 10);
    expect(closed.code).toBe(1006);
    await sleep(PING_INTERVAL_MS * 3);
    expect(answering.closeCode).toBeNull();
  }, 30_000);

  it('delivers an event whose notification never came (found by reconciliation)', async () => {
    const socket = await connect(conversationId, withKey(ALICE_KEY));
    await socket.waitFor(() => socket.frames.length > 0, 'full_state');
    await sleep(200); // past the subscription's own first read
    const event = completeEvent({
      kind: 'MessageEvent',
      source: 'user',
      llm_message: { role: 'user', content: [{ type: 'text', text: 'committed silently' }] },
    });
    // The store's append without its pg_notify.
    await queryDatabase(
      database.url,
      `WITH next AS (UPDATE conversations SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq)
       INSERT INTO events (conversation_id, seq, id, kind, source, timestamp, payload)
       SELECT $1, next.last_seq, $2, 'MessageEvent', 'user', $3, $4::jsonb FROM next`,
      [conversationId, event.id, event.timestamp, JSON.stringify(event)],
    );
    const [delivered] = await socket.waitForEvents(1, RECONCILE_INTERVAL_MS * 10);
    expect(delivered.id).toBe(event.id);
  }, 30_000);

  it('closes sockets with 4004 when their conversation is deleted', async () => {
    const created = await alice.post('/api/conversations', { body: { title: 'short-lived' } });
    const socket = await connect(created.body.id, withKey(ALICE_KEY));
    await socket.waitFor(() => socket.frames.length > 0, 'full_state');
    expect((await alice.delete(`/api/conversations/${created.body.id}`)).status).toBe(200);
    expect((await socket.waitForClose(RECONCILE_INTERVAL_MS * 10)).code).toBe(4004);
  }, 30_000);
});

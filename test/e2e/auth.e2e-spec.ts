import { HttpClient, type HttpResult, type RequestOptions } from '../support/http-client.js';
import { ALICE_KEY, BOB_KEY, CAROL_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, queryDatabase } from '../support/test-database.js';

type Json = Record<string, any>;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

const UNAUTHORIZED = { detail: 'Unauthorized' };
const NOT_OWNER = { detail: 'Only the conversation owner may access it' };
const UNKNOWN_CONVERSATION = '0b0e4d4e-8f4f-4f61-9a57-000000000000';
const WRONG_KEY = 'wrong-session-key-0123456789';
/** A stack trace line, a source location or an exception text: none may reach a client. */
const LEAK = /\n\s+at |\bat [\w.<>]+ \(|node_modules|\.(?:ts|js):\d+|TypeError|QueryFailedError|relation "|syntax error/;

interface Route {
  /** `{c}` is the conversation id, `{e}` an event id of it. */
  template: string;
  method: Method;
  body?: unknown;
  query?: RequestOptions['query'];
}

/** Every /api route of the controllers, with a request that would succeed for the owner. */
const ROUTES: Route[] = [
  { method: 'POST', template: '/api/conversations', body: { title: 'created by an intruder' } },
  { method: 'GET', template: '/api/conversations/search' },
  { method: 'GET', template: '/api/conversations/count' },
  { method: 'GET', template: '/api/conversations', query: { ids: '{c}' } },
  { method: 'GET', template: '/api/conversations/{c}' },
  { method: 'PATCH', template: '/api/conversations/{c}', body: { title: 'Hijacked' } },
  { method: 'DELETE', template: '/api/conversations/{c}' },
  { method: 'POST', template: '/api/conversations/{c}/confirmation_policy', body: { policy: { kind: 'AlwaysConfirm' } } },
  { method: 'GET', template: '/api/conversations/{c}/events' },
  { method: 'GET', template: '/api/conversations/{c}/events/count' },
  { method: 'GET', template: '/api/conversations/{c}/events/search' },
  { method: 'GET', template: '/api/conversations/{c}/events/{e}' },
  { method: 'POST', template: '/api/conversations/{c}/events', body: { content: [{ type: 'text', text: 'intruder' }], run: false } },
  { method: 'GET', template: '/api/settings' },
  { method: 'POST', template: '/api/settings', body: { language: 'xx' } },
];
const CONVERSATION_ROUTES = ROUTES.filter((route) => route.template.includes('/{c}'));
const route = (method: Method, template: string): Route => ROUTES.find((item) => item.method === method && item.template === template)!;
const label = (route: Route) => `${route.method} ${route.template}${route.query ? '?ids={c}' : ''}`;

/** The same request with another body or query, to put a bad one after the id checks. */
interface BadInput {
  route: Route;
  options: RequestOptions;
}
/** One request per conversation route whose query or body is invalid (422 for the owner). */
const BAD_INPUTS: Array<[string, BadInput]> = [
  ['PATCH with an empty title', { route: route('PATCH', '/api/conversations/{c}'), options: { body: { title: '' } } }],
  ['confirmation_policy with an unknown kind', { route: route('POST', '/api/conversations/{c}/confirmation_policy'), options: { body: { policy: { kind: 'Sometimes' } } } }],
  ['search with limit 0', { route: route('GET', '/api/conversations/{c}/events'), options: { query: { limit: 0 } } }],
  ['search with an unknown body field', { route: route('GET', '/api/conversations/{c}/events'), options: { body: { colour: 'red' } } }],
  ['count with an unknown kind', { route: route('GET', '/api/conversations/{c}/events/count'), options: { query: { include_types: 'Bogus' } } }],
  ['reference search with limit 101', { route: route('GET', '/api/conversations/{c}/events/search'), options: { query: { limit: 101 } } }],
  ['send with empty content', { route: route('POST', '/api/conversations/{c}/events'), options: { body: { content: [] } } }],
  ['send as the assistant', { route: route('POST', '/api/conversations/{c}/events'), options: { body: { role: 'assistant', content: [{ text: 'x' }] } } }],
];

describe('authentication and ownership', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let anonymous: HttpClient;
  let alice: HttpClient;
  let bob: HttpClient;
  /** Alice's conversation every route is tried on, and one of its events. */
  let conversationId: string;
  let eventId: string;

  const connect = () => {
    anonymous = new HttpClient(service.url, null);
    alice = new HttpClient(service.url, ALICE_KEY);
    bob = new HttpClient(service.url, BOB_KEY);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startServiceProcess({ databaseUrl: database.url });
    connect();
    const created = await alice.post('/api/conversations', {
      body: { title: 'Alice original', initial_message: { content: [{ type: 'text', text: 'private words' }], run: false } },
    });
    expect(created.status).toBe(201);
    conversationId = created.body.id;
    const events = await alice.get(`/api/conversations/${conversationId}/events`);
    eventId = events.body.events[0].id;
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  const pathOf = (route: Route, conversation = conversationId, event = eventId) =>
    route.template.replace('{c}', conversation).replace('{e}', event);
  const call = (client: HttpClient, route: Route, options: RequestOptions & { conversation?: string; event?: string } = {}) => {
    const query = options.query ?? (route.query ? { ids: options.conversation ?? conversationId } : undefined);
    return client.request(route.method, pathOf(route, options.conversation, options.event), {
      body: 'body' in options ? options.body : route.body,
      query,
      headers: options.headers,
      key: options.key,
      rawBody: options.rawBody,
    });
  };
  const statusAndBody = (response: HttpResult) => ({ status: response.status, body: response.body });

  /** Everything a request could have changed: alice's record, her events, her settings, all rows. */
  const snapshot = async () => ({
    record: statusAndBody(await alice.get(`/api/conversations/${conversationId}`)),
    events: statusAndBody(await alice.get(`/api/conversations/${conversationId}/events`, { query: { limit: 100 } })),
    settings: statusAndBody(await alice.get('/api/settings')),
    rows: await queryDatabase(
      database.url,
      `SELECT (SELECT count(*)::int FROM conversations) AS conversations, (SELECT count(*)::int FROM events) AS events,
              (SELECT count(*)::int FROM settings) AS settings`,
    ),
  });

  // ---------------------------------------------------------------- 401

  describe('401 without a valid key, on every /api route', () => {
    let before: Awaited<ReturnType<typeof snapshot>>;
    beforeAll(async () => {
      before = await snapshot();
      expect(before.record.status).toBe(200);
    });

    const credentials: Array<[string, RequestOptions]> = [
      ['no key', { key: null }],
      ['a wrong key', { key: WRONG_KEY }],
      ['an empty key', { key: null, headers: { 'X-Session-API-Key': '' } }],
      ["alice's key in upper case", { key: ALICE_KEY.toUpperCase() }],
      ['the key as a query parameter', { key: null, query: { session_api_key: ALICE_KEY } }],
      ['the key as a bearer token', { key: null, headers: { Authorization: `Bearer ${ALICE_KEY}` } }],
    ];

    it.each(ROUTES.flatMap((route) => credentials.map(([name, options]) => [label(route), name, route, options] as const)))(
      '%s with %s is 401 {"detail": "Unauthorized"}',
      async (_label, _name, route, options) => {
        const response = await call(anonymous, route, options);
        expect(statusAndBody(response)).toEqual({ status: 401, body: UNAUTHORIZED });
      },
    );

    it('every /api operation of the OpenAPI document answers 401 without a key (routes added later included)', async () => {
      const document = await anonymous.get('/openapi.json');
      expect(document.status).toBe(200);
      const operations: Array<[Method, string]> = [];
      for (const [path, item] of Object.entries(document.body.paths as Record<string, Json>)) {
        if (!path.startsWith('/api/')) continue;
        for (const method of Object.keys(item)) {
          if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) operations.push([method.toUpperCase() as Method, path]);
        }
      }
      const documented = operations.map(([method, path]) => `${method} ${path.replace('{conversation_id}', '{c}').replace('{event_id}', '{e}')}`);
      // The document lists at least the routes this suite knows.
      for (const route of ROUTES) expect(documented).toContain(`${route.method} ${route.template}`);
      const failures: string[] = [];
      for (const [method, path] of operations) {
        const concrete = path.replace('{conversation_id}', conversationId).replace('{event_id}', eventId).replace(/\{[^}]+\}/g, 'x');
        for (const key of [null, WRONG_KEY]) {
          const response = await anonymous.request(method, concrete, { key, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
          if (response.status !== 401 || response.body?.detail !== 'Unauthorized') {
            failures.push(`${method} ${path} (${key ? 'wrong key' : 'no key'}): ${response.status} ${response.text.slice(0, 120)}`);
          }
        }
      }
      expect(failures).toEqual([]);
    });

    describe('401 comes first', () => {
      it.each(CONVERSATION_ROUTES.map((route) => [label(route), route] as const))(
        '%s: a bad key with a malformed conversation id is 401, not 422',
        async (_label, route) => {
          for (const key of [null, WRONG_KEY]) {
            expect(statusAndBody(await call(anonymous, route, { key, conversation: 'not-a-uuid' }))).toEqual({ status: 401, body: UNAUTHORIZED });
          }
        },
      );

      it.each(CONVERSATION_ROUTES.map((route) => [label(route), route] as const))(
        '%s: a bad key with an unknown conversation is 401, not 404',
        async (_label, route) => {
          expect(statusAndBody(await call(anonymous, route, { key: WRONG_KEY, conversation: UNKNOWN_CONVERSATION }))).toEqual({
            status: 401,
            body: UNAUTHORIZED,
          });
        },
      );

      it.each(BAD_INPUTS)('%s: a bad key is 401, not 422', async (_name, { route, options }) => {
        expect(statusAndBody(await call(anonymous, route, { ...options, key: WRONG_KEY }))).toEqual({ status: 401, body: UNAUTHORIZED });
      });

      it.each([
        ['create with an unknown field', { method: 'POST', template: '/api/conversations' } as Route, { body: { colour: 'red' } }],
        ['search conversations with limit 0', { method: 'GET', template: '/api/conversations/search' } as Route, { query: { limit: 0 } }],
        ['count conversations with a bad status', { method: 'GET', template: '/api/conversations/count' } as Route, { query: { execution_status: 'dancing' } }],
        ['batch get with a malformed id', { method: 'GET', template: '/api/conversations' } as Route, { query: { ids: 'not-a-uuid' } }],
        ['settings with an unknown field', { method: 'POST', template: '/api/settings' } as Route, { body: { colour: 'red' } }],
      ])('%s: no key is 401, not 422', async (_name, route, options) => {
        expect(statusAndBody(await call(anonymous, route, { ...(options as RequestOptions), key: null }))).toEqual({ status: 401, body: UNAUTHORIZED });
      });
    });

    it('nothing was changed or created by the refused requests', async () => {
      expect(await snapshot()).toEqual(before);
    });
  });

  // ---------------------------------------------------------------- 403

  describe("403 for another user's conversation", () => {
    let before: Awaited<ReturnType<typeof snapshot>>;
    beforeAll(async () => {
      before = await snapshot();
    });

    it.each(CONVERSATION_ROUTES.map((route) => [label(route), route] as const))('bob: %s is 403', async (_label, route) => {
      expect(statusAndBody(await call(bob, route))).toEqual({ status: 403, body: NOT_OWNER });
    });

    it.each(CONVERSATION_ROUTES.map((route) => [label(route), route] as const))(
      'bob: %s with the id as 32 upper-case hex digits is 403 too',
      async (_label, route) => {
        const compact = conversationId.replace(/-/g, '').toUpperCase();
        expect(statusAndBody(await call(bob, route, { conversation: compact }))).toEqual({ status: 403, body: NOT_OWNER });
      },
    );

    it('every /api operation of the OpenAPI document on a conversation is 403 for bob (routes added later included)', async () => {
      const document = await anonymous.get('/openapi.json');
      const failures: string[] = [];
      for (const [path, item] of Object.entries(document.body.paths as Record<string, Json>)) {
        if (!path.startsWith('/api/') || !path.includes('{conversation_id}')) continue;
        for (const method of Object.keys(item)) {
          if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
          const concrete = path.replace('{conversation_id}', conversationId).replace('{event_id}', eventId).replace(/\{[^}]+\}/g, 'x');
          const response = await bob.request(method.toUpperCase(), concrete, { body: method === 'get' || method === 'delete' ? undefined : {} });
          if (response.status !== 403 || response.body?.detail !== NOT_OWNER.detail) {
            failures.push(`${method.toUpperCase()} ${path}: ${response.status} ${response.text.slice(0, 120)}`);
          }
        }
      }
      expect(failures).toEqual([]);
    });

    it("bob cannot take over alice's conversation id on create", async () => {
      const response = await bob.post('/api/conversations', { body: { conversation_id: conversationId, title: 'Mine now' } });
      expect(statusAndBody(response)).toEqual({ status: 403, body: NOT_OWNER });
    });

    it("bob's own listings do not show alice's conversation", async () => {
      const search = await bob.get('/api/conversations/search', { query: { limit: 100 } });
      expect(search.status).toBe(200);
      expect(search.body.items.map((item: Json) => item.id)).not.toContain(conversationId);
      expect((await bob.get('/api/conversations/count')).body).toBe(search.body.items.length);
      expect((await bob.get('/api/conversations', { query: { ids: conversationId } })).body).toEqual([null]);
    });

    it('alice finds everything as it was: record, title, policy, events', async () => {
      const after = await snapshot();
      expect(after).toEqual(before);
      expect(after.record.body).toMatchObject({ title: 'Alice original', confirmation_policy: { kind: 'NeverConfirm' }, event_count: 1 });
      expect(after.events.body.events.map((event: Json) => event.llm_message?.content?.[0]?.text)).toEqual(['private words']);
    });
  });

  // ---------------------------------------------------------------- order of checks

  describe('order of checks: 401, 422 path, 404, 403, 422 query/body', () => {
    it.each(CONVERSATION_ROUTES.map((route) => [label(route), route] as const))(
      '%s: a malformed conversation id is 422 at the path, for the owner and for another user alike',
      async (_label, route) => {
        for (const client of [alice, bob]) {
          const response = await call(client, route, { conversation: 'not-a-uuid' });
          expect(statusAndBody(response)).toEqual({
            status: 422,
            body: { detail: [{ loc: ['path', 'conversation_id'], msg: expect.any(String), type: 'uuid_parsing' }] },
          });
        }
      },
    );

    it.each(CONVERSATION_ROUTES.map((route) => [label(route), route] as const))(
      '%s: an unknown conversation is 404 for anyone (not 403)',
      async (_label, route) => {
        for (const client of [alice, bob]) {
          expect(statusAndBody(await call(client, route, { conversation: UNKNOWN_CONVERSATION }))).toEqual({
            status: 404,
            body: { detail: `Conversation not found: ${UNKNOWN_CONVERSATION}` },
          });
        }
      },
    );

    it.each(BAD_INPUTS)('%s: a malformed id wins over the bad input (422 at the path only)', async (_name, { route, options }) => {
      const response = await call(alice, route, { ...options, conversation: 'not-a-uuid' });
      expect(response.status).toBe(422);
      expect(response.body.detail.map((issue: Json) => issue.loc)).toEqual([['path', 'conversation_id']]);
    });

    it.each(BAD_INPUTS)('%s: an unknown conversation is 404 before the bad input', async (_name, { route, options }) => {
      const response = await call(alice, route, { ...options, conversation: UNKNOWN_CONVERSATION });
      expect(statusAndBody(response)).toEqual({ status: 404, body: { detail: `Conversation not found: ${UNKNOWN_CONVERSATION}` } });
    });

    it.each(BAD_INPUTS)("%s: on alice's conversation bob gets 403 before the bad input", async (_name, { route, options }) => {
      expect(statusAndBody(await call(bob, route, options))).toEqual({ status: 403, body: NOT_OWNER });
    });

    it.each(BAD_INPUTS)('%s: the owner gets the 422 for the query or body', async (_name, { route, options }) => {
      const response = await call(alice, route, options);
      expect(response.status).toBe(422);
      const roots = new Set(response.body.detail.map((issue: Json) => issue.loc[0]));
      expect([...roots]).toEqual([options.body !== undefined ? 'body' : 'query']);
    });

    it("an unknown event in alice's conversation is 403 for bob, 404 for alice", async () => {
      const getEvent = route('GET', '/api/conversations/{c}/events/{e}');
      expect(statusAndBody(await call(bob, getEvent, { event: '01JDQ8X5W3K4M2N7P9R0S0NONE' }))).toEqual({ status: 403, body: NOT_OWNER });
      expect(statusAndBody(await call(alice, getEvent, { event: '01JDQ8X5W3K4M2N7P9R0S0NONE' }))).toEqual({
        status: 404,
        body: { detail: 'Event not found: 01JDQ8X5W3K4M2N7P9R0S0NONE' },
      });
    });

    it('the refused requests changed nothing', async () => {
      const record = await alice.get(`/api/conversations/${conversationId}`);
      expect(record.body).toMatchObject({ title: 'Alice original', event_count: 1, confirmation_policy: { kind: 'NeverConfirm' } });
    });
  });

  // ---------------------------------------------------------------- public routes

  describe('public routes', () => {
    it.each(['/alive', '/health', '/ready', '/docs', '/openapi.json'])('%s needs no key, and a wrong key does not block it', async (path) => {
      for (const key of [null, WRONG_KEY]) {
        const response = await anonymous.get(path, { key });
        expect(response.status).toBe(200);
      }
    });
  });

  // ---------------------------------------------------------------- 500s

  describe('errors never show a stack or exception text', () => {
    const nasty: Array<[string, () => Promise<HttpResult>]> = [
      ['NUL in an event id', () => alice.get(`/api/conversations/${conversationId}/events/a%00b`)],
      ['NUL in a search query', () => alice.get(`/api/conversations/${conversationId}/events`, { query: { query: 'a\u0000b' } })],
      ['NUL in a body filter', () => alice.get(`/api/conversations/${conversationId}/events`, { body: { query: 'a\u0000b' } })],
      ['NUL in a page_id', () => alice.get(`/api/conversations/${conversationId}/events/search`, { query: { page_id: 'a\u0000' } })],
      ['NUL in the reference body filter', () => alice.get(`/api/conversations/${conversationId}/events/search`, { query: { body: 'a\u0000' } })],
      ['NUL in a message', () => alice.post(`/api/conversations/${conversationId}/events`, { body: { content: [{ text: 'a\u0000b' }] } })],
      ['an unpaired surrogate in a message', () => alice.post(`/api/conversations/${conversationId}/events`, { body: { content: [{ text: '\udc00' }] } })],
      ['NUL in a title', () => alice.patch(`/api/conversations/${conversationId}`, { body: { title: 'a\u0000b' } })],
      ['an unpaired surrogate in a title', () => alice.patch(`/api/conversations/${conversationId}`, { body: { title: 'a\ud800' } })],
      ['NUL in a tag of a new conversation', () => alice.post('/api/conversations', { body: { tags: { team: 'a\u0000' } } })],
      ['NUL in title__contains', () => alice.get('/api/conversations/search', { query: { title__contains: '\u0000' } })],
      ['a null content item', () => alice.post(`/api/conversations/${conversationId}/events`, { body: { content: [null] } })],
      ['a null item in an initial message', () => alice.post('/api/conversations', { body: { initial_message: { content: [null] } } })],
      ['a start_id beyond 64 bits', () => alice.get(`/api/conversations/${conversationId}/events`, { query: { start_id: '99999999999999999999' } })],
      ['an end_id beyond 64 bits', () => alice.get(`/api/conversations/${conversationId}/events`, { query: { end_id: '99999999999999999999' } })],
      ['max_iterations beyond 32 bits', () => alice.post('/api/conversations', { body: { max_iterations: 99999999999999 } })],
      ['a very deep body', () => alice.post(`/api/conversations/${conversationId}/events`, { rawBody: '['.repeat(5000) + ']'.repeat(5000) })],
      ['a page token that is not one', () => alice.get('/api/conversations/search', { query: { page_id: '%%%' } })],
      ['a huge limit', () => alice.get(`/api/conversations/${conversationId}/events`, { query: { limit: '1e400' } })],
      ['a date past year 9999', () => alice.get(`/api/conversations/${conversationId}/events`, { query: { start_date: '99999-01-01' } })],
      ['a content type that is not JSON', () => alice.post(`/api/conversations/${conversationId}/events`, { rawBody: 'content=x', headers: { 'Content-Type': 'text/plain' } })],
    ];

    it.each(nasty)('%s is a 4xx with a JSON detail and nothing leaked', async (_name, request) => {
      const before = await queryDatabase<{ n: number }>(database.url, 'SELECT count(*)::int AS n FROM events');
      const response = await request();
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body.detail).toBeDefined();
      expect(response.text).not.toMatch(LEAK);
      expect(await queryDatabase(database.url, 'SELECT count(*)::int AS n FROM events')).toEqual(before);
    });

    it('settings refuse a max_iterations no conversation could hold; the largest allowed becomes the default', async () => {
      const carol = new HttpClient(service.url, CAROL_KEY);
      const refused = await carol.post('/api/settings', { body: { max_iterations: 99999999999999 } });
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(['body', 'max_iterations']);
      expect((await carol.post('/api/settings', { body: { max_iterations: 1_000_000 } })).status).toBe(200);
      const created = await carol.post('/api/conversations', { body: {} });
      expect(created.status).toBe(201);
      expect(created.body.max_iterations).toBe(1_000_000);
      expect((await carol.post('/api/conversations', { body: { max_iterations: 7 } })).body.max_iterations).toBe(7);
    });

    it('a real server error is 500 {"detail": "Internal Server Error"} without the database error', async () => {
      await queryDatabase(database.url, 'ALTER TABLE events RENAME TO events_hidden_by_test');
      try {
        const responses = [
          await alice.get(`/api/conversations/${conversationId}/events`),
          await alice.get(`/api/conversations/${conversationId}/events/${eventId}`),
          await alice.post(`/api/conversations/${conversationId}/events`, { body: { content: [{ text: 'x' }] } }),
        ];
        for (const response of responses) {
          expect(statusAndBody(response)).toEqual({ status: 500, body: { detail: 'Internal Server Error' } });
          expect(response.text).not.toMatch(LEAK);
        }
      } finally {
        await queryDatabase(database.url, 'ALTER TABLE events_hidden_by_test RENAME TO events');
      }
      expect((await alice.get(`/api/conversations/${conversationId}/events/${eventId}`)).status).toBe(200);
    });
  });

  // ---------------------------------------------------------------- restart (last: replaces the service)

  describe('a restart keeps everything', () => {
    it('records, events, positions, titles and idempotency keys survive; appends continue at the next position', async () => {
      const send = (client: HttpClient, id: string, value: string, key?: string) =>
        client.post(`/api/conversations/${id}/events`, {
          body: { content: [{ type: 'text', text: value }] },
          headers: key ? { 'Idempotency-Key': key } : undefined,
        });
      const first = (await alice.post('/api/conversations', { body: { title: 'Before restart' } })).body.id as string;
      const second = (await alice.post('/api/conversations', { body: { title: 'Second one' } })).body.id as string;
      const bobs = (await bob.post('/api/conversations', { body: { title: "Bob's" } })).body.id as string;
      for (const value of ['one', 'two', 'three']) expect((await send(alice, first, value)).status).toBe(200);
      expect((await send(alice, first, 'retried', 'restart-key')).status).toBe(200);
      expect((await alice.patch(`/api/conversations/${first}`, { body: { title: 'Renamed before restart' } })).status).toBe(200);
      expect((await alice.post(`/api/conversations/${second}/confirmation_policy`, { body: { policy: { kind: 'AlwaysConfirm' } } })).status).toBe(200);
      expect((await send(bob, bobs, "bob's words")).status).toBe(200);

      const capture = async () => {
        const state: Json = {};
        for (const [client, id] of [[alice, first], [alice, second], [alice, conversationId], [bob, bobs]] as const) {
          state[id] = {
            record: (await client.get(`/api/conversations/${id}`)).body,
            events: (await client.get(`/api/conversations/${id}/events`, { query: { limit: 100 } })).body,
          };
        }
        state.aliceList = (await alice.get('/api/conversations/search', { query: { limit: 100 } })).body;
        return state;
      };
      const before = await capture();
      expect(before[first].events.events).toHaveLength(5);

      await service.stop();
      service = await startServiceProcess({ databaseUrl: database.url });
      connect();

      const after = await capture();
      expect(after).toEqual(before);
      expect(after[first].record).toMatchObject({ title: 'Renamed before restart', event_count: 5 });
      expect(after[second].record.confirmation_policy).toEqual({ kind: 'AlwaysConfirm' });
      expect(statusAndBody(await bob.get(`/api/conversations/${first}`))).toEqual({ status: 403, body: NOT_OWNER });

      // The idempotency key is remembered across the restart.
      expect((await send(alice, first, 'retried', 'restart-key')).status).toBe(200);
      expect((await alice.get(`/api/conversations/${first}/events/count`)).body).toBe(5);

      // A new append takes position 5, the next one.
      expect((await send(alice, first, 'after restart')).status).toBe(200);
      const tail = await alice.get(`/api/conversations/${first}/events`, { query: { start_id: 5 } });
      expect(tail.body).toEqual({ events: [expect.objectContaining({ kind: 'MessageEvent' })], has_more: false, next_id: null });
      expect(tail.body.events[0].llm_message.content[0].text).toBe('after restart');
      const whole = await alice.get(`/api/conversations/${first}/events`, { query: { limit: 100 } });
      expect(whole.body.events.slice(0, 5)).toEqual(before[first].events.events);
      expect((await alice.get(`/api/conversations/${first}`)).body.event_count).toBe(6);
    });
  });
});

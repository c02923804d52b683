import { createTestDatabase, queryDatabase } from '../support/test-database.js';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, BOB_KEY, CAROL_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';

describe('conversations', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let alice: HttpClient;
  let bob: HttpClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startServiceProcess({ databaseUrl: database.url });
    alice = new HttpClient(service.url, ALICE_KEY);
    bob = new HttpClient(service.url, BOB_KEY);
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  const create = async (body: Record<string, unknown> = {}) => {
    const response = await alice.post('/api/conversations', { body });
    expect(response.status).toBe(201);
    return response.body as Record<string, any>;
  };

  it('creates a conversation with the contract record fields', async () => {
    const record = await create({ title: '  Plan the release  ' });
    expect(record).toMatchObject({
      title: 'Plan the release',
      owner: 'alice',
      execution_status: 'idle',
      confirmation_policy: { kind: 'NeverConfirm' },
      max_iterations: 500,
      event_count: 0,
      stats: {},
    });
    expect(record.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Date(record.created_at).toISOString()).toBe(record.created_at);
    const fetched = await alice.get(`/api/conversations/${record.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(record);
  });

  it('appends an initial message without running when run is false', async () => {
    const record = await create({ initial_message: { content: [{ type: 'text', text: 'hello there' }], run: false } });
    expect(record.event_count).toBe(1);
    const events = await alice.get(`/api/conversations/${record.id}/events`);
    expect(events.body.events).toHaveLength(1);
    expect(events.body.events[0]).toMatchObject({ kind: 'MessageEvent', source: 'user', llm_message: { role: 'user' } });
  });

  it('accepts the reference StartConversationRequest and masks the api key', async () => {
    const secret = 'sk-reference-secret-value-123';
    const response = await alice.post('/api/conversations', {
      body: {
        agent: { kind: 'Agent', llm: { model: 'openai/gpt-4o', api_key: secret, usage_id: 'agent' }, tools: [{ name: 'terminal' }] },
        workspace: { kind: 'LocalWorkspace', working_dir: '/workspace/project' },
        confirmation_policy: { kind: 'ConfirmRisky' },
        max_iterations: 42,
        tags: { team: 'core' },
        user_id: 'ignored',
      },
    });
    expect(response.status).toBe(201);
    expect(response.text).not.toContain(secret);
    expect(response.body).toMatchObject({
      owner: 'alice',
      max_iterations: 42,
      confirmation_policy: { kind: 'ConfirmRisky', threshold: 'HIGH', confirm_unknown: true },
      agent: { llm: { model: 'openai/gpt-4o', api_key: '**********' } },
      tags: { team: 'core' },
    });
    expect(response.body.workspace.working_dir).toMatch(/\/alice\/workspace\/project$/);
    const [row] = await queryDatabase(database.url, 'SELECT row_to_json(c)::text AS row FROM conversations c WHERE id = $1', [response.body.id]);
    expect(String(row.row)).not.toContain(secret);
  });

  it('keeps secrets given at creation encrypted: security analyzer key masked, secrets never served', async () => {
    const analyzerKey = 'grayswan-key-value-5521';
    const secretValue = 'custom-secret-value-7730';
    const response = await alice.post('/api/conversations', {
      body: {
        security_analyzer: { kind: 'GraySwanAnalyzer', api_key: analyzerKey },
        secrets: { DEPLOY_TOKEN: secretValue },
      },
    });
    expect(response.status).toBe(201);
    expect(response.body.security_analyzer).toMatchObject({ kind: 'GraySwanAnalyzer', api_key: '**********' });
    for (const text of [response.text, (await alice.get(`/api/conversations/${response.body.id}`)).text]) {
      expect(text).not.toContain(analyzerKey);
      expect(text).not.toContain(secretValue);
    }
    const [row] = await queryDatabase(database.url, 'SELECT row_to_json(c)::text AS row FROM conversations c WHERE id = $1', [response.body.id]);
    expect(String(row.row)).not.toContain(analyzerKey);
    expect(String(row.row)).not.toContain(secretValue);
    const invalid = await alice.post('/api/conversations', { body: { security_analyzer: { kind: 'Nonsense' } } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0].loc).toEqual(['body', 'security_analyzer', 'kind']);
  });

  it('conversation_id: 201 when new, 200 when it is already yours, 403 when it is someone else\'s', async () => {
    const id = '5b1d7c5e-1a47-4c1e-9a52-0d6f0c3c9a11';
    expect((await alice.post('/api/conversations', { body: { conversation_id: id } })).status).toBe(201);
    expect((await alice.post('/api/conversations', { body: { conversation_id: id } })).status).toBe(200);
    const other = await bob.post('/api/conversations', { body: { conversation_id: id } });
    expect(other.status).toBe(403);
  });

  it('rejects a working_dir that escapes the workspace root', async () => {
    const response = await alice.post('/api/conversations', { body: { workspace: { working_dir: '../bob/secrets' } } });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['body', 'workspace', 'working_dir']);
  });

  it.each([
    [{ title: '' }, ['body', 'title']],
    [{ max_iterations: 0 }, ['body', 'max_iterations']],
    [{ confirmation_policy: { kind: 'Sometimes' } }, ['body', 'confirmation_policy', 'kind']],
    [{ unknown_field: 1 }, ['body', 'unknown_field']],
    [{ initial_message: { content: [] } }, ['body', 'initial_message', 'content']],
  ])('create rejects %j with 422 at %j', async (body, loc) => {
    const before = await alice.get<number>('/api/conversations/count');
    const response = await alice.post('/api/conversations', { body });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) })]));
    expect((await alice.get<number>('/api/conversations/count')).body).toBe(before.body);
  });

  describe('rename', () => {
    it('trims the title, answers success and appends a title state update', async () => {
      const { id } = await create();
      const response = await alice.patch(`/api/conversations/${id}`, { body: { title: '  New name ' } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true });
      expect((await alice.get(`/api/conversations/${id}`)).body.title).toBe('New name');
      const events = await alice.get(`/api/conversations/${id}/events`);
      expect(events.body.events).toEqual([
        expect.objectContaining({ kind: 'ConversationStateUpdateEvent', key: 'title', value: 'New name', source: 'environment' }),
      ]);
    });

    it.each([
      [{ title: '   ' }],
      [{ title: '' }],
      [{ title: 'x'.repeat(201) }],
      [{}],
      [{ title: 5 }],
      [{ title: 'ok', extra: true }],
    ])('rejects %j with 422 and changes nothing', async (body) => {
      const { id } = await create({ title: 'Original' });
      const response = await alice.patch(`/api/conversations/${id}`, { body });
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc[0]).toBe('body');
      const after = await alice.get(`/api/conversations/${id}`);
      expect(after.body.title).toBe('Original');
      expect(after.body.event_count).toBe(0);
    });

    it('accepts exactly 200 characters', async () => {
      const { id } = await create();
      expect((await alice.patch(`/api/conversations/${id}`, { body: { title: 'y'.repeat(200) } })).status).toBe(200);
    });

    it('is for the owner only: 403 and nothing changes', async () => {
      const { id } = await create({ title: 'Mine' });
      const response = await bob.patch(`/api/conversations/${id}`, { body: { title: 'Theirs' } });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ detail: 'Only the conversation owner may access it' });
      expect((await alice.get(`/api/conversations/${id}`)).body.title).toBe('Mine');
    });
  });

  it('deletes a conversation and its events', async () => {
    const { id } = await create({ initial_message: { content: [{ text: 'bye' }], run: false } });
    expect((await alice.delete(`/api/conversations/${id}`)).body).toEqual({ success: true });
    expect((await alice.get(`/api/conversations/${id}`)).status).toBe(404);
    const rows = await queryDatabase(database.url, 'SELECT count(*)::int AS n FROM events WHERE conversation_id = $1', [id]);
    expect(rows[0].n).toBe(0);
  });

  it('404 for an unknown conversation, 422 for a malformed id', async () => {
    const unknown = await alice.get('/api/conversations/0b0e4d4e-8f4f-4f61-9a57-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Conversation not found: 0b0e4d4e-8f4f-4f61-9a57-000000000000' });
    const malformed = await alice.get('/api/conversations/not-a-uuid');
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ loc: ['path', 'conversation_id'], type: 'uuid_parsing' });
  });

  it('accepts a conversation id written as 32 hex digits', async () => {
    const { id } = await create();
    const response = await alice.get(`/api/conversations/${id.replace(/-/g, '').toUpperCase()}`);
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(id);
  });

  describe('search and count', () => {
    let user: HttpClient;
    beforeAll(async () => {
      // A user of its own, so other tests' conversations do not count.
      user = new HttpClient(service.url, CAROL_KEY);
      for (let index = 0; index < 25; index++) {
        const response = await user.post('/api/conversations', { body: { title: index % 5 === 0 ? `Report ${index}` : `Chat ${index}` } });
        expect(response.status).toBe(201);
      }
    });

    it('pages newest first with next_page_id and no duplicates', async () => {
      const seen: string[] = [];
      let pageId: string | undefined;
      let pages = 0;
      do {
        const response = await user.get('/api/conversations/search', { query: { limit: 10, page_id: pageId } });
        expect(response.status).toBe(200);
        seen.push(...response.body.items.map((item: { title: string }) => item.title));
        pageId = response.body.next_page_id ?? undefined;
        pages++;
      } while (pageId);
      expect(pages).toBe(3);
      expect(seen).toHaveLength(25);
      expect(seen[0]).toBe('Chat 24');
      expect(seen[24]).toBe('Report 0');
    });

    it('sorts oldest first on request and filters by title', async () => {
      const ascending = await user.get('/api/conversations/search', { query: { sort_order: 'CREATED_AT', limit: 3 } });
      expect(ascending.body.items.map((item: { title: string }) => item.title)).toEqual(['Report 0', 'Chat 1', 'Chat 2']);
      const reports = await user.get('/api/conversations/search', { query: { title__contains: 'report' } });
      expect(reports.body.items).toHaveLength(5);
      expect((await user.get('/api/conversations/count', { query: { title__contains: 'REPORT' } })).body).toBe(5);
      expect((await user.get('/api/conversations/count')).body).toBe(25);
      expect((await user.get('/api/conversations/count', { query: { execution_status: 'running' } })).body).toBe(0);
    });

    it.each([['limit', 0], ['limit', 101], ['limit', 'abc'], ['sort_order', 'SIDEWAYS'], ['execution_status', 'dancing'], ['page_id', 'garbage']])(
      'rejects %s=%s with 422',
      async (name, value) => {
        const response = await user.get('/api/conversations/search', { query: { [name]: value } });
        expect(response.status).toBe(422);
        expect(response.body.detail[0].loc).toEqual(['query', name]);
      },
    );

    it('batch get returns records in order and null for unknown or foreign ids', async () => {
      const [first] = (await user.get('/api/conversations/search', { query: { limit: 1 } })).body.items;
      const foreign = await create();
      const unknown = '0b0e4d4e-8f4f-4f61-9a57-000000000000';
      const response = await user.get('/api/conversations', { query: { ids: `${first.id},${unknown},${foreign.id}` } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual([expect.objectContaining({ id: first.id }), null, null]);
    });
  });
});

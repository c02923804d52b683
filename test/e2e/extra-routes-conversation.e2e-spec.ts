// ask_agent, generate_title, secrets, security_analyzer and server_info, over HTTP against a real service
// process, PostgreSQL and the scripted fake LLM.
import { randomUUID } from 'node:crypto';
import { SecretCipher } from '../../src/settings/secret-cipher.js';
import { allEvents, llmAgent, waitForStatus } from '../support/agent-helpers.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, BOB_KEY, startServiceProcess, TEST_SECRETS_KEY, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, queryDatabase } from '../support/test-database.js';

const LLM_KEY = 'sk-test-llm-secret-extra-0001';
const FIRST_MESSAGE = 'Please refactor the parser module so that nested brackets are handled correctly';

describe('extra conversation routes: ask_agent, generate_title, secrets, security_analyzer, server_info', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let llm: FakeLlm;
  let otherLlm: FakeLlm;
  let anonymous: HttpClient;
  let alice: HttpClient;
  let bob: HttpClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    [llm, otherLlm] = await Promise.all([startFakeLlm(), startFakeLlm()]);
    service = await startServiceProcess({ databaseUrl: database.url, env: { LLM_MAX_RETRIES: '1', LLM_TIMEOUT_MS: '5000' } });
    anonymous = new HttpClient(service.url);
    alice = anonymous.withKey(ALICE_KEY);
    bob = anonymous.withKey(BOB_KEY);
  });
  afterAll(async () => {
    await service?.stop();
    await Promise.all([llm?.close(), otherLlm?.close()]);
    await database?.drop();
  });
  beforeEach(() => {
    llm.reset();
    otherLlm.reset();
  });

  /** Alice's conversation with its first message stored (not run); with the fake LLM unless `withLlm` is false. */
  async function conversation(withLlm = true, text: string | null = FIRST_MESSAGE): Promise<string> {
    const created = await alice.post('/api/conversations', {
      body: {
        ...(withLlm ? { agent: llmAgent(llm.url, LLM_KEY) } : {}),
        ...(text ? { initial_message: { content: [{ type: 'text', text }], run: false } } : {}),
      },
    });
    expect(created.status).toBe(201);
    return created.body.id;
  }

  const route = (id: string, name: string) => `/api/conversations/${id}/${name}`;

  describe('every route: 401, 422 path, 404, 403, unknown body field', () => {
    const bodies: Record<string, unknown> = {
      ask_agent: { question: 'Hi?' },
      generate_title: {},
      secrets: { secrets: { A: 'b' } },
      security_analyzer: { security_analyzer: null },
    };
    it.each(Object.keys(bodies))('%s', async (name) => {
      const id = await conversation(false);
      const body = bodies[name];
      expect((await anonymous.post(route(id, name), { body })).status).toBe(401);
      expect((await alice.post(route('not-a-uuid', name), { body })).body.detail[0]).toMatchObject({ loc: ['path', 'conversation_id'] });
      expect((await alice.post(route(randomUUID(), name), { body })).status).toBe(404);
      const foreign = await bob.post(route(id, name), { body });
      expect(foreign).toMatchObject({ status: 403, body: { detail: 'Only the conversation owner may access it' } });
      const extra = await alice.post(route(id, name), { body: { ...(body as object), surplus: 1 } });
      expect(extra.status).toBe(422);
      expect(extra.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'surplus'], type: 'extra_forbidden' }));
      expect((await alice.post(route(id, name), { rawBody: '{"question": ' })).status).toBe(422);
    });
  });

  describe('ask_agent', () => {
    it('answers from the conversation as the agent sees it, with tool calls as text, and adds no event', async () => {
      const created = await alice.post('/api/conversations', { body: { agent: llmAgent(llm.url, LLM_KEY) } });
      const id = created.body.id;
      llm.enqueue(
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo parsed' } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'Done.' } }] },
      );
      await alice.post(`/api/conversations/${id}/events`, { body: { content: [{ type: 'text', text: 'Run echo parsed' }], run: true } });
      await waitForStatus(alice, id, ['finished']);
      const before = await allEvents(alice, id);
      llm.reset();
      llm.enqueue({ text: 'I ran echo and it printed parsed.' });

      const asked = await alice.post(route(id, 'ask_agent'), { body: { question: 'What did you run?' } });
      expect(asked).toMatchObject({ status: 200, body: { response: 'I ran echo and it printed parsed.' } });
      const request = llm.requests[0].body;
      expect(request.tools ?? []).toEqual([]);
      expect(request.messages.some((message: { role: string }) => message.role === 'tool')).toBe(false);
      expect(request.messages.some((message: { tool_calls?: unknown[] }) => message.tool_calls?.length)).toBe(false);
      expect(JSON.stringify(request.messages)).toContain('Called the tool terminal');
      expect(JSON.stringify(request.messages)).toContain('Run echo parsed');
      expect(request.messages.at(-1)).toMatchObject({ role: 'user' });
      expect(JSON.stringify(request.messages.at(-1))).toContain('What did you run?');
      expect(await allEvents(alice, id)).toEqual(before);
    });

    it('409 when no LLM is configured; 502 or 503 when the LLM fails, never with its key', async () => {
      const bare = await conversation(false);
      const none = await alice.post(route(bare, 'ask_agent'), { body: { question: 'Anyone?' } });
      expect(none.status).toBe(409);
      expect(none.body.detail).toMatch(/llm_model/);

      const id = await conversation();
      llm.enqueue({ status: 401 });
      const refused = await alice.post(route(id, 'ask_agent'), { body: { question: 'Hello?' } });
      expect(refused.status).toBe(502);
      expect(refused.text).not.toContain(LLM_KEY);
      expect(llm.requests[0].headers.authorization).toBe(`Bearer ${LLM_KEY}`);

      llm.enqueue({ status: 500 }, { status: 500 });
      const down = await alice.post(route(id, 'ask_agent'), { body: { question: 'Hello?' } });
      expect(down.status).toBe(503);
      expect(typeof down.body.detail).toBe('string');
    });

    it('422 without a question, with an empty one or a non-string', async () => {
      const id = await conversation(false);
      for (const body of [{}, { question: '' }, { question: 5 }, null]) {
        const answer = await alice.post(route(id, 'ask_agent'), { body });
        expect(answer.status).toBe(422);
        expect(answer.body.detail[0].loc).toEqual(['body', 'question']);
      }
    });
  });

  describe('generate_title', () => {
    it('asks the LLM about the first message, cleans and stores the title (state update event)', async () => {
      const id = await conversation();
      llm.enqueue({ text: '"Title: Fix nested brackets in the parser"\nBecause...' });
      const generated = await alice.post(route(id, 'generate_title'), { body: {} });
      expect(generated).toMatchObject({ status: 200, body: { title: 'Fix nested brackets in the parser' } });
      expect(JSON.stringify(llm.requests[0].body.messages)).toContain(FIRST_MESSAGE);
      expect(JSON.stringify(llm.requests[0].body.messages)).toContain('at most 50 characters');
      expect((await alice.get(`/api/conversations/${id}`)).body.title).toBe('Fix nested brackets in the parser');
      const events = await allEvents(alice, id);
      expect(events.at(-1)).toMatchObject({ kind: 'ConversationStateUpdateEvent', key: 'title', value: 'Fix nested brackets in the parser' });
    });

    it('cuts a long LLM title to max_length', async () => {
      const id = await conversation();
      llm.enqueue({ text: 'A very long title that goes on and on about the parser' });
      const generated = await alice.post(route(id, 'generate_title'), { body: { max_length: 20 } });
      expect(generated.body.title).toBe('A very long title...');
      expect(generated.body.title.length).toBeLessThanOrEqual(20);
    });

    it('falls back to the first message, cut to max_length, without an LLM or when it fails', async () => {
      const bare = await conversation(false);
      const fallback = await alice.post(route(bare, 'generate_title'), { body: { max_length: 30 } });
      expect(fallback).toMatchObject({ status: 200, body: { title: 'Please refactor the parser...' } });
      expect((await alice.get(`/api/conversations/${bare}`)).body.title).toBe('Please refactor the parser...');

      const id = await conversation();
      llm.enqueue({ status: 401 });
      const failed = await alice.post(route(id, 'generate_title'), { body: { max_length: 200 } });
      expect(failed).toMatchObject({ status: 200, body: { title: FIRST_MESSAGE } });
    });

    it('uses the LLM the request names, never sending the stored key to another base URL', async () => {
      const id = await conversation();
      otherLlm.enqueue({ text: 'Bracket parsing' });
      const generated = await alice.post(route(id, 'generate_title'), {
        body: { llm: { model: 'openai/title-model', base_url: otherLlm.url, usage_id: 'title' } },
      });
      expect(generated.body.title).toBe('Bracket parsing');
      expect(llm.requests).toHaveLength(0);
      expect(otherLlm.requests[0].body.model).toBe('title-model');
      expect(JSON.stringify(otherLlm.requests[0].headers)).not.toContain(LLM_KEY);
    });

    it('409 before any user message; 422 for a bad max_length or llm', async () => {
      const empty = await conversation(true, null);
      const none = await alice.post(route(empty, 'generate_title'), { body: {} });
      expect(none.status).toBe(409);
      expect(llm.requests).toHaveLength(0);

      const id = await conversation(false);
      const bad: Array<[unknown, unknown[]]> = [
        [{ max_length: 0 }, ['body', 'max_length']],
        [{ max_length: 201 }, ['body', 'max_length']],
        [{ max_length: 'long' }, ['body', 'max_length']],
        [{ llm: 'gpt' }, ['body', 'llm']],
        [{ llm: { model: 5 } }, ['body', 'llm', 'model']],
      ];
      for (const [body, loc] of bad) {
        const answer = await alice.post(route(id, 'generate_title'), { body });
        expect(answer.status).toBe(422);
        expect(answer.body.detail[0].loc).toEqual(loc);
      }
      expect((await alice.get(`/api/conversations/${id}`)).body.title).toBeNull();
    });
  });

  describe('secrets', () => {
    const cipher = new SecretCipher(Buffer.from(TEST_SECRETS_KEY, 'hex'));
    async function storedSecrets(id: string): Promise<Record<string, any>> {
      const [row] = await queryDatabase<{ secrets: string }>(database.url, 'SELECT secrets FROM conversations WHERE id = $1', [id]);
      expect(row.secrets).toMatch(/^v1:/);
      return JSON.parse(cipher.decrypt(row.secrets, `conversation:${id}`));
    }

    it('merges into the encrypted secrets, keeps the LLM key, and never serves them', async () => {
      const id = await conversation();
      expect((await alice.post(route(id, 'secrets'), { body: { secrets: { TOKEN: { kind: 'StaticSecret', value: 'static-secret-111' } } } })).body).toEqual({ success: true });
      const second = await alice.post(route(id, 'secrets'), {
        body: {
          secrets: {
            PLAIN: 'plain-secret-222',
            LOOKUP: { kind: 'LookupSecret', url: 'https://vault.example/s', headers: { Authorization: 'Bearer lookup-secret-333' } },
            TOKEN: { kind: 'StaticSecret', value: 'static-secret-444', description: 'replaced' },
          },
        },
      });
      expect(second).toMatchObject({ status: 200, body: { success: true } });

      const stored = await storedSecrets(id);
      expect(stored.llm_api_key).toBe(LLM_KEY);
      expect(stored.secrets).toEqual({
        TOKEN: { kind: 'StaticSecret', value: 'static-secret-444', description: 'replaced' },
        PLAIN: { kind: 'StaticSecret', value: 'plain-secret-222', description: null },
        LOOKUP: { kind: 'LookupSecret', url: 'https://vault.example/s', headers: { Authorization: 'Bearer lookup-secret-333' }, description: null },
      });
      const [raw] = await queryDatabase<{ row: string }>(database.url, 'SELECT row_to_json(c)::text AS row FROM conversations c WHERE id = $1', [id]);
      const served = [
        (await alice.get(`/api/conversations/${id}`)).text,
        (await alice.get('/api/conversations/search')).text,
        JSON.stringify(await allEvents(alice, id)),
        raw.row,
      ].join('\n');
      for (const secret of ['static-secret-111', 'plain-secret-222', 'lookup-secret-333', 'static-secret-444', LLM_KEY]) {
        expect(served).not.toContain(secret);
      }
    });

    it('422 for a missing or malformed secrets map', async () => {
      const id = await conversation(false);
      const bad: Array<[unknown, unknown[]]> = [
        [{}, ['body', 'secrets']],
        [{ secrets: 'x' }, ['body', 'secrets']],
        [{ secrets: { A: 5 } }, ['body', 'secrets', 'A']],
        [{ secrets: { A: { kind: 'Vault', value: 'x' } } }, ['body', 'secrets', 'A', 'kind']],
        [{ secrets: { A: { kind: 'StaticSecret', value: 7 } } }, ['body', 'secrets', 'A', 'value']],
        [{ secrets: { A: { kind: 'StaticSecret', value: 'x', colour: 'red' } } }, ['body', 'secrets', 'A', 'colour']],
        [{ secrets: { A: { kind: 'LookupSecret' } } }, ['body', 'secrets', 'A', 'url']],
        [{ secrets: { A: { kind: 'LookupSecret', url: 'https://x', headers: { h: 1 } } } }, ['body', 'secrets', 'A', 'headers']],
        [{ secrets: { '': 'x' } }, ['body', 'secrets', '']],
      ];
      for (const [body, loc] of bad) {
        const answer = await alice.post(route(id, 'secrets'), { body });
        expect([answer.status, answer.body.detail[0].loc]).toEqual([422, loc]);
      }
      const [row] = await queryDatabase<{ secrets: string | null }>(database.url, 'SELECT secrets FROM conversations WHERE id = $1', [id]);
      expect(row.secrets).toBeNull();
    });
  });

  describe('security_analyzer', () => {
    it('sets, replaces and removes it, each with a state update event; an api_key is masked everywhere', async () => {
      const id = await conversation(false);
      expect((await alice.post(route(id, 'security_analyzer'), { body: { security_analyzer: { kind: 'LLMSecurityAnalyzer' } } })).body).toEqual({ success: true });
      expect((await alice.get(`/api/conversations/${id}`)).body.security_analyzer).toEqual({ kind: 'LLMSecurityAnalyzer' });

      const grayswan = await alice.post(route(id, 'security_analyzer'), {
        body: { security_analyzer: { kind: 'GraySwanAnalyzer', api_key: 'gs-secret-555', history_limit: 5 } },
      });
      expect(grayswan.status).toBe(200);
      const record = (await alice.get(`/api/conversations/${id}`)).body;
      expect(record.security_analyzer).toMatchObject({ kind: 'GraySwanAnalyzer', api_key: '**********', history_limit: 5, medium_threshold: 0.7 });

      expect((await alice.post(route(id, 'security_analyzer'), { body: { security_analyzer: null } })).status).toBe(200);
      expect((await alice.get(`/api/conversations/${id}`)).body.security_analyzer).toBeNull();

      const updates = (await allEvents(alice, id)).filter((event) => event.key === 'security_analyzer');
      expect(updates.map((event) => event.value?.kind ?? null)).toEqual(['LLMSecurityAnalyzer', 'GraySwanAnalyzer', null]);
      expect(JSON.stringify(updates) + JSON.stringify(record)).not.toContain('gs-secret-555');
    });

    it('422 when missing, of an unknown kind, or with a bad or unknown field', async () => {
      const id = await conversation(false);
      const bad: Array<[unknown, unknown[]]> = [
        [{}, ['body', 'security_analyzer']],
        [{ security_analyzer: 'llm' }, ['body', 'security_analyzer']],
        [{ security_analyzer: { kind: 'Magic' } }, ['body', 'security_analyzer', 'kind']],
        [{ security_analyzer: { kind: 'LLMSecurityAnalyzer', strict: true } }, ['body', 'security_analyzer', 'strict']],
        [{ security_analyzer: { kind: 'GraySwanAnalyzer', history_limit: 'ten' } }, ['body', 'security_analyzer', 'history_limit']],
      ];
      for (const [body, loc] of bad) {
        const answer = await alice.post(route(id, 'security_analyzer'), { body });
        expect([answer.status, answer.body.detail[0].loc]).toEqual([422, loc]);
      }
      expect((await allEvents(alice, id)).some((event) => event.key === 'security_analyzer')).toBe(false);
    });
  });

  describe('server_info', () => {
    it('serves the reference ServerInfo at /server_info and /, without a key', async () => {
      for (const path of ['/server_info', '/']) {
        const info = await anonymous.get(path);
        expect(info.status).toBe(200);
        expect(info.body).toMatchObject({ title: expect.any(String), version: expect.stringMatching(/^\d+\.\d+\.\d+$/), docs: '/docs' });
        expect(info.body.uptime).toBeGreaterThan(0);
        expect(info.body.idle_time).toBeGreaterThanOrEqual(0);
      }
    });

    it('idle_time restarts with API use, not with monitoring', async () => {
      await alice.get('/api/conversations/count');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await anonymous.get('/health');
      const idle = (await anonymous.get('/server_info')).body.idle_time;
      expect(idle).toBeGreaterThanOrEqual(0.25);
      await alice.get('/api/conversations/count');
      expect((await anonymous.get('/server_info')).body.idle_time).toBeLessThan(idle);
    });
  });
});

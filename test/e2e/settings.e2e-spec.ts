import { createTestDatabase, queryDatabase } from '../support/test-database.js';
import { HttpClient, type HttpResult, type RequestOptions } from '../support/http-client.js';
import { ALICE_KEY, BOB_KEY, startServiceProcess, TEST_SESSION_KEYS, type ServiceProcess } from '../support/service-process.js';

const CAROL_KEY = 'carol-session-key-0123456789';
const DAVE_KEY = 'dave-session-key-01234567890';
const SESSION_API_KEYS = `${TEST_SESSION_KEYS},carol:${CAROL_KEY},dave:${DAVE_KEY}`;

/** Every response body the suite received, searched at the end for the secrets it sent. */
const responseTexts: string[] = [];

class RecordingClient extends HttpClient {
  override async request<T = any>(method: string, path: string, options?: RequestOptions): Promise<HttpResult<T>> {
    const response = await super.request<T>(method, path, options);
    responseTexts.push(JSON.stringify(response.headers), response.text);
    return response;
  }
}

const SECRETS = {
  llm: 'sk-llm-secret-7f3a9c1e',
  search: 'tvly-search-secret-51bd',
  sandbox: 'sandbox-secret-a8e2',
  github: 'ghp_provider-secret-33c1',
  custom: 'custom-secret-value-9d0f',
  sse: 'mcp-sse-secret-6b7e',
  shttp: 'mcp-shttp-secret-2c4a',
  env: 'stdio-env-secret-0e5d',
};

const DEFAULT_RECORD = {
  language: null,
  agent: null,
  max_iterations: null,
  security_analyzer: null,
  confirmation_mode: null,
  llm_model: null,
  llm_api_key: null,
  llm_base_url: null,
  remote_runtime_resource_factor: null,
  secrets_store: { provider_tokens: {}, custom_secrets: {} },
  enable_default_condenser: true,
  enable_sound_notifications: false,
  enable_proactive_conversation_starters: true,
  enable_solvability_analysis: true,
  user_consents_to_analytics: null,
  sandbox_base_container_image: null,
  sandbox_runtime_container_image: null,
  mcp_config: null,
  search_api_key: null,
  sandbox_api_key: null,
  max_budget_per_task: null,
  email: null,
  email_verified: null,
  git_user_name: null,
  git_user_email: null,
  provider_tokens_set: {},
  llm_api_key_set: false,
  search_api_key_set: false,
};

/** A value for every field of the record, none of them its default. */
const FULL_UPDATE = {
  language: 'fr',
  agent: 'CodeActAgent',
  max_iterations: 42,
  security_analyzer: 'llm',
  confirmation_mode: true,
  llm_model: 'anthropic/claude-sonnet-4-5',
  llm_api_key: SECRETS.llm,
  llm_base_url: 'https://llm.example.com/v1',
  remote_runtime_resource_factor: 2,
  secrets_store: {
    provider_tokens: { github: { token: SECRETS.github, host: 'github.example.com' } },
    custom_secrets: { MY_TOKEN: { secret: SECRETS.custom, description: 'a custom secret' } },
  },
  enable_default_condenser: false,
  enable_sound_notifications: true,
  enable_proactive_conversation_starters: false,
  enable_solvability_analysis: false,
  user_consents_to_analytics: true,
  sandbox_base_container_image: 'python:3.12',
  sandbox_runtime_container_image: 'runtime:1',
  mcp_config: {
    sse_servers: [{ url: 'https://sse.example.com', api_key: SECRETS.sse }],
    stdio_servers: [{ name: 'fetch', command: 'uvx', args: ['mcp-server-fetch'], env: { TOKEN: SECRETS.env } }],
    shttp_servers: [
      { url: 'https://shttp.example.com/mcp', api_key: SECRETS.shttp },
      { url: 'https://open.example.com/mcp', api_key: null },
    ],
  },
  search_api_key: SECRETS.search,
  sandbox_api_key: SECRETS.sandbox,
  max_budget_per_task: 2.5,
  email: 'carol@example.com',
  email_verified: false,
  git_user_name: 'Carol',
  git_user_email: 'carol@example.com',
};

const FULL_RECORD = {
  ...FULL_UPDATE,
  llm_api_key: null,
  search_api_key: null,
  sandbox_api_key: null,
  secrets_store: { provider_tokens: {}, custom_secrets: {} },
  mcp_config: {
    sse_servers: [{ url: 'https://sse.example.com', api_key: '**********' }],
    stdio_servers: [{ name: 'fetch', command: 'uvx', args: ['mcp-server-fetch'], env: { TOKEN: SECRETS.env } }],
    shttp_servers: [
      { url: 'https://shttp.example.com/mcp', api_key: '**********' },
      { url: 'https://open.example.com/mcp', api_key: null },
    ],
  },
  provider_tokens_set: { github: 'github.example.com' },
  llm_api_key_set: true,
  search_api_key_set: true,
};

describe('settings (GET/POST /api/settings)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let anonymous: RecordingClient;
  let alice: RecordingClient;
  let bob: RecordingClient;
  let carol: RecordingClient;
  let dave: RecordingClient;
  const serviceOutputs: string[] = [];

  async function start(env: Record<string, string> = {}): Promise<void> {
    // debug logs every request, so the log check below sees as much as the service ever writes.
    service = await startServiceProcess({ databaseUrl: database.url, env: { SESSION_API_KEYS, LOG_LEVEL: 'debug', ...env } });
    anonymous = new RecordingClient(service.url);
    alice = new RecordingClient(service.url, ALICE_KEY);
    bob = new RecordingClient(service.url, BOB_KEY);
    carol = new RecordingClient(service.url, CAROL_KEY);
    dave = new RecordingClient(service.url, DAVE_KEY);
  }

  async function stop(): Promise<void> {
    await service.stop();
    serviceOutputs.push(service.output());
  }

  const store = async (client: HttpClient, body: unknown) => {
    const response = await client.post('/api/settings', { body });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Settings stored' });
  };

  const load = async (client: HttpClient) => {
    const response = await client.get('/api/settings');
    expect(response.status).toBe(200);
    return response.body;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    await start();
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  describe('authentication', () => {
    it.each([
      ['GET', undefined],
      ['POST', { language: 'en' }],
    ])('%s without a key or with an unknown key is 401', async (method, body) => {
      for (const key of [null, 'not-a-known-session-key']) {
        const response = await anonymous.request(method, '/api/settings', { key, body });
        expect(response.status).toBe(401);
        expect(response.body).toEqual({ detail: 'Unauthorized' });
      }
    });

    it('a refused POST stores nothing', async () => {
      expect((await alice.get('/api/settings')).status).toBe(404);
    });
  });

  it('is 404 {"error": "Settings not found"} before the first save', async () => {
    const response = await alice.get('/api/settings');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Settings not found' });
  });

  it('serves every field with its default after a minimal save', async () => {
    await store(alice, {});
    const record = await load(alice);
    expect(record).toEqual(DEFAULT_RECORD);
    expect(Object.keys(record).sort()).toEqual(Object.keys(DEFAULT_RECORD).sort());
  });

  it('round-trips every field, secrets write-only', async () => {
    await store(carol, FULL_UPDATE);
    expect(await load(carol)).toEqual(FULL_RECORD);
  });

  describe('merge rules', () => {
    beforeEach(async () => {
      await store(dave, FULL_UPDATE);
    });

    it('an omitted field: secrets, llm_model and llm_base_url are kept, every other field takes its default', async () => {
      await store(dave, {});
      expect(await load(dave)).toEqual({
        ...DEFAULT_RECORD,
        llm_model: FULL_UPDATE.llm_model,
        llm_base_url: FULL_UPDATE.llm_base_url,
        llm_api_key_set: true,
        search_api_key_set: true,
        provider_tokens_set: { github: 'github.example.com' },
      });
    });

    it('null secrets, llm_model and llm_base_url are kept too; null elsewhere is stored as null', async () => {
      await store(dave, {
        llm_api_key: null,
        search_api_key: null,
        sandbox_api_key: null,
        llm_model: null,
        llm_base_url: null,
        secrets_store: null,
        max_iterations: null,
        language: null,
      });
      expect(await load(dave)).toMatchObject({
        llm_model: FULL_UPDATE.llm_model,
        llm_base_url: FULL_UPDATE.llm_base_url,
        llm_api_key_set: true,
        search_api_key_set: true,
        max_iterations: null,
        language: null,
      });
    });

    it('an empty string clears a secret', async () => {
      await store(dave, { llm_api_key: '' });
      expect(await load(dave)).toMatchObject({ llm_api_key_set: false, search_api_key_set: true });
      await store(dave, { search_api_key: '' });
      expect(await load(dave)).toMatchObject({ llm_api_key_set: false, search_api_key_set: false });
    });

    it('posting back what was read changes nothing, MCP api keys and provider tokens included', async () => {
      const before = await load(dave);
      await store(dave, before);
      expect(await load(dave)).toEqual(before);
      const secrets = await queryDatabase<{ secrets: string }>(database.url, 'SELECT secrets FROM settings WHERE user_id = $1', ['dave']);
      expect(secrets[0].secrets).toMatch(/^v1:/);
    });

    it('the computed *_set fields are accepted and ignored', async () => {
      await store(dave, { llm_api_key: '', search_api_key: '', secrets_store: { provider_tokens: { github: '' } } });
      await store(dave, { llm_api_key_set: true, search_api_key_set: true, provider_tokens_set: { gitlab: null } });
      expect(await load(dave)).toMatchObject({ llm_api_key_set: false, search_api_key_set: false, provider_tokens_set: {} });
    });

    it('a provider token is replaced or removed entry by entry', async () => {
      await store(dave, { secrets_store: { provider_tokens: { gitlab: 'glpat-x' } } });
      expect((await load(dave)).provider_tokens_set).toEqual({ github: 'github.example.com', gitlab: null });
      await store(dave, { secrets_store: { provider_tokens: { github: { token: '' } } } });
      expect((await load(dave)).provider_tokens_set).toEqual({ gitlab: null });
    });
  });

  it('stores no secret in plain text', async () => {
    const rows = await queryDatabase<{ user_id: string; secrets: string; values: Record<string, unknown>; whole: string }>(
      database.url,
      'SELECT user_id, secrets, "values", row_to_json(settings)::text AS whole FROM settings',
    );
    expect(rows.map((row) => row.user_id).sort()).toEqual(['alice', 'carol', 'dave']);
    for (const row of rows) {
      for (const secret of Object.values(SECRETS)) expect(row.whole).not.toContain(secret);
      expect(row.secrets).toMatch(/^v1:[A-Za-z0-9+/=]+$/);
      for (const field of ['llm_api_key', 'search_api_key', 'sandbox_api_key', 'secrets_store', 'mcp_config']) {
        expect(row.values).not.toHaveProperty(field);
      }
    }
  });

  it('keeps users apart', async () => {
    expect((await bob.get('/api/settings')).status).toBe(404);
    await store(bob, { llm_model: 'openai/gpt-4o-mini', language: 'de' });
    expect(await load(bob)).toMatchObject({ llm_model: 'openai/gpt-4o-mini', language: 'de', llm_api_key_set: false });
    expect(await load(carol)).toEqual(FULL_RECORD);
    expect(await load(alice)).toEqual(DEFAULT_RECORD);
  });

  describe('validation', () => {
    const refuse = async (body: unknown, loc: Array<string | number>, type?: string) => {
      const response = await carol.post('/api/settings', typeof body === 'string' ? { rawBody: body } : { body });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual(
        expect.arrayContaining([expect.objectContaining({ loc, ...(type ? { type } : {}), msg: expect.any(String) })]),
      );
      for (const issue of response.body.detail) expect(issue.loc[0]).toBe('body');
    };

    it('refuses an unknown field', async () => {
      await refuse({ language: 'en', favourite_colour: 'blue' }, ['body', 'favourite_colour'], 'extra_forbidden');
      await refuse({ mcp_config: { sse_servers: [], ws_servers: [] } }, ['body', 'mcp_config', 'ws_servers'], 'extra_forbidden');
      await refuse({ mcp_config: { sse_servers: [{ url: 'https://x', token: 'y' }] } }, ['body', 'mcp_config', 'sse_servers', 0, 'token']);
      await refuse({ secrets_store: { provider_tokens: {}, other: {} } }, ['body', 'secrets_store', 'other']);
    });

    it.each([
      [{ max_iterations: '10' }, ['body', 'max_iterations'], 'int_parsing'],
      [{ max_iterations: 1.5 }, ['body', 'max_iterations'], 'int_parsing'],
      [{ max_iterations: 0 }, ['body', 'max_iterations'], 'greater_than_equal'],
      [{ remote_runtime_resource_factor: true }, ['body', 'remote_runtime_resource_factor'], 'int_parsing'],
      [{ max_budget_per_task: '5' }, ['body', 'max_budget_per_task'], 'float_parsing'],
      [{ confirmation_mode: 'yes' }, ['body', 'confirmation_mode'], 'bool_parsing'],
      [{ enable_default_condenser: 1 }, ['body', 'enable_default_condenser'], 'bool_parsing'],
      [{ enable_sound_notifications: null }, ['body', 'enable_sound_notifications'], 'bool_parsing'],
      [{ llm_model: 4 }, ['body', 'llm_model'], 'string_type'],
      [{ llm_api_key: { key: 'x' } }, ['body', 'llm_api_key'], 'string_type'],
      [{ llm_api_key_set: 'yes' }, ['body', 'llm_api_key_set'], 'bool_parsing'],
      [{ mcp_config: [] }, ['body', 'mcp_config'], 'dict_type'],
      [{ mcp_config: { sse_servers: {} } }, ['body', 'mcp_config', 'sse_servers'], 'list_type'],
      [{ mcp_config: { sse_servers: [{}] } }, ['body', 'mcp_config', 'sse_servers', 0, 'url'], 'missing'],
      [{ mcp_config: { shttp_servers: [{ url: 5 }] } }, ['body', 'mcp_config', 'shttp_servers', 0, 'url'], 'string_type'],
      [{ mcp_config: { stdio_servers: [{ name: 'a' }] } }, ['body', 'mcp_config', 'stdio_servers', 0, 'command'], 'missing'],
      [{ mcp_config: { stdio_servers: [{ name: 'a', command: 'b', args: 'c' }] } }, ['body', 'mcp_config', 'stdio_servers', 0, 'args'], 'list_type'],
      [{ mcp_config: { stdio_servers: [{ name: 'a', command: 'b', args: [1] }] } }, ['body', 'mcp_config', 'stdio_servers', 0, 'args'], 'string_type'],
      [{ mcp_config: { stdio_servers: [{ name: 'a', command: 'b', env: { A: 1 } }] } }, ['body', 'mcp_config', 'stdio_servers', 0, 'env'], undefined],
      [{ secrets_store: { provider_tokens: { myforge: 'x' } } }, ['body', 'secrets_store', 'provider_tokens'], undefined],
      [{ secrets_store: 'x' }, ['body', 'secrets_store'], 'dict_type'],
    ])('refuses %j', async (body, loc, type) => {
      await refuse(body, loc as Array<string | number>, type);
    });

    it.each(['[]', '"settings"', '42', 'true', 'null'])('refuses the non-object body %s', async (raw) => {
      await refuse(raw, ['body']);
    });

    it('refuses a missing body and malformed JSON', async () => {
      const missing = await carol.post('/api/settings');
      expect(missing.status).toBe(422);
      expect(missing.body.detail[0].loc).toEqual(['body']);
      await refuse('{"language": ', ['body'], 'json_invalid');
    });

    it('a refused save changes nothing', async () => {
      expect(await load(carol)).toEqual(FULL_RECORD);
    });
  });

  it('documents the routes in the OpenAPI document', async () => {
    const document = (await anonymous.get('/openapi.json')).body;
    const route = document.paths['/api/settings'];
    expect(route.get.tags).toContain('Settings');
    expect(Object.keys(route.get.responses)).toEqual(expect.arrayContaining(['200', '404']));
    expect(Object.keys(route.post.requestBody.content['application/json'].examples ?? {}).length).toBeGreaterThan(0);
    const schemas = document.components.schemas;
    const bodySchema = schemas[route.post.requestBody.content['application/json'].schema.$ref.split('/').pop()];
    expect(bodySchema.properties.llm_api_key.format).toBe('password');
    expect(bodySchema.properties.enable_default_condenser.default).toBe(true);
    const recordSchema = schemas[route.get.responses['200'].content['application/json'].schema.$ref.split('/').pop()];
    expect(recordSchema.required).toEqual(expect.arrayContaining(['llm_api_key_set']));
  });

  it('the settings survive a restart', async () => {
    const before = { alice: await load(alice), bob: await load(bob), carol: await load(carol) };
    await stop();
    await start();
    expect(await load(alice)).toEqual(before.alice);
    expect(await load(bob)).toEqual(before.bob);
    expect(await load(carol)).toEqual(FULL_RECORD);
  });

  it('with another SECRETS_KEY the secrets read as unset, the rest is served', async () => {
    await stop();
    await start({ SECRETS_KEY: 'f'.repeat(64) });
    expect(await load(carol)).toEqual({
      ...FULL_RECORD,
      mcp_config: null,
      provider_tokens_set: {},
      llm_api_key_set: false,
      search_api_key_set: false,
    });
    await stop();
    await start();
    expect(await load(carol)).toEqual(FULL_RECORD);
  });

  it('no secret ever appears in a response or a log line', async () => {
    await stop();
    const outputs = serviceOutputs.join('\n');
    // The stdio env is served back in the clear (as the reference does); every other secret never is.
    const neverServed = Object.values(SECRETS).filter((secret) => secret !== SECRETS.env);
    const responses = responseTexts.join('\n');
    expect(responses.length).toBeGreaterThan(0);
    for (const secret of neverServed) expect(responses).not.toContain(secret);
    for (const secret of Object.values(SECRETS)) expect(outputs).not.toContain(secret);
    expect(outputs).toContain('/api/settings');
  });
});

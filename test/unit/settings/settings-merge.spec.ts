import { mergeSettings } from '../../../src/settings/settings-merge.js';
import { toAgentSettings, toSettingsRecord } from '../../../src/settings/settings-views.js';
import type { SettingsUpdateDto } from '../../../src/settings/dto/settings.dto.js';
import { MASKED_SECRET, type StoredSettings } from '../../../src/settings/settings.types.js';

const save = (current: StoredSettings | null, update: SettingsUpdateDto): StoredSettings => mergeSettings(current, update);

describe('mergeSettings', () => {
  const first = save(null, {
    llm_model: 'openai/gpt-4o',
    llm_api_key: 'sk-one',
    llm_base_url: 'http://llm.local/v1',
    search_api_key: 'search-one',
    max_iterations: 50,
    enable_sound_notifications: true,
    secrets_store: {
      provider_tokens: { github: 'ghp_one', gitlab: { token: 'glpat', host: 'gitlab.example.com' } },
      custom_secrets: { DB_PASSWORD: { secret: 'pw', description: 'database' } },
    },
    mcp_config: { sse_servers: [{ url: 'http://sse', api_key: 'mcp-sse-key' }], stdio_servers: [{ name: 'f', command: 'uvx' }] },
  });

  it('starts from the defaults', () => {
    const record = toSettingsRecord(save(null, {}));
    expect(record).toMatchObject({
      enable_default_condenser: true,
      enable_sound_notifications: false,
      enable_proactive_conversation_starters: true,
      enable_solvability_analysis: true,
      llm_api_key_set: false,
      search_api_key_set: false,
      provider_tokens_set: {},
      mcp_config: null,
      secrets_store: { provider_tokens: {}, custom_secrets: {} },
    });
  });

  it('keeps omitted or null secrets, llm_model and llm_base_url; resets other fields to their default', () => {
    for (const update of [{}, { llm_api_key: null, search_api_key: null, llm_model: null, llm_base_url: null }]) {
      const next = save(first, update);
      expect(next.secrets).toMatchObject({ llm_api_key: 'sk-one', search_api_key: 'search-one' });
      expect(next.values).toMatchObject({ llm_model: 'openai/gpt-4o', llm_base_url: 'http://llm.local/v1' });
      expect(next.values).toMatchObject({ max_iterations: null, enable_sound_notifications: false });
      expect(next.secrets.mcp_config).toBeNull();
      expect(Object.keys(next.secrets.secrets_store.provider_tokens)).toEqual(['github', 'gitlab']);
    }
  });

  it('clears a secret with an empty string', () => {
    const next = save(first, { llm_api_key: '', search_api_key: '' });
    expect(next.secrets.llm_api_key).toBeNull();
    expect(next.secrets.search_api_key).toBeNull();
    expect(toSettingsRecord(next)).toMatchObject({ llm_api_key_set: false, search_api_key_set: false });
  });

  it('merges secrets_store entries: a value sets, "" removes, the rest stays', () => {
    const next = save(first, {
      secrets_store: { provider_tokens: { github: '', bitbucket: 'bb' }, custom_secrets: { DB_PASSWORD: 'pw2' } },
    });
    expect(next.secrets.secrets_store.provider_tokens).toEqual({
      gitlab: { token: 'glpat', user_id: null, host: 'gitlab.example.com' },
      bitbucket: { token: 'bb', user_id: null, host: null },
    });
    expect(next.secrets.secrets_store.custom_secrets).toEqual({ DB_PASSWORD: { secret: 'pw2', description: 'database' } });
    expect(toSettingsRecord(next).provider_tokens_set).toEqual({ gitlab: 'gitlab.example.com', bitbucket: null });
  });

  it('serves MCP api keys masked and keeps the stored key when the mask is posted back', () => {
    const record = toSettingsRecord(first);
    expect(record.mcp_config!.sse_servers).toEqual([{ url: 'http://sse', api_key: MASKED_SECRET }]);
    expect(record.mcp_config!.stdio_servers).toEqual([{ name: 'f', command: 'uvx', args: [], env: {} }]);
    const postedBack = save(first, { mcp_config: record.mcp_config });
    expect(postedBack.secrets.mcp_config!.sse_servers).toEqual([{ url: 'http://sse', api_key: 'mcp-sse-key' }]);
    const movedServer = save(first, { mcp_config: { sse_servers: [{ url: 'http://other', api_key: MASKED_SECRET }] } });
    expect(movedServer.secrets.mcp_config!.sse_servers).toEqual([{ url: 'http://other', api_key: null }]);
  });

  it('gives the agent the decrypted effective settings', () => {
    expect(toAgentSettings(first)).toEqual({
      llmModel: 'openai/gpt-4o',
      llmApiKey: 'sk-one',
      llmBaseUrl: 'http://llm.local/v1',
      maxIterations: 50,
      confirmationMode: null,
      securityAnalyzer: null,
      enableDefaultCondenser: true,
      mcpConfig: {
        sse_servers: [{ url: 'http://sse', api_key: 'mcp-sse-key' }],
        stdio_servers: [{ name: 'f', command: 'uvx', args: [], env: {} }],
        shttp_servers: [],
      },
      maxBudgetPerTask: null,
    });
  });

  it('never puts a secret in the served record', () => {
    const served = JSON.stringify(toSettingsRecord(first));
    for (const secret of ['sk-one', 'search-one', 'ghp_one', 'glpat', 'pw', 'mcp-sse-key']) expect(served).not.toContain(`"${secret}"`);
  });
});

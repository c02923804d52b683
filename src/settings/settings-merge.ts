import type { McpConfigDto, McpRemoteServerDto } from './dto/mcp-config.dto.js';
import type { SecretsStoreDto } from './dto/secrets-store.dto.js';
import type { SettingsUpdateDto } from './dto/settings.dto.js';
import {
  DEFAULT_SETTINGS_VALUES,
  emptySettingsSecrets,
  MASKED_SECRET,
  type McpConfig,
  type McpRemoteServer,
  type SecretsStore,
  type SettingsSecrets,
  type SettingsValues,
  type StoredSettings,
} from './settings.types.js';

/** Plain fields that, like the secrets, keep their stored value when the update omits them or sends null. */
const KEPT_WHEN_OMITTED = new Set<keyof SettingsValues>(['llm_model', 'llm_base_url']);

/**
 * The settings a POST leaves stored. Omitted or null secrets, llm_model and llm_base_url keep
 * the current value and "" clears a secret; every other field takes the sent value or its default.
 */
export function mergeSettings(current: StoredSettings | null, update: SettingsUpdateDto): StoredSettings {
  const stored = current ?? { values: { ...DEFAULT_SETTINGS_VALUES }, secrets: emptySettingsSecrets() };
  const values = { ...DEFAULT_SETTINGS_VALUES } as Record<keyof SettingsValues, unknown>;
  for (const field of Object.keys(DEFAULT_SETTINGS_VALUES) as Array<keyof SettingsValues>) {
    const sent = update[field];
    if (KEPT_WHEN_OMITTED.has(field)) values[field] = sent ?? stored.values[field];
    else if (sent !== undefined) values[field] = sent;
  }
  const secrets: SettingsSecrets = {
    llm_api_key: mergeSecret(stored.secrets.llm_api_key, update.llm_api_key),
    search_api_key: mergeSecret(stored.secrets.search_api_key, update.search_api_key),
    sandbox_api_key: mergeSecret(stored.secrets.sandbox_api_key, update.sandbox_api_key),
    secrets_store: mergeSecretsStore(stored.secrets.secrets_store, update.secrets_store),
    mcp_config: update.mcp_config ? completeMcpConfig(update.mcp_config, stored.secrets.mcp_config) : null,
  };
  return { values: values as unknown as SettingsValues, secrets };
}

function mergeSecret(stored: string | null, sent: string | null | undefined): string | null {
  if (sent === undefined || sent === null) return stored;
  return sent === '' ? null : sent;
}

/** Entries are merged one by one: the store is always served empty, so a posted-back store must not wipe it. */
function mergeSecretsStore(stored: SecretsStore, sent: SecretsStoreDto | null | undefined): SecretsStore {
  const providerTokens = { ...stored.provider_tokens };
  const customSecrets = { ...stored.custom_secrets };
  for (const [provider, input] of Object.entries(sent?.provider_tokens ?? {})) {
    const given = typeof input === 'string' ? { token: input } : input;
    const existing = providerTokens[provider];
    if (given.token === '') {
      delete providerTokens[provider];
    } else if (given.token) {
      providerTokens[provider] = { token: given.token, user_id: given.user_id ?? null, host: given.host ?? null };
    } else if (existing) {
      // No token given: only the account details of the stored token change.
      providerTokens[provider] = {
        token: existing.token,
        user_id: given.user_id === undefined ? existing.user_id : given.user_id,
        host: given.host === undefined ? existing.host : given.host,
      };
    }
  }
  for (const [name, input] of Object.entries(sent?.custom_secrets ?? {})) {
    const given = typeof input === 'string' ? { secret: input, description: undefined } : input;
    if (given.secret === '') {
      delete customSecrets[name];
    } else {
      const description = given.description === undefined ? (customSecrets[name]?.description ?? null) : given.description;
      customSecrets[name] = { secret: given.secret, description };
    }
  }
  return { provider_tokens: providerTokens, custom_secrets: customSecrets };
}

/** Fills list defaults and turns a posted-back mask into the stored key of the server with that url. */
function completeMcpConfig(sent: McpConfigDto, stored: McpConfig | null): McpConfig {
  const remote = (kind: 'sse_servers' | 'shttp_servers', servers: McpRemoteServerDto[] | undefined): McpRemoteServer[] =>
    (servers ?? []).map(({ url, api_key }) => {
      if (api_key === MASKED_SECRET) {
        return { url, api_key: stored?.[kind].find((server) => server.url === url)?.api_key ?? null };
      }
      return { url, api_key: api_key || null };
    });
  return {
    sse_servers: remote('sse_servers', sent.sse_servers),
    stdio_servers: (sent.stdio_servers ?? []).map(({ name, command, args, env }) => ({
      name,
      command,
      args: args ?? [],
      env: { ...env },
    })),
    shttp_servers: remote('shttp_servers', sent.shttp_servers),
  };
}

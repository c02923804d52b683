import {
  MASKED_SECRET,
  type AgentSettings,
  type McpConfig,
  type SecretsStore,
  type SettingsRecord,
  type StoredSettings,
} from './settings.types.js';

/** The record a client reads: every field present, secrets null or masked, *_set computed. */
export function toSettingsRecord({ values, secrets }: StoredSettings): SettingsRecord {
  return {
    language: values.language,
    agent: values.agent,
    max_iterations: values.max_iterations,
    security_analyzer: values.security_analyzer,
    confirmation_mode: values.confirmation_mode,
    llm_model: values.llm_model,
    llm_api_key: null,
    llm_base_url: values.llm_base_url,
    remote_runtime_resource_factor: values.remote_runtime_resource_factor,
    secrets_store: { provider_tokens: {}, custom_secrets: {} },
    enable_default_condenser: values.enable_default_condenser,
    enable_sound_notifications: values.enable_sound_notifications,
    enable_proactive_conversation_starters: values.enable_proactive_conversation_starters,
    enable_solvability_analysis: values.enable_solvability_analysis,
    user_consents_to_analytics: values.user_consents_to_analytics,
    sandbox_base_container_image: values.sandbox_base_container_image,
    sandbox_runtime_container_image: values.sandbox_runtime_container_image,
    mcp_config: secrets.mcp_config && maskMcpConfig(secrets.mcp_config),
    search_api_key: null,
    sandbox_api_key: null,
    max_budget_per_task: values.max_budget_per_task,
    email: values.email,
    email_verified: values.email_verified,
    git_user_name: values.git_user_name,
    git_user_email: values.git_user_email,
    provider_tokens_set: providersWithToken(secrets.secrets_store),
    llm_api_key_set: Boolean(secrets.llm_api_key),
    search_api_key_set: Boolean(secrets.search_api_key),
  };
}

/** The decrypted settings a run uses; empty strings count as unset. */
export function toAgentSettings({ values, secrets }: StoredSettings): AgentSettings {
  return {
    llmModel: values.llm_model || null,
    llmApiKey: secrets.llm_api_key || null,
    llmBaseUrl: values.llm_base_url || null,
    maxIterations: values.max_iterations,
    confirmationMode: values.confirmation_mode,
    securityAnalyzer: values.security_analyzer || null,
    enableDefaultCondenser: values.enable_default_condenser,
    mcpConfig: secrets.mcp_config && structuredClone(secrets.mcp_config),
    maxBudgetPerTask: values.max_budget_per_task,
  };
}

function maskMcpConfig(config: McpConfig): McpConfig {
  const mask = ({ url, api_key }: { url: string; api_key: string | null }) => ({
    url,
    api_key: api_key ? MASKED_SECRET : null,
  });
  return {
    sse_servers: config.sse_servers.map(mask),
    stdio_servers: config.stdio_servers.map((server) => ({ ...server, args: [...server.args], env: { ...server.env } })),
    shttp_servers: config.shttp_servers.map(mask),
  };
}

function providersWithToken(store: SecretsStore): Record<string, string | null> {
  return Object.fromEntries(
    Object.entries(store.provider_tokens)
      .filter(([, token]) => Boolean(token.token))
      .map(([provider, token]) => [provider, token.host]),
  );
}

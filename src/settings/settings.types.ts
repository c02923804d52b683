/** An MCP server reached over SSE or streamable HTTP. */
export interface McpRemoteServer {
  url: string;
  api_key: string | null;
}

/** An MCP server started as a local process speaking stdio. */
export interface McpStdioServer {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface McpConfig {
  sse_servers: McpRemoteServer[];
  stdio_servers: McpStdioServer[];
  shttp_servers: McpRemoteServer[];
}

export interface ProviderToken {
  token: string;
  user_id: string | null;
  host: string | null;
}

export interface CustomSecret {
  secret: string;
  description: string | null;
}

export interface SecretsStore {
  provider_tokens: Record<string, ProviderToken>;
  custom_secrets: Record<string, CustomSecret>;
}

/** The non-secret part of a user's settings: the plain `values` column. */
export interface SettingsValues {
  language: string | null;
  agent: string | null;
  max_iterations: number | null;
  security_analyzer: string | null;
  confirmation_mode: boolean | null;
  llm_model: string | null;
  llm_base_url: string | null;
  remote_runtime_resource_factor: number | null;
  enable_default_condenser: boolean;
  enable_sound_notifications: boolean;
  enable_proactive_conversation_starters: boolean;
  enable_solvability_analysis: boolean;
  user_consents_to_analytics: boolean | null;
  sandbox_base_container_image: string | null;
  sandbox_runtime_container_image: string | null;
  max_budget_per_task: number | null;
  email: string | null;
  email_verified: boolean | null;
  git_user_name: string | null;
  git_user_email: string | null;
}

/**
 * The secret part, encrypted as one document into the `secrets` column. mcp_config is kept
 * here whole because besides its api keys the env of stdio servers usually holds credentials.
 */
export interface SettingsSecrets {
  llm_api_key: string | null;
  search_api_key: string | null;
  sandbox_api_key: string | null;
  secrets_store: SecretsStore;
  mcp_config: McpConfig | null;
}

export interface StoredSettings {
  values: SettingsValues;
  secrets: SettingsSecrets;
}

export const DEFAULT_SETTINGS_VALUES: Readonly<SettingsValues> = Object.freeze({
  language: null,
  agent: null,
  max_iterations: null,
  security_analyzer: null,
  confirmation_mode: null,
  llm_model: null,
  llm_base_url: null,
  remote_runtime_resource_factor: null,
  enable_default_condenser: true,
  enable_sound_notifications: false,
  enable_proactive_conversation_starters: true,
  enable_solvability_analysis: true,
  user_consents_to_analytics: null,
  sandbox_base_container_image: null,
  sandbox_runtime_container_image: null,
  max_budget_per_task: null,
  email: null,
  email_verified: null,
  git_user_name: null,
  git_user_email: null,
});

export function emptySettingsSecrets(): SettingsSecrets {
  return {
    llm_api_key: null,
    search_api_key: null,
    sandbox_api_key: null,
    secrets_store: { provider_tokens: {}, custom_secrets: {} },
    mcp_config: null,
  };
}

/** What a stored MCP api key is replaced with in a response; posting it back keeps the stored key. */
export const MASKED_SECRET = '**********';

/** The record GET /api/settings serves: every field present, secrets never included. */
export interface SettingsRecord extends SettingsValues {
  llm_api_key: null;
  search_api_key: null;
  sandbox_api_key: null;
  secrets_store: { provider_tokens: Record<string, never>; custom_secrets: Record<string, never> };
  mcp_config: McpConfig | null;
  /** Providers that have a token, each mapped to its host (null for the provider's default host). */
  provider_tokens_set: Record<string, string | null>;
  llm_api_key_set: boolean;
  search_api_key_set: boolean;
}

/** The decrypted settings a run of the agent starts from; secrets included, so never serve or log it. */
export interface AgentSettings {
  /** `provider/model`, or a bare name for an OpenAI-compatible endpoint; null when unset. */
  llmModel: string | null;
  llmApiKey: string | null;
  llmBaseUrl: string | null;
  maxIterations: number | null;
  /** true means AlwaysConfirm for new conversations. */
  confirmationMode: boolean | null;
  securityAnalyzer: string | null;
  enableDefaultCondenser: boolean;
  /** With the real api keys. */
  mcpConfig: McpConfig | null;
  /** USD per run. */
  maxBudgetPerTask: number | null;
}

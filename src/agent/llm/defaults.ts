export const DEFAULT_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_RETRIES = 4;
/** Anthropic requires max_tokens on every request. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;
/**
 * Sent when no key is configured (local vLLM/Ollama need none). Passing something keeps both SDKs
 * from falling back to the operator's ANTHROPIC_API_KEY / OPENAI_API_KEY environment variables.
 */
export const MISSING_KEY_PLACEHOLDER = 'no-api-key-configured';

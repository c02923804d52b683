import type { Message } from './message.js';

export interface LlmConfig {
  /** `provider/model` (e.g. `openai/gpt-4o`, `anthropic/claude-sonnet-4-5`); a bare name is OpenAI-compatible. */
  model: string;
  apiKey?: string | null;
  /** For OpenAI-compatible providers requests go to `<baseUrl>/chat/completions`; for Anthropic to `<baseUrl>/v1/messages`. */
  baseUrl?: string | null;
  /** Per attempt. Default 300 000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt on 408/409/429/5xx, connection errors and timeouts, with exponential backoff. Default 4. */
  maxRetries?: number;
  /** OpenAI-compatible providers only: the Messages API of the installed Anthropic SDK takes none. */
  temperature?: number;
  /** Anthropic requires a cap (default 8192); for OpenAI-compatible providers it is sent only when set. */
  maxOutputTokens?: number;
  /** Anthropic extended thinking budget; thinking stays off when unset. Must be below maxOutputTokens. */
  thinkingBudgetTokens?: number;
}

export interface LlmToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  messages: Message[];
  tools: LlmToolSpec[];
  signal?: AbortSignal;
}

/** One completion's token counts, named as the reference's TokenUsage. */
export interface LlmUsage {
  /** All input tokens, cached ones included. */
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  /** The model's context window when known, else 0. */
  context_window: number;
}

export interface LlmResponse {
  /** The provider's response id (chatcmpl-..., msg_...), or a generated one when it gave none. */
  id: string;
  /** The model as the provider reported it. */
  model: string;
  /** role 'assistant'; tool calls have origin 'completion'. */
  message: Message;
  /** `stop`, `tool_calls`, `length`, `end_turn`, `tool_use`, `max_tokens`... as the provider said, or null. */
  finishReason: string | null;
  usage: LlmUsage;
  /** USD; 0 when the model is not in the price table. */
  cost: number;
  latencyMs: number;
  /** The request body as sent (never holds the API key), for completion logs. */
  rawRequest: unknown;
  rawResponse: unknown;
}

export interface LlmClient {
  /** Provider name (`openai`, `anthropic`, `openrouter`, ...) and the model name sent on the wire. */
  readonly provider: string;
  readonly wireModel: string;
  complete(request: LlmRequest): Promise<LlmResponse>;
}

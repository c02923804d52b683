import { ConflictException, HttpException, HttpStatus } from '@nestjs/common';
import {
  LlmConfigurationError,
  LlmError,
  LlmRateLimitError,
  LlmUnavailableError,
  redactSecrets,
} from './llm/index.js';

export const NO_LLM_DETAIL =
  'No LLM model is configured: set llm_model (and llm_api_key, llm_base_url if needed) with POST /api/settings, ' +
  'or agent.llm when creating the conversation.';

export function noLlmConfigured(): ConflictException {
  return new ConflictException({ detail: NO_LLM_DETAIL });
}

/**
 * The HTTP answer when a side question's LLM call fails: 409 when the configuration cannot work,
 * 503 when the provider is unreachable or rate limiting, 502 when it refused or answered badly.
 * The detail never holds the key: LlmError messages are built without it and redacted again here.
 */
export function llmFailureToHttp(error: unknown, apiKey: string | null): unknown {
  if (!(error instanceof LlmError)) return error;
  const detail = redactSecrets(error.message, [apiKey]);
  if (error instanceof LlmConfigurationError) return new ConflictException({ detail });
  if (error instanceof LlmUnavailableError || error instanceof LlmRateLimitError) {
    return new HttpException({ detail }, HttpStatus.SERVICE_UNAVAILABLE);
  }
  return new HttpException({ detail }, HttpStatus.BAD_GATEWAY);
}

import { AnthropicMessagesClient } from './anthropic-client.js';
import { parseModelSpec } from './model-spec.js';
import { OpenAiChatClient } from './openai-client.js';
import type { LlmClient, LlmConfig } from './types.js';

/**
 * Builds the client for `config.model`: `anthropic/...` speaks the Anthropic Messages API, anything else
 * OpenAI chat completions. Throws LlmConfigurationError when the model cannot be used as configured.
 */
export function createLlmClient(config: LlmConfig): LlmClient {
  const spec = parseModelSpec(config.model, config.baseUrl);
  return spec.wireFormat === 'anthropic-messages'
    ? new AnthropicMessagesClient(spec, config)
    : new OpenAiChatClient(spec, config);
}

export * from './errors.js';
export * from './message.js';
export * from './metrics.js';
export { parseModelSpec, type ModelSpec, type WireFormat } from './model-spec.js';
export { computeCost, contextWindowOf, findModelPrice, type ModelPrice } from './pricing.js';
export type { LlmClient, LlmConfig, LlmRequest, LlmResponse, LlmToolSpec, LlmUsage } from './types.js';

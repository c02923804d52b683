import { LlmConfigurationError } from './errors.js';

export type WireFormat = 'openai-chat' | 'anthropic-messages';

export interface ModelSpec {
  /** `openai`, `anthropic`, `openrouter`, ...; `openai` for bare names. */
  provider: string;
  /** The model name as sent on the wire. */
  wireModel: string;
  wireFormat: WireFormat;
  /** Where requests go: the configured base URL, else the provider's default. */
  baseUrl: string;
}

interface KnownProvider {
  /** null: the provider has no public endpoint, so llm_base_url must be set. */
  defaultBaseUrl: string | null;
  wireFormat: WireFormat;
}

// Providers whose `provider/` prefix is stripped from the model name (LiteLLM's convention).
// OpenRouter's own ids are `vendor/model`, so only its first segment goes.
const KNOWN_PROVIDERS: Record<string, KnownProvider> = {
  openai: { defaultBaseUrl: 'https://api.openai.com/v1', wireFormat: 'openai-chat' },
  anthropic: { defaultBaseUrl: 'https://api.anthropic.com', wireFormat: 'anthropic-messages' },
  openrouter: { defaultBaseUrl: 'https://openrouter.ai/api/v1', wireFormat: 'openai-chat' },
  ollama: { defaultBaseUrl: 'http://localhost:11434/v1', wireFormat: 'openai-chat' },
  ollama_chat: { defaultBaseUrl: 'http://localhost:11434/v1', wireFormat: 'openai-chat' },
  deepseek: { defaultBaseUrl: 'https://api.deepseek.com/v1', wireFormat: 'openai-chat' },
  groq: { defaultBaseUrl: 'https://api.groq.com/openai/v1', wireFormat: 'openai-chat' },
  mistral: { defaultBaseUrl: 'https://api.mistral.ai/v1', wireFormat: 'openai-chat' },
  xai: { defaultBaseUrl: 'https://api.x.ai/v1', wireFormat: 'openai-chat' },
  together_ai: { defaultBaseUrl: 'https://api.together.xyz/v1', wireFormat: 'openai-chat' },
  fireworks_ai: { defaultBaseUrl: 'https://api.fireworks.ai/inference/v1', wireFormat: 'openai-chat' },
  litellm_proxy: { defaultBaseUrl: null, wireFormat: 'openai-chat' },
  hosted_vllm: { defaultBaseUrl: null, wireFormat: 'openai-chat' },
  openai_compatible: { defaultBaseUrl: null, wireFormat: 'openai-chat' },
};

/**
 * Reads `llm_model` (+ `llm_base_url`). `provider/model` with a known provider strips the prefix;
 * a name whose first segment is not a known provider (a bare `gpt-4o`, or a Hugging Face id such as
 * `meta-llama/Llama-3.1-8B-Instruct` served by vLLM) is sent unchanged to an OpenAI-compatible endpoint.
 */
export function parseModelSpec(model: string, baseUrl?: string | null): ModelSpec {
  const trimmed = model.trim();
  if (!trimmed) throw new LlmConfigurationError('No LLM model is configured: set llm_model (e.g. openai/gpt-4o)');
  const configuredBase = baseUrl?.trim() ? stripTrailingSlashes(baseUrl.trim()) : null;

  const slash = trimmed.indexOf('/');
  const prefix = slash > 0 ? trimmed.slice(0, slash).toLowerCase() : null;
  const known = prefix ? KNOWN_PROVIDERS[prefix] : undefined;
  if (!prefix || !known) {
    return {
      provider: 'openai',
      wireModel: trimmed,
      wireFormat: 'openai-chat',
      baseUrl: configuredBase ?? KNOWN_PROVIDERS.openai.defaultBaseUrl!,
    };
  }

  const wireModel = trimmed.slice(slash + 1);
  if (!wireModel) throw new LlmConfigurationError(`llm_model '${trimmed}' names no model after the provider`);
  const resolvedBase = configuredBase ?? known.defaultBaseUrl;
  if (!resolvedBase) {
    throw new LlmConfigurationError(`Provider '${prefix}' has no default endpoint: set llm_base_url`);
  }
  return {
    provider: prefix,
    wireModel,
    wireFormat: known.wireFormat,
    // The Anthropic SDK appends /v1/messages itself, so a base given as `.../v1` must lose it.
    baseUrl: known.wireFormat === 'anthropic-messages' ? resolvedBase.replace(/\/v1$/, '') : resolvedBase,
  };
}

function stripTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

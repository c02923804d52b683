// OpenAI chat completions (also what vLLM, Ollama, LiteLLM and OpenRouter speak), via the `openai` SDK.
import { randomUUID } from 'node:crypto';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';

import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, MISSING_KEY_PLACEHOLDER } from './defaults.js';
import { connectionFailureKind, LlmBadResponseError, toLlmError, type AttemptContext, type ProviderFailure } from './errors.js';
import { messageText, type Message, type MessageToolCall, type TextContent } from './message.js';
import type { ModelSpec } from './model-spec.js';
import { computeCost, contextWindowOf } from './pricing.js';
import type { LlmClient, LlmConfig, LlmRequest, LlmResponse, LlmToolSpec, LlmUsage } from './types.js';

export class OpenAiChatClient implements LlmClient {
  readonly provider: string;
  readonly wireModel: string;
  // ES-private so that logging or serialising the client cannot reveal the key (the SDK holds it too).
  readonly #sdk: OpenAI;
  readonly #apiKey: string | null;
  private readonly config: Omit<LlmConfig, 'apiKey'>;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;

  constructor(spec: ModelSpec, { apiKey, ...config }: LlmConfig) {
    this.#apiKey = apiKey ?? null;
    this.config = config;
    this.provider = spec.provider;
    this.wireModel = spec.wireModel;
    this.maxRetries = config.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // Every option the SDK would otherwise read from OPENAI_* environment variables is given explicitly:
    // one user's requests must never carry the operator's key or go to the operator's endpoint.
    this.#sdk = new OpenAI({
      apiKey: apiKey || MISSING_KEY_PLACEHOLDER,
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      baseURL: spec.baseUrl,
      timeout: this.timeoutMs,
      maxRetries: this.maxRetries,
      logLevel: 'off',
    });
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    const body = this.buildRequestBody(request);
    const startedAt = performance.now();
    let raw: unknown;
    try {
      raw = await this.#sdk.chat.completions.create(body, { signal: request.signal });
    } catch (error) {
      const attempt = { callerSignal: request.signal, elapsedMs: performance.now() - startedAt, timeoutMs: this.timeoutMs };
      throw toLlmError(describeOpenAiFailure(error, attempt), {
        provider: this.provider,
        attempts: this.maxRetries + 1,
        secrets: [this.#apiKey],
      });
    }
    const latencyMs = performance.now() - startedAt;
    return this.parseResponse(raw, body, latencyMs);
  }

  private buildRequestBody(request: LlmRequest): ChatCompletionCreateParamsNonStreaming {
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: this.wireModel,
      messages: request.messages.map(toOpenAiMessage),
    };
    if (request.tools.length > 0) body.tools = request.tools.map(toOpenAiTool);
    if (this.config.temperature !== undefined) body.temperature = this.config.temperature;
    if (this.config.maxOutputTokens !== undefined) {
      // OpenAI's reasoning models only take the new name; most compatible servers only know the old one.
      if (this.provider === 'openai') body.max_completion_tokens = this.config.maxOutputTokens;
      else body.max_tokens = this.config.maxOutputTokens;
    }
    return body;
  }

  private parseResponse(raw: unknown, body: unknown, latencyMs: number): LlmResponse {
    const response = raw as OpenAiWireResponse | null;
    const choice = response?.choices?.[0];
    const wireMessage = choice?.message;
    if (!wireMessage) {
      throw new LlmBadResponseError(`LLM provider '${this.provider}' answered without a message`);
    }
    const text = typeof wireMessage.content === 'string' ? wireMessage.content : '';
    const toolCalls = (wireMessage.tool_calls ?? [])
      .filter((call) => call?.function)
      .map(
        (call): MessageToolCall => ({
          id: call.id || `call_${randomUUID()}`,
          name: call.function!.name ?? '',
          arguments: normaliseArguments(call.function!.arguments),
          origin: 'completion',
        }),
      );
    // vLLM/DeepSeek call it reasoning_content; OpenRouter and some Ollama builds say reasoning.
    const reasoning = wireMessage.reasoning_content ?? wireMessage.reasoning ?? null;
    const content: TextContent[] = text ? [{ type: 'text', text }] : [];
    const message: Message = {
      role: 'assistant',
      content,
      tool_calls: toolCalls.length > 0 ? toolCalls : null,
      reasoning_content: typeof reasoning === 'string' && reasoning ? reasoning : null,
      thinking_blocks: [],
    };
    const model = response?.model || this.wireModel;
    const usage = this.parseUsage(response?.usage, model);
    return {
      id: response?.id || `chatcmpl-${randomUUID()}`,
      model,
      message,
      finishReason: choice?.finish_reason ?? null,
      usage,
      cost: computeCost(this.wireModel, usage),
      latencyMs,
      rawRequest: body,
      rawResponse: raw,
    };
  }

  private parseUsage(usage: OpenAiWireResponse['usage'], model: string): LlmUsage {
    return {
      prompt_tokens: usage?.prompt_tokens ?? 0,
      completion_tokens: usage?.completion_tokens ?? 0,
      cache_read_tokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
      cache_write_tokens: 0,
      reasoning_tokens: usage?.completion_tokens_details?.reasoning_tokens ?? 0,
      context_window: contextWindowOf(this.wireModel) || contextWindowOf(model),
    };
  }
}

/** The parts of a chat completion we read; compatible servers add or omit fields freely. */
interface OpenAiWireResponse {
  id?: string;
  model?: string;
  choices?: Array<{
    finish_reason?: string | null;
    message?: {
      content?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: unknown } }> | null;
    };
  }>;
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
    completion_tokens_details?: { reasoning_tokens?: number } | null;
  } | null;
}

function normaliseArguments(args: unknown): string {
  if (typeof args === 'string') return args;
  if (args == null) return '{}';
  // Some compatible servers send the arguments as an object rather than a JSON string.
  return JSON.stringify(args);
}

function toOpenAiTool(tool: LlmToolSpec): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

export function toOpenAiMessage(message: Message): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: messageText(message) };
    case 'user':
      return { role: 'user', content: toUserContent(message) };
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id ?? '', content: messageText(message) };
    case 'assistant': {
      const text = messageText(message);
      const toolCalls = message.tool_calls ?? [];
      return {
        role: 'assistant',
        content: text || (toolCalls.length > 0 ? null : ''),
        ...(toolCalls.length > 0
          ? {
              tool_calls: toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    }
  }
}

/** Plain text stays a string (every compatible server takes it); images need content parts. */
function toUserContent(message: Message): string | ChatCompletionContentPart[] {
  if (message.content.every((part) => part.type === 'text')) return messageText(message);
  return message.content.flatMap((part): ChatCompletionContentPart[] =>
    part.type === 'text'
      ? [{ type: 'text', text: part.text }]
      : part.image_urls.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
  );
}

function describeOpenAiFailure(error: unknown, attempt: AttemptContext): ProviderFailure {
  if (error instanceof APIUserAbortError) return { kind: 'aborted' };
  if (error instanceof APIConnectionTimeoutError) return { kind: 'timeout' };
  if (error instanceof APIConnectionError) return { kind: connectionFailureKind(error, attempt) };
  if (error instanceof APIError && typeof error.status === 'number') {
    const body = error.error as unknown;
    const fields = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    const code = [fields.code, fields.type].find((value) => typeof value === 'string') as string | undefined;
    return { kind: 'status', status: error.status, providerMessage: providerMessageOf(body, error), providerCode: code ?? null };
  }
  if (error instanceof SyntaxError) return { kind: 'malformed' };
  return { kind: 'unknown', errorName: error instanceof Error ? error.name : typeof error };
}

/** Compatible servers put their explanation in `error.message`, `message`, a bare string or plain text. */
function providerMessageOf(body: unknown, error: Error): string {
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object') {
    const message = (body as Record<string, unknown>).message;
    if (typeof message === 'string') return message;
    return JSON.stringify(body);
  }
  return error.message.replace(/^\d{3}\s*/, '');
}

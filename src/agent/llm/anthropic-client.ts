// Anthropic Messages API via @anthropic-ai/sdk: system prompt as `system`, tool calls as tool_use blocks,
// tool results as tool_result blocks in a user turn, thinking blocks sent back with their signatures.
import { randomUUID } from 'node:crypto';
import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';

import { DEFAULT_ANTHROPIC_MAX_TOKENS, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, MISSING_KEY_PLACEHOLDER } from './defaults.js';
import { connectionFailureKind, LlmBadResponseError, toLlmError, type AttemptContext, type ProviderFailure } from './errors.js';
import type { AnyThinkingBlock, ImageContent, Message, MessageToolCall, TextContent } from './message.js';
import type { ModelSpec } from './model-spec.js';
import { computeCost, contextWindowOf } from './pricing.js';
import type { LlmClient, LlmConfig, LlmRequest, LlmResponse, LlmToolSpec, LlmUsage } from './types.js';

export class AnthropicMessagesClient implements LlmClient {
  readonly provider = 'anthropic';
  readonly wireModel: string;
  // ES-private so that logging or serialising the client cannot reveal the key (the SDK holds it too).
  readonly #sdk: Anthropic;
  readonly #apiKey: string | null;
  private readonly config: Omit<LlmConfig, 'apiKey'>;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;

  constructor(spec: ModelSpec, { apiKey, ...config }: LlmConfig) {
    this.#apiKey = apiKey ?? null;
    this.config = config;
    this.wireModel = spec.wireModel;
    this.maxRetries = config.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // The key is always passed, so the SDK never reads ANTHROPIC_API_KEY or a credentials profile.
    this.#sdk = new Anthropic({
      apiKey: apiKey || MISSING_KEY_PLACEHOLDER,
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
      // The SDK's own transport (auth, retries, timeout, typed errors) without messages.create(), which
      // console.warns on every call for a model it considers deprecated.
      raw = await this.#sdk.post<AnthropicWireResponse>('/v1/messages', { body, signal: request.signal });
    } catch (error) {
      const attempt = { callerSignal: request.signal, elapsedMs: performance.now() - startedAt, timeoutMs: this.timeoutMs };
      throw toLlmError(describeAnthropicFailure(error, attempt), {
        provider: this.provider,
        attempts: this.maxRetries + 1,
        secrets: [this.#apiKey],
      });
    }
    return this.parseResponse(raw, body, performance.now() - startedAt);
  }

  private buildRequestBody(request: LlmRequest): MessageCreateParamsNonStreaming {
    const systemBlocks = request.messages
      .filter((message) => message.role === 'system')
      .flatMap((message) => message.content.filter((part): part is TextContent => part.type === 'text'))
      .filter((part) => part.text)
      .map(toTextBlock);
    const body: MessageCreateParamsNonStreaming = {
      model: this.wireModel,
      max_tokens: this.config.maxOutputTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
      messages: toAnthropicMessages(request.messages),
    };
    if (systemBlocks.length > 0) body.system = systemBlocks;
    if (request.tools.length > 0) body.tools = request.tools.map(toAnthropicTool);
    // No temperature: the Messages API this SDK version targets no longer takes one.
    if (this.config.thinkingBudgetTokens) {
      body.thinking = { type: 'enabled', budget_tokens: this.config.thinkingBudgetTokens };
    }
    return body;
  }

  private parseResponse(raw: unknown, body: unknown, latencyMs: number): LlmResponse {
    const response = raw as AnthropicWireResponse | null;
    if (!response || !Array.isArray(response.content)) {
      throw new LlmBadResponseError(`LLM provider '${this.provider}' answered without content`);
    }
    const texts: TextContent[] = [];
    const toolCalls: MessageToolCall[] = [];
    const thinkingBlocks: AnyThinkingBlock[] = [];
    for (const block of response.content) {
      if (block.type === 'text' && typeof block.text === 'string' && block.text) {
        texts.push({ type: 'text', text: block.text });
      } else if (block.type === 'tool_use') {
        toolCalls.push({
          id: block.id || `toolu_${randomUUID()}`,
          name: block.name ?? '',
          arguments: JSON.stringify(block.input ?? {}),
          origin: 'completion',
        });
      } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
        thinkingBlocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature ?? null });
      } else if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
        thinkingBlocks.push({ type: 'redacted_thinking', data: block.data });
      }
    }
    const reasoning = thinkingBlocks
      .map((block) => (block.type === 'thinking' ? block.thinking : ''))
      .filter(Boolean)
      .join('\n');
    const message: Message = {
      role: 'assistant',
      content: texts,
      tool_calls: toolCalls.length > 0 ? toolCalls : null,
      reasoning_content: reasoning || null,
      thinking_blocks: thinkingBlocks,
    };
    const usage = this.parseUsage(response.usage);
    return {
      id: response.id || `msg_${randomUUID()}`,
      model: response.model || this.wireModel,
      message,
      finishReason: response.stop_reason ?? null,
      usage,
      cost: computeCost(this.wireModel, usage),
      latencyMs,
      rawRequest: body,
      rawResponse: raw,
    };
  }

  private parseUsage(usage: AnthropicWireResponse['usage']): LlmUsage {
    const cacheRead = usage?.cache_read_input_tokens ?? 0;
    const cacheWrite = usage?.cache_creation_input_tokens ?? 0;
    return {
      // Anthropic's input_tokens excludes cached tokens; ours counts the whole prompt.
      prompt_tokens: (usage?.input_tokens ?? 0) + cacheRead + cacheWrite,
      completion_tokens: usage?.output_tokens ?? 0,
      cache_read_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
      reasoning_tokens: usage?.output_tokens_details?.thinking_tokens ?? 0,
      context_window: contextWindowOf(this.wireModel),
    };
  }
}

interface AnthropicWireResponse {
  id?: string;
  model?: string;
  stop_reason?: string | null;
  content: Array<{
    type: string;
    text?: string;
    id?: string;
    name?: string;
    input?: unknown;
    thinking?: string;
    signature?: string | null;
    data?: string;
  }>;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    cache_read_input_tokens?: number | null;
    cache_creation_input_tokens?: number | null;
    output_tokens_details?: { thinking_tokens?: number } | null;
  };
}

/**
 * Anthropic has no system or tool role: tool results become tool_result blocks of a user turn, and
 * consecutive turns of one role are merged (all results of one parallel batch must share a turn).
 */
export function toAnthropicMessages(messages: Message[]): MessageParam[] {
  const turns: Array<{ role: 'user' | 'assistant'; content: ContentBlockParam[] }> = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = message.role === 'assistant' ? assistantBlocks(message) : userBlocks(message);
    if (blocks.length === 0) continue;
    const previous = turns.at(-1);
    if (previous && previous.role === role) previous.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  for (const turn of turns) {
    // tool_result blocks must open their user turn.
    if (turn.role === 'user') turn.content.sort((a, b) => rankUserBlock(a) - rankUserBlock(b));
  }
  return turns;
}

function rankUserBlock(block: ContentBlockParam): number {
  return block.type === 'tool_result' ? 0 : 1;
}

function assistantBlocks(message: Message): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  for (const block of message.thinking_blocks ?? []) {
    // A thinking block without its signature is refused by the API, so it cannot be replayed.
    if (block.type === 'thinking' && block.signature) {
      blocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    } else if (block.type === 'redacted_thinking') {
      blocks.push({ type: 'redacted_thinking', data: block.data });
    }
  }
  for (const part of message.content) {
    if (part.type === 'text' && part.text) blocks.push(toTextBlock(part));
  }
  for (const call of message.tool_calls ?? []) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: parseToolInput(call.arguments) });
  }
  return blocks;
}

function userBlocks(message: Message): ContentBlockParam[] {
  const parts = message.content.flatMap((part): Array<TextBlockParam | ImageBlockParam> =>
    part.type === 'text' ? (part.text ? [toTextBlock(part)] : []) : toImageBlocks(part),
  );
  if (message.role === 'tool') {
    return [{ type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: parts.length > 0 ? parts : '' }];
  }
  return parts;
}

/** tool_use input must be an object; arguments the LLM garbled are replayed as an empty one. */
function parseToolInput(args: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(args);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function toTextBlock(part: TextContent): TextBlockParam {
  return part.cache_prompt
    ? { type: 'text', text: part.text, cache_control: { type: 'ephemeral' } }
    : { type: 'text', text: part.text };
}

const BASE64_IMAGE_URL = /^data:(image\/(?:jpeg|png|gif|webp));base64,(.*)$/s;

function toImageBlocks(part: ImageContent): ImageBlockParam[] {
  return part.image_urls.map((url): ImageBlockParam => {
    const inline = BASE64_IMAGE_URL.exec(url);
    if (inline) {
      const mediaType = inline[1] as 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
      return { type: 'image', source: { type: 'base64', media_type: mediaType, data: inline[2] } };
    }
    return { type: 'image', source: { type: 'url', url } };
  });
}

function toAnthropicTool(tool: LlmToolSpec): Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: { type: 'object', ...tool.parameters } as Tool.InputSchema,
  };
}

function describeAnthropicFailure(error: unknown, attempt: AttemptContext): ProviderFailure {
  if (error instanceof APIUserAbortError) return { kind: 'aborted' };
  if (error instanceof APIConnectionTimeoutError) return { kind: 'timeout' };
  if (error instanceof APIConnectionError) return { kind: connectionFailureKind(error, attempt) };
  if (error instanceof APIError && typeof error.status === 'number') {
    // Anthropic's body is {type: 'error', error: {type, message}}; the SDK keeps the whole body.
    type ErrorFields = { type?: unknown; message?: unknown };
    const body = error.error as (ErrorFields & { error?: ErrorFields }) | undefined;
    const inner: ErrorFields | undefined = body?.error ?? body;
    return {
      kind: 'status',
      status: error.status,
      providerMessage: typeof inner?.message === 'string' ? inner.message : '',
      providerCode: typeof inner?.type === 'string' ? inner.type : null,
    };
  }
  if (error instanceof SyntaxError) return { kind: 'malformed' };
  return { kind: 'unknown', errorName: error instanceof Error ? error.name : typeof error };
}

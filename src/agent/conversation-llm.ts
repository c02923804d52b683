import { Injectable } from '@nestjs/common';
import { ConversationsService, type ConversationSecrets } from '../conversations/conversations.service.js';
import type { ConversationEntity } from '../conversations/entities/conversation.entity.js';
import { RequestValidationException } from '../common/validation/validation-issue.js';
import { SettingsService } from '../settings/settings.service.js';
import type { AgentSettings } from '../settings/settings.types.js';
import { createLlmClient, type LlmClient } from './llm/index.js';

/** An LLM named in a request (the reference's `llm` of GenerateTitleRequest); only these fields are used. */
export interface RequestedLlm {
  model?: string | null;
  api_key?: string | null;
  base_url?: string | null;
}

/** GenerateTitleRequest.llm: only model, api_key and base_url matter here, each a string when given. */
export function toRequestedLlm(llm: Record<string, unknown> | null | undefined): RequestedLlm | null {
  if (!llm) return null;
  for (const field of ['model', 'api_key', 'base_url'] as const) {
    const value = llm[field];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      throw RequestValidationException.single(['body', 'llm', field], 'Input should be a valid string', 'string_type');
    }
  }
  return { model: llm.model as string | null, api_key: llm.api_key as string | null, base_url: llm.base_url as string | null };
}

/** The LLM a conversation uses: its own agent.llm (and encrypted key) over its owner's settings. */
export function configuredLlm(
  conversation: ConversationEntity,
  secrets: ConversationSecrets,
  settings: AgentSettings | null,
): { model: string | null; apiKey: string | null; baseUrl: string | null } {
  const llm = conversation.agent?.llm;
  return {
    model: llm?.model || settings?.llmModel || null,
    apiKey: secrets.llm_api_key || settings?.llmApiKey || null,
    baseUrl: llm?.base_url || settings?.llmBaseUrl || null,
  };
}

export interface ConversationLlm {
  client: LlmClient;
  /** To redact from any error text. */
  apiKey: string | null;
}

export interface LlmCallLimits {
  timeoutMs: number;
  maxRetries: number;
}

/** The limits the agent's own calls use (LLM_TIMEOUT_MS, LLM_MAX_RETRIES), each capped by `cap`. */
export function llmCallLimits(cap: Partial<LlmCallLimits> = {}): LlmCallLimits {
  const timeoutMs = Number(process.env.LLM_TIMEOUT_MS) || 300_000;
  const maxRetries = process.env.LLM_MAX_RETRIES ? Number(process.env.LLM_MAX_RETRIES) : 4;
  return { timeoutMs: Math.min(timeoutMs, cap.timeoutMs ?? Infinity), maxRetries: Math.min(maxRetries, cap.maxRetries ?? Infinity) };
}

/**
 * The LLM a conversation's side questions (ask_agent, generate_title) go to: the one its runs use,
 * i.e. the conversation's agent.llm over the owner's settings, unless the request names another.
 */
@Injectable()
export class ConversationLlmResolver {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly settings: SettingsService,
  ) {}

  /** Null when no model is configured anywhere. */
  async clientFor(conversation: ConversationEntity, limits: LlmCallLimits, requested?: RequestedLlm | null): Promise<ConversationLlm | null> {
    const settings = await this.settings.resolveForAgent(conversation.ownerId);
    const configured = configuredLlm(conversation, this.conversations.secretsOf(conversation), settings);
    const model = requested?.model || configured.model;
    if (!model) return null;
    const baseUrl = requested?.base_url || configured.baseUrl;
    // The stored key goes only where it is configured to go, never to a base URL a request names.
    const apiKey = requested?.api_key || (baseUrl === configured.baseUrl ? configured.apiKey : null);
    return { client: createLlmClient({ model, apiKey, baseUrl, ...limits }), apiKey };
  }
}

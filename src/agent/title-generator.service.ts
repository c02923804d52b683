import { ConflictException, Injectable, Logger } from '@nestjs/common';
import { ConversationsService } from '../conversations/conversations.service.js';
import { EventStoreService } from '../events/event-store.service.js';
import { ConversationLlmResolver, llmCallLimits, type RequestedLlm } from './conversation-llm.js';
import { messageText, redactSecrets, type Message } from './llm/index.js';

type StoredEvent = Record<string, any>;

/** How much of the first message the LLM reads to name the conversation. */
const MAX_PROMPT_CHARS = 4_000;
/** A title is a side job: it may not hold the request as long as an agent step may. */
const TITLE_CALL_LIMITS = { timeoutMs: 30_000, maxRetries: 1 };

/**
 * POST .../generate_title: a short title from the first user message, by the conversation's LLM (or the
 * one the request names); without an LLM, or when it fails, the message itself, cut to max_length.
 * Stored as the conversation's title (a ConversationStateUpdateEvent, as a rename).
 */
@Injectable()
export class TitleGeneratorService {
  private readonly logger = new Logger(TitleGeneratorService.name);

  constructor(
    private readonly conversations: ConversationsService,
    private readonly store: EventStoreService,
    private readonly llms: ConversationLlmResolver,
  ) {}

  async generate(conversationId: string, maxLength: number, requestedLlm?: RequestedLlm | null): Promise<string> {
    const conversation = await this.conversations.find(conversationId);
    const firstMessage = firstUserText(await this.store.all(conversationId));
    if (firstMessage === null) {
      throw new ConflictException({ detail: 'The conversation has no user message to make a title from yet' });
    }
    const title = (await this.askLlm(conversation, firstMessage, maxLength, requestedLlm)) ?? truncateTitle(firstMessage, maxLength);
    await this.conversations.changeState(conversationId, 'title', title);
    return title;
  }

  /** The LLM's title, or null when there is no LLM or it did not give a usable one. */
  private async askLlm(
    conversation: Awaited<ReturnType<ConversationsService['find']>>,
    firstMessage: string,
    maxLength: number,
    requestedLlm?: RequestedLlm | null,
  ): Promise<string | null> {
    let apiKey: string | null = null;
    try {
      const llm = await this.llms.clientFor(conversation, llmCallLimits(TITLE_CALL_LIMITS), requestedLlm);
      if (!llm) return null;
      apiKey = llm.apiKey;
      const messages: Message[] = [
        {
          role: 'system',
          content: [{
            type: 'text',
            text: `Write a concise title, at most ${maxLength} characters, for a conversation that begins with the user's message below. ` +
              'Answer with the title only: no quotes, no trailing punctuation, no explanation.',
          }],
        },
        { role: 'user', content: [{ type: 'text', text: firstMessage.slice(0, MAX_PROMPT_CHARS) }] },
      ];
      const response = await llm.client.complete({ messages, tools: [] });
      const title = cleanTitle(messageText(response.message));
      return title ? truncateTitle(title, maxLength) : null;
    } catch (error) {
      this.logger.warn(`Title by LLM failed, using the first message: ${redactSecrets((error as Error).message ?? String(error), [apiKey, requestedLlm?.api_key])}`);
      return null;
    }
  }
}

/** The text of the first user MessageEvent that has any, or null. */
export function firstUserText(log: StoredEvent[]): string | null {
  for (const event of log) {
    if (event.kind !== 'MessageEvent' || event.source !== 'user') continue;
    const text = messageText(event.llm_message ?? { content: [] }).replace(/\s+/g, ' ').trim();
    if (text) return text;
  }
  return null;
}

/** The first line, without the quotes or "Title:" LLMs like to add. */
export function cleanTitle(raw: string): string {
  const line = raw.split('\n').map((part) => part.trim()).find(Boolean) ?? '';
  const unquote = (text: string) => text.replace(/^["'`*\s]+|["'`*\s]+$/g, '');
  return unquote(unquote(line).replace(/^title\s*:\s*/i, '')).replace(/\s+/g, ' ').trim();
}

/** At most maxLength characters; a cut title ends with "..." when there is room for it. */
export function truncateTitle(text: string, maxLength: number): string {
  const chars = Array.from(text.trim());
  if (chars.length <= maxLength) return chars.join('');
  if (maxLength <= 3) return chars.slice(0, maxLength).join('');
  return `${chars.slice(0, maxLength - 3).join('').trimEnd()}...`;
}

import { Injectable } from '@nestjs/common';
import { ConversationsService } from '../conversations/conversations.service.js';
import { EventStoreService } from '../events/event-store.service.js';
import { ConversationLlmResolver, llmCallLimits } from './conversation-llm.js';
import { buildLlmView } from './llm-view.js';
import { llmFailureToHttp, noLlmConfigured } from './llm-http-errors.js';
import { messageText, type Message, type TextContent } from './llm/index.js';

/** The longest tool result or call passed on as context, in characters. */
const MAX_TOOL_TEXT_CHARS = 4_000;

/**
 * POST .../ask_agent: a question answered by the conversation's LLM with the conversation as the agent
 * sees it for context, without tools and without touching the conversation (no event, no state).
 */
@Injectable()
export class AskAgentService {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly store: EventStoreService,
    private readonly llms: ConversationLlmResolver,
  ) {}

  async ask(conversationId: string, question: string): Promise<string> {
    const conversation = await this.conversations.find(conversationId);
    const llm = await this.llms.clientFor(conversation, llmCallLimits()).catch((error: unknown) => {
      throw llmFailureToHttp(error, null);
    });
    if (!llm) throw noLlmConfigured();
    const context = buildLlmView(await this.store.all(conversationId)).messages.map(withoutToolProtocol);
    const messages: Message[] = [...context, { role: 'user', content: [{ type: 'text', text: question }] }];
    try {
      const response = await llm.client.complete({ messages, tools: [] });
      return messageText(response.message);
    } catch (error) {
      throw llmFailureToHttp(error, llm.apiKey);
    }
  }
}

/**
 * The same message in plain text: providers refuse tool calls and results in a request that offers no
 * tools, so a call becomes a line of the assistant's text and a result a user turn that says what it is.
 * Reasoning and thinking blocks (signed for one exact request) are dropped.
 */
export function withoutToolProtocol(message: Message): Message {
  if (message.role === 'tool') {
    return { role: 'user', content: [text(`[Result of the tool ${message.name ?? 'call'}]\n${clip(messageText(message))}`)] };
  }
  if (message.role === 'assistant' && message.tool_calls?.length) {
    const calls = message.tool_calls.map((call) => `[Called the tool ${call.name} with ${clip(call.arguments)}]`);
    return { role: 'assistant', content: [...message.content, text(calls.join('\n'))] };
  }
  return { role: message.role, content: message.content };
}

function text(value: string): TextContent {
  return { type: 'text', text: value };
}

function clip(value: string): string {
  return value.length > MAX_TOOL_TEXT_CHARS ? `${value.slice(0, MAX_TOOL_TEXT_CHARS)}… [cut]` : value;
}

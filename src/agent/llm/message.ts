// The provider-neutral message shapes of the interface (Message, MessageToolCall, TextContent, ...).
// Field names follow the interface so events can embed these objects as they are.

export interface TextContent {
  type: 'text';
  text: string;
  cache_prompt?: boolean;
}

export interface ImageContent {
  type: 'image';
  image_urls: string[];
  cache_prompt?: boolean;
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string | null;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type AnyThinkingBlock = ThinkingBlock | RedactedThinkingBlock;

export interface ReasoningItemModel {
  id?: string | null;
  summary?: string[];
  content?: string[] | null;
  /** Opaque to us; must never be logged or rendered. */
  encrypted_content?: string | null;
  status?: string | null;
}

export interface MessageToolCall {
  id: string;
  name: string;
  /** The arguments as the LLM produced them: a string that should hold a JSON object, but may be malformed. */
  arguments: string;
  origin: 'completion' | 'responses';
}

export type MessageRole = 'user' | 'system' | 'assistant' | 'tool';

export interface Message {
  role: MessageRole;
  content: Array<TextContent | ImageContent>;
  tool_calls?: MessageToolCall[] | null;
  /** For role 'tool': the id of the call this message answers. */
  tool_call_id?: string | null;
  /** For role 'tool': the tool's name. */
  name?: string | null;
  reasoning_content?: string | null;
  thinking_blocks?: AnyThinkingBlock[];
  responses_reasoning_item?: ReasoningItemModel | null;
}

export function textContent(text: string): TextContent {
  return { type: 'text', text };
}

/** The text parts of a message's content joined by newlines; images are skipped. */
export function messageText(message: Pick<Message, 'content'>): string {
  return message.content
    .filter((part): part is TextContent => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

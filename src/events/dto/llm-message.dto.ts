import {
  CONTENT_ITEM_UNION,
  THINKING_BLOCK_UNION,
  type ContentItem,
  type ThinkingBlockItem,
} from './content.dto.js';
import {
  EnumField,
  FreeFormObjectField,
  NestedField,
  NumberField,
  StringArrayField,
  StringField,
  UnionField,
} from './dto-field.decorators.js';
import { MESSAGE_ROLES, TOOL_CALL_ORIGINS, type MessageRole, type ToolCallOrigin } from './event-enums.js';

/** The LLM-facing objects carried by events: messages, tool calls, reasoning and critic results. */

export class ReasoningItemModel {
  @StringField({ nullable: true })
  id: string | null;

  @StringArrayField({ default: [] })
  summary: string[];

  @StringArrayField({ nullable: true })
  content: string[] | null;

  @StringField({ nullable: true, description: 'Encrypted reasoning; never logged or rendered' })
  encrypted_content: string | null;

  @StringField({ nullable: true })
  status: string | null;
}

export class MessageToolCall {
  @StringField({ required: true, description: 'Tool call id given by the LLM' })
  id: string;

  @StringField({ required: true, description: 'Name of the tool called' })
  name: string;

  @StringField({ required: true, description: 'Arguments of the call, as a JSON string' })
  arguments: string;

  @EnumField(TOOL_CALL_ORIGINS, { required: true, description: 'API the call came from' })
  origin: ToolCallOrigin;
}

export class CriticResult {
  @NumberField({ required: true, minimum: 0, maximum: 1 })
  score: number;

  @StringField({ required: true, nullable: true })
  message: string | null;

  @FreeFormObjectField({ nullable: true })
  metadata: Record<string, unknown> | null;
}

export class Message {
  @EnumField(MESSAGE_ROLES, { required: true })
  role: MessageRole;

  @UnionField(CONTENT_ITEM_UNION, { isArray: true, default: [] })
  content: ContentItem[];

  @NestedField(() => MessageToolCall, { isArray: true, nullable: true })
  tool_calls: MessageToolCall[] | null;

  @StringField({ nullable: true })
  tool_call_id: string | null;

  @StringField({ nullable: true })
  name: string | null;

  @StringField({ nullable: true })
  reasoning_content: string | null;

  @UnionField(THINKING_BLOCK_UNION, { isArray: true, default: [] })
  thinking_blocks: ThinkingBlockItem[];

  @NestedField(() => ReasoningItemModel, { nullable: true })
  responses_reasoning_item: ReasoningItemModel | null;
}

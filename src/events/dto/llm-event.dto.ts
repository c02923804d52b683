import { ACTION_UNION, type Action } from './action.union.js';
import { TextContent, THINKING_BLOCK_UNION, type ThinkingBlockItem } from './content.dto.js';
import {
  ConstantField,
  EnumField,
  NestedField,
  StringArrayField,
  StringField,
  UnionField,
} from './dto-field.decorators.js';
import { EventBase, SourceField } from './event-base.dto.js';
import { SecurityRisk, type EventSource } from './event-enums.js';
import { CriticResult, Message, MessageToolCall, ReasoningItemModel } from './llm-message.dto.js';
import { TOOL_DEFINITION_UNION, type ToolDefinition } from './tool-definition.dto.js';

/** Events that carry what the LLM was told or said: the system prompt, messages and tool calls. */

export class SystemPromptEvent extends EventBase {
  @SourceField('agent')
  source: EventSource;

  @ConstantField('SystemPromptEvent')
  kind: 'SystemPromptEvent';

  @NestedField(() => TextContent, { required: true })
  system_prompt: TextContent;

  @UnionField(TOOL_DEFINITION_UNION, { isArray: true, required: true, description: 'Tools offered to the LLM' })
  tools: ToolDefinition[];

  @NestedField(() => TextContent, { nullable: true, description: 'Context added to the prompt per conversation' })
  dynamic_context: TextContent | null;
}

export class MessageEvent extends EventBase {
  @SourceField()
  source: EventSource;

  @ConstantField('MessageEvent')
  kind: 'MessageEvent';

  @NestedField(() => Message, { required: true })
  llm_message: Message;

  @StringField({ nullable: true, description: 'LLM response that produced the message; null unless source is agent' })
  llm_response_id: string | null;

  @StringArrayField({ default: [] })
  activated_skills: string[];

  @NestedField(() => TextContent, { isArray: true, default: [] })
  extended_content: TextContent[];

  @StringField({ nullable: true })
  sender: string | null;

  @NestedField(() => CriticResult, { nullable: true })
  critic_result: CriticResult | null;
}

export class ActionEvent extends EventBase {
  @SourceField('agent')
  source: EventSource;

  @ConstantField('ActionEvent')
  kind: 'ActionEvent';

  @NestedField(() => TextContent, { isArray: true, required: true, description: 'Text the LLM gave with the call' })
  thought: TextContent[];

  @StringField({ nullable: true })
  reasoning_content: string | null;

  @UnionField(THINKING_BLOCK_UNION, { isArray: true, default: [] })
  thinking_blocks: ThinkingBlockItem[];

  @NestedField(() => ReasoningItemModel, { nullable: true })
  responses_reasoning_item: ReasoningItemModel | null;

  @UnionField(ACTION_UNION, { nullable: true, description: 'The parsed call; null when it cannot be executed' })
  action: Action | null;

  @StringField({ required: true })
  tool_name: string;

  @StringField({ required: true })
  tool_call_id: string;

  @NestedField(() => MessageToolCall, { required: true })
  tool_call: MessageToolCall;

  @StringField({ required: true, description: 'Shared by the parallel calls of one LLM response' })
  llm_response_id: string;

  @EnumField(SecurityRisk, { default: SecurityRisk.UNKNOWN, enumName: 'SecurityRisk' })
  security_risk: SecurityRisk;

  @NestedField(() => CriticResult, { nullable: true })
  critic_result: CriticResult | null;

  @StringField({ nullable: true, description: 'About 10 words describing the action' })
  summary: string | null;
}

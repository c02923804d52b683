import { randomUUID } from 'node:crypto';
import {
  AnyValueField,
  ConstantField,
  IntegerArrayField,
  StringField,
} from './dto-field.decorators.js';
import { EventBase, SourceField } from './event-base.dto.js';
import type { EventSource } from './event-enums.js';

/** Bookkeeping events of a conversation: errors, state changes, LLM logs, token ids, pauses. */

export class ConversationErrorEvent extends EventBase {
  @SourceField()
  source: EventSource;

  @ConstantField('ConversationErrorEvent')
  kind: 'ConversationErrorEvent';

  @StringField({ required: true, description: 'Error class, e.g. MaxIterationsReached' })
  code: string;

  @StringField({ required: true })
  detail: string;
}

export class ConversationStateUpdateEvent extends EventBase {
  @SourceField('environment')
  source: EventSource;

  @ConstantField('ConversationStateUpdateEvent')
  kind: 'ConversationStateUpdateEvent';

  @StringField({ defaultFactory: () => randomUUID(), description: 'Name of the updated state field' })
  key: string;

  @AnyValueField({ defaultFactory: () => ({}), description: 'Serialized new value' })
  value: unknown;
}

export class LLMCompletionLogEvent extends EventBase {
  @SourceField('environment')
  source: EventSource;

  @ConstantField('LLMCompletionLogEvent')
  kind: 'LLMCompletionLogEvent';

  @StringField({ required: true })
  filename: string;

  @StringField({ required: true, description: 'The completion log, JSON-encoded' })
  log_data: string;

  @StringField({ default: 'unknown' })
  model_name: string;

  @StringField({ default: 'default' })
  usage_id: string;
}

export class TokenEvent extends EventBase {
  @SourceField()
  source: EventSource;

  @ConstantField('TokenEvent')
  kind: 'TokenEvent';

  @IntegerArrayField({ required: true })
  prompt_token_ids: number[];

  @IntegerArrayField({ required: true })
  response_token_ids: number[];
}

export class PauseEvent extends EventBase {
  @SourceField('user')
  source: EventSource;

  @ConstantField('PauseEvent')
  kind: 'PauseEvent';
}

import { ConstantField, EnumField, StringField, UnionField } from './dto-field.decorators.js';
import { EventBase, SourceField } from './event-base.dto.js';
import { REJECTION_SOURCES, type EventSource, type RejectionSource } from './event-enums.js';
import { OBSERVATION_UNION, type Observation } from './observation.union.js';

/** Events that answer a tool call (by tool_call_id): its result, its rejection or its failure. */

export class ObservationEvent extends EventBase {
  @SourceField('environment')
  source: EventSource;

  @ConstantField('ObservationEvent')
  kind: 'ObservationEvent';

  @StringField({ required: true })
  tool_name: string;

  @StringField({ required: true })
  tool_call_id: string;

  @StringField({ required: true, description: 'Id of the ActionEvent this answers' })
  action_id: string;

  @UnionField(OBSERVATION_UNION, { required: true })
  observation: Observation;
}

export class UserRejectObservation extends EventBase {
  @SourceField('environment')
  source: EventSource;

  @ConstantField('UserRejectObservation')
  kind: 'UserRejectObservation';

  @StringField({ required: true })
  tool_name: string;

  @StringField({ required: true })
  tool_call_id: string;

  @StringField({ required: true, description: 'Id of the rejected ActionEvent' })
  action_id: string;

  @StringField({ default: 'User rejected the action' })
  rejection_reason: string;

  @EnumField(REJECTION_SOURCES, { default: 'user', description: 'user in confirmation mode, hook for a PreToolUse hook' })
  rejection_source: RejectionSource;
}

export class AgentErrorEvent extends EventBase {
  @SourceField('agent')
  source: EventSource;

  @ConstantField('AgentErrorEvent')
  kind: 'AgentErrorEvent';

  @StringField({ required: true })
  tool_name: string;

  @StringField({ required: true })
  tool_call_id: string;

  @StringField({ required: true, description: 'What went wrong, for the LLM to read' })
  error: string;
}

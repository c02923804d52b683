import { ConstantField, IntegerField, StringArrayField, StringField } from './dto-field.decorators.js';
import { EventBase, SourceField } from './event-base.dto.js';
import type { EventSource } from './event-enums.js';

/** Events that shrink the history the LLM sees. */

export class Condensation extends EventBase {
  @SourceField('environment')
  source: EventSource;

  @ConstantField('Condensation')
  kind: 'Condensation';

  @StringArrayField({ default: [], description: 'Ids of the events dropped from the view given to the LLM' })
  forgotten_event_ids: string[];

  @StringField({ nullable: true, description: 'Summary of the forgotten events' })
  summary: string | null;

  @IntegerField({
    nullable: true,
    minimum: 0,
    description: 'Position in the resulting view where the summary goes; when null it is not inserted',
  })
  summary_offset: number | null;

  @StringField({ required: true })
  llm_response_id: string;
}

export class CondensationRequest extends EventBase {
  @SourceField('environment')
  source: EventSource;

  @ConstantField('CondensationRequest')
  kind: 'CondensationRequest';
}

export class CondensationSummaryEvent extends EventBase {
  @SourceField('environment')
  source: EventSource;

  @ConstantField('CondensationSummaryEvent')
  kind: 'CondensationSummaryEvent';

  @StringField({ required: true })
  summary: string;
}

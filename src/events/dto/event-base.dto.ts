import { newUlid } from '../../common/ids.js';
import { EnumField, StringField } from './dto-field.decorators.js';
import { EVENT_SOURCES, type EventSource } from './event-enums.js';

/** Fields every event variant starts with; each variant then declares its `source` and `kind`. */
export abstract class EventBase {
  @StringField({ required: true, defaultFactory: () => newUlid(), description: 'Unique event id (a ULID)' })
  id: string;

  @StringField({
    required: true,
    format: 'date-time',
    defaultFactory: () => new Date().toISOString(),
    description: 'When the event happened, ISO 8601 in UTC',
  })
  timestamp: string;
}

/**
 * The event's `source`, with the variant's default; without one the source is required.
 * Declared per variant rather than on EventBase because class-validator would merge
 * the base's optional presence rule into a variant that requires it.
 */
export function SourceField(variantDefault?: EventSource): PropertyDecorator {
  return EnumField(EVENT_SOURCES, {
    enumName: 'EventSource',
    ...(variantDefault ? { default: variantDefault } : { required: true }),
    description: 'Who produced the event',
  });
}

import { eventUnionSchema } from '../event-registry.js';

export function eventPageSchema(): Record<string, unknown> {
  return {
    type: 'object',
    required: ['events', 'has_more', 'next_id'],
    properties: {
      events: { type: 'array', items: eventUnionSchema() },
      has_more: { type: 'boolean', description: 'More matching events exist beyond this page, inside [start_id, end_id]' },
      next_id: { type: 'integer', nullable: true, description: 'Pass as start_id (forward) or end_id (reverse) for the next page' },
    },
  };
}

export function referenceEventPageSchema(): Record<string, unknown> {
  return {
    type: 'object',
    required: ['items'],
    properties: {
      items: { type: 'array', items: eventUnionSchema() },
      next_page_id: { type: 'string', nullable: true },
    },
  };
}

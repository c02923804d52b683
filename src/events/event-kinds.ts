export const EVENT_SOURCES = ['agent', 'user', 'environment'] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];

/** Bookkeeping kinds that `exclude_hidden` drops: not the dialogue a person reads. */
export const HIDDEN_EVENT_KINDS = [
  'ConversationStateUpdateEvent',
  'LLMCompletionLogEvent',
  'TokenEvent',
  'CondensationRequest',
  'SystemPromptEvent',
];

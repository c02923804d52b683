import type { ValidationError } from 'class-validator';
import { ACTION_CLASSES, ACTION_UNION, type ActionKind, type ActionOf } from './action.union.js';
import { Condensation, CondensationRequest, CondensationSummaryEvent } from './condensation-event.dto.js';
import { ImageContent, RedactedThinkingBlock, TextContent, ThinkingBlock } from './content.dto.js';
import {
  ConversationErrorEvent,
  ConversationStateUpdateEvent,
  LLMCompletionLogEvent,
  PauseEvent,
  TokenEvent,
} from './conversation-event.dto.js';
import { unionSchema, unrecognizedKindClass } from './dto-field.decorators.js';
import type { DtoClass, DtoUnion } from './dto-field.registry.js';
import {
  completeUnionMember,
  describeValidationErrors,
  toPlainJson,
  validateUnionMember,
  type DeepPartial,
} from './dto-validation.js';
import { ActionEvent, MessageEvent, SystemPromptEvent } from './llm-event.dto.js';
import { OBSERVATION_CLASSES, OBSERVATION_UNION, type ObservationKind, type ObservationOf } from './observation.union.js';
import { TOOL_DEFINITION_CLASSES } from './tool-definition.dto.js';
import { AgentErrorEvent, ObservationEvent, UserRejectObservation } from './tool-result-event.dto.js';

/** Every event variant by its `kind`, in the order of the interface. */
export const EVENT_CLASSES = {
  Condensation,
  CondensationRequest,
  CondensationSummaryEvent,
  ConversationErrorEvent,
  ConversationStateUpdateEvent,
  LLMCompletionLogEvent,
  ActionEvent,
  MessageEvent,
  AgentErrorEvent,
  ObservationEvent,
  UserRejectObservation,
  SystemPromptEvent,
  TokenEvent,
  PauseEvent,
} as const;

export type EventKind = keyof typeof EVENT_CLASSES;
export type EventOf<K extends EventKind> = InstanceType<(typeof EVENT_CLASSES)[K]>;
/** Any event, as served (named so it does not clash with the DOM/Node `Event`). */
export type ConversationEvent = EventOf<EventKind>;
/** What buildEvent accepts: any subset of the variant's fields, nested objects partial too. */
export type EventInit<K extends EventKind> = DeepPartial<Omit<EventOf<K>, 'kind'>>;

export const EVENT_KINDS = Object.keys(EVENT_CLASSES) as EventKind[];

export function isEventKind(value: unknown): value is EventKind {
  return typeof value === 'string' && Object.hasOwn(EVENT_CLASSES, value);
}

export const EVENT_UNION: DtoUnion = {
  name: 'Event',
  discriminator: 'kind',
  members: EVENT_CLASSES,
  fallback: unrecognizedKindClass('Event', EVENT_KINDS),
};

// ---- Swagger ----

/** The 14 event variant classes. */
export const eventVariantClasses: DtoClass[] = Object.values(EVENT_CLASSES);

/**
 * Every class the event schemas refer to through `oneOf`: pass these as SwaggerModule extraModels
 * (the event variants, the Action, Observation and ToolDefinition variants, the content items).
 */
export const eventExtraModels: DtoClass[] = [
  ...eventVariantClasses,
  ...Object.values(ACTION_CLASSES),
  ...Object.values(OBSERVATION_CLASSES),
  ...Object.values(TOOL_DEFINITION_CLASSES),
  TextContent,
  ImageContent,
  ThinkingBlock,
  RedactedThinkingBlock,
];

/** `{ oneOf: [$ref...], discriminator: { propertyName: 'kind', mapping } }` over the 14 variants. */
export function eventUnionSchema(): Record<string, unknown> {
  return unionSchema(EVENT_UNION);
}

// ---- Events ----

/**
 * The complete plain event for `plain` (which names its kind): every field of the variant present,
 * defaults applied, unset nullable fields null, nested objects completed. Not validated.
 */
export function completeEvent(plain: Record<string, unknown>): Record<string, unknown> {
  return completeUnionMember(EVENT_UNION, toPlainJson(plain));
}

/**
 * Whether buildEvent checks what it built. An invalid event is a bug in the service, so tests and
 * development refuse it loudly; production skips the check on its hot path (VALIDATE_EVENTS=true
 * turns it back on).
 */
const VALIDATE_BUILT_EVENTS = process.env.VALIDATE_EVENTS ? process.env.VALIDATE_EVENTS === 'true' : process.env.NODE_ENV !== 'production';

/**
 * Builds an event as the service serves and stores it: a new ULID `id` and the current
 * `timestamp` unless given, the variant's default `source`, every field present.
 * Throws when the result is not a valid event (a bug in the caller), unless validation is off.
 */
export function buildEvent<K extends EventKind>(kind: K, fields: EventInit<K> = {} as EventInit<K>): EventOf<K> {
  if (!isEventKind(kind)) throw new Error(`Unknown event kind: ${String(kind)}`);
  const event = completeEvent({ ...(fields as Record<string, unknown>), kind });
  if (VALIDATE_BUILT_EVENTS) assertValidEvent(event);
  return event as EventOf<K>;
}

/** Problems of a plain event against its variant (unknown kind and unknown properties included); [] when valid. */
export function validateEvent(plain: unknown): ValidationError[] {
  return validateUnionMember(EVENT_UNION, plain);
}

/** Throws an Error listing every problem when `plain` is not a valid event. */
export function assertValidEvent(plain: unknown): asserts plain is ConversationEvent {
  throwIfInvalid('event', plain, validateEvent(plain));
}

// ---- Actions and observations ----

export function buildAction<K extends ActionKind>(
  kind: K,
  fields: DeepPartial<Omit<ActionOf<K>, 'kind'>> = {} as DeepPartial<Omit<ActionOf<K>, 'kind'>>,
): ActionOf<K> {
  return buildUnionMember(ACTION_UNION, kind, fields) as ActionOf<K>;
}

export function validateAction(plain: unknown): ValidationError[] {
  return validateUnionMember(ACTION_UNION, plain);
}

export function buildObservation<K extends ObservationKind>(
  kind: K,
  fields: DeepPartial<Omit<ObservationOf<K>, 'kind'>> = {} as DeepPartial<Omit<ObservationOf<K>, 'kind'>>,
): ObservationOf<K> {
  return buildUnionMember(OBSERVATION_UNION, kind, fields) as ObservationOf<K>;
}

export function validateObservation(plain: unknown): ValidationError[] {
  return validateUnionMember(OBSERVATION_UNION, plain);
}

function buildUnionMember(union: DtoUnion, kind: string, fields: object): Record<string, unknown> {
  if (!Object.hasOwn(union.members, kind)) throw new Error(`Unknown ${union.name} kind: ${kind}`);
  const complete = completeUnionMember(union, toPlainJson({ ...fields, kind }));
  throwIfInvalid(union.name, complete, validateUnionMember(union, complete));
  return complete;
}

function throwIfInvalid(what: string, plain: unknown, errors: ValidationError[]): void {
  if (errors.length === 0) return;
  const kind = typeof plain === 'object' && plain !== null ? (plain as { kind?: unknown }).kind : undefined;
  const name = typeof kind === 'string' ? kind : what;
  throw new Error(`Invalid ${name}: ${describeValidationErrors(errors).join('; ')}`);
}

import type { EventSource } from './event-kinds.js';

/** Filters of both search routes, already validated and normalised. */
export interface EventFilters {
  excludeHidden?: boolean;
  query?: string | null;
  includeKinds?: string[] | null;
  excludeKinds?: string[] | null;
  source?: EventSource | null;
  /** Inclusive lower bound on timestamp. */
  fromTime?: Date | null;
  /** Upper bound on timestamp; inclusive unless toTimeExclusive. */
  toTime?: Date | null;
  toTimeExclusive?: boolean;
  /** Substring of a message's text (MessageEvents only). */
  messageText?: string | null;
}

export interface PositionPage {
  startSeq: number;
  endSeq: number | null;
  reverse: boolean;
  limit: number;
}

export interface StoredEventRow {
  seq: number;
  id: string;
  /** The event's JSON text exactly as stored and served. */
  json: string;
}

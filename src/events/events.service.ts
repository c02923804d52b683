import { Injectable, NotFoundException } from '@nestjs/common';
import { RequestValidationException, type ValidationIssue } from '../common/validation/validation-issue.js';
import { parseDateBound } from '../common/validation/is-date-or-date-time.js';
import { ConversationRunnerHandle } from './conversation-runner.js';
import type { EventFilters, StoredEventRow } from './event-filters.js';
import { EventStoreService } from './event-store.service.js';
import { buildEvent, isEventKind } from './dto/event-registry.js';
import { EVENT_FILTER_FIELDS, type EventFiltersDto } from './dto/requests/event-filters.dto.js';
import type { ReferenceEventSearchQueryDto } from './dto/requests/reference-search-query.dto.js';
import type { SearchEventsQueryDto } from './dto/requests/search-events-query.dto.js';
import type { SendMessageDto } from './dto/requests/send-message.dto.js';

export interface MessageSent {
  event: Record<string, unknown>;
  seq: number;
  created: boolean;
}

/** The event routes' logic: sending messages, both search dialects, counting. */
@Injectable()
export class EventsService {
  constructor(
    private readonly store: EventStoreService,
    private readonly runner: ConversationRunnerHandle,
  ) {}

  async sendMessage(conversationId: string, message: SendMessageDto, idempotencyKey?: string | null): Promise<MessageSent> {
    const event = buildEvent('MessageEvent', {
      source: 'user',
      llm_message: { role: 'user', content: message.content as never },
      llm_response_id: null,
    }) as unknown as Record<string, unknown>;
    const appended = await this.store.append(conversationId, event, { idempotencyKey });
    if (message.run) await this.runner.requestRun(conversationId);
    return { event: appended.event, seq: appended.seq, created: appended.created };
  }

  /** `{"events": [...], "has_more": bool, "next_id": int | null}` as JSON text (events are served as stored). */
  async search(conversationId: string, query: SearchEventsQueryDto, body: EventFiltersDto): Promise<string> {
    const filters = toEventFilters(mergeFilterSources(query, body));
    if (query.end_id !== undefined && query.end_id < query.start_id) {
      return pageJson([], null);
    }
    const { rows, next } = await this.store.page(conversationId, filters, {
      startSeq: query.start_id,
      endSeq: query.end_id ?? null,
      reverse: query.reverse,
      limit: query.limit,
    });
    return pageJson(rows, next ? next.seq : null);
  }

  /** The reference's `{"items": [...], "next_page_id": string | null}`, paged by event id. */
  async searchByPageId(conversationId: string, query: ReferenceEventSearchQueryDto): Promise<string> {
    const reverse = query.sort_order === 'TIMESTAMP_DESC';
    let startSeq = 0;
    let endSeq: number | null = null;
    if (query.page_id) {
      const seq = await this.store.seqOf(conversationId, query.page_id);
      if (seq === null) throw new NotFoundException({ detail: `Event not found: ${query.page_id}` });
      if (reverse) endSeq = seq;
      else startSeq = seq;
    }
    const { rows, next } = await this.store.page(conversationId, referenceFilters(query), {
      startSeq,
      endSeq,
      reverse,
      limit: query.limit,
    });
    const nextPageId = next ? JSON.stringify(next.id) : 'null';
    return `{"items":[${rows.map((row) => row.json).join(',')}],"next_page_id":${nextPageId}}`;
  }

  /**
   * Count with the filters of either search route, given as query parameters (this route's seven
   * may also come as a JSON body, as for search). Every filter given applies: both dialects AND together.
   */
  async count(conversationId: string, query: SearchEventsQueryDto & ReferenceEventSearchQueryDto, body: EventFiltersDto = {}): Promise<number> {
    const filters = toEventFilters(mergeFilterSources(query, body));
    return this.store.count(conversationId, [filters, referenceFilters(query)]);
  }

  async getEventJson(conversationId: string, eventId: string): Promise<string> {
    const json = await this.store.getJson(conversationId, eventId);
    if (json === null) throw new NotFoundException({ detail: `Event not found: ${eventId}` });
    return json;
  }
}

function pageJson(rows: StoredEventRow[], nextId: number | null): string {
  return `{"events":[${rows.map((row) => row.json).join(',')}],"has_more":${nextId !== null},"next_id":${nextId ?? 'null'}}`;
}

/** A filter may come in the body or in the query string, not both. */
function mergeFilterSources(query: SearchEventsQueryDto, body: EventFiltersDto): EventFiltersDto {
  const merged: EventFiltersDto = {};
  const issues: ValidationIssue[] = [];
  for (const field of EVENT_FILTER_FIELDS) {
    const fromQuery = (query as unknown as Record<string, unknown>)[field];
    const fromBody = (body as Record<string, unknown>)[field];
    const inQuery = fromQuery !== undefined;
    const inBody = fromBody !== undefined && fromBody !== null;
    if (inQuery && inBody) {
      issues.push({ loc: ['query', field], msg: `${field} is given both in the query string and in the body`, type: 'value_error' });
    }
    (merged as Record<string, unknown>)[field] = inBody ? fromBody : fromQuery;
  }
  if (issues.length) throw new RequestValidationException(issues);
  return merged;
}

function toEventFilters(filters: EventFiltersDto): EventFilters {
  const start = filters.start_date ? parseDateBound(filters.start_date) : null;
  const end = filters.end_date ? parseDateBound(filters.end_date) : null;
  return {
    excludeHidden: filters.exclude_hidden ?? false,
    query: filters.query || null,
    includeKinds: filters.include_types?.length ? filters.include_types : null,
    excludeKinds: filters.exclude_types?.length ? filters.exclude_types : null,
    source: filters.source ?? null,
    fromTime: start?.date ?? null,
    // A bare end date includes that whole day.
    toTime: end ? (end.dateOnly ? new Date(end.date.getTime() + 86_400_000) : end.date) : null,
    toTimeExclusive: end?.dateOnly ?? false,
  };
}

function referenceFilters(query: Partial<ReferenceEventSearchQueryDto>): EventFilters {
  const filters: EventFilters = {};
  if (query.kind) {
    // The reference also names kinds by their Python class path: keep the last segment.
    const kind = query.kind.split('.').pop()!;
    if (!isEventKind(kind)) {
      throw RequestValidationException.single(['query', 'kind'], `kind must name an event kind, got "${query.kind}"`, 'literal_error');
    }
    filters.includeKinds = [kind];
  }
  if (query.source) filters.source = query.source;
  if (query.body) filters.messageText = query.body;
  if (query.timestamp__gte) filters.fromTime = parseDateBound(query.timestamp__gte)!.date;
  if (query.timestamp__lt) {
    filters.toTime = parseDateBound(query.timestamp__lt)!.date;
    filters.toTimeExclusive = true;
  }
  return filters;
}


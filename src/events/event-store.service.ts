import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { EventFilters, PositionPage, StoredEventRow } from './event-filters.js';
import { HIDDEN_EVENT_KINDS } from './event-kinds.js';
import { containsPattern, eventSearchText } from './event-search-text.js';
import { EventAnnouncer } from './event-announcer.service.js';

export { EVENTS_CHANNEL } from './event-announcer.service.js';

export interface AppendOptions {
  /** A retried request carrying the same key appends nothing and gets the first event back. */
  idempotencyKey?: string | null;
  /** Agent writes carry the run generation they hold; a stale generation is refused. */
  runGeneration?: number | null;
  /** Conversation columns changed in the same statement, so a state change and its event commit together. */
  set?: ConversationColumnChanges;
  /** Append only while the conversation has this execution status; otherwise nothing is written. */
  onlyIfStatus?: string;
}

/** The conversation columns an append may change, with their SQL types. */
const SETTABLE_COLUMNS = {
  title: 'text',
  execution_status: 'text',
  confirmation_policy: 'jsonb',
  security_analyzer: 'jsonb',
  stats: 'jsonb',
  max_iterations: 'integer',
} as const;

export type ConversationColumnChanges = Partial<Record<keyof typeof SETTABLE_COLUMNS, unknown>>;

export interface AppendedEvent {
  seq: number;
  event: Record<string, unknown>;
  /** False when an idempotent retry found the event already stored. */
  created: boolean;
}

export class StaleRunGenerationError extends Error {
  constructor(conversationId: string) {
    super(`The run of conversation ${conversationId} is held by another process`);
  }
}

const UNIQUE_VIOLATION = '23505';

/**
 * The append-only event log. Positions are allocated from conversations.last_seq inside the
 * same statement that inserts the row, so each conversation's positions are gapless and appends
 * to different conversations never wait on each other. After the commit the EventAnnouncer
 * tells live listeners, here and on other instances.
 */
@Injectable()
export class EventStoreService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly announcer: EventAnnouncer,
  ) {}

  async append(conversationId: string, given: Record<string, unknown>, options: AppendOptions = {}): Promise<AppendedEvent> {
    const idempotencyKey = options.idempotencyKey ?? null;
    if (idempotencyKey) {
      const existing = await this.findByIdempotencyKey(conversationId, idempotencyKey);
      if (existing) return existing;
    }
    const { event, json } = storableEvent(given);
    const params: unknown[] = [
      conversationId,
      event.id,
      event.kind,
      event.source,
      event.timestamp,
      json,
      eventSearchText(event),
      idempotencyKey,
    ];
    // Milliseconds: conversation page cursors carry JavaScript dates.
    const assignments = ['last_seq = last_seq + 1', "updated_at = date_trunc('milliseconds', now())"];
    for (const [column, value] of Object.entries(options.set ?? {})) {
      const sqlType = SETTABLE_COLUMNS[column as keyof typeof SETTABLE_COLUMNS];
      if (!sqlType) throw new Error(`append cannot set conversation column ${column}`);
      params.push(sqlType === 'jsonb' ? JSON.stringify(value) : value);
      assignments.push(`${column} = $${params.length}::${sqlType}`);
    }
    let generationClause = '';
    if (options.runGeneration != null) {
      params.push(options.runGeneration);
      generationClause = `AND run_generation = $${params.length}`;
    }
    if (options.onlyIfStatus) {
      params.push(options.onlyIfStatus);
      generationClause += ` AND execution_status = $${params.length}`;
    }
    let rows: Array<{ seq: string }>;
    try {
      rows = await this.dataSource.query(
        `WITH next AS (
           UPDATE conversations SET ${assignments.join(', ')}
            WHERE id = $1 ${generationClause}
            RETURNING last_seq
         ), inserted AS (
           INSERT INTO events (conversation_id, seq, id, kind, source, timestamp, payload, search_text, idempotency_key)
           SELECT $1, next.last_seq, $2, $3, $4, $5, $6::jsonb, $7, $8 FROM next
           RETURNING seq
         )
         SELECT seq FROM inserted`,
        params,
      );
    } catch (error) {
      if (idempotencyKey && (error as { code?: string }).code === UNIQUE_VIOLATION) {
        const existing = await this.findByIdempotencyKey(conversationId, idempotencyKey);
        if (existing) return existing;
      }
      throw error;
    }
    if (rows.length === 0) {
      if (options.onlyIfStatus && (await this.conversationExists(conversationId))) {
        const current = await this.dataSource.query('SELECT run_generation FROM conversations WHERE id = $1', [conversationId]);
        const generationHeld = options.runGeneration == null || Number(current[0]?.run_generation) === options.runGeneration;
        if (generationHeld) return { seq: -1, event, created: false };
      }
      if (options.runGeneration != null && (await this.conversationExists(conversationId))) {
        throw new StaleRunGenerationError(conversationId);
      }
      throw new NotFoundException({ detail: `Conversation not found: ${conversationId}` });
    }
    const seq = Number(rows[0].seq);
    this.announcer.announce(conversationId, seq);
    return { seq, event, created: true };
  }

  /** The event's JSON text, or null. */
  async getJson(conversationId: string, eventId: string): Promise<string | null> {
    const rows: Array<{ json: string }> = await this.dataSource.query(
      'SELECT payload::text AS json FROM events WHERE conversation_id = $1 AND id = $2',
      [conversationId, eventId],
    );
    return rows[0]?.json ?? null;
  }

  async get(conversationId: string, eventId: string): Promise<Record<string, unknown> | null> {
    const json = await this.getJson(conversationId, eventId);
    return json === null ? null : (JSON.parse(json) as Record<string, unknown>);
  }

  async seqOf(conversationId: string, eventId: string): Promise<number | null> {
    const rows: Array<{ seq: string }> = await this.dataSource.query(
      'SELECT seq FROM events WHERE conversation_id = $1 AND id = $2',
      [conversationId, eventId],
    );
    return rows.length ? Number(rows[0].seq) : null;
  }

  /**
   * One page of matching events by position, plus the first match beyond it (to say whether
   * there is more). Ordered by the primary key, so a page's cost does not grow with the log.
   */
  async page(conversationId: string, filters: EventFilters, page: PositionPage): Promise<{ rows: StoredEventRow[]; next: StoredEventRow | null }> {
    const where = new SqlWhere([conversationId]);
    where.add(`conversation_id = $1`);
    where.add(`seq >= ${where.param(page.startSeq)}`);
    if (page.endSeq !== null) where.add(`seq <= ${where.param(page.endSeq)}`);
    applyFilters(where, filters);
    const rows: Array<{ seq: string; id: string; json: string }> = await this.dataSource.query(
      `SELECT seq, id, payload::text AS json FROM events WHERE ${where.sql()}
        ORDER BY seq ${page.reverse ? 'DESC' : 'ASC'} LIMIT ${where.param(page.limit + 1)}`,
      where.params,
    );
    const mapped = rows.map((row) => ({ seq: Number(row.seq), id: row.id, json: row.json }));
    const next = mapped.length > page.limit ? mapped[page.limit] : null;
    return { rows: mapped.slice(0, page.limit), next };
  }

  /** Events matching every one of the filter sets. */
  async count(conversationId: string, filters: EventFilters | EventFilters[]): Promise<number> {
    const where = new SqlWhere([conversationId]);
    where.add('conversation_id = $1');
    for (const set of Array.isArray(filters) ? filters : [filters]) applyFilters(where, set);
    const rows: Array<{ count: string }> = await this.dataSource.query(
      `SELECT count(*) AS count FROM events WHERE ${where.sql()}`,
      where.params,
    );
    return Number(rows[0].count);
  }

  /** Events with seq > afterSeq in order, for live delivery and replay. */
  async readAfter(conversationId: string, afterSeq: number, limit: number): Promise<StoredEventRow[]> {
    const rows: Array<{ seq: string; id: string; json: string }> = await this.dataSource.query(
      `SELECT seq, id, payload::text AS json FROM events
        WHERE conversation_id = $1 AND seq > $2 ORDER BY seq ASC LIMIT $3`,
      [conversationId, afterSeq, limit],
    );
    return rows.map((row) => ({ seq: Number(row.seq), id: row.id, json: row.json }));
  }

  /** Every event of a conversation in order, parsed (the agent builds its view from these). */
  async all(conversationId: string): Promise<Array<Record<string, unknown>>> {
    const rows: Array<{ payload: Record<string, unknown> }> = await this.dataSource.query(
      'SELECT payload FROM events WHERE conversation_id = $1 ORDER BY seq ASC',
      [conversationId],
    );
    return rows.map((row) => row.payload);
  }

  async lastSeq(conversationId: string): Promise<number | null> {
    const rows: Array<{ last_seq: string }> = await this.dataSource.query(
      'SELECT last_seq FROM conversations WHERE id = $1',
      [conversationId],
    );
    return rows.length ? Number(rows[0].last_seq) : null;
  }

  private async findByIdempotencyKey(conversationId: string, key: string): Promise<AppendedEvent | null> {
    const rows: Array<{ seq: string; payload: Record<string, unknown> }> = await this.dataSource.query(
      'SELECT seq, payload FROM events WHERE conversation_id = $1 AND idempotency_key = $2',
      [conversationId, key],
    );
    return rows.length ? { seq: Number(rows[0].seq), event: rows[0].payload, created: false } : null;
  }

  private async conversationExists(conversationId: string): Promise<boolean> {
    return (await this.lastSeq(conversationId)) !== null;
  }
}

// JSON.stringify escapes NUL and unpaired surrogates, the only string content jsonb refuses.
const ESCAPED_UNSTORABLE = /\\u(0000|d[89a-f][0-9a-f]{2})/i;
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The event and its JSON text as PostgreSQL can store them: text that jsonb refuses (NUL, unpaired
 * surrogates, e.g. in the output of a command that printed binary data) becomes U+FFFD instead of
 * failing the append.
 */
function storableEvent(event: Record<string, unknown>): { event: Record<string, unknown>; json: string } {
  const json = JSON.stringify(event);
  if (!ESCAPED_UNSTORABLE.test(json)) return { event, json };
  const clean = (value: unknown): unknown => {
    if (typeof value === 'string') return value.replace(UNSTORABLE, '\uFFFD');
    if (Array.isArray(value)) return value.map(clean);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, child]) => [clean(key), clean(child)]));
    }
    return value;
  };
  const cleaned = clean(event) as Record<string, unknown>;
  return { event: cleaned, json: JSON.stringify(cleaned) };
}

class SqlWhere {
  private readonly clauses: string[] = [];
  constructor(readonly params: unknown[]) {}

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  add(clause: string): void {
    this.clauses.push(clause);
  }

  sql(): string {
    return this.clauses.join(' AND ');
  }
}

function applyFilters(where: SqlWhere, filters: EventFilters): void {
  if (filters.excludeHidden) where.add(`kind <> ALL(${where.param(HIDDEN_EVENT_KINDS)}::text[])`);
  if (filters.includeKinds?.length) where.add(`kind = ANY(${where.param(filters.includeKinds)}::text[])`);
  if (filters.excludeKinds?.length) where.add(`kind <> ALL(${where.param(filters.excludeKinds)}::text[])`);
  if (filters.source) where.add(`source = ${where.param(filters.source)}`);
  if (filters.fromTime) where.add(`timestamp >= ${where.param(filters.fromTime)}`);
  if (filters.toTime) where.add(`timestamp ${filters.toTimeExclusive ? '<' : '<='} ${where.param(filters.toTime)}`);
  if (filters.query) where.add(`search_text LIKE ${where.param(containsPattern(filters.query))}`);
  if (filters.messageText) {
    where.add(`kind = 'MessageEvent'`);
    where.add(`search_text LIKE ${where.param(containsPattern(filters.messageText))}`);
  }
}

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventSeeder } from '../support/event-seeder.js';
import { HttpClient, type HttpResult } from '../support/http-client.js';
import { ALICE_KEY, BOB_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, queryDatabase } from '../support/test-database.js';

type Json = Record<string, any>;
interface Page {
  events: Json[];
  has_more: boolean;
  next_id: number | null;
}

const FIXTURE: Json[] = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../fixtures/events.json'), 'utf8'),
);
const fixture = (kind: string, index = 0): Json => structuredClone(FIXTURE.filter((event) => event.kind === kind)[index]);
const clone = <T>(value: T): T => structuredClone(value);

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ISO_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_CONVERSATION = '0b0e4d4e-8f4f-4f61-9a57-000000000000';

const text = (value: string) => ({ type: 'text', text: value });
/** The text of a MessageEvent (its first content item). */
const messageText = (event: Json): string => event.llm_message.content[0].text;

/**
 * The search data set: one event of most kinds, on three days, with a marker word in the text
 * each filter should find. Seeded in this order, so position == index.
 */
function searchDataSet(): Json[] {
  const action = fixture('ActionEvent');
  action.id = undefined;
  action.thought = [text('I will grep for it')];
  action.tool_call.arguments = '{"command": "ZEBRA-ARG"}';
  const observation = fixture('ObservationEvent');
  observation.id = undefined;
  observation.observation.content = [text('found GIRAFFE-OUT in file')];
  const agentError = fixture('AgentErrorEvent');
  agentError.id = undefined;
  agentError.error = 'Tool exploded: PELICAN-ERR';
  const agentMessage = fixture('MessageEvent', 1);
  agentMessage.id = undefined;
  agentMessage.llm_message.content = [text('Done: the needle is in src, 100% sure')];
  const events: Json[] = [
    { kind: 'SystemPromptEvent', timestamp: '2026-11-20T23:59:59.999Z', system_prompt: text('You are a helpful coding agent'), tools: [] },
    { kind: 'MessageEvent', source: 'user', timestamp: '2026-11-21T00:00:00.000Z', llm_message: { role: 'user', content: [text('Please find the Needle in the repo')] } },
    { ...action, timestamp: '2026-11-21T08:30:00.000Z' },
    { ...observation, timestamp: '2026-11-21T12:00:00.500Z' },
    { ...agentError, timestamp: '2026-11-21T23:59:59.999Z' },
    { kind: 'ConversationStateUpdateEvent', timestamp: '2026-11-22T00:00:00.000Z', key: 'title', value: 'Hidden Needle title' },
    { ...agentMessage, timestamp: '2026-11-22T10:00:00.000Z' },
    { kind: 'ConversationErrorEvent', source: 'environment', timestamp: '2026-11-22T10:00:01.000Z', code: 'Boom', detail: 'OTTER-DETAIL crashed' },
    { kind: 'TokenEvent', source: 'agent', timestamp: '2026-11-22T10:00:02.000Z', prompt_token_ids: [1, 2], response_token_ids: [3] },
    { kind: 'PauseEvent', timestamp: '2026-11-23T00:00:00.000Z' },
    { kind: 'CondensationSummaryEvent', timestamp: '2026-11-23T05:00:00.000Z', summary: 'Summary mentions walrus' },
    { kind: 'LLMCompletionLogEvent', timestamp: '2026-11-23T06:00:00.000Z', filename: 'log.json', log_data: '{"note": "needle"}' },
  ];
  return events.map((event) => Object.fromEntries(Object.entries(event).filter(([, value]) => value !== undefined)));
}

describe('events', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let seeder: EventSeeder;
  let alice: HttpClient;
  let bob: HttpClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    // A zone far from UTC: a date-time without offset must still be read as UTC.
    service = await startServiceProcess({ databaseUrl: database.url, env: { TZ: 'Asia/Kolkata' } });
    seeder = await EventSeeder.connect(database.url);
    alice = new HttpClient(service.url, ALICE_KEY);
    bob = new HttpClient(service.url, BOB_KEY);
  });
  afterAll(async () => {
    await seeder?.close();
    await service?.stop();
    await database?.drop();
  });

  const createConversation = async (client: HttpClient = alice, body: Json = {}): Promise<string> => {
    const response = await client.post('/api/conversations', { body });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  const send = (id: string, content: string | Json[], options: { headers?: Record<string, string>; extra?: Json } = {}) =>
    alice.post(`/api/conversations/${id}/events`, {
      body: { content: typeof content === 'string' ? [text(content)] : content, ...options.extra },
      headers: options.headers,
    });
  const expectSent = async (response: Promise<HttpResult> | HttpResult) => {
    const result = await response;
    expect({ status: result.status, body: result.body }).toEqual({ status: 200, body: { success: true } });
  };
  const searchPage = async (id: string, query: Json = {}, body?: unknown): Promise<Page> => {
    const response = await alice.get(`/api/conversations/${id}/events`, { query, body });
    expect({ status: response.status, detail: response.body?.detail }).toEqual({ status: 200, detail: undefined });
    expect(Object.keys(response.body).sort()).toEqual(['events', 'has_more', 'next_id']);
    return response.body as Page;
  };
  const allEvents = async (id: string): Promise<Json[]> => (await searchPage(id, { limit: 100 })).events;
  const count = async (id: string): Promise<number> => {
    const response = await alice.get(`/api/conversations/${id}/events/count`);
    expect(response.status).toBe(200);
    return response.body as number;
  };
  const expect422 = (response: HttpResult, loc: Array<string | number>) => {
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) })]),
    );
    for (const issue of response.body.detail) expect(issue.loc[0]).toBe(loc[0]);
  };

  // ---------------------------------------------------------------- search filters

  describe('search filters', () => {
    let id: string;
    let seeded: Json[];
    /** Positions of the matching events, asked with the filters as a JSON body on GET. */
    const byBody = async (filters: unknown): Promise<number[]> => {
      const page = await searchPage(id, { limit: 100 }, filters);
      return page.events.map((event) => seeded.findIndex((candidate) => candidate.id === event.id));
    };
    /** The same, with the filters as query parameters. */
    const byQuery = async (filters: Json): Promise<number[]> => {
      const page = await searchPage(id, { limit: 100, ...filters });
      return page.events.map((event) => seeded.findIndex((candidate) => candidate.id === event.id));
    };

    beforeAll(async () => {
      id = await createConversation();
      seeded = [];
      for (const event of searchDataSet()) seeded.push(await seeder.append(id, event));
    });

    it('without filters serves every event in position order, exactly as stored', async () => {
      const page = await searchPage(id, { limit: 100 });
      expect(page).toEqual({ events: seeded, has_more: false, next_id: null });
    });

    it.each([
      ['an empty body', undefined],
      ['a null body', null],
      ['an empty object', {}],
      ['filters that are all null', { query: null, include_types: null, exclude_types: null, source: null, start_date: null, end_date: null }],
      ['empty kind lists', { include_types: [], exclude_types: [] }],
      ['exclude_hidden false and an empty query', { exclude_hidden: false, query: '' }],
    ])('%s means no filter', async (_name, body) => {
      expect(await byBody(body)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    });

    it('a "null" raw body means no filter', async () => {
      const response = await alice.get(`/api/conversations/${id}/events`, { rawBody: 'null' });
      expect(response.status).toBe(200);
      expect(response.body.events).toHaveLength(12);
    });

    const cases: Array<[string, Json, number[]]> = [
      ['exclude_hidden drops bookkeeping kinds', { exclude_hidden: true }, [1, 2, 3, 4, 6, 7, 9, 10]],
      ['query matches message text case-insensitively (and any string value)', { query: 'NEEDLE' }, [1, 5, 6, 11]],
      ['query matches thoughts', { query: 'grep for it' }, [2]],
      ['query matches tool arguments', { query: 'zebra-arg' }, [2]],
      ['query matches observation output', { query: 'Giraffe-Out' }, [3]],
      ['query matches agent error text', { query: 'pelican-err' }, [4]],
      ['query matches conversation error detail', { query: 'otter-detail' }, [7]],
      ['query matches summaries', { query: 'WALRUS' }, [10]],
      ['query never matches keys', { query: 'llm_message' }, []],
      ['query never matches other keys', { query: 'tool_call_id' }, []],
      ['query % is a literal percent sign', { query: '%' }, [6]],
      ['query with no match', { query: 'no such text anywhere' }, []],
      ['include_types with one kind', { include_types: ['MessageEvent'] }, [1, 6]],
      ['include_types with two kinds', { include_types: ['MessageEvent', 'PauseEvent'] }, [1, 6, 9]],
      ['exclude_types', { exclude_types: ['MessageEvent', 'ActionEvent', 'SystemPromptEvent'] }, [3, 4, 5, 7, 8, 9, 10, 11]],
      ['include_types and exclude_types together', { include_types: ['MessageEvent', 'PauseEvent'], exclude_types: ['PauseEvent'] }, [1, 6]],
      ['source user', { source: 'user' }, [1, 9]],
      ['source agent', { source: 'agent' }, [0, 2, 4, 6, 8]],
      ['source environment', { source: 'environment' }, [3, 5, 7, 10, 11]],
      ['start_date as a date includes that whole day', { start_date: '2026-11-21' }, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]],
      ['end_date as a date includes that whole day', { end_date: '2026-11-21' }, [0, 1, 2, 3, 4]],
      ['start_date and end_date on the same day', { start_date: '2026-11-21', end_date: '2026-11-21' }, [1, 2, 3, 4]],
      ['start_date date-time without offset is UTC, inclusive', { start_date: '2026-11-21T12:00:00.500' }, [3, 4, 5, 6, 7, 8, 9, 10, 11]],
      ['end_date date-time with Z is inclusive', { end_date: '2026-11-21T12:00:00.500Z' }, [0, 1, 2, 3]],
      ['end_date date-time without offset is UTC, inclusive', { end_date: '2026-11-22T10:00:00' }, [0, 1, 2, 3, 4, 5, 6]],
      ['date-times with an offset', { start_date: '2026-11-21T13:00:00.500+01:00', end_date: '2026-11-22T11:00:00.000+01:00' }, [3, 4, 5, 6]],
      ['an empty date range', { start_date: '2026-11-22T10:00:00.001Z', end_date: '2026-11-22T10:00:00.999Z' }, []],
      ['query and source', { query: 'needle', source: 'agent' }, [6]],
      ['exclude_hidden, source and start_date', { exclude_hidden: true, source: 'environment', start_date: '2026-11-22' }, [7, 10]],
      ['include_types, query and end_date', { include_types: ['MessageEvent'], query: 'needle', end_date: '2026-11-21' }, [1]],
      ['every filter at once', {
        exclude_hidden: true, query: 'e', include_types: ['MessageEvent', 'AgentErrorEvent', 'PauseEvent'], exclude_types: ['PauseEvent'],
        source: 'agent', start_date: '2026-11-21', end_date: '2026-11-22T10:00:00Z',
      }, [4, 6]],
    ];

    it.each(cases)('body: %s', async (_name, filters, expected) => {
      expect(await byBody(filters)).toEqual(expected);
    });

    it.each(cases)('query parameters: %s', async (_name, filters, expected) => {
      const asQuery: Json = {};
      for (const [name, value] of Object.entries(filters)) asQuery[name] = Array.isArray(value) ? value : String(value);
      expect(await byQuery(asQuery)).toEqual(expected);
    });

    it('include_types and exclude_types as query parameters may be comma-separated', async () => {
      expect(await byQuery({ include_types: 'MessageEvent,PauseEvent' })).toEqual([1, 6, 9]);
      expect(await byQuery({ include_types: 'MessageEvent, PauseEvent', exclude_types: 'PauseEvent' })).toEqual([1, 6]);
      expect(await byQuery({ include_types: ['MessageEvent,PauseEvent', 'ActionEvent'] })).toEqual([1, 2, 6, 9]);
    });

    it('different filters may come one in the body and another in the query string', async () => {
      const page = await searchPage(id, { limit: 100, source: 'agent' }, { query: 'needle' });
      expect(page.events.map((event) => event.id)).toEqual([seeded[6].id]);
    });

    it.each([
      ['query', 'needle', 'needle'],
      ['source', 'user', 'user'],
      ['include_types', 'MessageEvent', ['MessageEvent']],
      ['exclude_types', 'PauseEvent', ['PauseEvent']],
      ['exclude_hidden', 'true', true],
      ['start_date', '2026-11-21', '2026-11-21'],
      ['end_date', '2026-11-21', '2026-11-21'],
    ])('%s given both in the query string and in the body is 422', async (name, inQuery, inBody) => {
      const response = await alice.get(`/api/conversations/${id}/events`, { query: { [name]: inQuery }, body: { [name]: inBody } });
      expect(response.status).toBe(422);
      expect(response.body.detail.map((issue: Json) => issue.loc[issue.loc.length - 1])).toContain(name);
    });

    it.each([
      [{ include_types: ['MessageEvent', 'Bogus'] }, ['body', 'include_types']],
      [{ exclude_types: ['messageevent'] }, ['body', 'exclude_types']],
      [{ include_types: 'MessageEvent' }, ['body', 'include_types']],
      [{ source: 'robot' }, ['body', 'source']],
      [{ source: 'User' }, ['body', 'source']],
      [{ start_date: 'yesterday' }, ['body', 'start_date']],
      [{ end_date: '2026-13-01' }, ['body', 'end_date']],
      [{ end_date: '2026-02-30' }, ['body', 'end_date']],
      [{ exclude_hidden: 'yes' }, ['body', 'exclude_hidden']],
      [{ query: 5 }, ['body', 'query']],
      [{ unknown_filter: true }, ['body', 'unknown_filter']],
      [{ limit: 5 }, ['body', 'limit']],
    ])('body %j is 422 at %j', async (body, loc) => {
      expect422(await alice.get(`/api/conversations/${id}/events`, { body }), loc);
    });

    it.each([
      [{ include_types: 'Bogus' }, ['query', 'include_types']],
      [{ include_types: 'MessageEvent,Bogus' }, ['query', 'include_types']],
      [{ exclude_types: ['PauseEvent', 'Nope'] }, ['query', 'exclude_types']],
      [{ source: 'robot' }, ['query', 'source']],
      [{ start_date: 'not-a-date' }, ['query', 'start_date']],
      [{ end_date: '2026-11-22T25:00:00' }, ['query', 'end_date']],
      [{ exclude_hidden: 'maybe' }, ['query', 'exclude_hidden']],
    ])('query %j is 422 at %j', async (query, loc) => {
      expect422(await alice.get(`/api/conversations/${id}/events`, { query }), loc);
    });

    it.each([
      ['a JSON array', '[]'],
      ['a JSON array of filters', '[{"source": "user"}]'],
      ['a JSON string', '"source=user"'],
      ['a JSON number', '42'],
      ['malformed JSON', '{"source": '],
    ])('a body that is %s is 422 at ["body"]', async (_name, rawBody) => {
      const response = await alice.get(`/api/conversations/${id}/events`, { rawBody });
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['body']);
    });

    it('paging through a filter: next_id is the position of the next match', async () => {
      const filter = { include_types: ['MessageEvent', 'PauseEvent'] };
      expect(await searchPage(id, { limit: 1 }, filter)).toEqual({ events: [seeded[1]], has_more: true, next_id: 6 });
      expect(await searchPage(id, { limit: 1, start_id: 6 }, filter)).toEqual({ events: [seeded[6]], has_more: true, next_id: 9 });
      expect(await searchPage(id, { limit: 1, start_id: 9 }, filter)).toEqual({ events: [seeded[9]], has_more: false, next_id: null });
      expect(await searchPage(id, { limit: 1, reverse: true }, filter)).toEqual({ events: [seeded[9]], has_more: true, next_id: 6 });
      expect(await searchPage(id, { limit: 2, reverse: true, end_id: 6 }, filter)).toEqual({
        events: [seeded[6], seeded[1]],
        has_more: false,
        next_id: null,
      });
      // A match beyond end_id is outside the range: no more.
      expect(await searchPage(id, { limit: 1, start_id: 2, end_id: 8 }, filter)).toEqual({ events: [seeded[6]], has_more: false, next_id: null });
    });

    describe('reference dialect GET /events/search', () => {
      const refSearch = async (query: Json): Promise<{ ids: number[]; next_page_id: string | null }> => {
        const response = await alice.get(`/api/conversations/${id}/events/search`, { query });
        expect(response.status).toBe(200);
        expect(Object.keys(response.body).sort()).toEqual(['items', 'next_page_id']);
        for (const item of response.body.items) expect(item).toEqual(seeded.find((event) => event.id === item.id));
        return {
          ids: response.body.items.map((item: Json) => seeded.findIndex((event) => event.id === item.id)),
          next_page_id: response.body.next_page_id,
        };
      };

      it.each([
        ['kind short', { kind: 'MessageEvent' }, [1, 6]],
        ['kind fully qualified', { kind: 'openhands.sdk.event.llm_convertible.message.MessageEvent' }, [1, 6]],
        ['kind fully qualified (observation)', { kind: 'openhands.sdk.event.llm_convertible.observation.ObservationEvent' }, [3]],
        ['source', { source: 'user' }, [1, 9]],
        ['kind and source', { kind: 'MessageEvent', source: 'agent' }, [6]],
        ['body: text of messages only, case-insensitive', { body: 'NEEDLE' }, [1, 6]],
        ['timestamp__gte is inclusive', { timestamp__gte: '2026-11-22T10:00:00Z' }, [6, 7, 8, 9, 10, 11]],
        ['timestamp__lt is exclusive', { timestamp__lt: '2026-11-22T10:00:00Z' }, [0, 1, 2, 3, 4, 5]],
        ['timestamp range', { timestamp__gte: '2026-11-21T12:00:00.500Z', timestamp__lt: '2026-11-22T10:00:00.001Z' }, [3, 4, 5, 6]],
        ['sort_order TIMESTAMP_DESC', { sort_order: 'TIMESTAMP_DESC' }, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]],
        ['sort_order TIMESTAMP', { sort_order: 'TIMESTAMP' }, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]],
        ['kind and TIMESTAMP_DESC', { kind: 'MessageEvent', sort_order: 'TIMESTAMP_DESC' }, [6, 1]],
      ])('%s', async (_name, query, expected) => {
        expect(await refSearch(query)).toEqual({ ids: expected, next_page_id: null });
      });

      it('pages by page_id through a filter, the page starting at that event', async () => {
        const first = await refSearch({ kind: 'MessageEvent', limit: 1 });
        expect(first).toEqual({ ids: [1], next_page_id: seeded[6].id });
        expect(await refSearch({ kind: 'MessageEvent', limit: 1, page_id: first.next_page_id })).toEqual({ ids: [6], next_page_id: null });
      });

      it.each([
        [{ kind: 'Bogus' }, 'kind'],
        [{ kind: 'openhands.sdk.event.Bogus' }, 'kind'],
        [{ sort_order: 'SIDEWAYS' }, 'sort_order'],
        [{ limit: 0 }, 'limit'],
        [{ limit: 101 }, 'limit'],
        [{ source: 'robot' }, 'source'],
        [{ timestamp__gte: 'soon' }, 'timestamp__gte'],
      ])('%j is 422', async (query, name) => {
        expect422(await alice.get(`/api/conversations/${id}/events/search`, { query }), ['query', name]);
      });
    });

    describe('GET /events/count', () => {
      const countOf = async (query: Json, body?: unknown): Promise<number> => {
        const response = await alice.get(`/api/conversations/${id}/events/count`, { query, body });
        expect(response.status).toBe(200);
        expect(typeof response.body).toBe('number');
        return response.body as number;
      };

      it.each([
        ['no filter', {}, 12],
        ['exclude_hidden', { exclude_hidden: 'true' }, 8],
        ['query', { query: 'needle' }, 4],
        ['include_types repeated', { include_types: ['MessageEvent', 'PauseEvent'] }, 3],
        ['include_types comma-separated', { include_types: 'MessageEvent,PauseEvent' }, 3],
        ['exclude_types', { exclude_types: 'MessageEvent' }, 10],
        ['source', { source: 'environment' }, 5],
        ['start_date and end_date', { start_date: '2026-11-21', end_date: '2026-11-21' }, 4],
        ['reference kind', { kind: 'MessageEvent' }, 2],
        ['reference kind fully qualified', { kind: 'openhands.sdk.event.llm_convertible.message.MessageEvent' }, 2],
        ['reference kind and source', { kind: 'MessageEvent', source: 'user' }, 1],
        ['reference body', { body: 'needle' }, 2],
        ['reference timestamps', { timestamp__gte: '2026-11-22', timestamp__lt: '2026-11-23' }, 4],
        ['both dialects AND together', { kind: 'MessageEvent', include_types: 'PauseEvent' }, 0],
        ['both dialects AND together (overlap)', { kind: 'MessageEvent', include_types: 'MessageEvent,PauseEvent', query: 'needle' }, 2],
        ['both date dialects AND together', { start_date: '2026-11-22', timestamp__lt: '2026-11-22T10:00:01Z' }, 2],
      ])('%s', async (_name, query, expected) => {
        expect(await countOf(query)).toBe(expected);
      });

      it('takes the seven filters as a JSON body too, like search', async () => {
        expect(await countOf({}, { include_types: ['PauseEvent', 'MessageEvent'], source: 'user' })).toBe(2);
        expect(await countOf({ kind: 'MessageEvent' }, { query: 'needle', exclude_hidden: true })).toBe(2);
        expect422(await alice.get(`/api/conversations/${id}/events/count`, { query: { query: 'a' }, body: { query: 'b' } }), ['query', 'query']);
        expect422(await alice.get(`/api/conversations/${id}/events/count`, { body: { kind: 'MessageEvent' } }), ['body', 'kind']);
      });

      it.each([
        [{ include_types: 'Bogus' }, 'include_types'],
        [{ kind: 'Bogus' }, 'kind'],
        [{ source: 'robot' }, 'source'],
        [{ start_date: 'never' }, 'start_date'],
      ])('%j is 422', async (query, name) => {
        expect422(await alice.get(`/api/conversations/${id}/events/count`, { query }), ['query', name]);
      });
    });
  });

  // ---------------------------------------------------------------- paging

  describe('paging by position', () => {
    let id: string;
    let texts: string[];

    beforeAll(async () => {
      id = await createConversation();
      texts = Array.from({ length: 45 }, (_, index) => `message number ${index}`);
      for (const value of texts) {
        await seeder.append(id, { kind: 'MessageEvent', source: 'user', llm_message: { role: 'user', content: [text(value)] } });
      }
    });

    const textsOf = (page: Page) => page.events.map(messageText);

    it('defaults: start_id 0, limit 20, forward', async () => {
      const page = await searchPage(id);
      expect(textsOf(page)).toEqual(texts.slice(0, 20));
      expect(page.has_more).toBe(true);
      expect(page.next_id).toBe(20);
    });

    it('walks forward in pages of 10: every event once, in order', async () => {
      const seen: string[] = [];
      const pages: Array<[number, boolean, number | null]> = [];
      let startId: number | null = 0;
      while (startId !== null) {
        const page: Page = await searchPage(id, { start_id: startId, limit: 10 });
        seen.push(...textsOf(page));
        pages.push([page.events.length, page.has_more, page.next_id]);
        startId = page.next_id;
        expect(pages.length).toBeLessThanOrEqual(5);
      }
      expect(seen).toEqual(texts);
      expect(pages).toEqual([[10, true, 10], [10, true, 20], [10, true, 30], [10, true, 40], [5, false, null]]);
    });

    it('walks in reverse in pages of 10: every event once, newest first', async () => {
      const seen: string[] = [];
      const pages: Array<[number, boolean, number | null]> = [];
      let endId: number | undefined;
      do {
        const page: Page = await searchPage(id, { reverse: true, limit: 10, end_id: endId });
        seen.push(...textsOf(page));
        pages.push([page.events.length, page.has_more, page.next_id]);
        endId = page.next_id ?? undefined;
        expect(pages.length).toBeLessThanOrEqual(5);
      } while (endId !== undefined);
      expect(seen).toEqual([...texts].reverse());
      expect(pages).toEqual([[10, true, 34], [10, true, 24], [10, true, 14], [10, true, 4], [5, false, null]]);
    });

    it('start_id and end_id are inclusive, forward and reverse', async () => {
      expect(await searchPage(id, { start_id: 5, end_id: 9 })).toMatchObject({ has_more: false, next_id: null });
      expect(textsOf(await searchPage(id, { start_id: 5, end_id: 9 }))).toEqual(texts.slice(5, 10));
      expect(textsOf(await searchPage(id, { start_id: 5, end_id: 9, reverse: 'true' }))).toEqual(texts.slice(5, 10).reverse());
      expect(textsOf(await searchPage(id, { start_id: 7, end_id: 7 }))).toEqual([texts[7]]);
      expect(textsOf(await searchPage(id, { start_id: 44 }))).toEqual([texts[44]]);
    });

    it('a page that reaches end_id has has_more false', async () => {
      const forward = await searchPage(id, { start_id: 5, end_id: 14, limit: 10 });
      expect(textsOf(forward)).toEqual(texts.slice(5, 15));
      expect(forward).toMatchObject({ has_more: false, next_id: null });
      const reverse = await searchPage(id, { start_id: 5, end_id: 14, limit: 10, reverse: true });
      expect(textsOf(reverse)).toEqual(texts.slice(5, 15).reverse());
      expect(reverse).toMatchObject({ has_more: false, next_id: null });
    });

    it('a page one short of end_id has has_more true and the next position', async () => {
      const forward = await searchPage(id, { start_id: 5, end_id: 15, limit: 10 });
      expect(textsOf(forward)).toEqual(texts.slice(5, 15));
      expect(forward).toMatchObject({ has_more: true, next_id: 15 });
      expect(textsOf(await searchPage(id, { start_id: 15, end_id: 15, limit: 10 }))).toEqual([texts[15]]);
      const reverse = await searchPage(id, { start_id: 5, end_id: 15, limit: 10, reverse: true });
      expect(textsOf(reverse)).toEqual(texts.slice(6, 16).reverse());
      expect(reverse).toMatchObject({ has_more: true, next_id: 5 });
    });

    it('an empty range: past the end, or end_id before start_id', async () => {
      expect(await searchPage(id, { start_id: 45 })).toEqual({ events: [], has_more: false, next_id: null });
      expect(await searchPage(id, { start_id: 1000, reverse: true })).toEqual({ events: [], has_more: false, next_id: null });
      expect(await searchPage(id, { start_id: 10, end_id: 9 })).toEqual({ events: [], has_more: false, next_id: null });
      expect(await searchPage(id, { end_id: 1000, reverse: true, limit: 1 })).toMatchObject({ has_more: true, next_id: 43 });
    });

    it('limit 1 and limit 100 are accepted', async () => {
      expect(textsOf(await searchPage(id, { limit: 1 }))).toEqual([texts[0]]);
      const all = await searchPage(id, { limit: 100 });
      expect(textsOf(all)).toEqual(texts);
      expect(all).toMatchObject({ has_more: false, next_id: null });
    });

    it.each([
      ['limit', 0],
      ['limit', 101],
      ['limit', -1],
      ['limit', 'abc'],
      ['limit', '1.5'],
      ['limit', ''],
      ['start_id', -1],
      ['start_id', 'first'],
      ['start_id', '99999999999999999999'],
      ['end_id', -1],
      ['end_id', 'last'],
      ['reverse', 'maybe'],
    ])('%s=%s is 422 at the query parameter', async (name, value) => {
      const response = await alice.get(`/api/conversations/${id}/events`, { query: { [name]: value } });
      expect(response.status).toBe(422);
      expect(response.body.detail.length).toBeGreaterThan(0);
      for (const issue of response.body.detail) expect(issue).toEqual({ loc: ['query', name], msg: expect.any(String), type: expect.any(String) });
    });

    it('a wrongly typed limit gets one message about its type, not range complaints', async () => {
      const response = await alice.get(`/api/conversations/${id}/events`, { query: { limit: 'abc' } });
      expect(response.body.detail).toEqual([{ loc: ['query', 'limit'], msg: expect.stringMatching(/integer/), type: 'int_parsing' }]);
    });

    it('reference dialect: page_id walks every event once, forward and newest first', async () => {
      for (const sortOrder of ['TIMESTAMP', 'TIMESTAMP_DESC']) {
        const seen: string[] = [];
        let pageId: string | undefined;
        let pages = 0;
        do {
          const response = await alice.get(`/api/conversations/${id}/events/search`, { query: { limit: 10, page_id: pageId, sort_order: sortOrder } });
          expect(response.status).toBe(200);
          seen.push(...response.body.items.map(messageText));
          pageId = response.body.next_page_id ?? undefined;
          pages++;
          expect(pages).toBeLessThanOrEqual(5);
        } while (pageId);
        expect(pages).toBe(5);
        expect(seen).toEqual(sortOrder === 'TIMESTAMP' ? texts : [...texts].reverse());
      }
    });

    it('reference dialect: the default limit is 100', async () => {
      const response = await alice.get(`/api/conversations/${id}/events/search`);
      expect(response.body.items.map(messageText)).toEqual(texts);
      expect(response.body.next_page_id).toBeNull();
    });

    it('reference dialect: an unknown page_id is 404, not the first page', async () => {
      const response = await alice.get(`/api/conversations/${id}/events/search`, { query: { page_id: '01JDQ8X5W3K4M2N7P9R0S0NONE' } });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Event not found: 01JDQ8X5W3K4M2N7P9R0S0NONE' });
    });

    it('count is 45', async () => {
      expect(await count(id)).toBe(45);
    });
  });

  // ---------------------------------------------------------------- one event

  describe('get one event', () => {
    let id: string;
    let other: string;

    beforeAll(async () => {
      id = await createConversation();
      other = await createConversation();
      await expectSent(send(id, 'first'));
      await expectSent(send(id, 'second'));
      await expectSent(send(other, 'elsewhere'));
    });

    it('serves each event exactly as search served it', async () => {
      const events = await allEvents(id);
      expect(events).toHaveLength(2);
      for (const event of events) {
        const response = await alice.get(`/api/conversations/${id}/events/${event.id}`);
        expect(response.status).toBe(200);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.body).toEqual(event);
      }
    });

    it('accepts the conversation id as 32 upper-case hex digits', async () => {
      const [event] = await allEvents(id);
      const response = await alice.get(`/api/conversations/${id.replace(/-/g, '').toUpperCase()}/events/${event.id}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(event);
    });

    it('an unknown event in a known conversation is 404 with its id', async () => {
      const response = await alice.get(`/api/conversations/${id}/events/01JDQ8X5W3K4M2N7P9R0S0NONE`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Event not found: 01JDQ8X5W3K4M2N7P9R0S0NONE' });
    });

    it("another conversation's event is not found through this one", async () => {
      const [foreign] = await allEvents(other);
      const response = await alice.get(`/api/conversations/${id}/events/${foreign.id}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: `Event not found: ${foreign.id}` });
    });

    it('an unknown conversation is 404 with its id', async () => {
      const response = await alice.get(`/api/conversations/${UNKNOWN_CONVERSATION}/events/01JDQ8X5W3K4M2N7P9R0S0NONE`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: `Conversation not found: ${UNKNOWN_CONVERSATION}` });
    });

    it.each(['not-a-uuid', '12345', `${'a'.repeat(31)}`, '0b0e4d4e-8f4f-4f61-9a57-00000000000g'])('conversation id %s is 422 at path', async (bad) => {
      const response = await alice.get(`/api/conversations/${bad}/events/01JDQ8X5W3K4M2N7P9R0S0NONE`);
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ detail: [{ loc: ['path', 'conversation_id'], msg: expect.any(String), type: 'uuid_parsing' }] });
    });

    it('an event id PostgreSQL cannot hold is 422, not a server error', async () => {
      const response = await alice.get(`/api/conversations/${id}/events/abc%00def`);
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc).toEqual(['path', 'event_id']);
    });
  });

  // ---------------------------------------------------------------- send

  describe('send a message', () => {
    it('defaults to role user and run false: one complete MessageEvent from the user', async () => {
      const id = await createConversation();
      const before = Date.now();
      await expectSent(send(id, 'Hello agent'));
      const events = await allEvents(id);
      expect(events).toHaveLength(1);
      const [event] = events;
      const userFixture = fixture('MessageEvent');
      expect(event).toEqual({
        ...userFixture,
        id: expect.stringMatching(ULID),
        timestamp: expect.stringMatching(ISO_MS_Z),
        llm_message: { ...userFixture.llm_message, content: [{ type: 'text', text: 'Hello agent', cache_prompt: false }] },
      });
      expect(Object.keys(event).sort()).toEqual(Object.keys(userFixture).sort());
      expect(Math.abs(Date.parse(event.timestamp) - before)).toBeLessThan(60_000);
      const record = await alice.get(`/api/conversations/${id}`);
      expect(record.body).toMatchObject({ execution_status: 'idle', event_count: 1 });
    });

    it('keeps content as given: several items, cache_prompt, an image, an item without type', async () => {
      const id = await createConversation();
      const content = [
        { type: 'text', text: 'look at this', cache_prompt: true },
        { type: 'image', image_urls: ['https://example.com/cat.png'] },
        { text: 'untyped is text' },
      ];
      await expectSent(send(id, content, { extra: { role: 'user', run: false } }));
      const [event] = await allEvents(id);
      expect(event.llm_message.content).toEqual([
        { type: 'text', text: 'look at this', cache_prompt: true },
        { type: 'image', image_urls: ['https://example.com/cat.png'], cache_prompt: false },
        { type: 'text', text: 'untyped is text', cache_prompt: false },
      ]);
      expect(event).toMatchObject({ source: 'user', llm_response_id: null, llm_message: { role: 'user' } });
    });

    it.each(['assistant', 'system', 'tool', 'agent', 'USER'])('role %s is 422 saying only user messages can be sent', async (role) => {
      const id = await createConversation();
      const response = await send(id, 'pretend', { extra: { role } });
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([{ loc: ['body', 'role'], msg: expect.stringMatching(/only user messages/i), type: expect.any(String) }]);
      expect(await count(id)).toBe(0);
    });

    it.each([
      ['content []', { content: [] }, ['body', 'content']],
      ['no content', { run: false }, ['body', 'content']],
      ['content a string', { content: 'hello' }, ['body', 'content']],
      ['content null', { content: null }, ['body', 'content']],
      ['an item of unknown type', { content: [{ type: 'video', text: 'x' }] }, ['body', 'content', 0, 'type']],
      ['an item with an unknown field', { content: [{ type: 'text', text: 'x', colour: 'red' }] }, ['body', 'content', 0, 'colour']],
      ['an image item with text', { content: [{ type: 'image', image_urls: ['https://x'], text: 'x' }] }, ['body', 'content', 0, 'text']],
      ['a text item without text', { content: [{ type: 'text' }] }, ['body', 'content', 0, 'text']],
      ['a text item with numeric text', { content: [{ type: 'text', text: 42 }] }, ['body', 'content', 0, 'text']],
      ['a null item', { content: [{ text: 'ok' }, null] }, ['body', 'content', 1]],
      ['a number item', { content: [7] }, ['body', 'content']],
      ['run not a boolean', { content: [text('x')], run: 'yes' }, ['body', 'run']],
      ['an unknown field', { content: [text('x')], priority: 'high' }, ['body', 'priority']],
      ['text with a NUL character', { content: [text('a\u0000b')] }, ['body', 'content', 0, 'text']],
      ['text with an unpaired surrogate', { content: [text('a\ud800b')] }, ['body', 'content', 0, 'text']],
    ])('%s is 422 and appends nothing', async (_name, body, loc) => {
      const id = await createConversation();
      const response = await alice.post(`/api/conversations/${id}/events`, { body });
      expect422(response, loc);
      expect(await count(id)).toBe(0);
    });

    it.each([
      ['an empty body', undefined],
      ['a JSON array', '[{"content": [{"text": "x"}]}]'],
      ['a JSON string', '"hello"'],
      ['malformed JSON', '{"content": ['],
    ])('%s is 422 and appends nothing', async (_name, rawBody) => {
      const id = await createConversation();
      const response = await alice.post(`/api/conversations/${id}/events`, rawBody === undefined ? {} : { rawBody });
      expect(response.status).toBe(422);
      expect(response.body.detail[0].loc[0]).toBe('body');
      expect(await count(id)).toBe(0);
    });

    it('text with emoji and other scripts round-trips unchanged', async () => {
      const id = await createConversation();
      const value = 'héllo 😀 日本語 \u2028 "quoted" \\ backslash';
      await expectSent(send(id, value));
      const [event] = await allEvents(id);
      expect(messageText(event)).toBe(value);
      expect((await searchPage(id, { query: '😀 日本' })).events).toHaveLength(1);
    });

    describe('Idempotency-Key', () => {
      it('the same key sent twice appends one event', async () => {
        const id = await createConversation();
        const headers = { 'Idempotency-Key': 'retry-1' };
        await expectSent(send(id, 'only once', { headers }));
        await expectSent(send(id, 'only once', { headers }));
        const events = await allEvents(id);
        expect(events.map(messageText)).toEqual(['only once']);
      });

      it('the same key sent 10 times concurrently appends one event, with no gap after it', async () => {
        const id = await createConversation();
        const headers = { 'Idempotency-Key': 'burst-key' };
        await Promise.all(Array.from({ length: 10 }, () => expectSent(send(id, 'burst', { headers }))));
        expect((await allEvents(id)).map(messageText)).toEqual(['burst']);
        await expectSent(send(id, 'next'));
        const page = await searchPage(id, { start_id: 1 });
        expect(page.events.map(messageText)).toEqual(['next']);
        expect(await count(id)).toBe(2);
      });

      it('different keys, and no key, append separately', async () => {
        const id = await createConversation();
        await expectSent(send(id, 'same text', { headers: { 'Idempotency-Key': 'key-a' } }));
        await expectSent(send(id, 'same text', { headers: { 'Idempotency-Key': 'key-b' } }));
        await expectSent(send(id, 'same text'));
        await expectSent(send(id, 'same text'));
        expect(await count(id)).toBe(4);
      });

      it('a key is per conversation', async () => {
        const first = await createConversation();
        const second = await createConversation();
        await expectSent(send(first, 'one', { headers: { 'Idempotency-Key': 'shared' } }));
        await expectSent(send(second, 'two', { headers: { 'Idempotency-Key': 'shared' } }));
        expect((await allEvents(first)).map(messageText)).toEqual(['one']);
        expect((await allEvents(second)).map(messageText)).toEqual(['two']);
      });

      it('an empty or over-long key is 422 at the header', async () => {
        const id = await createConversation();
        for (const key of ['', 'k'.repeat(201)]) {
          const response = await send(id, 'x', { headers: { 'Idempotency-Key': key } });
          expect(response.status).toBe(422);
          expect(response.body.detail[0].loc).toEqual(['header', 'idempotency-key']);
        }
        expect(await count(id)).toBe(0);
      });
    });
  });

  // ---------------------------------------------------------------- positions

  describe('positions under concurrency', () => {
    it('50 concurrent sends to one conversation take positions 0..49, no gap, no duplicate', async () => {
      const id = await createConversation();
      const texts = Array.from({ length: 50 }, (_, index) => `concurrent ${index}`);
      await Promise.all(texts.map((value) => expectSent(send(id, value))));
      const events = await allEvents(id);
      expect(events.map(messageText).sort()).toEqual([...texts].sort());
      expect(new Set(events.map((event) => event.id)).size).toBe(50);
      // Position k holds exactly one event, the k-th of the full listing.
      const positions = await Promise.all(
        Array.from({ length: 51 }, (_, position) => searchPage(id, { start_id: position, end_id: position })),
      );
      positions.slice(0, 50).forEach((page, position) => expect(page.events.map((event) => event.id)).toEqual([events[position].id]));
      expect(positions[50].events).toEqual([]);
      const walk = await searchPage(id, { start_id: 48, limit: 1 });
      expect(walk).toMatchObject({ has_more: true, next_id: 49 });
      const rows = await queryDatabase<{ seq: string }>(database.url, 'SELECT seq FROM events WHERE conversation_id = $1 ORDER BY seq', [id]);
      expect(rows.map((row) => Number(row.seq))).toEqual(Array.from({ length: 50 }, (_, index) => index));
      expect((await alice.get(`/api/conversations/${id}`)).body.event_count).toBe(50);
    });

    it('20 conversations written concurrently stay independent', async () => {
      const ids = await Promise.all(Array.from({ length: 20 }, () => createConversation()));
      await Promise.all(
        ids.flatMap((id, conversation) => Array.from({ length: 5 }, (_, index) => expectSent(send(id, `c${conversation} m${index}`)))),
      );
      await Promise.all(
        ids.map(async (id, conversation) => {
          const page = await searchPage(id, { limit: 5 });
          expect(page.events.map(messageText).sort()).toEqual(Array.from({ length: 5 }, (_, index) => `c${conversation} m${index}`));
          expect(page).toMatchObject({ has_more: false, next_id: null });
          expect(await searchPage(id, { start_id: 4 })).toMatchObject({ events: [page.events[4]], has_more: false });
        }),
      );
    });
  });

  // ---------------------------------------------------------------- variants

  describe('every event variant round-trips', () => {
    let id: string;
    let seeded: Json[];

    beforeAll(async () => {
      id = await createConversation();
      seeded = [];
      for (const event of FIXTURE) seeded.push(await seeder.append(id, clone(event)));
    });

    it('the fixture covers all 14 kinds and is seeded unchanged (every field present)', () => {
      expect(new Set(FIXTURE.map((event) => event.kind)).size).toBe(14);
      expect(seeded).toEqual(FIXTURE);
    });

    it('search serves each variant deep-equal to what was stored, every field present', async () => {
      const page = await searchPage(id, { limit: 100 });
      expect(page.events).toEqual(FIXTURE);
      page.events.forEach((event, index) => expect(Object.keys(event).sort()).toEqual(Object.keys(FIXTURE[index]).sort()));
    });

    it.each(FIXTURE.map((event, index) => [event.kind, index] as const))('GET one %s (#%i) is deep-equal to the stored event', async (_kind, index) => {
      const response = await alice.get(`/api/conversations/${id}/events/${FIXTURE[index].id}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(FIXTURE[index]);
    });

    it('the reference dialect serves them unchanged too', async () => {
      const response = await alice.get(`/api/conversations/${id}/events/search`);
      expect(response.body).toEqual({ items: FIXTURE, next_page_id: null });
    });

    it('an event carrying text PostgreSQL cannot store (binary tool output) is stored with U+FFFD instead of failing', async () => {
      const target = await createConversation();
      const observation = fixture('ObservationEvent');
      observation.observation.content = [text('bin\u0000ary \ud800 out')];
      const appended = await seeder.append(target, observation);
      const response = await alice.get(`/api/conversations/${target}/events/${observation.id}`);
      expect(response.status).toBe(200);
      const expected: Json = clone(appended);
      expected.observation.content[0].text = 'bin\uFFFDary \uFFFD out';
      expect(response.body).toEqual(expected);
      expect((await searchPage(target, { query: 'ary \uFFFD out' })).events).toEqual([expected]);
    });
  });

  it("bob cannot read alice's events (the auth suite covers every route)", async () => {
    const id = await createConversation();
    const response = await bob.get(`/api/conversations/${id}/events`);
    expect(response.status).toBe(403);
  });
});

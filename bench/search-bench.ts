// Benchmark 3: one search page (GET .../events?limit=20&query=WORD) on conversations of 1,000 and
// 100,000 events, for a common word (1 event in 10) and a rare one (1 in 10,000).
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { ulid } from 'ulid';
import { buildAction, buildEvent, buildObservation } from '../src/events/dto/event-registry.js';
import { eventSearchText } from '../src/events/event-search-text.js';
import type { Figure } from './events-bench.js';
import { ALICE_KEY, keepAliveAgent, log, percentile, request, round, type Api } from './support.js';

export const COMMON_WORD = 'quasar';
export const RARE_WORD = 'xylophonist';
const SMALL = 1_000;
const LARGE = 100_000;
const BATCH = 1_000;
const ROUNDS = Number(process.env.BENCH_SEARCH_ROUNDS) || 6;
const PER_ROUND = 40;
const ROUND_CAP_MS = 3_000;

const VOCABULARY = (
  'the build failed because a test timed out so we rerun it with more logging and check the parser output ' +
  'files were listed under src and the config loader reads environment variables before the defaults apply ' +
  'next open the migration and add an index then measure again with the same data to compare the plans'
).split(' ');

function sentence(seq: number, words: number, withQueryWords = true): string {
  const parts: string[] = [];
  for (let i = 0; i < words; i++) parts.push(VOCABULARY[(seq * 31 + i * 17) % VOCABULARY.length]);
  if (!withQueryWords) return parts.join(' ');
  if (seq % 10 === 3) parts.splice(words >> 1, 0, COMMON_WORD);
  if (seq % 10_000 === 500) parts.splice(words >> 2, 0, RARE_WORD);
  return parts.join(' ');
}

/** Valid events of the three kinds a working agent writes most, built once and varied by text. */
function templates() {
  const user = buildEvent('MessageEvent', {
    source: 'user',
    llm_message: { role: 'user', content: [{ type: 'text', text: 'x' }] as never },
    llm_response_id: null,
  }) as unknown as Record<string, any>;
  const action = buildEvent('ActionEvent', {
    thought: [{ type: 'text', text: 'x' }] as never,
    action: buildAction('ThinkAction', { thought: 'x' }) as never,
    tool_name: 'think',
    tool_call_id: 'call_0',
    tool_call: { id: 'call_0', name: 'think', arguments: '{}', origin: 'completion' } as never,
    llm_response_id: 'chatcmpl-0',
    security_risk: 'LOW' as never,
    summary: null,
  }) as unknown as Record<string, any>;
  const observation = buildEvent('ObservationEvent', {
    tool_name: 'think',
    tool_call_id: 'call_0',
    observation: buildObservation('ThinkObservation', { content: [{ type: 'text', text: 'x' }] as never }) as never,
    action_id: 'x',
  }) as unknown as Record<string, any>;
  return { user, action, observation };
}

/** The event at position `seq`: user message, think action, its observation, repeating. */
function eventAt(t: ReturnType<typeof templates>, seq: number, base: number): Record<string, any> {
  const id = ulid(base + seq);
  const timestamp = new Date(base + seq).toISOString();
  switch (seq % 3) {
    case 0:
      return { ...t.user, id, timestamp, llm_message: { ...t.user.llm_message, content: [{ ...t.user.llm_message.content[0], text: sentence(seq, 40) }] } };
    case 1: {
      const thought = sentence(seq, 30);
      const args = JSON.stringify({ thought });
      return {
        ...t.action,
        id,
        timestamp,
        thought: [{ ...t.action.thought[0], text: sentence(seq + 1, 12, false) }],
        action: { ...t.action.action, thought },
        tool_call_id: `call_${seq}`,
        tool_call: { ...t.action.tool_call, id: `call_${seq}`, arguments: args },
        llm_response_id: `chatcmpl-${seq}`,
      };
    }
    default:
      return {
        ...t.observation,
        id,
        timestamp,
        tool_call_id: `call_${seq - 1}`,
        action_id: `act-${seq - 1}`,
        observation: { ...t.observation.observation, content: [{ ...t.observation.observation.content[0], text: sentence(seq, 25) }] },
      };
  }
}

/**
 * Writes `count` events into the conversation with multi-row INSERTs of the same shape the store
 * writes (payload, lower-cased search_text, gapless seq) and sets conversations.last_seq.
 */
async function seed(client: pg.Client, conversationId: string, count: number): Promise<void> {
  const t = templates();
  const base = Date.now() - count;
  for (let start = 0; start < count; start += BATCH) {
    const cols = { seq: [] as number[], id: [] as string[], kind: [] as string[], source: [] as string[], ts: [] as string[], payload: [] as string[], search: [] as string[] };
    for (let seq = start; seq < Math.min(count, start + BATCH); seq++) {
      const event = eventAt(t, seq, base);
      cols.seq.push(seq);
      cols.id.push(event.id);
      cols.kind.push(event.kind);
      cols.source.push(event.source);
      cols.ts.push(event.timestamp);
      cols.payload.push(JSON.stringify(event));
      cols.search.push(eventSearchText(event));
    }
    await client.query(
      `INSERT INTO events (conversation_id, seq, id, kind, source, timestamp, payload, search_text)
       SELECT $1::uuid, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::jsonb[], $8::text[])`,
      [conversationId, cols.seq, cols.id, cols.kind, cols.source, cols.ts, cols.payload, cols.search],
    );
  }
  await client.query(`UPDATE conversations SET last_seq = $2 WHERE id = $1`, [conversationId, count - 1]);
}

const STORE_PAGE_SQL = `SELECT seq, id, payload::text AS json FROM events
  WHERE conversation_id = $1 AND seq >= $2 AND search_text LIKE $3 ORDER BY seq ASC LIMIT $4`;

export async function benchSearch(api: Api, databaseUrl: string): Promise<Figure[]> {
  log('\n[3] Search page: GET /api/conversations/{id}/events?limit=20&query=WORD, one client, 1,000 vs 100,000 events');
  const small: string = (await api.call('POST', '/api/conversations', { title: 'bench search 1k' })).id;
  const large: string = (await api.call('POST', '/api/conversations', { title: 'bench search 100k' })).id;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // This session only: the trigram index's pending list merges once (at the VACUUM below) rather
  // than every 4 MB. The rows and the resulting index are the same.
  await client.query(`SET gin_pending_list_limit = '256MB'`);
  const seeding = performance.now();
  await seed(client, small, SMALL);
  await seed(client, large, LARGE);
  const seedSeconds = (performance.now() - seeding) / 1000;
  const vacuuming = performance.now();
  // Steady state as autovacuum leaves it: statistics present, GIN pending list merged.
  await client.query('VACUUM ANALYZE events');
  await client.query('RESET gin_pending_list_limit');
  const vacuumSeconds = (performance.now() - vacuuming) / 1000;
  log(`    seeded ${SMALL + LARGE} events in ${round(seedSeconds)} s (limit 60 s), VACUUM ANALYZE ${round(vacuumSeconds)} s`);
  log(`    "${COMMON_WORD}" is in 1 event of 10; "${RARE_WORD}" in 1 of 10,000 (1 match in 1k, 10 in 100k)`);

  const agent = keepAliveAgent(1);
  const headers = { 'x-session-api-key': ALICE_KEY };
  const cases = [
    { key: '1k common', id: small, word: COMMON_WORD, expect: 20 },
    { key: '100k common', id: large, word: COMMON_WORD, expect: 20 },
    { key: '1k rare', id: small, word: RARE_WORD, expect: 1 },
    { key: '100k rare', id: large, word: RARE_WORD, expect: 10 },
  ];
  const latencies = new Map<string, number[]>(cases.map((c) => [c.key, []]));
  const sqlLatencies = new Map<string, number[]>(cases.map((c) => [c.key, []]));
  // The same page query sent straight to PostgreSQL: what the database alone takes.
  const sqlOnce = async (c: (typeof cases)[number]) => {
    const begin = performance.now();
    await client.query(STORE_PAGE_SQL, [c.id, 0, `%${c.word}%`, 21]);
    sqlLatencies.get(c.key)!.push(performance.now() - begin);
  };
  const once = async (c: (typeof cases)[number]) => {
    const begin = performance.now();
    const reply = await request(agent, api.baseUrl, 'GET', `/api/conversations/${c.id}/events?limit=20&query=${c.word}`, undefined, headers);
    const ms = performance.now() - begin;
    if (reply.status !== 200) throw new Error(`search ${c.key}: status ${reply.status}: ${reply.text.slice(0, 300)}`);
    const count = (JSON.parse(reply.text) as { events: unknown[] }).events.length;
    if (count !== c.expect) throw new Error(`search ${c.key}: ${count} events, expected ${c.expect}`);
    return ms;
  };
  for (const c of cases) for (let i = 0; i < 5; i++) await once(c); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? cases : [...cases].reverse();
    for (const c of order) {
      const until = performance.now() + ROUND_CAP_MS;
      for (let i = 0; i < PER_ROUND && performance.now() < until; i++) {
        latencies.get(c.key)!.push(await once(c));
        if (i % 4 === 0) await sqlOnce(c);
      }
    }
  }
  agent.destroy();

  // Why: the plan PostgreSQL picks for the store's page query in each case.
  const plans: Record<string, string> = {};
  for (const c of cases) {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${STORE_PAGE_SQL}`, [c.id, 0, `%${c.word}%`, 21]);
    plans[c.key] = rows.map((row) => row['QUERY PLAN']).join('\n');
  }
  await client.end();

  const stat = (key: string) => ({
    p50: percentile(latencies.get(key)!, 50),
    p99: percentile(latencies.get(key)!, 99),
    n: latencies.get(key)!.length,
    sqlP50: percentile(sqlLatencies.get(key)!, 50),
  });
  const figures: Figure[] = [];
  for (const word of ['common', 'rare'] as const) {
    const s = stat(`1k ${word}`);
    const l = stat(`100k ${word}`);
    const ratio = l.p50 / s.p50;
    const met = l.p50 <= 10 && s.p50 <= 10 && ratio <= 1.5;
    log(`    ${word.padEnd(6)} 1k:   p50 ${round(s.p50, 2)} ms, p99 ${round(s.p99, 2)} ms (n=${s.n}); the SQL alone p50 ${round(s.sqlP50, 2)} ms`);
    log(`    ${word.padEnd(6)} 100k: p50 ${round(l.p50, 2)} ms, p99 ${round(l.p99, 2)} ms (n=${l.n}); the SQL alone p50 ${round(l.sqlP50, 2)} ms`);
    log(`    ${word.padEnd(6)} 100k/1k p50 ratio ${round(ratio, 2)} (targets: p50 <= 10 ms, ratio <= 1.5)${met ? '' : '  MISSED'}`);
    figures.push({
      name: `search page, ${word} word ("${word === 'common' ? COMMON_WORD : RARE_WORD}")`,
      unit: 'p50 ms (100k vs 1k)',
      service: round(l.p50, 2),
      yardstick: round(s.p50, 2),
      ratio: round(ratio, 2),
      ratioMeaning: '100k p50 / 1k p50',
      target: 'p50 <= 10 ms, ratio <= 1.5',
      met,
      note: `p99 ${round(l.p99, 1)} vs ${round(s.p99, 1)} ms; SQL alone p50 ${round(l.sqlP50, 1)} vs ${round(s.sqlP50, 1)} ms`,
      details: { small: s, large: l, p99Ratio: round(l.p99 / s.p99, 2) },
    });
  }
  for (const c of cases) {
    const top = plans[c.key].split('\n').filter((line) => /Scan|Sort|Limit|Execution Time|Rows Removed/.test(line)).map((line) => line.trim());
    log(`    plan ${c.key}: ${top.join(' | ')}`);
  }
  figures[0].details.seedSeconds = round(seedSeconds, 1);
  figures[0].details.plans = plans;
  return figures;
}

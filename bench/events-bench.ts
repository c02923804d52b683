// Benchmarks 1 and 2: sending a message vs raw INSERTs of the same rows, and reading one event
// vs a bare node:http + pg server doing the same SELECT.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ulid } from 'ulid';
import { buildEvent } from '../src/events/dto/event-registry.js';
import { eventSearchText } from '../src/events/event-search-text.js';
import {
  ALICE_KEY,
  alternate,
  keepAliveAgent,
  log,
  median,
  percentile,
  request,
  round,
  runLoad,
  withCpu,
  type Api,
  type LoadResult,
} from './support.js';

export interface Figure {
  name: string;
  unit: string;
  service: number;
  yardstick: number;
  /** service / yardstick (or as stated in `ratioMeaning`). */
  ratio: number;
  ratioMeaning: string;
  target: string;
  met: boolean | null;
  /** A short extra shown in the table. */
  note?: string;
  details: Record<string, unknown>;
}

const CONCURRENCY = 16;
const ROUND_MS = Number(process.env.BENCH_ROUND_MS) || 2500;
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 4;
const MAX_OPS_PER_ROUND = 200_000;

/** 1,024 characters of text with none of the search benchmark's query words. */
export function kilobyteText(seed: number): string {
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];
  let text = `message ${seed}:`;
  for (let i = 0; text.length < 1024; i++) text += ` ${words[(seed + i * 7) % words.length]}`;
  return text.slice(0, 1024);
}

function summarize(results: LoadResult[]) {
  const rates = results.map((r) => r.perSecond);
  const latencies = results.flatMap((r) => r.latencies);
  const cpu = results.map((r) => r.cpuMsPerOp).filter((v): v is number => v !== undefined);
  return {
    medianPerSecond: median(rates),
    cpuMsPerOp: cpu.length ? round(median(cpu), 3) : null,
    rounds: rates.map((r) => round(r)),
    p50Ms: round(percentile(latencies, 50), 2),
    p99Ms: round(percentile(latencies, 99), 2),
    failed: results.reduce((n, r) => n + r.failed, 0),
    firstFailure: results.find((r) => r.firstFailure)?.firstFailure ?? null,
  };
}

// ------------------------------------------------------------------ 1. send message

export async function benchSendMessage(api: Api, servicePid: number, databaseUrl: string): Promise<{ figure: Figure; conversationIds: string[] }> {
  log('\n[1] Send message: POST /api/conversations/{id}/events (run: false, 1 KB text), 16 clients, 16 conversations (one per client)');
  const conversationIds: string[] = [];
  for (let i = 0; i < CONCURRENCY; i++) {
    conversationIds.push((await api.call('POST', '/api/conversations', { title: `bench send ${i}` })).id);
  }
  const sharedId: string = (await api.call('POST', '/api/conversations', { title: 'bench send shared' })).id;

  const bodies = Array.from({ length: CONCURRENCY }, (_, i) =>
    Buffer.from(JSON.stringify({ role: 'user', content: [{ type: 'text', text: kilobyteText(i) }], run: false })),
  );
  const agent = keepAliveAgent(CONCURRENCY);
  const headers = { 'x-session-api-key': ALICE_KEY, 'content-type': 'application/json' };
  const serviceRound = (target: (worker: number) => string) => () =>
    withCpu(servicePid, () =>
      runLoad(CONCURRENCY, ROUND_MS, MAX_OPS_PER_ROUND, async (worker) => {
        const reply = await request(agent, api.baseUrl, 'POST', `/api/conversations/${target(worker)}/events`, bodies[worker], headers);
        return reply.status === 200 || `status ${reply.status}: ${reply.text.slice(0, 200)}`;
      }),
    );

  // The yardstick: the same rows, INSERTed with plain pg into a table of the same shape and indexes.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: CONCURRENCY });
  await pool.query('CREATE TABLE bench_events (LIKE events INCLUDING ALL)');
  const templates = bodies.map((_, i) => {
    const event = buildEvent('MessageEvent', {
      source: 'user',
      llm_message: { role: 'user', content: [{ type: 'text', text: kilobyteText(i) }] as never },
      llm_response_id: null,
    }) as unknown as Record<string, unknown>;
    return { event, searchText: eventSearchText(event) };
  });
  const yardstickConversations = bodies.map(() => randomUUID());
  const nextSeq = bodies.map(() => 0);
  const yardstickRound = () =>
    runLoad(CONCURRENCY, ROUND_MS, MAX_OPS_PER_ROUND, async (worker) => {
      const { event, searchText } = templates[worker];
      const row: Record<string, unknown> = { ...event, id: ulid(), timestamp: new Date().toISOString() };
      await pool.query(
        `INSERT INTO bench_events (conversation_id, seq, id, kind, source, timestamp, payload, search_text, idempotency_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)`,
        [yardstickConversations[worker], nextSeq[worker]++, row.id, row.kind, row.source, row.timestamp, JSON.stringify(row), searchText, null],
      );
      return true;
    });

  const perClient = serviceRound((worker) => conversationIds[worker]);
  await perClient(); // warm-up (JIT, pools, caches)
  await yardstickRound();
  const { a, b } = await alternate(ROUNDS, perClient, yardstickRound);
  const oneConversation = await serviceRound(() => sharedId)();
  await pool.query('DROP TABLE bench_events');
  await pool.end();
  agent.destroy();

  const service = summarize(a);
  const yardstick = summarize(b);
  const shared = summarize([oneConversation]);
  const ratio = service.medianPerSecond / yardstick.medianPerSecond;
  log(`    service   ${round(service.medianPerSecond)} messages/s (rounds ${service.rounds.join(', ')}; p50 ${service.p50Ms} ms, p99 ${service.p99Ms} ms; service CPU ${service.cpuMsPerOp} ms/message)`);
  log(`    yardstick ${round(yardstick.medianPerSecond)} INSERTs/s   (rounds ${yardstick.rounds.join(', ')}; p50 ${yardstick.p50Ms} ms, p99 ${yardstick.p99Ms} ms)`);
  log(`    ratio     ${round(ratio * 100)}% (target >= 40%)`);
  log(`    info: 16 clients on ONE conversation: ${round(shared.medianPerSecond)} messages/s (appends to one conversation serialise on its row)`);
  for (const s of [service, yardstick, shared]) if (s.failed) log(`    failures: ${s.failed}, first: ${s.firstFailure}`);
  return {
    conversationIds,
    figure: {
      name: 'send message',
      unit: 'messages/s',
      service: round(service.medianPerSecond),
      yardstick: round(yardstick.medianPerSecond),
      ratio: round(ratio, 3),
      ratioMeaning: 'service / raw pg INSERT',
      target: '>= 0.40',
      met: ratio >= 0.4,
      note: `service CPU ${service.cpuMsPerOp} ms/msg`,
      details: { service, yardstick, oneConversation: shared, concurrency: CONCURRENCY, roundMs: ROUND_MS, rounds: ROUNDS },
    },
  };
}

// ------------------------------------------------------------------ 2. get one event

export async function benchGetEvent(
  api: Api,
  servicePid: number,
  databaseUrl: string,
  bare: { url: string; pid: number },
  conversationIds: string[],
): Promise<Figure> {
  log('\n[2] GET one event: GET /api/conversations/{id}/events/{event_id}, 16 keep-alive clients, vs bare node:http + pg in a child process');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ conversation_id: string; id: string }>(
    `SELECT conversation_id, id FROM events WHERE conversation_id = ANY($1::uuid[]) ORDER BY random() LIMIT 2000`,
    [conversationIds],
  );
  await client.end();
  if (rows.length === 0) throw new Error('no events to read: benchmark 1 stored none');
  const paths = rows.map((row) => `/api/conversations/${row.conversation_id}/events/${row.id}`);

  const serviceAgent = keepAliveAgent(CONCURRENCY);
  const yardstickAgent = keepAliveAgent(CONCURRENCY);
  const headers = { 'x-session-api-key': ALICE_KEY };
  const [fromService, fromYardstick] = await Promise.all([
    request(serviceAgent, api.baseUrl, 'GET', paths[0], undefined, headers),
    request(yardstickAgent, bare.url, 'GET', paths[0], undefined, headers),
  ]);
  if (fromService.status !== 200 || fromService.text !== fromYardstick.text) {
    throw new Error(`service and yardstick disagree on ${paths[0]}: ${fromService.status} ${fromService.text.slice(0, 200)}`);
  }
  const roundOn = (agent: ReturnType<typeof keepAliveAgent>, baseUrl: string, pid: number) => () =>
    withCpu(pid, () =>
      runLoad(CONCURRENCY, ROUND_MS, MAX_OPS_PER_ROUND, async (_worker, index) => {
        const reply = await request(agent, baseUrl, 'GET', paths[index % paths.length], undefined, headers);
        return reply.status === 200 || `status ${reply.status}: ${reply.text.slice(0, 200)}`;
      }),
    );
  const serviceRound = roundOn(serviceAgent, api.baseUrl, servicePid);
  const yardstickRound = roundOn(yardstickAgent, bare.url, bare.pid);
  await serviceRound();
  await yardstickRound();
  const { a, b } = await alternate(ROUNDS, serviceRound, yardstickRound);
  serviceAgent.destroy();
  yardstickAgent.destroy();

  const service = summarize(a);
  const yardstick = summarize(b);
  const ratio = service.medianPerSecond / yardstick.medianPerSecond;
  log(`    service   ${round(service.medianPerSecond)} requests/s (rounds ${service.rounds.join(', ')}; p50 ${service.p50Ms} ms, p99 ${service.p99Ms} ms; CPU ${service.cpuMsPerOp} ms/request)`);
  log(`    yardstick ${round(yardstick.medianPerSecond)} requests/s (rounds ${yardstick.rounds.join(', ')}; p50 ${yardstick.p50Ms} ms, p99 ${yardstick.p99Ms} ms; CPU ${yardstick.cpuMsPerOp} ms/request)`);
  log(`    ratio     ${round(ratio * 100)}% (target >= 50%); CPU per request ratio yardstick/service ${round(((yardstick.cpuMsPerOp ?? NaN) / (service.cpuMsPerOp ?? NaN)) * 100)}%`);
  for (const s of [service, yardstick]) if (s.failed) log(`    failures: ${s.failed}, first: ${s.firstFailure}`);
  return {
    name: 'get one event',
    unit: 'requests/s',
    service: round(service.medianPerSecond),
    yardstick: round(yardstick.medianPerSecond),
    ratio: round(ratio, 3),
    ratioMeaning: 'service / bare node:http + pg',
    target: '>= 0.50',
    met: ratio >= 0.5,
    note: `CPU ms/req ${service.cpuMsPerOp} vs ${yardstick.cpuMsPerOp}`,
    details: { service, yardstick, distinctEvents: paths.length, concurrency: CONCURRENCY, roundMs: ROUND_MS, rounds: ROUNDS },
  };
}

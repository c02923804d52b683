// `npm run bench`: speed and memory of the built service as ratios against yardsticks run in the
// same process tree, side by side. Loopback only; every load is bounded in count and time.
// Prints each figure as it is measured, then a table, and writes bench/results/latest.json.
//
// Environment: DATABASE_URL (the server to create a scratch database on; default
// postgres://postgres@127.0.0.1:5432/test), BENCH_ROUNDS / BENCH_ROUND_MS (alternating rounds of
// benchmarks 1-2, default 4 x 2500 ms), BENCH_ONLY (events,search,agent,websocket), BENCH_RATE_LIMIT_PER_MINUTE (0 measures without the limiter), BENCH_SEARCH_ROUNDS (default 6), BENCH_AGENT_STEPS /
// BENCH_AGENT_MANY_STEPS (think steps per conversation: 40 alone, 20 each of 50), BENCH_LOG_LEVEL.
// Besides rates, each benchmark prints CPU ms per operation from /proc/<pid>/stat: on a shared,
// noisy machine that figure moves far less than requests per second do.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchAgent } from './agent-bench.js';
import { benchGetEvent, benchSendMessage, type Figure } from './events-bench.js';
import { benchSearch } from './search-bench.js';
import {
  Api,
  ROOT,
  createBenchDatabase,
  log,
  memoryOf,
  round,
  spawnReady,
  startService,
  type BenchDatabase,
  type BenchProcess,
} from './support.js';

const figures: Figure[] = [];
const failures: string[] = [];
let database: BenchDatabase | null = null;
let service: BenchProcess | null = null;
let yardstick: BenchProcess | null = null;

async function cleanUp(): Promise<void> {
  await Promise.allSettled([service?.stop(), yardstick?.stop()]);
  service = yardstick = null;
  await database?.drop().catch((error: Error) => log(`could not drop ${database?.name}: ${error.message}`));
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`\n${signal}: stopping`);
    void cleanUp().finally(() => process.exit(130));
  });
}

async function step<T>(name: string, work: () => Promise<T>): Promise<T | null> {
  try {
    return await work();
  } catch (error) {
    const message = `${name} failed: ${(error as Error).stack ?? String(error)}`;
    failures.push(message);
    log(`    ${message}`);
    return null;
  }
}

function fmt(value: number): string {
  return Number.isFinite(value) ? String(value) : '-';
}

function printTable(): void {
  const rows = [
    ['benchmark', 'service', 'yardstick', 'ratio', 'target', 'result'],
    ...figures.map((f) => [
      f.name,
      `${fmt(f.service)}`,
      `${fmt(f.yardstick)}`,
      `${fmt(f.ratio)}`,
      f.target,
      `${f.met === null ? 'info' : f.met ? 'met' : 'MISSED'}${f.note ? ` (${f.note})` : ''}`,
    ]),
  ];
  const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => row[col].length)));
  log('');
  rows.forEach((row, i) => {
    log(row.map((cell, col) => cell.padEnd(widths[col])).join('  ').trimEnd());
    if (i === 0) log(widths.map((w) => '-'.repeat(w)).join('  '));
  });
  log('\nunits: send message = messages/s vs INSERTs/s; get one event = requests/s; search = p50 ms at 100k vs p50 ms at 1k;');
  log('       agent = steps/s vs bare LLM round trips/s; memory = MiB RSS.');
}

/** BENCH_ONLY=events,search,agent,websocket runs just those sections (all by default). */
const only = new Set((process.env.BENCH_ONLY ?? '').split(',').map((name) => name.trim()).filter(Boolean));
const wanted = (section: string) => only.size === 0 || only.has(section);

async function main(): Promise<void> {
  const began = performance.now();
  log(`bench: node ${process.version}, ${new Date().toISOString()}`);
  database = await createBenchDatabase();
  log(`database ${database.name} (dropped at the end)`);
  service = await startService(database.url, { CONDENSE_AFTER_EVENTS: '100000' });
  log(`service pid ${service.pid} at ${service.url}`);
  const startMemory = memoryOf(service.pid);
  const api = new Api(service.url);

  const sent = wanted('events') ? await step('send message', () => benchSendMessage(api, service!.pid, database!.url)) : null;
  if (sent) figures.push(sent.figure);

  yardstick = await spawnReady(join(ROOT, 'dist/bench/yardstick-server.js'), [], { ...process.env, DATABASE_URL: database.url, POOL_SIZE: '16' });
  if (sent) {
    const got = await step('get one event', () => benchGetEvent(api, service!.pid, database!.url, yardstick!, sent.conversationIds));
    if (got) figures.push(got);
  }

  const searched = wanted('search') ? await step('search', () => benchSearch(api, database!.url)) : null;
  if (searched) figures.push(...searched);

  const agents = wanted('agent') ? await step('agent', () => benchAgent(api, service!.pid)) : null;
  if (agents) figures.push(...agents);

  log('\n[5] Memory after the runs: VmRSS from /proc/<pid>/status');
  const serviceMemory = memoryOf(service.pid);
  const yardstickMemory = memoryOf(yardstick.pid);
  log(`    service   RSS ${round(serviceMemory.rssMiB)} MiB (peak ${round(serviceMemory.peakMiB)} MiB; ${round(startMemory.rssMiB)} MiB right after start)`);
  log(`    yardstick RSS ${round(yardstickMemory.rssMiB)} MiB (peak ${round(yardstickMemory.peakMiB)} MiB), bare node:http + pg`);
  log(`    ratio     ${round(serviceMemory.rssMiB / yardstickMemory.rssMiB, 2)}x`);
  figures.push({
    name: 'memory after the runs',
    unit: 'MiB RSS',
    service: round(serviceMemory.rssMiB),
    yardstick: round(yardstickMemory.rssMiB),
    ratio: round(serviceMemory.rssMiB / yardstickMemory.rssMiB, 2),
    ratioMeaning: 'service RSS / bare node:http + pg RSS',
    target: 'none (reported)',
    met: null,
    note: `peak ${round(serviceMemory.peakMiB)} MiB; ${round(startMemory.rssMiB)} MiB at start`,
    details: { service: serviceMemory, serviceAtStart: startMemory, yardstick: yardstickMemory },
  });
  api.close();
  await Promise.allSettled([service.stop(), yardstick.stop()]);
  service = yardstick = null;

  // The WebSocket benchmark lives in its own module (written separately) and runs its own service.
  let websocket: Record<string, number | string> | string;
  const websocketModule = join(ROOT, 'dist/bench/websocket.js');
  if (wanted('websocket') && existsSync(websocketModule)) {
    log('\n[6] WebSocket (bench/websocket.ts)');
    const specifier = './websocket.js';
    const result = await step('websocket', async () => {
      const module = (await import(specifier)) as { runWebSocketBench?: () => Promise<Record<string, number | string>> };
      if (typeof module.runWebSocketBench !== 'function') throw new Error('bench/websocket.ts does not export runWebSocketBench()');
      return module.runWebSocketBench();
    });
    websocket = result ?? 'failed';
    if (result) for (const [key, value] of Object.entries(result)) log(`    ${key}: ${value}`);
  } else {
    websocket = 'skipped: bench/websocket.ts was not built';
    log(`\n[6] WebSocket: ${websocket}`);
  }

  printTable();
  const seconds = round((performance.now() - began) / 1000);
  log(`\ntotal ${seconds} s${failures.length ? `, ${failures.length} benchmark(s) failed` : ''}`);
  const resultsDir = join(ROOT, 'bench/results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(
    join(resultsDir, 'latest.json'),
    `${JSON.stringify({ at: new Date().toISOString(), node: process.version, seconds, figures, websocket, failures }, null, 2)}\n`,
  );
  log(`written bench/results/latest.json`);
}

main()
  .catch((error: unknown) => {
    failures.push(String(error));
    log(`bench failed: ${(error as Error).stack ?? String(error)}`);
    if (service) log(`service output (tail):\n${service.tail()}`);
  })
  .finally(async () => {
    await cleanUp();
    process.exitCode = failures.length ? 1 : 0;
  });

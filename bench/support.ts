// Helpers the benchmarks share: their own database, the built service as a real process, a bounded
// keep-alive HTTP load generator, and statistics. Kept here (not imported from test/support) so the
// production build never depends on test helpers that other work edits; the one test helper bench
// reuses is the scripted LLM server (test/support/fake-llm-server.ts), listed in tsconfig.build.json.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The repository root (dist/bench/support.js is two levels below it). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const MAIN_SCRIPT = join(ROOT, 'dist/src/main.js');

export const ALICE_KEY = 'alice-session-key-0123456789';
const SESSION_KEYS = `alice:${ALICE_KEY}`;
const SECRETS_KEY = '0'.repeat(63) + '1';

export function adminDatabaseUrl(): string {
  return process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
}

// ---------------------------------------------------------------- database

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createBenchDatabase(): Promise<BenchDatabase> {
  const name = `acs_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminDatabaseUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const parsed = new URL(adminDatabaseUrl());
  parsed.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: parsed.toString(),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      const client = new pg.Client({ connectionString: adminDatabaseUrl() });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

// ---------------------------------------------------------------- processes

export interface BenchProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** The last few KB the process printed. */
  tail(): string;
  stop(): Promise<void>;
}

/** Spawns `node script` and waits until it prints `READY <url>`. Output is drained, only a tail kept. */
export async function spawnReady(script: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<BenchProcess> {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-8000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start in ${timeoutMs} ms:\n${tail}`)), timeoutMs);
    const onData = () => {
      const match = /READY (http:\/\/\S+)/.exec(tail);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolveUrl(match[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with code ${code}:\n${tail}`));
    });
  });
  return {
    url,
    pid: child.pid!,
    child,
    tail: () => tail,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

export interface ServiceHandle extends BenchProcess {
  dataDir: string;
}

/** The built service (dist/src/main.js) as its own process, configured as the e2e tests run it. */
export async function startService(databaseUrl: string, env: Record<string, string> = {}): Promise<ServiceHandle> {
  const dataDir = mkdtempSync(join(tmpdir(), 'acs-bench-'));
  const proc = await spawnReady(MAIN_SCRIPT, [], {
    ...process.env,
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    WORKSPACE_ROOT: join(dataDir, 'workspaces'),
    SESSION_API_KEYS: SESSION_KEYS,
    SECRETS_KEY,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT_PER_MINUTE ?? '10000000',
    DATABASE_URL: databaseUrl,
    ...env,
  });
  return {
    ...proc,
    dataDir,
    stop: async () => {
      await proc.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** VmRSS and VmHWM (peak) of a process, in MiB. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
}

/**
 * CPU time (user + system) a process has used so far, in ms. Under a shared, noisy machine this is
 * the steadier figure: the work per request does not depend on how often the process got a core.
 */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat (11 and 12 after the command), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

// ---------------------------------------------------------------- HTTP

export interface HttpReply {
  status: number;
  text: string;
}

export function keepAliveAgent(maxSockets: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
}

/** One request; never throws on a status. */
export function request(
  agent: http.Agent,
  baseUrl: string,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<HttpReply> {
  const url = new URL(path, baseUrl);
  const allHeaders: Record<string, string> = { ...headers };
  if (body !== undefined) {
    allHeaders['content-type'] ??= 'application/json';
    allHeaders['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolveReply, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: allHeaders, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolveReply({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A JSON client for setup steps (not timed). */
export class Api {
  private readonly agent = keepAliveAgent(8);
  constructor(
    readonly baseUrl: string,
    readonly key: string = ALICE_KEY,
  ) {}

  async call<T = any>(method: string, path: string, body?: unknown, expected = [200, 201]): Promise<T> {
    const reply = await request(this.agent, this.baseUrl, method, path, body === undefined ? undefined : JSON.stringify(body), {
      'x-session-api-key': this.key,
    });
    if (!expected.includes(reply.status)) throw new Error(`${method} ${path} answered ${reply.status}: ${reply.text.slice(0, 500)}`);
    return (reply.text ? JSON.parse(reply.text) : undefined) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}

// ---------------------------------------------------------------- load

export interface LoadResult {
  completed: number;
  failed: number;
  firstFailure: string | null;
  elapsedMs: number;
  perSecond: number;
  /** Latency of each completed operation, ms. */
  latencies: number[];
  /** CPU ms the measured process used per completed operation (when a pid was given to withCpu). */
  cpuMsPerOp?: number;
}

/** Runs a load and notes the CPU time `pid` used per completed operation. */
export async function withCpu(pid: number, load: () => Promise<LoadResult>): Promise<LoadResult> {
  const before = cpuMsOf(pid);
  const result = await load();
  return { ...result, cpuMsPerOp: (cpuMsOf(pid) - before) / Math.max(1, result.completed) };
}

/**
 * Runs `concurrency` workers, each doing `op` back to back, until `durationMs` has passed or
 * `maxOps` operations were started: bounded in time and count, it stops by itself.
 * `op` resolves true on success; a throw or false counts as a failure.
 */
export async function runLoad(
  concurrency: number,
  durationMs: number,
  maxOps: number,
  op: (worker: number, index: number) => Promise<boolean | string>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let started = 0;
  let failed = 0;
  let firstFailure: string | null = null;
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  const worker = async (id: number) => {
    while (performance.now() < deadline && started < maxOps) {
      const index = started++;
      const begin = performance.now();
      try {
        const outcome = await op(id, index);
        if (outcome === true) latencies.push(performance.now() - begin);
        else {
          failed++;
          firstFailure ??= String(outcome);
        }
      } catch (error) {
        failed++;
        firstFailure ??= (error as Error).message;
      }
      if (failed > 50 && failed > latencies.length) return; // something is broken: stop early
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, id) => worker(id)));
  const elapsedMs = performance.now() - t0;
  return { completed: latencies.length, failed, firstFailure, elapsedMs, perSecond: (latencies.length * 1000) / elapsedMs, latencies };
}

/** Runs rounds of A and B alternately in ABBA order, so drift in machine load hits both alike. */
export async function alternate<T>(rounds: number, a: () => Promise<T>, b: () => Promise<T>): Promise<{ a: T[]; b: T[] }> {
  const out = { a: [] as T[], b: [] as T[] };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      out.a.push(await a());
      out.b.push(await b());
    } else {
      out.b.push(await b());
      out.a.push(await a());
    }
  }
  return out;
}

// ---------------------------------------------------------------- statistics and printing

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values: number[]) => percentile(values, 50);

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

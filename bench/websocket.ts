// WebSocket live delivery: 1,000 sockets on one conversation, then 100 conversations x 10 sockets.
// Latency is measured from the append's HTTP response to the frame's arrival on each socket (an
// event may arrive before the response: NOTIFY fires at commit; those count as 0). Loopback only.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { WebSocket } from 'ws';
import {
  ALICE_KEY,
  Api,
  createBenchDatabase,
  keepAliveAgent,
  log,
  memoryOf,
  percentile,
  request,
  round,
  sleep,
  startService,
} from './support.js';

const SOCKETS = 1_000;
const CONVERSATIONS = 100;
const SOCKETS_PER_CONVERSATION = 10;
const LATENCY_APPENDS = 40;
const THROUGHPUT_APPENDS = 200;
const CONNECT_CONCURRENCY = 50;
const APPEND_CONCURRENCY = 8;

/** One bench client socket: records when each `bench <n>` message arrived. */
class BenchSocket {
  readonly arrivals = new Map<number, number>();
  private ready!: () => void;
  readonly fullState = new Promise<void>((resolve) => (this.ready = resolve));
  private waiter: { count: number; resolve: () => void } | null = null;

  constructor(readonly ws: WebSocket) {
    let first = true;
    ws.on('message', (data) => {
      if (first) {
        first = false;
        this.ready();
        return;
      }
      const match = /"text": ?"bench (\d+)"/.exec(data.toString());
      if (match) this.arrivals.set(Number(match[1]), performance.now());
      if (this.waiter && this.arrivals.size >= this.waiter.count) this.waiter.resolve();
    });
  }

  static open(baseUrl: string, conversationId: string): Promise<BenchSocket> {
    const url = `${baseUrl.replace(/^http/, 'ws')}/sockets/events/${conversationId}?session_api_key=${ALICE_KEY}`;
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const socket = new BenchSocket(ws);
    return new Promise((resolve, reject) => {
      ws.once('error', reject);
      ws.once('close', (code) => reject(new Error(`socket closed with ${code} before full_state`)));
      void socket.fullState.then(() => resolve(socket));
    });
  }

  waitForCount(count: number, timeoutMs: number): Promise<void> {
    if (this.arrivals.size >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${this.arrivals.size} of ${count} events arrived`)), timeoutMs);
      this.waiter = {
        count,
        resolve: () => {
          clearTimeout(timer);
          this.waiter = null;
          resolve();
        },
      };
    });
  }
}

/** One socket per entry of `conversationIds`, in the same order. */
async function openSockets(baseUrl: string, conversationIds: string[]): Promise<BenchSocket[]> {
  const sockets: BenchSocket[] = new Array(conversationIds.length);
  let next = 0;
  const worker = async () => {
    while (next < conversationIds.length) {
      const index = next++;
      sockets[index] = await BenchSocket.open(baseUrl, conversationIds[index]);
    }
  };
  await Promise.all(Array.from({ length: CONNECT_CONCURRENCY }, worker));
  return sockets;
}

interface Appender {
  /** Appends `bench <n>` and resolves with the time its HTTP response arrived. */
  append(conversationId: string, n: number): Promise<number>;
}

function appender(baseUrl: string): Appender {
  const agent = keepAliveAgent(APPEND_CONCURRENCY);
  return {
    async append(conversationId, n) {
      const body = JSON.stringify({ role: 'user', content: [{ type: 'text', text: `bench ${n}` }], run: false });
      const reply = await request(agent, baseUrl, 'POST', `/api/conversations/${conversationId}/events`, body, {
        'x-session-api-key': ALICE_KEY,
      });
      if (reply.status !== 200) throw new Error(`append answered ${reply.status}: ${reply.text.slice(0, 200)}`);
      return performance.now();
    },
  };
}

/** Appends one at a time, each after every socket has the previous one: delivery latency per socket. */
async function measureLatency(
  appends: Appender,
  targets: Array<{ conversationId: string; sockets: BenchSocket[] }>,
  count: number,
  firstN: number,
) {
  const perSocket: number[] = [];
  const firstSocket: number[] = [];
  const allSockets: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const n = firstN + index;
    const target = targets[index % targets.length];
    const delivered = Promise.all(target.sockets.map((socket) => socket.waitForCount(socket.arrivals.size + 1, 30_000)));
    const respondedAt = await appends.append(target.conversationId, n);
    await delivered;
    const latencies = target.sockets.map((socket) => Math.max(0, socket.arrivals.get(n)! - respondedAt));
    perSocket.push(...latencies);
    firstSocket.push(Math.min(...latencies));
    allSockets.push(Math.max(...latencies));
  }
  return {
    p50: round(percentile(perSocket, 50), 2),
    p99: round(percentile(perSocket, 99), 2),
    firstSocketP50: round(percentile(firstSocket, 50), 2),
    lastSocketP50: round(percentile(allSockets, 50), 2),
    lastSocketP99: round(percentile(allSockets, 99), 2),
  };
}

/** Appends as fast as APPEND_CONCURRENCY writers go; frames delivered per second until the last arrives. */
async function measureThroughput(
  appends: Appender,
  targets: Array<{ conversationId: string; sockets: BenchSocket[] }>,
  count: number,
  firstN: number,
) {
  const sockets = targets.flatMap((target) => target.sockets);
  const expected = new Map(sockets.map((socket) => [socket, socket.arrivals.size]));
  const perConversation = new Map(targets.map((target) => [target.conversationId, 0]));
  const t0 = performance.now();
  let next = 0;
  const writer = async () => {
    while (next < count) {
      const index = next++;
      const target = targets[index % targets.length];
      perConversation.set(target.conversationId, perConversation.get(target.conversationId)! + 1);
      await appends.append(target.conversationId, firstN + index);
    }
  };
  await Promise.all(Array.from({ length: APPEND_CONCURRENCY }, writer));
  const appendedAt = performance.now();
  await Promise.all(
    targets.flatMap((target) =>
      target.sockets.map((socket) => socket.waitForCount(expected.get(socket)! + perConversation.get(target.conversationId)!, 60_000)),
    ),
  );
  const elapsedS = (performance.now() - t0) / 1000;
  let frames = 0;
  for (const target of targets) frames += target.sockets.length * perConversation.get(target.conversationId)!;
  return {
    framesPerSecond: round(frames / elapsedS, 0),
    appendsPerSecond: round(count / ((appendedAt - t0) / 1000), 1),
    drainMs: round(performance.now() - appendedAt, 1),
  };
}

async function closeAll(sockets: BenchSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.ws.readyState === WebSocket.CLOSED) return resolve();
          socket.ws.once('close', () => resolve());
          socket.ws.close();
          setTimeout(() => {
            socket.ws.terminate();
            resolve();
          }, 3_000).unref();
        }),
    ),
  );
}

export async function runWebSocketBench(): Promise<Record<string, number | string>> {
  const database = await createBenchDatabase();
  const service = await startService(database.url, { LOG_LEVEL: 'warn' });
  const api = new Api(service.url);
  const appends = appender(service.url);
  const results: Record<string, number | string> = {};
  let sockets: BenchSocket[] = [];
  try {
    const idleRss = memoryOf(service.pid).rssMiB;

    log(`websocket: opening ${SOCKETS} sockets on one conversation`);
    const single = (await api.call('POST', '/api/conversations', { title: 'bench one' })).id as string;
    let t0 = performance.now();
    sockets = await openSockets(service.url, Array.from({ length: SOCKETS }, () => single));
    results.connect_1000_sockets_ms = round(performance.now() - t0, 0);
    await sleep(1_000);
    results.server_rss_idle_mib = round(idleRss, 1);
    results.server_rss_1000_sockets_mib = round(memoryOf(service.pid).rssMiB, 1);

    const oneTarget = [{ conversationId: single, sockets }];
    const oneLatency = await measureLatency(appends, oneTarget, LATENCY_APPENDS, 0);
    results.one_conversation_latency_p50_ms = oneLatency.p50;
    results.one_conversation_latency_p99_ms = oneLatency.p99;
    results.one_conversation_first_socket_p50_ms = oneLatency.firstSocketP50;
    results.one_conversation_last_socket_p50_ms = oneLatency.lastSocketP50;
    results.one_conversation_last_socket_p99_ms = oneLatency.lastSocketP99;
    const oneThroughput = await measureThroughput(appends, oneTarget, THROUGHPUT_APPENDS, 10_000);
    results.one_conversation_events_delivered_per_s = oneThroughput.framesPerSecond;
    results.one_conversation_appends_per_s = oneThroughput.appendsPerSecond;
    results.server_rss_peak_mib = round(memoryOf(service.pid).peakMiB, 1);
    await closeAll(sockets);

    log(`websocket: opening ${CONVERSATIONS} conversations x ${SOCKETS_PER_CONVERSATION} sockets`);
    const ids: string[] = [];
    for (let index = 0; index < CONVERSATIONS; index += 1) {
      ids.push((await api.call('POST', '/api/conversations', { title: `bench ${index}` })).id as string);
    }
    t0 = performance.now();
    sockets = await openSockets(service.url, ids.flatMap((id) => Array.from({ length: SOCKETS_PER_CONVERSATION }, () => id)));
    results.connect_100x10_sockets_ms = round(performance.now() - t0, 0);
    const manyTargets = ids.map((conversationId, index) => ({
      conversationId,
      sockets: sockets.slice(index * SOCKETS_PER_CONVERSATION, (index + 1) * SOCKETS_PER_CONVERSATION),
    }));
    const manyLatency = await measureLatency(appends, manyTargets, CONVERSATIONS, 20_000);
    results.many_conversations_latency_p50_ms = manyLatency.p50;
    results.many_conversations_latency_p99_ms = manyLatency.p99;
    const manyThroughput = await measureThroughput(appends, manyTargets, CONVERSATIONS * 5, 30_000);
    results.many_conversations_events_delivered_per_s = manyThroughput.framesPerSecond;
    results.many_conversations_appends_per_s = manyThroughput.appendsPerSecond;
    results.server_rss_peak_mib = round(memoryOf(service.pid).peakMiB, 1);

    const worstP99 = Math.max(oneLatency.p99, manyLatency.p99);
    results.target_latency_p99_le_100ms = worstP99 <= 100 ? 'met' : `missed (${worstP99} ms)`;
    results.target_rss_le_300mib = (results.server_rss_1000_sockets_mib as number) <= 300 ? 'met' : 'missed';
    return results;
  } finally {
    await closeAll(sockets);
    api.close();
    await service.stop();
    await database.drop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runWebSocketBench()
    .then((results) => {
      log(JSON.stringify(results, null, 2));
      process.exit(0);
    })
    .catch((error: unknown) => {
      process.stderr.write(`websocket bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    });
}

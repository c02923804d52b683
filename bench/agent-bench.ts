// Benchmark 4: the agent loop's own cost per step. An instant scripted LLM answers every step with
// one `think` call, then a final text; the service's time per step (between two LLM requests of a
// conversation, as the LLM server sees them) is compared with a bare HTTP POST of the same request
// body to the same server (the exact bodies the service sent, replayed).
import { performance } from 'node:perf_hooks';
import { startFakeLlm, type FakeLlm, type FakeLlmStep } from '../test/support/fake-llm-server.js';
import type { Figure } from './events-bench.js';
import { cpuMsOf, keepAliveAgent, log, median, percentile, request, round, sleep, type Api } from './support.js';

const SINGLE_STEPS = Number(process.env.BENCH_AGENT_STEPS) || 40;
const MANY = 50;
const MANY_STEPS = Number(process.env.BENCH_AGENT_MANY_STEPS) || 20;
const SINGLE_ROUNDS = 3;
const MANY_ROUNDS = 2;

const think = (thought: string): FakeLlmStep => ({ toolCalls: [{ name: 'think', arguments: { thought } }] });
const MARKER = /bench-agent-(\d+)-(\d+)/;

interface RunTrace {
  /** Per conversation: arrival times (ms) of its LLM requests and their bodies, in order. */
  conversations: Array<{ arrivals: number[]; bodies: string[]; path: string }>;
  steps: number;
  wallMs: number;
  /** Service CPU ms from the run requests to the last status check, per think step. */
  cpuMsPerStep: number;
}

interface ReplayTrace {
  /** Per conversation: round-trip time of each replayed step request, ms. */
  rtts: number[][];
  wallMs: number;
}

let runCounter = 0;

/** Runs `count` conversations of `stepsEach` think steps plus a final text, all at once. */
async function runAgents(api: Api, servicePid: number, llm: FakeLlm, count: number, stepsEach: number): Promise<RunTrace> {
  const run = ++runCounter;
  const ids: string[] = [];
  for (let k = 0; k < count; k++) {
    const created = await api.call('POST', '/api/conversations', {
      title: `bench agent ${run}.${k}`,
      agent: { kind: 'Agent', llm: { model: 'openai/test-model', base_url: llm.url, api_key: 'sk-bench-0000', usage_id: 'agent' } },
      max_iterations: 100_000,
      initial_message: { content: [{ type: 'text', text: `bench-agent-${run}-${k}: think step by step, then answer.` }], run: false },
    });
    ids.push(created.id);
  }
  llm.reset();
  // One FIFO script for all: every think step has its own thought (so stuck detection, left on,
  // never fires), then one final text per conversation (a conversation that takes it finishes).
  for (let i = 0; i < count * stepsEach; i++) llm.enqueue(think(`thought number ${i} of run ${run}`));
  for (let k = 0; k < count; k++) llm.enqueue({ text: 'Done.' });
  const total = count * stepsEach + count;
  const cpuBefore = cpuMsOf(servicePid);
  await Promise.all(ids.map((id) => api.call('POST', `/api/conversations/${id}/events`, { content: [{ type: 'text', text: 'go' }], run: true })));
  await llm.waitForRequests(total, 180_000);
  // Every conversation must end "finished" (no error, no stuck, no extra LLM call).
  const deadline = Date.now() + 30_000;
  for (const id of ids) {
    for (;;) {
      const status = (await api.call('GET', `/api/conversations/${id}`)).execution_status;
      if (status === 'finished') break;
      if (status !== 'running' || Date.now() > deadline) throw new Error(`agent conversation ${id} ended ${status}`);
      await sleep(20);
    }
  }
  const cpuMsPerStep = (cpuMsOf(servicePid) - cpuBefore) / (count * stepsEach);
  if (llm.requests.length !== total) throw new Error(`the LLM got ${llm.requests.length} requests, expected ${total}`);

  const byConversation = new Map<number, RunTrace['conversations'][number]>();
  for (const req of llm.requests) {
    const firstUser = (req.body.messages as Array<{ role: string }>).find((m) => m.role === 'user');
    const k = Number(MARKER.exec(JSON.stringify(firstUser))?.[2]);
    if (!byConversation.has(k)) byConversation.set(k, { arrivals: [], bodies: [], path: req.path });
    const trace = byConversation.get(k)!;
    trace.arrivals.push(req.receivedAt.getTime());
    trace.bodies.push(JSON.stringify(req.body));
  }
  const conversations = [...byConversation.values()];
  const first = Math.min(...conversations.map((c) => c.arrivals[0]));
  const last = Math.max(...conversations.map((c) => c.arrivals[c.arrivals.length - 1]));
  llm.reset();
  return { conversations, steps: count * stepsEach, wallMs: last - first, cpuMsPerStep };
}

/** The same step requests (each conversation's requests but its last), POSTed bare, one stream per conversation. */
async function replay(llm: FakeLlm, trace: RunTrace): Promise<ReplayTrace> {
  const agent = keepAliveAgent(trace.conversations.length);
  const begin = performance.now();
  const rtts = await Promise.all(
    trace.conversations.map(async (c) => {
      const times: number[] = [];
      for (const body of c.bodies.slice(0, -1)) {
        const t = performance.now();
        const reply = await request(agent, llm.url, 'POST', c.path, body, { authorization: 'Bearer sk-bench-0000' });
        if (reply.status !== 200) throw new Error(`bare LLM POST answered ${reply.status}`);
        times.push(performance.now() - t);
      }
      return times;
    }),
  );
  const wallMs = performance.now() - begin;
  agent.destroy();
  llm.reset();
  return { rtts, wallMs };
}

function figureFor(label: string, runs: RunTrace[], replays: ReplayTrace[]): Figure {
  const overheads: number[] = [];
  const stepMs: number[] = [];
  const rttMs: number[] = [];
  runs.forEach((run, r) => {
    run.conversations.forEach((c, k) => {
      for (let i = 0; i + 1 < c.arrivals.length; i++) {
        const step = c.arrivals[i + 1] - c.arrivals[i];
        const rtt = replays[r].rtts[k][i];
        stepMs.push(step);
        rttMs.push(rtt);
        overheads.push(step - rtt);
      }
    });
  });
  const serviceRate = median(runs.map((run) => (run.steps * 1000) / run.wallMs));
  const bareRate = median(replays.map((rep, r) => (runs[r].steps * 1000) / rep.wallMs));
  const overheadP50 = percentile(overheads, 50);
  // Service time per step at throughput: wall time per step beyond the bare round trips' wall time per step.
  const amortizedMs = 1000 / serviceRate - 1000 / bareRate;
  const cpuMs = median(runs.map((run) => run.cpuMsPerStep));
  const requestKb = runs[0].conversations[0].bodies.map((b) => b.length / 1024);
  log(`    ${label}: service ${round(serviceRate)} steps/s, bare LLM round trips ${round(bareRate)} /s, ratio ${round((serviceRate / bareRate) * 100, 1)}%`);
  log(
    `    ${label}: step p50 ${round(percentile(stepMs, 50), 2)} ms, bare round trip p50 ${round(percentile(rttMs, 50), 2)} ms, ` +
      `overhead per step p50 ${round(overheadP50, 2)} ms, p99 ${round(percentile(overheads, 99), 2)} ms (target p50 <= 20 ms)`,
  );
  log(`    ${label}: service time per step at throughput ${round(amortizedMs, 2)} ms; service CPU ${round(cpuMs, 2)} ms per step`);
  return {
    name: `agent steps, ${label}`,
    unit: 'steps/s',
    service: round(serviceRate),
    yardstick: round(bareRate),
    ratio: round(serviceRate / bareRate, 3),
    ratioMeaning: 'service steps/s / bare LLM round trips/s',
    target: 'overhead p50 <= 20 ms',
    met: overheadP50 <= 20,
    note: `overhead p50 ${round(overheadP50, 1)} ms; ${round(amortizedMs, 1)} ms/step at throughput; CPU ${round(cpuMs, 1)} ms/step`,
    details: {
      overheadP50Ms: round(overheadP50, 2),
      amortizedServiceMsPerStep: round(amortizedMs, 2),
      serviceCpuMsPerStep: round(cpuMs, 2),
      overheadP99Ms: round(percentile(overheads, 99), 2),
      stepP50Ms: round(percentile(stepMs, 50), 2),
      bareRoundTripP50Ms: round(percentile(rttMs, 50), 2),
      stepsPerRound: runs[0].steps,
      rounds: runs.length,
      serviceRounds: runs.map((run) => round((run.steps * 1000) / run.wallMs)),
      bareRounds: replays.map((rep, r) => round((runs[r].steps * 1000) / rep.wallMs)),
      requestKbFirstLast: [round(requestKb[0], 1), round(requestKb[requestKb.length - 1], 1)],
      timeResolution: 'LLM arrival times are whole milliseconds',
    },
  };
}

export async function benchAgent(api: Api, servicePid: number): Promise<Figure[]> {
  log(`\n[4] Agent step overhead: instant scripted LLM, each step one think call; 1 conversation x ${SINGLE_STEPS} steps, ${MANY} conversations x ${MANY_STEPS} steps`);
  const llm = await startFakeLlm({ defaultStep: think('spare') });
  try {
    await runAgents(api, servicePid, llm, 1, 5); // warm-up
    // Each round: an agent run, then at once the bare replay of that run's own request bodies.
    const pairs = async (count: number, steps: number, rounds: number) => {
      const runs: RunTrace[] = [];
      const replays: ReplayTrace[] = [];
      for (let r = 0; r < rounds; r++) {
        const run = await runAgents(api, servicePid, llm, count, steps);
        runs.push(run);
        replays.push(await replay(llm, run));
      }
      return { runs, replays };
    };
    const single = await pairs(1, SINGLE_STEPS, SINGLE_ROUNDS);
    const many = await pairs(MANY, MANY_STEPS, MANY_ROUNDS);
    return [figureFor('1 conversation', single.runs, single.replays), figureFor(`${MANY} conversations`, many.runs, many.replays)];
  } finally {
    await llm.close();
  }
}

// SIGTERM while writes are in flight: the requests already being handled finish and are stored, and
// the process exits by itself within a bound.
import pg from 'pg';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, queryDatabase } from '../support/test-database.js';
import {
  auditLogs,
  describeCleanFailure,
  isAcked,
  range,
  readLog,
  ResumingSubscriber,
  runLoad,
  ServiceClient,
  sleep,
  storedPositions,
  type Reply,
} from './reliability.support.js';

const CLIENTS = 16;
/** From SIGTERM (or from the moment in-flight requests can finish) to the process being gone. */
const MAX_EXIT_MS = 8_000;

describe('reliability: SIGTERM during writes', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const services: ServiceProcess[] = [];
  const clients: ServiceClient[] = [];

  const start = async () => {
    const service = await startServiceProcess({ databaseUrl: database.url });
    services.push(service);
    const client = new ServiceClient(service.url, undefined, 20_000);
    clients.push(client);
    return { service, client, exited: new Promise<string>((resolve) => service.child.once('exit', (code, signal) => resolve(String(signal ?? code)))) };
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await Promise.all(services.map((service) => service.kill()));
    await database?.drop();
  }, 30_000);

  it('finishes requests that are mid-write when SIGTERM arrives, then exits', async () => {
    const { service, client, exited } = await start();
    const conversationId = await client.createConversation();
    await client.sendMessage(conversationId, 'warm-up');

    // Hold the conversation's row so that every append waits inside its statement: these requests
    // are certainly in flight, past the controller, when the signal arrives.
    const blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE', [conversationId]);
    const pending: Array<Promise<Reply>> = range(CLIENTS).map((index) =>
      client.sendMessage(conversationId, `inflight ${index}`, index % 2 === 0 ? `inflight-${index}` : null),
    );
    const waiting = async () => {
      const rows = await queryDatabase<{ n: string }>(
        database.url,
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO events%'",
      );
      return Number(rows[0].n);
    };
    for (let attempt = 0; (await waiting()) < CLIENTS; attempt += 1) {
      if (attempt > 200) throw new Error(`only ${await waiting()} appends are waiting on the lock`);
      await sleep(25);
    }

    const signalledAt = Date.now();
    service.child.kill('SIGTERM');
    await sleep(1_000);
    // Still serving what it has, and refusing new work: a new connection is not accepted.
    const stillRunning = service.child.exitCode === null && service.child.signalCode === null;
    const fresh = new ServiceClient(service.url, undefined, 3_000);
    const late = await fresh.sendMessage(conversationId, 'after SIGTERM');
    fresh.close();
    const releasedAt = Date.now();
    await blocker.query('COMMIT');
    await blocker.end();

    const replies = await Promise.all(pending);
    const exitCode = await exited;
    const exitedAt = Date.now();
    expect(stillRunning).toBe(true);
    expect(replies.map((reply) => reply.status)).toEqual(range(CLIENTS).map(() => 200));
    expect(['0', 'SIGTERM']).toContain(exitCode);
    expect(exitedAt - releasedAt).toBeLessThan(MAX_EXIT_MS);
    // The late request was not taken on (refused, or a clean 503).
    if (late.status !== null) expect(late.status).toBe(503);
    else expect(late.error).toBe('ECONNREFUSED');

    const rows = await queryDatabase<{ seq: string; text: string }>(
      database.url,
      "SELECT seq, payload->'llm_message'->'content'->0->>'text' AS text FROM events WHERE conversation_id = $1 ORDER BY seq",
      [conversationId],
    );
    expect(rows.map((row) => Number(row.seq))).toEqual(range(CLIENTS + 1));
    expect(rows.map((row) => row.text).sort()).toEqual(['warm-up', ...range(CLIENTS).map((index) => `inflight ${index}`)].sort());
    process.stdout.write(
      `SIGTERM with ${CLIENTS} appends held: ${JSON.stringify({
        exitAfterReleaseMs: exitedAt - releasedAt,
        exitAfterSignalMs: exitedAt - signalledAt,
        lateRequest: late.status ?? late.error,
      })}\n`,
    );
  }, 60_000);

  it('while it drains, /ready says 503 and every response closes its connection, so traffic moves elsewhere', async () => {
    // A WebSocket client that stops reading holds the drain open for the socket grace period.
    const graceMs = 3_000;
    const service = await startServiceProcess({ databaseUrl: database.url, env: { WS_SHUTDOWN_GRACE_MS: String(graceMs) } });
    services.push(service);
    const exited = new Promise<void>((resolve) => service.child.once('exit', () => resolve()));
    const client = new ServiceClient(service.url);
    clients.push(client);
    const conversationId = await client.createConversation();
    const stuck = new ResumingSubscriber([service.url], conversationId, { reconnect: false });
    await stuck.connect();
    stuck.pauseReading();
    expect((await client.get('/ready')).status).toBe(200);

    const signalledAt = Date.now();
    service.child.kill('SIGTERM');
    await sleep(300);
    const ready = await client.get('/ready');
    const send = await client.sendMessage(conversationId, 'while draining');
    await exited;
    const exitedAt = Date.now();
    stuck.stop();

    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ detail: 'Shutting down', status: 'unavailable' });
    expect(ready.headers.connection).toBe('close');
    expect(send.status).toBe(200);
    expect(send.headers.connection).toBe('close');
    expect(exitedAt - signalledAt).toBeLessThan(graceMs + 3_000);
    const rows = await queryDatabase(database.url, "SELECT 1 FROM events WHERE conversation_id = $1 AND payload::text LIKE '%while draining%'", [conversationId]);
    expect(rows.length).toBe(1);
  }, 60_000);

  it('stores every acknowledged send of a steady write load cut by SIGTERM, and exits in time', async () => {
    const { service, client, exited } = await start();
    const conversations = await Promise.all(range(4).map(() => client.createConversation()));
    const tag = `term${Date.now()}`;
    let acked = 0;
    let signalledAt = 0;
    const load = runLoad({
      tag,
      clients: CLIENTS,
      route: (index, sequence) => ({ via: client, conversationId: conversations[(index + sequence) % conversations.length] }),
      keyed: (index) => index % 2 === 0,
      // Clients keep sending through the shutdown (on their keep-alive connections) until refused.
      shouldStop: () => signalledAt > 0 && Date.now() - signalledAt > 20_000,
      stopOnNetworkError: true,
      onResult: (send) => {
        if (isAcked(send)) acked += 1;
      },
    });
    const deadline = Date.now() + 20_000;
    while (acked < 150 && Date.now() < deadline) await sleep(2);
    expect(acked).toBeGreaterThanOrEqual(150);
    signalledAt = Date.now();
    service.child.kill('SIGTERM');
    const exitCode = await exited;
    const exitedAt = Date.now();
    const sends = await load;

    expect(['0', 'SIGTERM']).toContain(exitCode);
    expect(exitedAt - signalledAt).toBeLessThan(MAX_EXIT_MS);
    // Whatever was answered was answered properly: success, or a clean refusal.
    const answeredFailures = sends.filter((send) => send.status !== null && !isAcked(send));
    expect(answeredFailures.map(describeCleanFailure).filter(Boolean)).toEqual([]);
    // Requests that had started well before the signal got their answer.
    const early = sends.filter((send) => send.startedAt < signalledAt - 100);
    expect(early.filter((send) => !isAcked(send)).map((send) => `${send.status} ${send.error}`)).toEqual([]);

    const next = await start();
    const logs = new Map<string, any[]>();
    for (const conversationId of conversations) {
      const events = await readLog(next.client, conversationId);
      logs.set(conversationId, events);
      const positions = await storedPositions(database.url, conversationId);
      expect(positions.seqs).toEqual(range(events.length));
      expect(positions.lastSeq).toBe(events.length - 1);
    }
    const audit = auditLogs(logs, sends, tag);
    expect(audit.ackedMissing).toEqual([]);
    expect(audit.duplicated).toEqual([]);
    expect(audit.unknown).toEqual([]);
    const inFlight = sends.filter((send) => send.startedAt <= signalledAt && send.endedAt >= signalledAt);
    process.stdout.write(
      `SIGTERM under load: ${JSON.stringify({
        exitAfterSignalMs: exitedAt - signalledAt,
        sends: sends.length,
        acked: audit.acked,
        inFlightAtSignal: inFlight.length,
        inFlightAcked: inFlight.filter(isAcked).length,
        unanswered: sends.filter((send) => send.status === null).map((send) => send.error),
        answeredAfterSignal: sends.filter((send) => send.startedAt > signalledAt && send.status !== null).map((send) => send.status),
        unackedStoredAnyway: audit.unackedPresent,
      })}\n`,
    );
  }, 60_000);
});

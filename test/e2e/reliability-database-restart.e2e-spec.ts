// The database restarts under load: PostgreSQL (a private one, never the shared test server) stops
// for a few seconds while clients keep sending; the service rides it out without restarting.
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import {
  auditLogs,
  describeCleanFailure,
  isAcked,
  messageText,
  PrivatePostgres,
  Prober,
  range,
  readLog,
  ResumingSubscriber,
  runLoad,
  ServiceClient,
  sleep,
  storedPositions,
} from './reliability.support.js';

const OUTAGE_MS = 4_000;
const CLIENTS = 8;
/** No request may take longer than this, outage or not (the pool gives up connecting after 5 s). */
const MAX_REQUEST_MS = 12_000;
/** After PostgreSQL is back, writes and /ready must recover within this. */
const MAX_RECOVERY_MS = 10_000;
/** An event written after the restart reaches open sockets on every instance within this. */
const MAX_DELIVERY_LAG_MS = 2_000;

describe('reliability: the database restarts under load', () => {
  let postgres: PrivatePostgres;
  // Two instances on the one database: live delivery across them goes through LISTEN/NOTIFY,
  // whose connection must come back by itself too.
  let service: ServiceProcess;
  let other: ServiceProcess;
  let via: ServiceClient;
  let viaOther: ServiceClient;

  beforeAll(async () => {
    postgres = await PrivatePostgres.start();
    [service, other] = await Promise.all([
      startServiceProcess({ databaseUrl: postgres.url }),
      startServiceProcess({ databaseUrl: postgres.url }),
    ]);
    via = new ServiceClient(service.url, undefined, 30_000);
    viaOther = new ServiceClient(other.url, undefined, 30_000);
  }, 60_000);

  // Whatever a failed test leaves running (reconnecting sockets, probes) is stopped before the next.
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await postgres.start();
  });

  afterAll(async () => {
    via?.close();
    viaOther?.close();
    await Promise.all([service?.kill(), other?.kill()]);
    await postgres?.dispose();
  }, 30_000);

  // 'stop': a clean fast shutdown (connections terminated by the server); 'crash': SIGKILL of the
  // postmaster (connections cut, crash recovery on the next start).
  it.each(['stop', 'crash'] as const)('%s: fails requests cleanly during the outage, recovers without a restart, and loses no acknowledged write', async (fault) => {
    const pids = [service.child.pid, other.child.pid];
    const conversations = await Promise.all(range(3).map(() => via.createConversation()));
    // One subscriber on each instance, both on the busiest conversation.
    const subscribers = [service, other].map(
      (instance) => new ResumingSubscriber([instance.url], conversations[0], { reconnect: true, retryDelayMs: 250 }),
    );
    for (const subscriber of subscribers) cleanups.push(() => subscriber.stop());
    await Promise.all(subscribers.map((subscriber) => subscriber.connect()));

    const ready = new Prober(via, '/ready', 100);
    const alive = new Prober(via, '/alive', 250);
    cleanups.push(() => ready.stop(), () => alive.stop());
    let stopLoad = false;
    let started = Infinity;
    const recovery = { firstAck: null as number | null };
    cleanups.push(() => (stopLoad = true));
    const tag = `dbr-${fault}-${Date.now()}`;
    const load = runLoad({
      tag,
      clients: CLIENTS,
      // The first conversation is written through the first instance only, so the subscriber on the
      // other instance depends on cross-instance delivery; the others through both.
      route: (client, index) =>
        index % 2 === 0
          ? { via, conversationId: conversations[0] }
          : { via: client % 2 === 0 ? via : viaOther, conversationId: conversations[1 + (client % 2)] },
      keyed: (client) => client % 2 === 0,
      shouldStop: () => stopLoad,
      pauseAfterFailureMs: 50,
      onResult: (send) => {
        if (recovery.firstAck === null && isAcked(send) && send.startedAt >= started) recovery.firstAck = send.endedAt;
      },
    });

    await sleep(1_500);
    const stopBegan = Date.now();
    await (fault === 'stop' ? postgres.stop() : postgres.crash());
    const stopped = Date.now();
    await sleep(OUTAGE_MS / 2);
    // A socket opened during the outage is told to come back later, promptly (not left hanging).
    const lateSocket = new ResumingSubscriber([other.url], conversations[0], { reconnect: false });
    cleanups.push(() => lateSocket.stop());
    const lateOpenedAt = Date.now();
    const lateOutcome = await lateSocket.connect().then(
      () => 'open',
      () => String(lateSocket.current?.closeCode),
    );
    const lateSocketMs = Date.now() - lateOpenedAt;
    lateSocket.stop();
    await sleep(Math.max(0, stopped + OUTAGE_MS - Date.now()));
    const startBegan = Date.now();
    await postgres.start();
    started = Date.now();

    // Keep the load on until writes have recovered, then a little longer.
    const recoveryDeadline = started + MAX_RECOVERY_MS + MAX_REQUEST_MS;
    while (recovery.firstAck === null && Date.now() < recoveryDeadline) await sleep(50);
    await sleep(1_500);
    stopLoad = true;
    const sends = await load;
    const writesEnded = Date.now();
    await ready.stop();
    await alive.stop();

    // The service processes rode it out.
    for (const [index, instance] of [service, other].entries()) {
      expect(instance.child.exitCode).toBeNull();
      expect(instance.child.pid).toBe(pids[index]);
      expect(instance.output()).not.toMatch(/Unhandled rejection|uncaught/i);
    }

    // Nothing hung; every failure was a clean 5xx JSON answer (or the request never got an answer).
    const slowest = Math.max(...sends.map((send) => send.endedAt - send.startedAt));
    expect(slowest).toBeLessThan(MAX_REQUEST_MS);
    const failures = sends.filter((send) => !isAcked(send));
    const unclean = failures.map(describeCleanFailure).filter((problem): problem is string => problem !== null);
    expect(unclean).toEqual([]);
    const noAnswer = failures.filter((send) => send.status === null);
    expect(noAnswer.map((send) => send.error)).toEqual([]);
    // A database outage is not a bug: 503 with Retry-After, which clients retry, never a 500.
    // A 500 means an error the outage classifier does not know: show what the service logged for it.
    if (failures.some((send) => send.status === 500)) {
      const logged = [service, other].flatMap((instance) => instance.output().split('\n').filter((line) => line.includes('Unhandled error')));
      throw new Error(`500 during the outage; the services logged:\n${logged.join('\n')}`);
    }
    expect(countBy(failures.map((send) => String(send.status)))).toEqual({ '503': failures.length });
    expect(failures.filter((send) => send.headers['retry-after'] !== '1' || send.body.detail !== 'Database unavailable; retry shortly')).toEqual([]);
    // Requests that began well inside the outage all failed.
    const duringOutage = sends.filter((send) => send.startedAt > stopped + 200 && send.endedAt < startBegan);
    expect(duringOutage.length).toBeGreaterThan(0);
    expect(duringOutage.filter(isAcked)).toEqual([]);

    expect(lateOutcome).toBe('1013');
    expect(lateSocketMs).toBeLessThan(MAX_REQUEST_MS);

    // /alive stays 200 throughout; /ready says 503 while the database is down and 200 once it is back.
    expect(alive.samples.filter((sample) => sample.status !== 200)).toEqual([]);
    const readyDown = ready.samples.filter((sample) => sample.startedAt > stopped + 200 && sample.endedAt < startBegan);
    expect(readyDown.length).toBeGreaterThan(5);
    expect(readyDown.filter((sample) => sample.status !== 503)).toEqual([]);
    const firstReadyAfter = ready.samples.find((sample) => sample.startedAt >= started && sample.status === 200);
    expect(firstReadyAfter).toBeDefined();
    expect(firstReadyAfter!.endedAt - started).toBeLessThan(MAX_RECOVERY_MS);
    expect(ready.samples.filter((sample) => sample.startedAt > firstReadyAfter!.endedAt && sample.status !== 200)).toEqual([]);

    // New writes succeed after the restart.
    expect(recovery.firstAck).not.toBeNull();
    expect(recovery.firstAck! - started).toBeLessThan(MAX_RECOVERY_MS);
    const ackedAfter = sends.filter((send) => isAcked(send) && send.startedAt > recovery.firstAck!);
    expect(ackedAfter.length).toBeGreaterThan(CLIENTS);

    // Every acknowledged write exactly once, positions gapless.
    const logs = new Map<string, any[]>();
    for (const conversationId of conversations) {
      const events = await readLog(via, conversationId);
      logs.set(conversationId, events);
      const positions = await storedPositions(postgres.url, conversationId);
      expect(positions.seqs).toEqual(range(events.length));
      expect(positions.lastSeq).toBe(events.length - 1);
    }
    const audit = auditLogs(logs, sends, tag);
    expect(audit.ackedMissing).toEqual([]);
    expect(audit.duplicated).toEqual([]);
    expect(audit.unknown).toEqual([]);

    // The subscribers connected before the outage hold every event of their conversation, once, in order,
    // including those written through the other instance.
    const expected = logs.get(conversations[0])!.map((event) => event.id);
    const caughtUp: number[] = [];
    for (const subscriber of subscribers) {
      await subscriber.waitForEvents(expected.length, 15_000);
      caughtUp.push(Date.now() - writesEnded);
    }
    // How long after its acknowledgement an event written after the restart reached each subscriber.
    const deliveryLag = subscribers.map((subscriber) => {
      const arrival = new Map(subscriber.events.map((event, index) => [messageText(event), subscriber.receivedAt[index]]));
      const lags = sends
        .filter((send) => isAcked(send) && send.conversationId === conversations[0] && send.startedAt >= started)
        .map((send) => arrival.get(send.text)! - send.endedAt);
      return Math.max(...lags);
    });
    // Live delivery resumes with the database, also across instances (not after the next reconcile).
    for (const lag of deliveryLag) expect(lag).toBeLessThan(MAX_DELIVERY_LAG_MS);
    await sleep(300);
    for (const subscriber of subscribers) {
      subscriber.stop();
      expect(subscriber.events.map((event) => event.id)).toEqual(expected);
      expect(subscriber.errors).toEqual([]);
    }

    const report = {
      outageMs: startBegan - stopped,
      postgresStopMs: stopped - stopBegan,
      postgresStartMs: started - startBegan,
      firstWriteAfterStartMs: recovery.firstAck! - started,
      firstReadyAfterStartMs: firstReadyAfter!.endedAt - started,
      slowestRequestMs: slowest,
      socketDuringOutage: `${lateOutcome} after ${lateSocketMs} ms`,
      sends: sends.length,
      acked: audit.acked,
      failed: failures.length,
      failureStatuses: countBy(failures.map((send) => String(send.status))),
      unackedButStored: audit.unackedPresent,
      subscriberCatchUpAfterLastWriteMs: caughtUp,
      maxDeliveryLagAfterRestartMs: deliveryLag,
      socketConnections: subscribers.map((subscriber) =>
        subscriber.connections.map((connection) => `${connection.closeCode ?? 'open'}:${connection.received}`),
      ),
    };
    process.stdout.write(`database ${fault}: ${JSON.stringify(report)}\n`);
  }, 60_000);
});

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

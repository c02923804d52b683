// A WebSocket client loses its connection again and again in the middle of a stream and resumes with
// after_id, alternating between two service instances on one database: it ends up with every event
// exactly once, in order.
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase } from '../support/test-database.js';
import { isAcked, range, readLog, ResumingSubscriber, runLoad, ServiceClient, sleep } from './reliability.support.js';

const DROPS = 8;
const WRITERS = 4;

describe('reliability: a WebSocket reconnects mid-stream', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let instances: ServiceProcess[] = [];
  let clients: ServiceClient[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    instances = await Promise.all([0, 1].map(() => startServiceProcess({ databaseUrl: database.url })));
    clients = instances.map((instance) => new ServiceClient(instance.url));
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await Promise.all(instances.map((instance) => instance.kill()));
    await database?.drop();
  }, 30_000);

  it('holds every event exactly once, in order, after abrupt drops and resumes on alternating instances', async () => {
    const conversationId = await clients[0].createConversation();
    const subscriber = new ResumingSubscriber(
      instances.map((instance) => instance.url),
      conversationId,
      { reconnect: false },
    );
    await subscriber.connect();

    // Drop the connection (no close handshake) after a random number of events on it: always mid-stream.
    let drops = 0;
    let dropAt = 5 + Math.floor(Math.random() * 40);
    const resumes: Array<Promise<void>> = [];
    subscriber.onEvent = (connection) => {
      if (drops >= DROPS || connection.received < dropAt) return;
      drops += 1;
      dropAt = 5 + Math.floor(Math.random() * 40);
      resumes.push(subscriber.drop());
    };

    // Writers append continuously through both instances until every drop has happened.
    let stop = false;
    const tag = `ws${Date.now()}`;
    const load = runLoad({
      tag,
      clients: WRITERS,
      route: (client) => ({ via: clients[client % 2], conversationId }),
      keyed: () => true,
      shouldStop: () => stop,
    });
    const deadline = Date.now() + 30_000;
    while (drops < DROPS && Date.now() < deadline) await sleep(20);
    // A little more stream after the last resume.
    await sleep(300);
    stop = true;
    const sends = await load;
    await Promise.all(resumes);
    expect(drops).toBe(DROPS);
    expect(sends.filter((send) => !isAcked(send)).map((send) => `${send.status} ${send.raw} ${send.error}`)).toEqual([]);

    const log = await readLog(clients[1], conversationId);
    expect(log.length).toBe(sends.length);
    await subscriber.waitForEvents(log.length, 15_000);
    // Nothing arrives beyond the log (no duplicate delivered late).
    await sleep(500);
    subscriber.stop();
    expect(subscriber.events.map((event) => event.id)).toEqual(log.map((event) => event.id));
    expect(subscriber.events).toEqual(log);
    expect(subscriber.errors).toEqual([]);

    // Every resume asked for the events after the last one held, and the instances alternated.
    const connections = subscriber.connections;
    expect(connections.length).toBe(DROPS + 1);
    expect(connections.every((connection) => connection.fullState)).toBe(true);
    expect(connections.slice(0, -1).every((connection) => connection.dropped)).toBe(true);
    expect(range(connections.length).every((index) => connections[index].url === instances[index % 2].url)).toBe(true);
    expect(connections.slice(1).every((connection) => connection.afterId !== null)).toBe(true);

    process.stdout.write(
      `websocket resume: ${JSON.stringify({
        events: log.length,
        connections: connections.length,
        perConnection: connections.map((connection) => connection.received),
      })}\n`,
    );
  }, 60_000);

  it('resumes on the other instance after the one it was streaming from is killed -9', async () => {
    const conversationId = await clients[0].createConversation();
    const [doomed, survivor] = instances;
    const subscriber = new ResumingSubscriber([doomed.url, survivor.url], conversationId, { reconnect: true, retryDelayMs: 50 });
    await subscriber.connect();

    let stop = false;
    const tag = `wskill${Date.now()}`;
    const load = runLoad({
      tag,
      clients: WRITERS,
      route: (client) => ({ via: clients[client % 2], conversationId }),
      keyed: () => true,
      shouldStop: () => stop,
      // Writers through the killed instance stop there; the others go on.
      stopOnNetworkError: true,
    });
    await subscriber.waitForEvents(60, 15_000);
    await doomed.kill();
    // The stream goes on through the survivor.
    await subscriber.waitFor(() => subscriber.connections.length === 2 && subscriber.current!.received >= 30, 15_000);
    // The pause the reader saw: last event from the killed instance to the first from the survivor.
    const before = subscriber.connections[0].received;
    const streamGapMs = subscriber.receivedAt[before] - subscriber.receivedAt[before - 1];
    stop = true;
    const sends = await load;
    expect(sends.filter((send) => send.status !== null && !isAcked(send)).map((send) => `${send.status} ${send.raw}`)).toEqual([]);

    const log = await readLog(clients[1], conversationId);
    const stored = new Set(log.map((event) => event.llm_message.content[0].text));
    expect(sends.filter((send) => isAcked(send) && !stored.has(send.text)).map((send) => send.text)).toEqual([]);
    await subscriber.waitForEvents(log.length, 15_000);
    await sleep(500);
    subscriber.stop();
    expect(subscriber.events.map((event) => event.id)).toEqual(log.map((event) => event.id));
    expect(subscriber.connections.map((connection) => connection.url)).toEqual([doomed.url, survivor.url]);
    expect(subscriber.connections[0].closeCode).toBe(1006);
    process.stdout.write(`websocket kill -9: ${JSON.stringify({ events: log.length, streamGapMs, perConnection: subscriber.connections.map((c) => c.received) })}\n`);
  }, 60_000);
});

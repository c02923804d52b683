// kill -9 of the service in the middle of concurrent writes: nothing acknowledged is lost, nothing is
// torn, and a retry with the same Idempotency-Key never appends twice.
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, queryDatabase } from '../support/test-database.js';
import {
  auditLogs,
  isAcked,
  messageText,
  range,
  readLog,
  runLoad,
  ServiceClient,
  sleep,
  storedPositions,
  type SendRecord,
} from './reliability.support.js';

const CLIENTS = 16;
const CONVERSATIONS = 4;
const ROUNDS = 3;
const TAG = `kill${Date.now()}`;

describe('reliability: the service is killed mid-write', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const services: ServiceProcess[] = [];
  const clients: ServiceClient[] = [];

  const start = async () => {
    const service = await startServiceProcess({ databaseUrl: database.url });
    services.push(service);
    const client = new ServiceClient(service.url, undefined, 20_000);
    clients.push(client);
    return { service, client };
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  let stopLoad = () => {};
  afterEach(() => stopLoad());

  afterAll(async () => {
    for (const client of clients) client.close();
    await Promise.all(services.map((service) => service.kill()));
    await database?.drop();
  }, 30_000);

  it('keeps every acknowledged send exactly once, with gapless positions, and retries append at most once', async () => {
    const first = await start();
    const conversations = await Promise.all(range(CONVERSATIONS).map(() => first.client.createConversation()));
    const sends: SendRecord[] = [];
    let unackedCount = 0;
    let current = first;
    // Several rounds: write, kill -9 in the middle, start a new process, write on.
    for (let round = 0; round < ROUNDS; round += 1) {
      const tag = `${TAG} r${round}`;
      let acked = 0;
      const seen = { refused: null as SendRecord | null };
      let killed = false;
      stopLoad = () => (killed = true);
      const via = current.client;
      // Half the clients send with an Idempotency-Key, half without; each spreads over the conversations.
      const load = runLoad({
        tag,
        clients: CLIENTS,
        route: (client, index) => ({ via, conversationId: conversations[(client + index) % CONVERSATIONS] }),
        keyed: (client) => client % 2 === 0,
        shouldStop: () => killed,
        stopOnNetworkError: true,
        onResult: (send) => {
          if (isAcked(send)) acked += 1;
          else if (send.status !== null) seen.refused ??= send;
        },
      });
      // Kill once the writes are well under way, with every client's next request in flight.
      const killAfter = 80 + Math.floor(Math.random() * 120);
      const deadline = Date.now() + 20_000;
      while (acked < killAfter && !seen.refused && Date.now() < deadline) await sleep(2);
      if (acked < killAfter) {
        killed = true;
        throw new Error(
          `round ${round}: ${acked} sends acknowledged; first refusal: ${seen.refused?.status} ${seen.refused?.raw}\n` +
            `service output:\n${current.service.output().slice(-3_000)}`,
        );
      }
      await current.service.kill();
      const killedAt = Date.now();
      killed = true;
      const roundSends = await load;
      expect(current.service.child.signalCode).toBe('SIGKILL');

      // Before the kill every send was acknowledged; from it on, none got an HTTP answer (one per client).
      const answered = roundSends.filter((send) => send.status !== null);
      expect(answered.filter((send) => !isAcked(send)).map((send) => `${send.status} ${send.raw}`)).toEqual([]);
      const unacked = roundSends.filter((send) => !isAcked(send));
      expect(unacked.length).toBe(CLIENTS);
      expect(unacked.filter((send) => send.endedAt < killedAt - 1_000)).toEqual([]);
      unackedCount += unacked.length;
      sends.push(...roundSends);
      current = await start();
    }
    // The last process started on the same database reads what the killed ones left.
    const second = current;
    const logs = new Map<string, any[]>();
    for (const conversationId of conversations) {
      const events = await readLog(second.client, conversationId);
      logs.set(conversationId, events);
      // No torn write: positions 0..n-1, the counter at n-1, the count and the record agree.
      const positions = await storedPositions(database.url, conversationId);
      expect(positions.seqs).toEqual(range(events.length));
      expect(positions.lastSeq).toBe(events.length - 1);
      const count = await second.client.get(`/api/conversations/${conversationId}/events/count`);
      expect(count.body).toBe(events.length);
      // Every stored event is whole and served by id.
      for (const event of [events[0], events[events.length - 1]]) {
        const one = await second.client.get(`/api/conversations/${conversationId}/events/${event.id}`);
        expect(one.status).toBe(200);
        expect(one.body).toEqual(event);
      }
      expect(events.every((event) => event.kind === 'MessageEvent' && typeof messageText(event) === 'string')).toBe(true);
    }
    const audit = auditLogs(logs, sends, TAG);
    expect(audit.ackedMissing).toEqual([]);
    expect(audit.duplicated).toEqual([]);
    expect(audit.unknown).toEqual([]);
    expect(audit.unackedPresent + audit.unackedAbsent).toBe(unackedCount);
    // Each client's acknowledged sends are stored in the order it sent them.
    const order = new Map<string, number>();
    for (const events of logs.values()) events.forEach((event, seq) => order.set(messageText(event)!, seq));
    for (const client of range(CLIENTS)) {
      const mine = sends.filter((send) => send.client === client && isAcked(send));
      for (let index = 1; index < mine.length; index += 1) {
        if (mine[index].conversationId !== mine[index - 1].conversationId) continue;
        expect(order.get(mine[index].text)!).toBeGreaterThan(order.get(mine[index - 1].text)!);
      }
    }

    // Every keyed send retried (twice at once, against the new process): each message ends up stored once.
    const keyed = sends.filter((send) => send.key !== null);
    const retryBatches = chunk(keyed, 32);
    const retries: SendRecord[][] = [];
    for (const batch of retryBatches) {
      retries.push(
        ...(await Promise.all(
          batch.map(async (send) =>
            Promise.all(
              [0, 1].map(async () => ({ ...send, ...(await second.client.sendMessage(send.conversationId, send.text, send.key)) })),
            ),
          ),
        )),
      );
    }
    expect(retries.flat().filter((retry) => !isAcked(retry)).map((retry) => `${retry.status} ${retry.raw}`)).toEqual([]);
    const after = new Map<string, any[]>();
    for (const conversationId of conversations) after.set(conversationId, await readLog(second.client, conversationId));
    const afterAudit = auditLogs(after, sends, TAG);
    expect(afterAudit.duplicated).toEqual([]);
    const stored = new Set([...after.values()].flat().map(messageText));
    expect(keyed.filter((send) => !stored.has(send.text)).map((send) => send.text)).toEqual([]);
    // Unkeyed sends that were not acknowledged: stored once or not at all (retrying them is the client's risk).
    for (const conversationId of conversations) {
      const positions = await storedPositions(database.url, conversationId);
      expect(positions.seqs).toEqual(range(after.get(conversationId)!.length));
    }
    const keysStored = await queryDatabase<{ n: string }>(
      database.url,
      'SELECT count(*) AS n FROM events WHERE conversation_id = ANY($1::uuid[]) AND idempotency_key IS NOT NULL',
      [conversations],
    );
    expect(Number(keysStored[0].n)).toBe(keyed.length);

    const unackedKeyed = sends.filter((send) => !isAcked(send) && send.key !== null);
    process.stdout.write(
      `kill -9: ${JSON.stringify({
        sends: sends.length,
        acked: audit.acked,
        rounds: ROUNDS,
        unacked: unackedCount,
        unackedStoredAnyway: audit.unackedPresent,
        unackedAbsent: audit.unackedAbsent,
        unackedKeyedRetried: unackedKeyed.length,
        retriesSent: retries.flat().length,
      })}\n`,
    );
  }, 60_000);
});

function chunk<T>(items: T[], size: number): T[][] {
  return range(Math.ceil(items.length / size)).map((index) => items.slice(index * size, (index + 1) * size));
}

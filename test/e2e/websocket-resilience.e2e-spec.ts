import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/database/embedded-postgres.js';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { EventSocket, sleep, textMessage } from './websocket.support.js';

const MAX_BUFFERED_BYTES = 256 * 1024;

// A private PostgreSQL, so this suite can restart it without disturbing the shared test server.
describe('WebSocket delivery under a slow client, a database restart and shutdown', () => {
  let dataDir: string;
  let port: number;
  let postgres: EmbeddedPostgresHandle;
  let service: ServiceProcess;
  let alice: HttpClient;
  const sockets: EventSocket[] = [];

  const connect = async (conversationId: string) => {
    const socket = await EventSocket.connect(service.url, conversationId, { query: { session_api_key: ALICE_KEY } });
    sockets.push(socket);
    await socket.waitFor(() => socket.frames.length > 0, 'full_state');
    return socket;
  };

  const createConversation = async () => {
    const response = await alice.post('/api/conversations', { body: {} });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'acs-ws-pg-'));
    port = 56_000 + Math.floor(Math.random() * 4_000);
    postgres = await startEmbeddedPostgres(dataDir, port);
    service = await startServiceProcess({
      databaseUrl: postgres.url,
      env: { WS_MAX_BUFFERED_BYTES: String(MAX_BUFFERED_BYTES), WS_RECONCILE_INTERVAL_MS: '60000' },
    });
    alice = new HttpClient(service.url, ALICE_KEY);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close()));
    await service?.kill();
    await postgres?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('closes a client that stops reading with 1013 while a fast client on the same conversation gets everything', async () => {
    const conversationId = await createConversation();
    const fast = await connect(conversationId);
    const slow = await connect(conversationId);
    (slow.ws as any)._socket.pause();

    const big = 'x'.repeat(400 * 1024);
    const count = 24;
    for (let index = 0; index < count; index += 1) {
      const response = await alice.post(`/api/conversations/${conversationId}/events`, { body: textMessage(`${index} ${big}`) });
      expect(response.status).toBe(200);
    }
    const received = await fast.waitForEvents(count, 30_000);
    expect(received.map((event) => Number(event.llm_message.content[0].text.split(' ')[0]))).toEqual(
      Array.from({ length: count }, (_, index) => index),
    );

    (slow.ws as any)._socket.resume();
    const closed = await slow.waitForClose(20_000);
    expect(closed.code).toBe(1013);
    expect(slow.events.length).toBeLessThan(count);
    expect(slow.events.map((event) => event.id)).toEqual(received.slice(0, slow.events.length).map((event) => event.id));
    expect(fast.closeCode).toBeNull();
  }, 60_000);

  it('resumes live delivery on open sockets after the database restarts, without restarting the service', async () => {
    const conversationId = await createConversation();
    const socket = await connect(conversationId);
    await alice.post(`/api/conversations/${conversationId}/events`, { body: textMessage('before the restart') });
    await socket.waitForEvents(1);

    await postgres.stop();
    await sleep(500);
    postgres = await startEmbeddedPostgres(dataDir, port);

    // The first requests after the restart may still meet a dead pooled connection.
    let appended = false;
    for (let attempt = 0; attempt < 40 && !appended; attempt += 1) {
      const response = await alice.post(`/api/conversations/${conversationId}/events`, { body: textMessage('after the restart') });
      appended = response.status === 200;
      if (!appended) await sleep(250);
    }
    expect(appended).toBe(true);
    const events = await socket.waitForEvents(2, 20_000);
    expect(events[1].llm_message.content[0].text).toBe('after the restart');

    for (let index = 0; index < 3; index += 1) {
      await alice.post(`/api/conversations/${conversationId}/events`, { body: textMessage(`later ${index}`) });
    }
    const later = await socket.waitForEvents(5, 10_000);
    expect(later.slice(2).map((event) => event.llm_message.content[0].text)).toEqual(['later 0', 'later 1', 'later 2']);
    expect(socket.closeCode).toBeNull();
  }, 60_000);

  it('closes sockets with 1001 on SIGTERM', async () => {
    const conversationId = await createConversation();
    const socket = await connect(conversationId);
    const exited = new Promise<string>((resolve) => service.child.once('exit', (code, signal) => resolve(String(signal ?? code))));
    await service.stop();
    expect((await socket.waitForClose(10_000)).code).toBe(1001);
    // Nest re-raises the signal once its shutdown hooks have run.
    expect(['0', 'SIGTERM']).toContain(await exited);
  }, 30_000);
});

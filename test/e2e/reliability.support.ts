// Helpers of the reliability suites: a load generator that records which sends were acknowledged,
// log checks (every acknowledged send exactly once, gapless positions), a private PostgreSQL that
// can be stopped and started under a live service, a prober, and a WebSocket client that resumes
// with after_id.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/database/embedded-postgres.js';
import { ALICE_KEY } from '../support/service-process.js';
import { queryDatabase } from '../support/test-database.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Reply {
  /** null when no HTTP response came back (connection refused or reset, client timeout). */
  status: number | null;
  body: any;
  raw: string;
  headers: http.IncomingHttpHeaders;
  /** The network error code or message when status is null. */
  error: string | null;
}

/** A JSON client with a per-request timeout that reports network failures instead of throwing. */
export class ServiceClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  constructor(
    public baseUrl: string,
    private readonly key: string = ALICE_KEY,
    private readonly timeoutMs = 30_000,
  ) {}

  request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const allHeaders: Record<string, string> = { 'X-Session-API-Key': this.key, ...headers };
    if (payload !== undefined) {
      allHeaders['Content-Type'] = 'application/json';
      allHeaders['Content-Length'] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve) => {
      let settled = false;
      const finish = (reply: Reply) => {
        if (settled) return;
        settled = true;
        resolve(reply);
      };
      const request = http.request(new URL(path, this.baseUrl), { method, headers: allHeaders, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error: NodeJS.ErrnoException) =>
          finish({ status: null, body: undefined, raw: '', headers: {}, error: error.code ?? error.message }),
        );
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = raw;
          try {
            parsed = raw ? JSON.parse(raw) : undefined;
          } catch {
            // not JSON: the assertion sees the text
          }
          finish({ status: res.statusCode ?? 0, body: parsed, raw, headers: res.headers, error: null });
        });
      });
      request.setTimeout(this.timeoutMs, () => request.destroy(Object.assign(new Error('client timeout'), { code: 'CLIENT_TIMEOUT' })));
      request.on('error', (error: NodeJS.ErrnoException) =>
        finish({ status: null, body: undefined, raw: '', headers: {}, error: error.code ?? error.message }),
      );
      request.end(payload);
    });
  }

  get(path: string): Promise<Reply> {
    return this.request('GET', path);
  }

  sendMessage(conversationId: string, text: string, idempotencyKey: string | null = null): Promise<Reply> {
    return this.request(
      'POST',
      `/api/conversations/${conversationId}/events`,
      { role: 'user', content: [{ type: 'text', text }], run: false },
      idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {},
    );
  }

  async createConversation(): Promise<string> {
    const reply = await this.request('POST', '/api/conversations', {});
    if (reply.status !== 201) throw new Error(`creating a conversation failed: ${reply.status} ${reply.raw} ${reply.error ?? ''}`);
    return reply.body.id as string;
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface SendRecord {
  client: number;
  conversationId: string;
  text: string;
  key: string | null;
  startedAt: number;
  endedAt: number;
  status: number | null;
  body: any;
  raw: string;
  headers: http.IncomingHttpHeaders;
  error: string | null;
}

export const isAcked = (send: SendRecord) => send.status === 200 && send.body?.success === true;

export interface LoadOptions {
  tag: string;
  clients: number;
  /** Where client `n` sends: which service and which conversation. */
  route(client: number, index: number): { via: ServiceClient; conversationId: string };
  keyed(client: number): boolean;
  shouldStop(): boolean;
  /** A client gives up after its first send that got no HTTP response (the service is gone). */
  stopOnNetworkError?: boolean;
  /** Pause after a failed send before the next one, so an outage is not a busy loop. */
  pauseAfterFailureMs?: number;
  onResult?(send: SendRecord): void;
}

/** `clients` concurrent senders, each sending one message after another until told to stop. */
export async function runLoad(options: LoadOptions): Promise<SendRecord[]> {
  const sends: SendRecord[] = [];
  const client = async (clientIndex: number) => {
    for (let index = 0; !options.shouldStop(); index += 1) {
      const { via, conversationId } = options.route(clientIndex, index);
      const text = `${options.tag} c${clientIndex} m${index}`;
      const key = options.keyed(clientIndex) ? `${options.tag}-c${clientIndex}-m${index}` : null;
      const startedAt = Date.now();
      const reply = await via.sendMessage(conversationId, text, key);
      const send: SendRecord = { client: clientIndex, conversationId, text, key, startedAt, endedAt: Date.now(), ...reply };
      sends.push(send);
      options.onResult?.(send);
      if (send.status === null && options.stopOnNetworkError) return;
      if (!isAcked(send) && options.pauseAfterFailureMs) await sleep(options.pauseAfterFailureMs);
    }
  };
  await Promise.all(Array.from({ length: options.clients }, (_, index) => client(index)));
  return sends;
}

export const messageText = (event: any): string | undefined => event?.llm_message?.content?.[0]?.text;

/** A conversation's whole log through the API, page by page, in position order. */
export async function readLog(via: ServiceClient, conversationId: string): Promise<any[]> {
  const events: any[] = [];
  let start = 0;
  for (;;) {
    const reply = await via.get(`/api/conversations/${conversationId}/events?start_id=${start}&limit=100`);
    if (reply.status !== 200) throw new Error(`reading the log failed: ${reply.status} ${reply.raw} ${reply.error ?? ''}`);
    events.push(...reply.body.events);
    if (reply.body.next_id === null) return events;
    start = reply.body.next_id;
  }
}

/** Stored positions and the conversation's counter, straight from the database. */
export async function storedPositions(databaseUrl: string, conversationId: string): Promise<{ seqs: number[]; lastSeq: number }> {
  const rows = await queryDatabase<{ seq: string }>(databaseUrl, 'SELECT seq FROM events WHERE conversation_id = $1 ORDER BY seq', [conversationId]);
  const counter = await queryDatabase<{ last_seq: string }>(databaseUrl, 'SELECT last_seq FROM conversations WHERE id = $1', [conversationId]);
  return { seqs: rows.map((row) => Number(row.seq)), lastSeq: Number(counter[0].last_seq) };
}

export const range = (count: number) => Array.from({ length: count }, (_, index) => index);

export interface LogAudit {
  acked: number;
  unacked: number;
  /** Acknowledged sends whose message is not in the log. */
  ackedMissing: string[];
  /** Messages stored more than once. */
  duplicated: string[];
  /** Messages in the log that no client sent in this run. */
  unknown: string[];
  unackedPresent: number;
  unackedAbsent: number;
}

/** Compares the logs with what the clients sent and were told. */
export function auditLogs(logs: Map<string, any[]>, sends: SendRecord[], tag: string): LogAudit {
  const counts = new Map<string, number>();
  const unknown: string[] = [];
  const sentTexts = new Set(sends.map((send) => send.text));
  for (const events of logs.values()) {
    for (const event of events) {
      const text = messageText(event);
      if (text === undefined || !text.startsWith(`${tag} `)) continue;
      counts.set(text, (counts.get(text) ?? 0) + 1);
      if (!sentTexts.has(text)) unknown.push(text);
    }
  }
  const acked = sends.filter(isAcked);
  const unacked = sends.filter((send) => !isAcked(send));
  return {
    acked: acked.length,
    unacked: unacked.length,
    ackedMissing: acked.filter((send) => !counts.has(send.text)).map((send) => send.text),
    duplicated: [...counts].filter(([, count]) => count > 1).map(([text, count]) => `${text} x${count}`),
    unknown,
    unackedPresent: unacked.filter((send) => counts.has(send.text)).length,
    unackedAbsent: unacked.filter((send) => !counts.has(send.text)).length,
  };
}

/** A failed reply as a user sees it: a JSON body with a detail and no stack or exception text. */
export function describeCleanFailure(send: Pick<SendRecord, 'status' | 'body' | 'raw' | 'error'>): string | null {
  if (send.status === null) return null;
  if (send.status < 500) return `unexpected ${send.status}: ${send.raw.slice(0, 200)}`;
  if (typeof send.body !== 'object' || send.body === null || typeof send.body.detail !== 'string') {
    return `${send.status} without a JSON detail: ${send.raw.slice(0, 200)}`;
  }
  if (/\n\s+at |QueryFailedError|ECONNREFUSED|terminat|Error:/i.test(send.raw)) return `${send.status} leaks internals: ${send.raw.slice(0, 200)}`;
  return null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A PostgreSQL of this suite's own (never the shared test server), which the test may stop and start. */
export class PrivatePostgres {
  private constructor(
    readonly dataDir: string,
    readonly port: number,
    private handle: EmbeddedPostgresHandle | null,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const dataDir = mkdtempSync(join(tmpdir(), 'acs-reliability-pg-'));
    const port = await freePort();
    return new PrivatePostgres(dataDir, port, await startEmbeddedPostgres(dataDir, port));
  }

  get url(): string {
    if (!this.handle) throw new Error('PostgreSQL is stopped');
    return this.handle.url;
  }

  async stop(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    await handle?.stop();
  }

  /**
   * Crashes the server: SIGKILL to the postmaster (its backends die with it), no shutdown checkpoint,
   * so the next start runs crash recovery.
   */
  async crash(): Promise<void> {
    const handle = this.handle;
    if (!handle) return;
    this.handle = null;
    const pid = Number(readFileSync(join(this.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    // In the same tick, so the launcher's exit listener is in place before the exit is reported (its
    // stop() would otherwise wait forever); the SIGINT it sends meets a process already killed.
    await handle.stop();
  }

  /** Starts it again; retried while the backends of a crashed server still hold its shared memory. */
  async start(): Promise<void> {
    for (let attempt = 1; !this.handle; attempt += 1) {
      try {
        this.handle = await startEmbeddedPostgres(this.dataDir, this.port);
      } catch (error) {
        if (attempt >= 20) throw error ?? new Error('PostgreSQL did not start');
        await sleep(250);
      }
    }
  }

  /** Freezes every process of the server (SIGSTOP): it neither answers nor refuses, like a hung host. */
  freeze(): void {
    for (const pid of this.serverPids()) process.kill(pid, 'SIGSTOP');
  }

  thaw(): void {
    for (const pid of this.serverPids()) process.kill(pid, 'SIGCONT');
  }

  private serverPids(): number[] {
    const postmaster = Number(readFileSync(join(this.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)]).toString().split('\n').map(Number).filter(Boolean);
    return [postmaster, ...children];
  }

  async dispose(): Promise<void> {
    await this.stop().catch(() => undefined);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export interface ProbeSample {
  startedAt: number;
  endedAt: number;
  status: number | null;
  body: any;
}

/** Requests `path` every `intervalMs` (one at a time) and records each answer. */
export class Prober {
  readonly samples: ProbeSample[] = [];
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(via: ServiceClient, path: string, intervalMs: number) {
    this.loop = (async () => {
      while (!this.stopped) {
        const startedAt = Date.now();
        const reply = await via.get(path);
        this.samples.push({ startedAt, endedAt: Date.now(), status: reply.status, body: reply.body });
        await sleep(intervalMs);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

export const isFullState = (frame: any) => frame?.kind === 'ConversationStateUpdateEvent' && frame.key === 'full_state';

export interface ConnectionRecord {
  url: string;
  afterId: string | null;
  openedAt: number;
  fullState: boolean;
  received: number;
  closeCode: number | null;
  dropped: boolean;
}

/**
 * A WebSocket subscriber that keeps every event it receives across connections. Each (re)connection
 * asks for the events after the last one it holds (`after_id`), or for all of them when it holds none;
 * it goes round `baseUrls` (several instances on one database). When `reconnect` is set, a connection
 * the server closes or that cannot be opened is retried.
 */
export class ResumingSubscriber {
  readonly events: any[] = [];
  /** When each event arrived (Date.now()), index for index with `events`. */
  readonly receivedAt: number[] = [];
  readonly errors: any[] = [];
  readonly connections: ConnectionRecord[] = [];
  /** Called after each event, with the current connection's record. */
  onEvent: ((connection: ConnectionRecord) => void) | null = null;
  private ws: WebSocket | null = null;
  private stopped = false;
  private connecting: Promise<void> | null = null;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly baseUrls: string[],
    private readonly conversationId: string,
    private readonly options: { key?: string; reconnect: boolean; retryDelayMs?: number },
  ) {}

  get lastId(): string | null {
    return this.events.length ? this.events[this.events.length - 1].id : null;
  }

  get current(): ConnectionRecord | undefined {
    return this.connections[this.connections.length - 1];
  }

  /** Connects (retrying while `reconnect` is set) and resolves once the full_state frame arrived. */
  connect(): Promise<void> {
    this.connecting ??= this.connectLoop().finally(() => (this.connecting = null));
    return this.connecting;
  }

  /** Cuts the connection abruptly (no close handshake), then resumes on the next instance. */
  drop(): Promise<void> {
    const ws = this.ws;
    if (ws) {
      this.ws = null;
      this.current!.dropped = true;
      ws.terminate();
    }
    return this.connect();
  }

  waitForEvents(count: number, timeoutMs: number): Promise<void> {
    return this.waitFor(() => this.events.length >= count, timeoutMs, `${count} events`);
  }

  /** Resolves once `done()` holds (checked on every event and connection change). */
  waitFor(done: () => boolean, timeoutMs: number, what = 'the condition'): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`subscriber waited ${timeoutMs} ms for ${what}; has ${this.events.length} events, connections ${JSON.stringify(this.connections)}`));
      }, timeoutMs);
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  /** Stops reading from the socket (the server's frames, its close frame included, pile up unread). */
  pauseReading(): void {
    (this.ws as unknown as { _socket?: { pause(): void } } | null)?._socket?.pause();
  }

  stop(): void {
    this.stopped = true;
    this.ws?.terminate();
    this.ws = null;
  }

  private async connectLoop(): Promise<void> {
    while (!this.stopped) {
      if (await this.attempt()) return;
      if (!this.options.reconnect) throw new Error(`connecting failed: ${JSON.stringify(this.current)}`);
      await sleep(this.options.retryDelayMs ?? 200);
    }
  }

  /** One connection attempt: true once full_state arrived on it. */
  private attempt(): Promise<boolean> {
    const baseUrl = this.baseUrls[this.connections.length % this.baseUrls.length];
    const url = new URL(`/sockets/events/${this.conversationId}`, baseUrl.replace(/^http/, 'ws'));
    url.searchParams.set('session_api_key', this.options.key ?? ALICE_KEY);
    const afterId = this.lastId;
    if (afterId) url.searchParams.set('after_id', afterId);
    else url.searchParams.set('resend_all', 'true');
    const record: ConnectionRecord = { url: baseUrl, afterId, openedAt: Date.now(), fullState: false, received: 0, closeCode: null, dropped: false };
    this.connections.push(record);
    const ws = new WebSocket(url);
    this.ws = ws;
    return new Promise<boolean>((resolve) => {
      ws.on('message', (data) => {
        if (ws !== this.ws) return;
        const frame = JSON.parse(data.toString());
        if (isFullState(frame)) {
          record.fullState = true;
          resolve(true);
        } else if (typeof frame.kind === 'string') {
          this.events.push(frame);
          this.receivedAt.push(Date.now());
          record.received += 1;
          this.onEvent?.(record);
          for (const waiter of [...this.waiters]) waiter();
        } else {
          this.errors.push(frame);
        }
      });
      ws.on('error', () => undefined);
      ws.once('close', (code) => {
        record.closeCode = code;
        resolve(false);
        if (ws !== this.ws) return;
        this.ws = null;
        if (record.fullState && this.options.reconnect && !this.stopped) void this.connect();
      });
    });
  }
}

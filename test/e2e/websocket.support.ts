import { WebSocket, type ClientOptions } from 'ws';

export interface SocketOptions {
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** Passed to ws (e.g. autoPong: false for a peer that never answers pings). */
  clientOptions?: ClientOptions;
  path?: string;
}

export interface CloseInfo {
  code: number;
  reason: string;
}

/** A test client for /sockets/events/{id}: records every frame (raw text and parsed) and the close. */
export class EventSocket {
  readonly raw: string[] = [];
  readonly frames: any[] = [];
  readonly closed: Promise<CloseInfo>;
  private readonly waiters = new Set<() => void>();
  private closeInfo: CloseInfo | null = null;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const text = data.toString();
      this.raw.push(text);
      this.frames.push(JSON.parse(text));
      this.notify();
    });
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => {
        this.closeInfo = { code, reason: reason.toString() };
        this.notify();
        resolve(this.closeInfo);
      }),
    );
    ws.on('error', () => undefined);
  }

  /** Connects; resolves once the upgrade succeeded (frames and the close are recorded from then on). */
  static connect(baseUrl: string, conversationId: string, options: SocketOptions = {}): Promise<EventSocket> {
    const url = new URL(options.path ?? `/sockets/events/${conversationId}`, baseUrl.replace(/^http/, 'ws'));
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
    const ws = new WebSocket(url, { headers: options.headers, ...options.clientOptions });
    const socket = new EventSocket(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(socket));
      ws.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused: ${response.statusCode}`)));
      ws.once('error', reject);
    });
  }

  /** Stored events: every frame but full_state and error frames. */
  get events(): any[] {
    return this.frames.filter((frame) => typeof frame.kind === 'string' && !isFullState(frame));
  }

  get errors(): any[] {
    return this.frames.filter((frame) => frame.type === 'error');
  }

  get closeCode(): number | null {
    return this.closeInfo?.code ?? null;
  }

  send(value: unknown): void {
    this.ws.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  async waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
    const first = check();
    if (first) return first;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(onChange);
        reject(new Error(`timed out waiting for ${what}; got ${this.frames.length} frames, close ${JSON.stringify(this.closeInfo)}`));
      }, timeoutMs);
      const onChange = () => {
        const result = check();
        if (!result) return;
        clearTimeout(timer);
        this.waiters.delete(onChange);
        resolve(result);
      };
      this.waiters.add(onChange);
    });
  }

  waitForEvents(count: number, timeoutMs?: number): Promise<any[]> {
    return this.waitFor(() => (this.events.length >= count ? this.events : undefined), `${count} events`, timeoutMs);
  }

  waitForFrame(predicate: (frame: any) => boolean, what: string, timeoutMs?: number): Promise<any> {
    return this.waitFor(() => this.frames.find(predicate), what, timeoutMs);
  }

  async waitForClose(timeoutMs = 15_000): Promise<CloseInfo> {
    return this.waitFor(() => this.closeInfo ?? undefined, 'the socket to close', timeoutMs);
  }

  async close(): Promise<void> {
    if (this.closeInfo) return;
    this.ws.close();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.closed, new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]);
    clearTimeout(timer);
    this.ws.terminate();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

export function textMessage(text: string, run = false): Record<string, unknown> {
  return { role: 'user', content: [{ type: 'text', text }], run };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function isFullState(frame: any): boolean {
  return frame?.kind === 'ConversationStateUpdateEvent' && frame.key === 'full_state';
}

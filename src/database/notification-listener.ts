import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { DATABASE_URL } from './database.tokens.js';

export interface NotificationHandler {
  onNotification(payload: string): void;
  /**
   * Called after every successful (re)connection once LISTEN is in place. Notifications sent while
   * the connection was down are lost, so a handler catches up from the database here.
   */
  onListening(): void;
}

export interface NotificationListenerOptions {
  /** First reconnection delay; doubles per failed attempt up to maxReconnectDelayMs (with jitter). */
  initialReconnectDelayMs: number;
  maxReconnectDelayMs: number;
  /** A `SELECT 1` on the listening connection this often, so a half-open connection is noticed. */
  probeIntervalMs: number;
}

const DEFAULT_OPTIONS: NotificationListenerOptions = {
  initialReconnectDelayMs: 200,
  maxReconnectDelayMs: 5_000,
  probeIntervalMs: 30_000,
};

/**
 * The process's one dedicated LISTEN connection (a plain pg Client, outside TypeORM's pool, because
 * a pooled connection would be handed to other queries and lose its LISTEN). It reconnects by itself
 * with backoff when the connection drops, e.g. when the database restarts.
 */
@Injectable()
export class NotificationListener implements OnApplicationShutdown {
  private readonly logger = new Logger(NotificationListener.name);
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  private readonly options: NotificationListenerOptions;
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private failedAttempts = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(@Inject(DATABASE_URL) private readonly databaseUrl: string) {
    this.options = DEFAULT_OPTIONS;
  }

  get connected(): boolean {
    return this.client !== null;
  }

  /**
   * Registers a handler and makes sure the connection listens on `channel`. Resolves after the first
   * connection attempt (successful or not: a failed one keeps retrying in the background).
   */
  async listen(channel: string, handler: NotificationHandler): Promise<void> {
    let channelHandlers = this.handlers.get(channel);
    if (!channelHandlers) {
      channelHandlers = new Set();
      this.handlers.set(channel, channelHandlers);
      if (this.client) await this.client.query(`LISTEN ${pg.escapeIdentifier(channel)}`).catch(() => undefined);
    }
    channelHandlers.add(handler);
    if (this.client) handler.onListening();
    else await this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.probeTimer) clearInterval(this.probeTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private connect(): Promise<void> {
    this.connecting ??= this.attemptConnection().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async attemptConnection(): Promise<void> {
    if (this.stopped || this.client) return;
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
      query_timeout: 10_000,
      application_name: 'acs-listener',
    });
    client.on('error', (error) => this.onConnectionLost(client, error));
    client.on('end', () => this.onConnectionLost(client, null));
    client.on('notification', (message) => this.dispatch(message.channel, message.payload ?? ''));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.scheduleReconnect(error);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    if (this.failedAttempts > 0) this.logger.log('LISTEN connection re-established');
    this.failedAttempts = 0;
    this.client = client;
    this.startProbe(client);
    for (const channelHandlers of this.handlers.values()) {
      for (const handler of channelHandlers) this.safely(() => handler.onListening());
    }
  }

  private onConnectionLost(client: pg.Client, error: Error | null): void {
    if (client !== this.client) return;
    this.client = null;
    if (this.probeTimer) clearInterval(this.probeTimer);
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    if (this.stopped) return;
    this.logger.warn(`LISTEN connection lost${error ? `: ${error.message}` : ''}; reconnecting`);
    this.scheduleReconnect(null);
  }

  private scheduleReconnect(error: unknown): void {
    if (this.stopped || this.reconnectTimer) return;
    const { initialReconnectDelayMs, maxReconnectDelayMs } = this.options;
    const base = Math.min(maxReconnectDelayMs, initialReconnectDelayMs * 2 ** this.failedAttempts);
    const delay = Math.round(base * (0.5 + Math.random() / 2));
    this.failedAttempts += 1;
    if (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn(`LISTEN connection failed (attempt ${this.failedAttempts}): ${message}; retrying in ${delay} ms`);
    }
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }

  private startProbe(client: pg.Client): void {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = setInterval(() => {
      client.query('SELECT 1').catch((error: Error) => this.onConnectionLost(client, error));
    }, this.options.probeIntervalMs);
    this.probeTimer.unref();
  }

  private dispatch(channel: string, payload: string): void {
    for (const handler of this.handlers.get(channel) ?? []) this.safely(() => handler.onNotification(payload));
  }

  private safely(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.logger.error(`Notification handler failed: ${error instanceof Error ? error.stack : String(error)}`);
    }
  }
}

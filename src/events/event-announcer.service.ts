import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export const EVENTS_CHANNEL = 'conversation_events';

export type AppendListener = (conversationId: string, seq: number) => void;

/**
 * Tells listeners that events were committed. In-process listeners hear at once; other
 * instances through NOTIFY sent after the commit, batched, from outside the writers'
 * transactions: PostgreSQL serialises the commits of transactions that NOTIFY, which would
 * otherwise make every append wait on every other. Listeners read from their last position,
 * so a batched, late or lost notification loses nothing (the hub also reconciles periodically).
 */
@Injectable()
export class EventAnnouncer implements OnApplicationShutdown {
  private readonly logger = new Logger(EventAnnouncer.name);
  private readonly listeners = new Set<AppendListener>();
  private pending = new Map<string, number>();
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onAppend(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  announce(conversationId: string, seq: number): void {
    for (const listener of this.listeners) {
      try {
        listener(conversationId, seq);
      } catch (error) {
        this.logger.warn(`Append listener failed: ${(error as Error).message}`);
      }
    }
    if (this.closed) return;
    this.pending.set(conversationId, Math.max(seq, this.pending.get(conversationId) ?? -1));
    this.flushing ??= this.flush();
  }

  /** Every announcement made so far has been sent (tests and shutdown). */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.drain();
    this.closed = true;
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.size > 0) {
        const batch = [...this.pending].map(([conversationId, seq]) => `${conversationId}:${seq}`);
        this.pending = new Map();
        await this.dataSource
          .query(`SELECT pg_notify('${EVENTS_CHANNEL}', payload) FROM unnest($1::text[]) AS payload`, [batch])
          .catch((error: Error) => this.logger.warn(`NOTIFY of ${batch.length} conversations failed: ${error.message}`));
      }
    } finally {
      this.flushing = null;
    }
  }
}

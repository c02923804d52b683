import type { Logger } from '@nestjs/common';
import type { StoredEventRow } from '../event-filters.js';
import { toFrames, type Subscription } from './subscription.js';

export interface CommittedEventReader {
  readAfter(conversationId: string, afterSeq: number, limit: number): Promise<StoredEventRow[]>;
}

export interface ChannelOptions {
  readBatchSize: number;
  /** Wait before retrying a failed read (the database may be restarting). */
  retryDelayMs: number;
}

/**
 * The local subscribers of one conversation. Live subscribers share one read loop: a wake-up while a
 * read is in flight only marks the loop dirty, so any number of notifications costs one read per
 * round, from the lowest cursor, fanned out to every socket. A subscriber replaying history reads on
 * its own (paced by its socket) and joins the shared loop once it has reached the end of the log,
 * so a long replay never holds back the live sockets.
 */
export class ConversationChannel {
  private readonly live = new Set<Subscription>();
  private readonly catchingUp = new Set<Subscription>();
  private reading = false;
  private dirty = false;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly conversationId: string,
    private readonly reader: CommittedEventReader,
    private readonly options: ChannelOptions,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.live.size + this.catchingUp.size;
  }

  /** Lowest seq every live subscriber has been sent (Infinity with none). */
  get liveCursor(): number {
    let lowest = Infinity;
    for (const subscription of this.live) lowest = Math.min(lowest, subscription.cursor);
    return lowest;
  }

  add(subscription: Subscription, replay: boolean): void {
    if (replay) {
      this.catchingUp.add(subscription);
      void this.catchUp(subscription);
    } else {
      subscription.phase = 'live';
      this.live.add(subscription);
      this.wake();
    }
  }

  remove(subscription: Subscription): void {
    this.live.delete(subscription);
    this.catchingUp.delete(subscription);
    if (this.size === 0) this.dispose();
  }

  /**
   * Events up to `committedSeq` (unknown: anything) may be waiting. Duplicate and stale wake-ups are
   * harmless: delivery always starts from each subscriber's cursor.
   */
  wake(committedSeq?: number): void {
    if (committedSeq !== undefined && committedSeq <= this.liveCursor) return;
    this.dirty = true;
    if (!this.reading) void this.readLoop();
  }

  closeAll(code: number, reason: string): void {
    for (const subscription of [...this.live, ...this.catchingUp]) subscription.close(code, reason);
    this.live.clear();
    this.catchingUp.clear();
    this.dispose();
  }

  dispose(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private async readLoop(): Promise<void> {
    this.reading = true;
    try {
      while (this.dirty && this.live.size > 0) {
        this.dirty = false;
        const rows = await this.reader.readAfter(this.conversationId, this.liveCursor, this.options.readBatchSize);
        const frames = toFrames(rows);
        for (const subscription of this.live) {
          subscription.pushLive(frames);
          if (subscription.isClosed) this.live.delete(subscription);
        }
        if (rows.length === this.options.readBatchSize) this.dirty = true;
      }
    } catch (error) {
      this.logger.warn(`Reading events of ${this.conversationId} failed: ${describe(error)}; retrying`);
      this.retryLater(() => this.wake());
    } finally {
      this.reading = false;
    }
  }

  private async catchUp(subscription: Subscription): Promise<void> {
    try {
      while (!subscription.isClosed) {
        const rows = await this.reader.readAfter(this.conversationId, subscription.cursor, this.options.readBatchSize);
        await subscription.pushPaced(toFrames(rows));
        if (rows.length < this.options.readBatchSize) break;
      }
    } catch (error) {
      if (subscription.isClosed) return;
      this.logger.warn(`Replaying events of ${this.conversationId} failed: ${describe(error)}; retrying`);
      this.retryLater(() => void this.catchUp(subscription));
      return;
    }
    if (subscription.isClosed || !this.catchingUp.delete(subscription)) return;
    // Events committed since the last catch-up read are after the cursor, so the shared loop sends them.
    subscription.phase = 'live';
    this.live.add(subscription);
    this.wake();
  }

  private retryLater(action: () => void): void {
    const timer = setTimeout(() => {
      if (this.retryTimer === timer) this.retryTimer = null;
      action();
    }, this.options.retryDelayMs);
    timer.unref();
    // Only the latest timer is kept for dispose(); older ones find nothing left to do.
    this.retryTimer = timer;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

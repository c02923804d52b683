import type { StoredEventRow } from '../event-filters.js';
import { CloseCode } from './close-codes.js';

/** A stored event ready to send: its position and its JSON text as bytes (encoded once for every socket). */
export interface EventFrame {
  seq: number;
  data: Buffer;
}

export function toFrames(rows: StoredEventRow[]): EventFrame[] {
  return rows.map((row) => ({ seq: row.seq, data: Buffer.from(row.json, 'utf8') }));
}

/** Where frames go: a WebSocket in production. */
export interface EventSink {
  readonly isOpen: boolean;
  /** Bytes accepted by send() and not yet handed to the operating system. */
  readonly bufferedAmount: number;
  /** `onWritten` runs once the frame has left the process (or the socket failed). */
  send(data: Buffer, onWritten?: () => void): void;
  close(code: number, reason: string): void;
}

export type SubscriptionPhase = 'catching-up' | 'live' | 'closed';

export interface SubscriptionLimits {
  /** Live delivery closes the socket with 1013 past this many buffered bytes. */
  maxBufferedBytes: number;
  /** Catch-up waits for the socket to drain before buffering more than this. */
  catchUpHighWater: number;
}

/**
 * One socket's position in one conversation's log. `cursor` is the seq of the last event sent:
 * every delivery sends exactly the events after it, in order, so a duplicated or late read can
 * neither repeat nor skip an event.
 */
export class Subscription {
  phase: SubscriptionPhase = 'catching-up';
  private readonly closedListeners = new Set<() => void>();

  constructor(
    readonly conversationId: string,
    private readonly sink: EventSink,
    public cursor: number,
    private readonly limits: SubscriptionLimits,
  ) {}

  get isClosed(): boolean {
    return this.phase === 'closed' || !this.sink.isOpen;
  }

  /** Live delivery: sends what follows the cursor at once; a client too far behind is closed with 1013. */
  pushLive(frames: EventFrame[]): void {
    for (const frame of frames) {
      if (this.isClosed) return;
      if (frame.seq <= this.cursor) continue;
      if (frame.seq !== this.cursor + 1) return;
      this.sink.send(frame.data);
      this.cursor = frame.seq;
      if (this.sink.bufferedAmount > this.limits.maxBufferedBytes) {
        this.close(CloseCode.TryAgainLater, 'Client is not keeping up; reconnect with after_id');
        return;
      }
    }
  }

  /** Catch-up: like pushLive, but waits for the socket to drain rather than piling up history in memory. */
  async pushPaced(frames: EventFrame[]): Promise<void> {
    for (const frame of frames) {
      if (this.isClosed) return;
      if (frame.seq <= this.cursor) continue;
      if (frame.seq !== this.cursor + 1) return;
      const mustDrain = this.sink.bufferedAmount + frame.data.length > this.limits.catchUpHighWater;
      if (!mustDrain) {
        this.sink.send(frame.data);
        this.cursor = frame.seq;
        continue;
      }
      const written = new Promise<void>((resolve) => {
        const done = () => {
          this.closedListeners.delete(done);
          resolve();
        };
        this.closedListeners.add(done);
        this.sink.send(frame.data, done);
      });
      this.cursor = frame.seq;
      await written;
    }
  }

  close(code: number, reason: string): void {
    if (this.phase === 'closed') return;
    this.markClosed();
    if (this.sink.isOpen) this.sink.close(code, reason);
  }

  /** The socket went away. */
  markClosed(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    for (const listener of [...this.closedListeners]) listener();
  }
}

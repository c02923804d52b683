import type { Logger } from '@nestjs/common';
import type { StoredEventRow } from '../../../../src/events/event-filters.js';
import { ConversationChannel } from '../../../../src/events/gateway/conversation-channel.js';
import { Subscription, type EventSink } from '../../../../src/events/gateway/subscription.js';

/** An in-memory event log with the store's readAfter contract; counts reads and can hold them. */
class MemoryLog {
  readonly rows: StoredEventRow[] = [];
  reads = 0;
  private gate: Promise<void> | null = null;
  private openGate: (() => void) | null = null;

  append(count = 1): void {
    for (let index = 0; index < count; index += 1) {
      const seq = this.rows.length;
      this.rows.push({ seq, id: `e${seq}`, json: JSON.stringify({ id: `e${seq}` }) });
    }
  }

  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate?.();
    this.gate = null;
  }

  async readAfter(_conversationId: string, afterSeq: number, limit: number): Promise<StoredEventRow[]> {
    this.reads += 1;
    if (this.gate) await this.gate;
    await Promise.resolve();
    return this.rows.filter((row) => row.seq > afterSeq).slice(0, limit);
  }
}

/** A socket stand-in: records frames; `stalled` never flushes, like a client that stopped reading. */
class RecordingSink implements EventSink {
  readonly ids: string[] = [];
  isOpen = true;
  closeCode: number | null = null;
  bufferedAmount = 0;
  constructor(private readonly stalled = false) {}

  send(data: Buffer, onWritten?: () => void): void {
    this.ids.push(JSON.parse(data.toString()).id);
    if (this.stalled) this.bufferedAmount += data.length;
    else if (onWritten) setImmediate(onWritten);
  }

  close(code: number): void {
    this.closeCode = code;
    this.isOpen = false;
  }
}

const silentLogger = { warn: () => undefined } as unknown as Logger;
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => `e${from + index}`);

describe('ConversationChannel', () => {
  const limits = { maxBufferedBytes: 1_000, catchUpHighWater: 200 };
  let log: MemoryLog;
  let channel: ConversationChannel;

  beforeEach(() => {
    log = new MemoryLog();
    channel = new ConversationChannel('c', log, { readBatchSize: 10, retryDelayMs: 10 }, silentLogger);
  });
  afterEach(() => channel.dispose());

  const subscribe = (sink: EventSink, cursor: number, replay: boolean) => {
    const subscription = new Subscription('c', sink, cursor, limits);
    channel.add(subscription, replay);
    return subscription;
  };

  it('coalesces wake-ups that arrive during a read into one more read', async () => {
    const sink = new RecordingSink();
    subscribe(sink, -1, false);
    await settle();
    const readsBefore = log.reads;
    log.hold();
    log.append();
    channel.wake(0);
    for (let seq = 1; seq < 30; seq += 1) {
      log.append();
      channel.wake(seq);
    }
    log.release();
    await settle();
    expect(sink.ids).toEqual(ids(0, 29));
    expect(log.reads - readsBefore).toBeLessThanOrEqual(5);
  });

  it('ignores duplicate and stale notifications', async () => {
    const sink = new RecordingSink();
    subscribe(sink, -1, false);
    log.append(3);
    channel.wake(2);
    await settle();
    const reads = log.reads;
    channel.wake(1);
    channel.wake(2);
    await settle();
    expect(log.reads).toBe(reads);
    expect(sink.ids).toEqual(ids(0, 2));
  });

  it('replays history once, including what is appended during the replay, then delivers live', async () => {
    log.append(35);
    const sink = new RecordingSink();
    subscribe(sink, 4, true);
    log.append(5);
    await settle();
    log.append(2);
    channel.wake(41);
    await settle();
    expect(sink.ids).toEqual(ids(5, 41));
  });

  it('keeps live subscribers flowing while a replaying client has stopped reading', async () => {
    log.append(50);
    const live = new RecordingSink();
    subscribe(live, 49, false);
    const stalled = new RecordingSink(true);
    const replaying = subscribe(stalled, -1, true);
    await settle();
    log.append(3);
    channel.wake(52);
    await settle();
    expect(live.ids).toEqual(ids(50, 52));
    expect(stalled.ids.length).toBeLessThan(53);
    expect(replaying.phase).toBe('catching-up');
    expect(stalled.closeCode).toBeNull();
  });

  it('closes a live subscriber that falls behind with 1013 and keeps serving the others', async () => {
    const fast = new RecordingSink();
    const slow = new RecordingSink(true);
    subscribe(fast, -1, false);
    subscribe(slow, -1, false);
    for (let seq = 0; seq < 100; seq += 1) {
      log.append();
      channel.wake(seq);
      await settle();
    }
    expect(slow.closeCode).toBe(1013);
    expect(slow.ids.length).toBeLessThan(100);
    expect(fast.ids).toEqual(ids(0, 99));
  });

  it('retries a failed read', async () => {
    const sink = new RecordingSink();
    subscribe(sink, -1, false);
    await settle();
    const readAfter = log.readAfter.bind(log);
    let failures = 1;
    log.readAfter = async (...args) => {
      if (failures-- > 0) throw new Error('connection terminated');
      return readAfter(...args);
    };
    log.append(2);
    channel.wake(1);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(sink.ids).toEqual(ids(0, 1));
  });
});

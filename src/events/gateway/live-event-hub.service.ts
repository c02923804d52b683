import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NotificationListener, type NotificationHandler } from '../../database/notification-listener.js';
import { EventAnnouncer } from '../event-announcer.service.js';
import { EVENTS_CHANNEL, EventStoreService } from '../event-store.service.js';
import { CloseCode } from './close-codes.js';
import { ConversationChannel } from './conversation-channel.js';
import { LIVE_DELIVERY_CONFIG, type LiveDeliveryConfig } from './live-delivery.config.js';
import { Subscription, type EventSink } from './subscription.js';

const READ_RETRY_DELAY_MS = 1_000;
/** While the LISTEN connection is down (e.g. the database restarted), subscriptions are polled this often. */
const UNLISTENED_POLL_MS = 500;

/**
 * This process's subscriptions to conversation logs. Appends anywhere (this instance or another)
 * NOTIFY `<conversation_id>:<seq>` at commit; the hub wakes that conversation's channel, which reads
 * the committed rows from the store. NOTIFY is only a hint: after the LISTEN connection comes back,
 * and every reconcile interval, each subscribed conversation is checked against the database, so a
 * lost notification delays an event but never loses it.
 */
@Injectable()
export class LiveEventHub implements NotificationHandler, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(LiveEventHub.name);
  private readonly channels = new Map<string, ConversationChannel>();
  private reconcileTimer: NodeJS.Timeout | null = null;
  private unlistenedTimer: NodeJS.Timeout | null = null;
  private reconciling = false;

  constructor(
    private readonly store: EventStoreService,
    private readonly listener: NotificationListener,
    private readonly announcer: EventAnnouncer,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(LIVE_DELIVERY_CONFIG) private readonly config: LiveDeliveryConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Appends made by this process arrive at once; other instances' through LISTEN.
    this.announcer.onAppend((conversationId, seq) => this.channels.get(conversationId)?.wake(seq));
    await this.listener.listen(EVENTS_CHANNEL, this);
    this.reconcileTimer = setInterval(() => void this.reconcile(), this.config.reconcileIntervalMs);
    this.reconcileTimer.unref();
    // Without LISTEN, other instances' appends would wait for the next reconcile (and the LISTEN
    // reconnect backs off up to seconds): poll often until it is back, so live sockets do not stall
    // after a database restart.
    this.unlistenedTimer = setInterval(() => {
      if (!this.listener.connected) void this.reconcile();
    }, Math.min(UNLISTENED_POLL_MS, this.config.reconcileIntervalMs));
    this.unlistenedTimer.unref();
  }

  onApplicationShutdown(): void {
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    if (this.unlistenedTimer) clearInterval(this.unlistenedTimer);
    for (const channel of this.channels.values()) channel.dispose();
  }

  /**
   * Starts sending `conversationId`'s events after `cursor` to `sink`: with `replay`, history is read
   * for this socket alone first; without, it joins the live readers straight away.
   */
  subscribe(conversationId: string, sink: EventSink, cursor: number, replay: boolean): Subscription {
    const subscription = new Subscription(conversationId, sink, cursor, {
      maxBufferedBytes: this.config.maxBufferedBytes,
      catchUpHighWater: Math.max(64 * 1024, Math.floor(this.config.maxBufferedBytes / 4)),
    });
    let channel = this.channels.get(conversationId);
    if (!channel) {
      channel = new ConversationChannel(
        conversationId,
        this.store,
        { readBatchSize: this.config.readBatchSize, retryDelayMs: READ_RETRY_DELAY_MS },
        this.logger,
      );
      this.channels.set(conversationId, channel);
    }
    channel.add(subscription, replay);
    return subscription;
  }

  unsubscribe(subscription: Subscription): void {
    subscription.markClosed();
    const channel = this.channels.get(subscription.conversationId);
    if (!channel) return;
    channel.remove(subscription);
    if (channel.size === 0) this.channels.delete(subscription.conversationId);
  }

  onNotification(payload: string): void {
    const separator = payload.lastIndexOf(':');
    const seq = Number(payload.slice(separator + 1));
    const channel = this.channels.get(payload.slice(0, separator));
    if (channel) channel.wake(Number.isInteger(seq) ? seq : undefined);
  }

  /** (Re)connected: whatever was committed while nobody listened is read now. */
  onListening(): void {
    for (const channel of this.channels.values()) channel.wake();
  }

  /** Compares every subscribed conversation's last position with what its sockets have been sent. */
  async reconcile(): Promise<void> {
    if (this.reconciling || this.channels.size === 0) return;
    this.reconciling = true;
    try {
      const ids = [...this.channels.keys()];
      const rows: Array<{ id: string; last_seq: string }> = await this.dataSource.query(
        'SELECT id, last_seq FROM conversations WHERE id = ANY($1::uuid[])',
        [ids],
      );
      const lastSeqs = new Map(rows.map((row) => [row.id, Number(row.last_seq)]));
      for (const id of ids) {
        const channel = this.channels.get(id);
        if (!channel) continue;
        const lastSeq = lastSeqs.get(id);
        if (lastSeq === undefined) {
          channel.closeAll(CloseCode.NotFound, 'Conversation deleted');
          this.channels.delete(id);
        } else {
          channel.wake(lastSeq);
        }
      }
    } catch (error) {
      this.logger.debug?.(`Reconciling subscriptions failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.reconciling = false;
    }
  }
}

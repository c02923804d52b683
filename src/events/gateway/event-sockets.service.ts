import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';
import { WebSocket } from 'ws';
import { ConversationOwners } from '../../auth/conversation-owners.service.js';
import { SessionKeysService } from '../../auth/session-keys.service.js';
import { ConversationsService } from '../../conversations/conversations.service.js';
import { EventStoreService } from '../event-store.service.js';
import { EventsService } from '../events.service.js';
import { CloseCode } from './close-codes.js';
import { EventSocketSession, type SessionServices } from './event-socket-session.js';
import { LIVE_DELIVERY_CONFIG, type LiveDeliveryConfig } from './live-delivery.config.js';
import { LiveEventHub } from './live-event-hub.service.js';
import type { UpgradeRequest } from './path-ws-adapter.js';

/**
 * The event sockets open in this process: accepts them, pings them (a peer that has not answered
 * the previous ping is terminated), and on shutdown closes them with 1001 after their pending frames.
 */
@Injectable()
export class EventSocketsService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('EventSockets');
  private readonly sessions = new Set<EventSocketSession>();
  private readonly awaitingPong = new WeakSet<WebSocket>();
  private readonly services: SessionServices;
  private heartbeat: NodeJS.Timeout | null = null;
  private draining = false;

  constructor(
    sessionKeys: SessionKeysService,
    owners: ConversationOwners,
    conversations: ConversationsService,
    store: EventStoreService,
    events: EventsService,
    hub: LiveEventHub,
    @Inject(LIVE_DELIVERY_CONFIG) private readonly config: LiveDeliveryConfig,
  ) {
    this.services = { sessionKeys, owners, conversations, store, events, hub, config, logger: this.logger };
  }

  onApplicationBootstrap(): void {
    this.heartbeat = setInterval(() => this.ping(), this.config.pingIntervalMs);
    this.heartbeat.unref();
  }

  accept(socket: WebSocket, request: UpgradeRequest): void {
    if (this.draining) {
      socket.close(CloseCode.GoingAway, 'Server shutting down');
      return;
    }
    const session = new EventSocketSession(this.services, socket, request);
    this.sessions.add(session);
    socket.on('pong', () => this.awaitingPong.delete(socket));
    void session.closed.then(() => this.sessions.delete(session));
    void session.open();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    const sessions = [...this.sessions];
    if (sessions.length === 0) return;
    // close() queues the close frame behind the frames already buffered, so those are still delivered.
    for (const session of sessions) session.close(CloseCode.GoingAway, 'Server shutting down');
    const grace = new AbortController();
    await Promise.race([
      Promise.all(sessions.map((session) => session.settled())),
      delay(this.config.shutdownGraceMs, undefined, { signal: grace.signal }).catch(() => undefined),
    ]);
    grace.abort();
    for (const session of sessions) session.socket.terminate();
  }

  private ping(): void {
    for (const { socket } of this.sessions) {
      if (socket.readyState !== WebSocket.OPEN) continue;
      if (this.awaitingPong.has(socket)) {
        socket.terminate();
        continue;
      }
      this.awaitingPong.add(socket);
      socket.ping();
    }
  }
}

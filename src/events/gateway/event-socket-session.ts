import { NotFoundException, type Logger } from '@nestjs/common';
import { WebSocket, type RawData } from 'ws';
import { NOT_OWNER_DETAIL } from '../../auth/conversation-owner.guard.js';
import type { ConversationOwners } from '../../auth/conversation-owners.service.js';
import { SESSION_KEY_HEADER } from '../../auth/session-key.util.js';
import type { SessionKeysService } from '../../auth/session-keys.service.js';
import { isDatabaseUnavailable } from '../../common/errors/database-unavailable.js';
import { errorResponse } from '../../common/errors/http-error.filter.js';
import { normalizeUuid } from '../../common/http/uuid.js';
import type { ValidationIssue } from '../../common/validation/validation-issue.js';
import type { ConversationsService } from '../../conversations/conversations.service.js';
import { buildEvent } from '../dto/event-registry.js';
import type { EventStoreService } from '../event-store.service.js';
import type { EventsService } from '../events.service.js';
import { parseAuthFrame, parseClientFrame } from './client-frames.js';
import { CloseCode, closeReason } from './close-codes.js';
import { parseConnectQuery, type ReplayRequest } from './connect-query.js';
import type { LiveDeliveryConfig } from './live-delivery.config.js';
import type { LiveEventHub } from './live-event-hub.service.js';
import type { UpgradeRequest } from './path-ws-adapter.js';
import type { EventSink, Subscription } from './subscription.js';

export interface SessionServices {
  sessionKeys: SessionKeysService;
  owners: ConversationOwners;
  conversations: ConversationsService;
  store: EventStoreService;
  events: EventsService;
  hub: LiveEventHub;
  config: LiveDeliveryConfig;
  logger: Logger;
}

/** Client frames received but not yet handled; past this the client is flooding. */
const MAX_PENDING_FRAMES = 64;

/**
 * One /sockets/events/{conversation_id} connection: authentication (query, header or first frame),
 * the owner check, the full_state frame, replay and live delivery (through the hub), and the
 * client's send-message frames, handled one at a time in arrival order.
 */
export class EventSocketSession {
  readonly closed: Promise<void>;
  private state: 'opening' | 'open' | 'closed' = 'opening';
  private conversationId: string | null = null;
  private subscription: Subscription | null = null;
  private deliverAuthFrame: ((data: RawData | null) => void) | null = null;
  private pendingFrames = 0;
  private work: Promise<void>;
  private markOpened!: () => void;

  constructor(
    private readonly services: SessionServices,
    readonly socket: WebSocket,
    private readonly request: UpgradeRequest,
  ) {
    // Frames that arrive while the connection is being set up wait for it.
    this.work = new Promise<void>((resolve) => (this.markOpened = resolve));
    this.closed = new Promise<void>((resolve) =>
      socket.once('close', () => {
        this.onSocketClosed();
        resolve();
      }),
    );
    socket.on('message', (data) => this.onFrame(data));
  }

  /** Closes the socket with the contract's code on any refusal; never throws. */
  async open(): Promise<void> {
    try {
      await this.establish();
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        // The database is restarting: the client is told to come back (1013), as a 503 would.
        this.services.logger.warn(`Opening an event socket failed: database unavailable (${(error as Error).message})`);
        this.close(CloseCode.TryAgainLater, 'Database unavailable; reconnect shortly');
      } else {
        this.services.logger.error(`Opening an event socket failed: ${error instanceof Error ? error.stack : String(error)}`);
        this.close(CloseCode.InternalError, 'Internal error');
      }
    } finally {
      this.markOpened();
    }
  }

  /** Resolves once the socket is closed and the frames it sent have been handled. */
  async settled(): Promise<void> {
    await this.closed;
    await this.work;
  }

  close(code: number, reason: string): void {
    const shortReason = closeReason(reason);
    if (this.subscription) this.subscription.close(code, shortReason);
    else if (this.socket.readyState === WebSocket.OPEN) this.socket.close(code, shortReason);
  }

  private get isClosed(): boolean {
    return this.state === 'closed' || this.socket.readyState !== WebSocket.OPEN;
  }

  private async establish(): Promise<void> {
    const { query, issues } = parseConnectQuery(new URL(this.request.url ?? '/', 'ws://localhost').searchParams);
    const userId = await this.authenticate(query.sessionApiKey);
    if (this.isClosed) return;
    if (!userId) return this.close(CloseCode.Unauthorized, 'Unauthorized');

    const rawId = this.request.params?.conversation_id ?? '';
    const conversationId = normalizeUuid(rawId);
    if (!conversationId) return this.close(CloseCode.NotFound, `Conversation not found: ${rawId.slice(0, 64)}`);
    const owner = await this.services.owners.ownerOf(conversationId);
    if (this.isClosed) return;
    if (owner === null) return this.close(CloseCode.NotFound, `Conversation not found: ${conversationId}`);
    if (owner !== userId) return this.close(CloseCode.Forbidden, NOT_OWNER_DETAIL);
    if (issues.length > 0) return this.refuse(issues);

    let afterEventSeq: number | null = null;
    if (query.replay.kind === 'after-event') {
      afterEventSeq = await this.services.store.seqOf(conversationId, query.replay.eventId);
      if (afterEventSeq === null) {
        return this.refuse([{ loc: ['query', 'after_id'], msg: `Event not found: ${query.replay.eventId}`, type: 'value_error' }]);
      }
    }

    // The position is taken before the record is read, so every event committed after the record's
    // state is sent (a state change may arrive once more as its event, never be missed).
    const headSeq = await this.services.store.lastSeq(conversationId);
    const record = headSeq === null ? null : await this.services.conversations.getRecord(conversationId).catch(nullIfNotFound);
    if (this.isClosed) return;
    if (headSeq === null || record === null) return this.close(CloseCode.NotFound, `Conversation not found: ${conversationId}`);
    this.sendJson(buildEvent('ConversationStateUpdateEvent', { key: 'full_state', value: record }));

    const cursor = await this.startCursor(conversationId, query.replay, headSeq, afterEventSeq);
    if (this.isClosed) return;
    this.conversationId = conversationId;
    this.subscription = this.services.hub.subscribe(conversationId, new WebSocketSink(this.socket), cursor, cursor < headSeq);
    this.state = 'open';
  }

  /** The key from the query string, else the header, else the first frame (within the auth timeout). */
  private async authenticate(queryKey: string | null): Promise<string | null> {
    const header = this.request.headers[SESSION_KEY_HEADER];
    const key = queryKey ?? (Array.isArray(header) ? header[0] : header) ?? (await this.waitForAuthFrame());
    if (!key) return null;
    return this.services.sessionKeys.authenticate(key);
  }

  private waitForAuthFrame(): Promise<string | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(null), this.services.config.authTimeoutMs);
      const finish = (data: RawData | null) => {
        clearTimeout(timer);
        this.deliverAuthFrame = null;
        resolve(data === null ? null : (parseAuthFrame(data)?.sessionApiKey ?? null));
      };
      this.deliverAuthFrame = finish;
    });
  }

  /** The seq after which delivery starts: never past headSeq, so nothing committed after full_state is skipped. */
  private async startCursor(conversationId: string, replay: ReplayRequest, headSeq: number, afterEventSeq: number | null): Promise<number> {
    switch (replay.kind) {
      case 'none':
        return headSeq;
      case 'all':
        return -1;
      case 'after-event':
        return Math.min(afterEventSeq ?? headSeq, headSeq);
      case 'since': {
        const { rows } = await this.services.store.page(
          conversationId,
          { fromTime: replay.timestamp },
          { startSeq: 0, endSeq: null, reverse: false, limit: 1 },
        );
        return rows.length ? Math.min(rows[0].seq - 1, headSeq) : headSeq;
      }
    }
  }

  /** Invalid query parameters: the details as an error frame, then close. */
  private refuse(issues: ValidationIssue[]): void {
    this.sendJson({ type: 'error', detail: issues });
    this.close(CloseCode.InvalidRequest, 'Invalid query parameters');
  }

  private onFrame(data: RawData): void {
    if (this.deliverAuthFrame) return this.deliverAuthFrame(data);
    if (this.state === 'closed') return;
    if (this.pendingFrames >= MAX_PENDING_FRAMES) return this.close(CloseCode.PolicyViolation, 'Too many messages waiting');
    this.pendingFrames += 1;
    this.work = this.work
      .then(() => this.handleClientFrame(data))
      .catch((error: unknown) => this.services.logger.error(`Handling a client frame failed: ${String(error)}`))
      .finally(() => (this.pendingFrames -= 1));
  }

  private async handleClientFrame(data: RawData): Promise<void> {
    if (this.state !== 'open' || this.conversationId === null) return;
    const frame = await parseClientFrame(data);
    if ('issues' in frame) return this.sendJson({ type: 'error', detail: frame.issues });
    try {
      // The MessageEvent comes back to this socket through live delivery, like any other event.
      await this.services.events.sendMessage(this.conversationId, frame.message);
    } catch (error) {
      const { status, body } = errorResponse(error);
      if (status >= 500) {
        this.services.logger.error(`Sending a message from a socket failed: ${error instanceof Error ? error.stack : String(error)}`);
      }
      this.sendJson({ type: 'error', ...(body as Record<string, unknown>) });
    }
  }

  private sendJson(value: unknown): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(value));
  }

  private onSocketClosed(): void {
    this.state = 'closed';
    this.deliverAuthFrame?.(null);
    if (this.subscription) this.services.hub.unsubscribe(this.subscription);
  }
}

function nullIfNotFound(error: unknown): null {
  if (error instanceof NotFoundException) return null;
  throw error;
}

class WebSocketSink implements EventSink {
  constructor(private readonly socket: WebSocket) {}

  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  get bufferedAmount(): number {
    return this.socket.bufferedAmount;
  }

  send(data: Buffer, onWritten?: () => void): void {
    this.socket.send(data, { binary: false }, onWritten && (() => onWritten()));
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }
}

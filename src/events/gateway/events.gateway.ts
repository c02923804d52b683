import { WebSocketGateway, type OnGatewayConnection } from '@nestjs/websockets';
import type { WebSocket } from 'ws';
import { EventSocketsService } from './event-sockets.service.js';
import type { UpgradeRequest } from './path-ws-adapter.js';

export const EVENTS_SOCKET_PATH = '/sockets/events/:conversation_id';

/**
 * WebSocket /sockets/events/{conversation_id}: a conversation's events, live. The socket's protocol
 * lives in EventSocketSession; frames are read there rather than through @SubscribeMessage, because
 * clients send bare send-message bodies, not Nest's {event, data} envelopes.
 */
@WebSocketGateway({ path: EVENTS_SOCKET_PATH })
export class EventsGateway implements OnGatewayConnection {
  constructor(private readonly sockets: EventSocketsService) {}

  handleConnection(socket: WebSocket, request: UpgradeRequest): void {
    this.sockets.accept(socket, request);
  }
}

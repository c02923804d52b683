import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module.js';
import { ConversationsModule } from '../../conversations/conversations.module.js';
import { EventsModule } from '../events.module.js';
import { EventSocketsService } from './event-sockets.service.js';
import { EventsGateway } from './events.gateway.js';
import { LIVE_DELIVERY_CONFIG, loadLiveDeliveryConfig } from './live-delivery.config.js';
import { LiveEventHub } from './live-event-hub.service.js';

/** Live delivery of conversation events over WebSocket, consistent across instances (see LiveEventHub). */
@Module({
  imports: [AuthModule, EventsModule, ConversationsModule],
  providers: [
    { provide: LIVE_DELIVERY_CONFIG, useFactory: () => loadLiveDeliveryConfig() },
    LiveEventHub,
    EventSocketsService,
    EventsGateway,
  ],
})
export class LiveEventsModule {}

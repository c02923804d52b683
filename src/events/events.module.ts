import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module.js';
import { EventEntity } from './entities/event.entity.js';
import { ConversationRunnerHandle } from './conversation-runner.js';
import { EventAnnouncer } from './event-announcer.service.js';
import { EventStoreService } from './event-store.service.js';
import { EventsController } from './events.controller.js';
import { EventsService } from './events.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([EventEntity]), AuthModule],
  controllers: [EventsController],
  providers: [EventStoreService, EventsService, ConversationRunnerHandle, EventAnnouncer],
  exports: [EventStoreService, EventsService, ConversationRunnerHandle, EventAnnouncer],
})
export class EventsModule {}

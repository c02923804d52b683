import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionKeyEntity } from './entities/session-key.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { ConversationOwnerGuard } from './conversation-owner.guard.js';
import { ConversationOwners } from './conversation-owners.service.js';
import { SessionKeyGuard } from './session-key.guard.js';
import { SessionKeysService } from './session-keys.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, SessionKeyEntity])],
  providers: [SessionKeysService, ConversationOwnerGuard, ConversationOwners, { provide: APP_GUARD, useClass: SessionKeyGuard }],
  exports: [SessionKeysService, ConversationOwnerGuard, ConversationOwners],
})
export class AuthModule {}

import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiForbiddenResponse, ApiNotFoundResponse, ApiParam } from '@nestjs/swagger';
import { ConversationOwnerGuard } from './conversation-owner.guard.js';

/**
 * A route on one of the caller's conversations: the owner guard (422, 404, 403 in the contract's
 * order) and the documented `conversation_id` path parameter, so Swagger UI can fill it in.
 */
export const OwnConversation = (): ClassDecorator & MethodDecorator =>
  applyDecorators(
    UseGuards(ConversationOwnerGuard),
    ApiParam({ name: 'conversation_id', format: 'uuid', description: 'One of your conversations (a UUID, hyphenated or 32 hex digits)' }),
    ApiNotFoundResponse({ description: 'Conversation not found' }),
    ApiForbiddenResponse({ description: 'Not your conversation' }),
  );

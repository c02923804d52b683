import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { ConversationRequest } from './conversation-owner.guard.js';

/** The normalised id of the conversation the ConversationOwnerGuard let through. */
export const ConversationId = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const request = context.switchToHttp().getRequest<ConversationRequest>();
  return request.conversationAccess!.conversationId;
});

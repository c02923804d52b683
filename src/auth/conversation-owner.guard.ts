import {
  ForbiddenException,
  Injectable,
  NotFoundException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import type { Request } from 'express';
import { RequestValidationException } from '../common/validation/validation-issue.js';
import { normalizeUuid } from '../common/http/uuid.js';
import { ConversationOwners } from './conversation-owners.service.js';
import type { AuthenticatedRequest } from './current-user.decorator.js';

export interface ConversationAccess {
  conversationId: string;
  ownerId: string;
}

export type ConversationRequest = Request & AuthenticatedRequest & { conversationAccess?: ConversationAccess };

export const NOT_OWNER_DETAIL = 'Only the conversation owner may access it';

/**
 * Runs after the session-key guard on every /api/conversations/{conversation_id}/... route,
 * in the contract's order: 422 for a malformed id, 404 for an unknown conversation, 403 for another user's.
 */
@Injectable()
export class ConversationOwnerGuard implements CanActivate {
  constructor(private readonly owners: ConversationOwners) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ConversationRequest>();
    const raw = request.params.conversation_id;
    const conversationId = normalizeUuid(typeof raw === 'string' ? raw : '');
    if (!conversationId) {
      throw RequestValidationException.single(
        ['path', 'conversation_id'],
        'Input should be a valid UUID',
        'uuid_parsing',
      );
    }
    const ownerId = await this.owners.ownerOf(conversationId);
    if (ownerId === null) throw new NotFoundException({ detail: `Conversation not found: ${conversationId}` });
    if (ownerId !== request.userId) throw new ForbiddenException({ detail: NOT_OWNER_DETAIL });
    request.conversationAccess = { conversationId, ownerId };
    return true;
  }

}

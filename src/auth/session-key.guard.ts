import { Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type { AuthenticatedRequest } from './current-user.decorator.js';
import { IS_PUBLIC } from './public.decorator.js';
import { SESSION_KEY_HEADER } from './session-key.util.js';
import { SessionKeysService } from './session-keys.service.js';

/** Every HTTP route needs a known X-Session-API-Key unless marked @Public(): 401 otherwise. */
@Injectable()
export class SessionKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessionKeys: SessionKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    const header = request.headers[SESSION_KEY_HEADER];
    const userId = await this.sessionKeys.authenticate(Array.isArray(header) ? header[0] : header);
    if (!userId) throw new UnauthorizedException({ detail: 'Unauthorized' });
    request.userId = userId;
    return true;
  }
}

import { Injectable, type ExecutionContext } from '@nestjs/common';
import { ThrottlerException, ThrottlerGuard } from '@nestjs/throttler';
import type { ThrottlerLimitDetail } from '@nestjs/throttler';
import { hashSessionKey, SESSION_KEY_HEADER } from '../../auth/session-key.util.js';

/**
 * Requests per minute per caller: per session key when one is sent (several people behind one
 * address are not throttled together), per address otherwise. Operations routes are never throttled,
 * so load balancers keep seeing the instance.
 */
@Injectable()
export class SessionThrottlerGuard extends ThrottlerGuard {
  protected override async getTracker(req: Record<string, any>): Promise<string> {
    const key = req.headers?.[SESSION_KEY_HEADER];
    if (typeof key === 'string' && key) return `key:${hashSessionKey(key)}`;
    return `ip:${req.ip ?? req.socket?.remoteAddress ?? 'unknown'}`;
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const path: string = context.switchToHttp().getRequest().path ?? '';
    return !path.startsWith('/api/');
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw new ThrottlerException(`Rate limit exceeded: at most ${detail.limit} requests a minute; retry after ${detail.timeToBlockExpire} s`);
  }
}

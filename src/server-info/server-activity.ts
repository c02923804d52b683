import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';

/** Routes that watch the server rather than use it: they do not end idleness. */
const MONITORING_PATHS = new Set(['/', '/server_info', '/alive', '/health', '/ready']);

/** When the process started and when it last served a request. */
@Injectable()
export class ServerActivity implements NestInterceptor {
  private readonly startedAt = Date.now();
  private lastActiveAt = Date.now();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const path = context.getType() === 'http' ? context.switchToHttp().getRequest<{ path?: string }>().path : undefined;
    if (path === undefined || !MONITORING_PATHS.has(path)) this.lastActiveAt = Date.now();
    return next.handle();
  }

  uptimeSeconds(): number {
    return (Date.now() - this.startedAt) / 1000;
  }

  idleSeconds(): number {
    return (Date.now() - this.lastActiveAt) / 1000;
  }
}

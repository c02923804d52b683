import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { RequestValidationException } from '../common/validation/validation-issue.js';

/**
 * The global validation pipe reads an absent or `null` body as `{}`, which for settings would
 * silently reset every field to its default; this route wants a JSON object, as the reference does.
 */
@Injectable()
export class RequireObjectBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const body: unknown = context.switchToHttp().getRequest<Request>().body;
    if (body === undefined || body === null) {
      throw RequestValidationException.single(['body'], 'Field required', 'missing');
    }
    return next.handle();
  }
}

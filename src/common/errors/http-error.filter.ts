import { ArgumentsHost, Catch, HttpException, HttpStatus, Logger, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { isDatabaseUnavailable } from './database-unavailable.js';

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as BodyParserError).type === 'string'
    && typeof (error as BodyParserError).status === 'number';
}

/** Seconds a client is asked to wait before retrying while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

export interface ErrorResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The body every failure gets: the contract's status and `{"detail": ...}`, never a stack. */
export function errorResponse(error: unknown): ErrorResponse {
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    // Bodies built by this service pass through; Nest's own ({statusCode, message, error}) are reshaped.
    if (typeof response === 'object' && response !== null && ('detail' in response || !('statusCode' in response))) {
      return { status, body: response };
    }
    const message = typeof response === 'string' ? response : (response as { message?: unknown }).message;
    return { status, body: { detail: typeof message === 'string' ? message : error.message } };
  }
  if (isBodyParserError(error)) {
    if (error.type === 'entity.too.large') {
      return { status: HttpStatus.PAYLOAD_TOO_LARGE, body: { detail: `Request body is larger than ${error.limit} bytes` } };
    }
    if (error.type === 'entity.parse.failed') {
      return {
        status: HttpStatus.UNPROCESSABLE_ENTITY,
        body: { detail: [{ loc: ['body'], msg: 'JSON decode error: the body is not valid JSON', type: 'json_invalid' }] },
      };
    }
    if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
      return { status: HttpStatus.UNSUPPORTED_MEDIA_TYPE, body: { detail: 'Unsupported content encoding' } };
    }
  }
  // The database restarting or unreachable is not a bug: a retry shortly after succeeds.
  if (isDatabaseUnavailable(error)) {
    return {
      status: HttpStatus.SERVICE_UNAVAILABLE,
      body: { detail: 'Database unavailable; retry shortly' },
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    };
  }
  return { status: HttpStatus.INTERNAL_SERVER_ERROR, body: { detail: 'Internal Server Error' } };
}

@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpError');

  catch(error: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return;
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request & { id?: unknown }>();
    const { status, body, headers } = errorResponse(error);
    if (status >= 500 && (error instanceof HttpException || isDatabaseUnavailable(error))) {
      // Answered on purpose (/ready while the database is down) or a database restart: expected, so
      // one line without a stack; every request of an outage logs it.
      this.logger.warn({ requestId: request.id, err: { message: (error as Error).message } }, `${status} on ${request.method} ${request.path}`);
    } else if (status >= 500) {
      this.logger.error(
        { err: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error), requestId: request.id },
        `Unhandled error on ${request.method} ${request.path}`,
      );
    }
    if (response.headersSent) return;
    if (headers) response.set(headers);
    response.status(status).json(body);
  }
}

import type { Params } from 'nestjs-pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newUlid } from '../ids.js';
import type { AppConfig } from '../../config/app-config.js';

/** Paths pino redacts wherever they appear: secrets never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers["x-session-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.query.session_api_key',
  '*.api_key',
  '*.llm_api_key',
  '*.search_api_key',
  '*.sandbox_api_key',
  '*.session_api_key',
];

export function loggerOptions(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '**********' },
      genReqId: (req: IncomingMessage, res: ServerResponse) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : newUlid();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      // Successful requests at debug: an access log per request costs throughput at info.
      // 503 is a transient outage (database restarting, shutting down), already logged once as a warning.
      customLogLevel: (_req, res, error) =>
        res.statusCode === 503 ? 'warn' : error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : 'debug',
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url.replace(/session_api_key=[^&]*/g, 'session_api_key=**********'),
        }),
      },
    },
  };
}

import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import express, { type NextFunction, type Request, type Response } from 'express';
import { AppLogger } from './common/logging/app-logger.js';
import type { AppConfig } from './config/app-config.js';
import { errorResponse } from './common/errors/http-error.filter.js';
import { AppValidationPipe } from './common/validation/app-validation.pipe.js';
import { SESSION_KEY_HEADER } from './auth/session-key.util.js';
import { SessionKeysService } from './auth/session-keys.service.js';
import { PathWsAdapter } from './events/gateway/path-ws-adapter.js';

export const SESSION_KEY_SCHEME = 'X-Session-API-Key';

/** Everything main.ts and the tests share: body parsing, errors, validation, CORS, OpenAPI. */
export function configureApp(app: NestExpressApplication, config: AppConfig): void {
  app.useLogger(app.get(AppLogger));
  app.set('query parser', 'extended');
  app.disable('x-powered-by');
  // Our own JSON parser: any JSON value (null included) is accepted here and judged by the route,
  // and parse or size failures get the contract's bodies instead of Express's HTML page.
  app.use(express.json({ limit: config.maxBodyBytes, strict: false, type: ['application/json', 'application/*+json'] }));
  const sessionKeys = app.get(SessionKeysService);
  app.use(async (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!error) return next();
    // The contract checks the key first: a bad body from a caller without a valid key is a 401.
    if (req.path.startsWith('/api/') && !(await sessionKeys.authenticate(req.header(SESSION_KEY_HEADER)).catch(() => null))) {
      res.status(401).json({ detail: 'Unauthorized' });
      return;
    }
    const { status, body, headers } = errorResponse(error);
    if (headers) res.set(headers);
    res.status(status).json(body);
  });
  if (config.corsOrigins.length > 0) {
    app.enableCors({ origin: config.corsOrigins, allowedHeaders: ['Content-Type', SESSION_KEY_HEADER, 'Idempotency-Key'] });
  }
  app.useGlobalPipes(new AppValidationPipe());
  app.useWebSocketAdapter(new PathWsAdapter(app, { maxPayload: config.maxBodyBytes }));
  app.enableShutdownHooks();
  setUpOpenApi(app);
}

function setUpOpenApi(app: INestApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Agent Conversation Service')
      .setDescription(
        'Conversations between a user and an AI agent, recorded as append-only event logs. ' +
          'Authorize with your session key (X-Session-API-Key) to try every route.',
      )
      .setVersion('0.1.0')
      .addApiKey({ type: 'apiKey', in: 'header', name: SESSION_KEY_SCHEME }, SESSION_KEY_SCHEME)
      .addSecurityRequirements(SESSION_KEY_SCHEME)
      .build(),
  );
  for (const [path, operations] of Object.entries(document.paths)) {
    if (path.startsWith('/api/')) continue;
    for (const operation of Object.values(operations) as Array<{ security?: unknown[] }>) operation.security = [];
  }
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    swaggerOptions: { persistAuthorization: true },
  });
}

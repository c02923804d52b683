import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { configureApp } from './app.setup.js';
import type { AppConfig } from './config/app-config.js';
import { resolveDatabase, type ResolvedDatabase } from './database/database-url.js';
import { runMigrations } from './database/migrate.js';
import { waitForDatabase } from './database/wait-for-database.js';

export interface RunningService {
  app: NestExpressApplication;
  url: string;
  database: ResolvedDatabase;
  close(): Promise<void>;
}

/** Resolves the database (embedded when DATABASE_URL is unset), applies migrations, then serves. */
export async function startService(config: AppConfig): Promise<RunningService> {
  const database = await resolveDatabase(config);
  await waitForDatabase(database.url, 60_000, (line) => process.stderr.write(`${line}\n`));
  await runMigrations(database.url);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(config, database.url), {
    bodyParser: false,
    bufferLogs: true,
  });
  configureApp(app, config);
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return {
    app,
    url: `http://${host}:${port}`,
    database,
    close: async () => {
      await app.close();
      if (database.embedded?.owned) await database.embedded.stop();
    },
  };
}

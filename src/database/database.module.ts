import { Global, Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NotificationListener } from './notification-listener.js';
import { registerDatabaseEndpoint } from '../common/errors/database-unavailable.js';

import { DATABASE_URL } from './database.tokens.js';

export { DATABASE_URL };

/** DATABASE_QUERY_TIMEOUT_MS: the longest a query may take before the request fails with 503. */
function queryTimeoutMs(): number {
  return Number(process.env.DATABASE_QUERY_TIMEOUT_MS) || 30_000;
}

@Global()
@Module({})
export class DatabaseModule {
  /** The url is resolved (and migrations applied) before the application is built: see bootstrap. */
  static register(url: string): DynamicModule {
    // A refused connection to this endpoint answers 503 (the database is restarting), not 500.
    registerDatabaseEndpoint(url);
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url,
          autoLoadEntities: true,
          synchronize: false,
          migrationsRun: false,
          logging: false,
          extra: {
            max: Number(process.env.DATABASE_POOL_SIZE) || 20,
            connectionTimeoutMillis: 5_000,
            // A database that hangs (frozen host, lost network) must not hang requests with it.
            statement_timeout: queryTimeoutMs(),
            query_timeout: queryTimeoutMs() + 2_000,
          },
        }),
      ],
      // One LISTEN connection per process, shared by whoever needs notifications (live events, /ready).
      providers: [{ provide: DATABASE_URL, useValue: url }, NotificationListener],
      exports: [DATABASE_URL, NotificationListener],
    };
  }
}

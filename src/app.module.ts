import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { HttpErrorFilter } from './common/errors/http-error.filter.js';
import { LoggerModule } from 'nestjs-pino';
import type { AppConfig } from './config/app-config.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { AuthModule } from './auth/auth.module.js';
import { HealthModule } from './health/health.module.js';
import { SettingsModule } from './settings/settings.module.js';
import { ConversationsModule } from './conversations/conversations.module.js';
import { EventsModule } from './events/events.module.js';
import { LiveEventsModule } from './events/gateway/live-events.module.js';
import { AgentModule } from './agent/agent.module.js';
import { loggerOptions } from './common/logging/logger-options.js';
import { AppLogger } from './common/logging/app-logger.js';
import { RateLimitModule } from './common/rate-limit/rate-limit.module.js';
import { ServerInfoModule } from './server-info/server-info.module.js';
import { WorkspaceModule } from './workspace/workspace.module.js';

@Module({})
export class AppModule {
  static register(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.register(config),
        LoggerModule.forRoot(loggerOptions(config)),
        DatabaseModule.register(databaseUrl),
        AuthModule,
        RateLimitModule.register(config.rateLimitPerMinute),
        HealthModule,
        SettingsModule,
        EventsModule,
        ConversationsModule,
        AgentModule,
        LiveEventsModule,
        WorkspaceModule,
        ServerInfoModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: HttpErrorFilter }, AppLogger],
    };
  }
}

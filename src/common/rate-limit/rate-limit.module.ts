import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { SessionThrottlerGuard } from './session-throttler.guard.js';

/** 429 with Retry-After past `perMinute` requests a minute per caller; 0 turns limiting off. */
@Module({})
export class RateLimitModule {
  static register(perMinute: number): DynamicModule {
    if (perMinute <= 0) return { module: RateLimitModule };
    return {
      module: RateLimitModule,
      imports: [ThrottlerModule.forRoot([{ ttl: 60_000, limit: perMinute }])],
      providers: [{ provide: APP_GUARD, useClass: SessionThrottlerGuard }],
    };
  }
}

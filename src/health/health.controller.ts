import { Controller, Get, HttpCode, ServiceUnavailableException } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Public } from '../auth/public.decorator.js';
import { hasPendingMigrations } from '../database/migrate.js';
import { NotificationListener } from '../database/notification-listener.js';
import { HttpDrain } from './http-drain.service.js';

@ApiTags('Server')
@Public()
@Controller()
export class HealthController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly drain: HttpDrain,
    private readonly listener: NotificationListener,
  ) {}

  @Get('alive')
  @ApiOperation({ summary: 'The process is up' })
  alive(): { status: string } {
    return { status: 'ok' };
  }

  @Get('health')
  @ApiOperation({ summary: 'The process is up' })
  health(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HttpCode(200)
  @ApiOperation({ summary: 'The database answers and every migration is applied; 503 otherwise (and while shutting down)' })
  async ready(): Promise<{ status: string; database: string; migrations: string; live_events: string }> {
    // Shutting down: finishing what is in flight, taking nothing new. A load balancer stops routing here.
    if (this.drain.isDraining) throw new ServiceUnavailableException({ detail: 'Shutting down', status: 'unavailable' });
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      throw new ServiceUnavailableException({ detail: 'Database unavailable', status: 'unavailable' });
    }
    if (await hasPendingMigrations(this.dataSource).catch(() => true)) {
      throw new ServiceUnavailableException({ detail: 'Migrations pending', status: 'unavailable' });
    }
    // Live events reconnect by themselves and REST works without them: reported, not a reason for 503.
    return { status: 'ready', database: 'ok', migrations: 'applied', live_events: this.listener.connected ? 'listening' : 'reconnecting' };
  }
}

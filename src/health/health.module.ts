import { Module } from '@nestjs/common';
import { HealthController } from './health.controller.js';
import { HttpDrain } from './http-drain.service.js';

@Module({ controllers: [HealthController], providers: [HttpDrain] })
export class HealthModule {}

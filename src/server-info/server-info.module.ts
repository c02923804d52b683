import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { ServerActivity } from './server-activity.js';
import { ServerInfoController } from './server-info.controller.js';

@Module({
  controllers: [ServerInfoController],
  providers: [ServerActivity, { provide: APP_INTERCEPTOR, useExisting: ServerActivity }],
})
export class ServerInfoModule {}

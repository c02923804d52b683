import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SettingsEntity } from './entities/settings.entity.js';
import { SecretCipher } from './secret-cipher.js';
import { SettingsController } from './settings.controller.js';
import { SettingsRepository } from './settings.repository.js';
import { SettingsService } from './settings.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([SettingsEntity])],
  controllers: [SettingsController],
  providers: [
    SettingsService,
    SettingsRepository,
    { provide: SecretCipher, useFactory: (config: AppConfig) => new SecretCipher(config.secretsKey), inject: [APP_CONFIG] },
  ],
  exports: [SettingsService, SecretCipher],
})
export class SettingsModule {}

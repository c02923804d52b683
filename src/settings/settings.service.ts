import { Injectable, NotFoundException } from '@nestjs/common';
import type { SettingsUpdateDto } from './dto/settings.dto.js';
import { mergeSettings } from './settings-merge.js';
import { SettingsRepository } from './settings.repository.js';
import { toAgentSettings, toSettingsRecord } from './settings-views.js';
import type { AgentSettings, SettingsRecord } from './settings.types.js';

export const SETTINGS_NOT_FOUND = 'Settings not found';

@Injectable()
export class SettingsService {
  constructor(private readonly repository: SettingsRepository) {}

  /** The caller's record; 404 `{"error": "Settings not found"}` (the reference's body) before the first save. */
  async getRecord(userId: string): Promise<SettingsRecord> {
    const stored = await this.repository.find(userId);
    if (!stored) throw new NotFoundException({ error: SETTINGS_NOT_FOUND });
    return toSettingsRecord(stored);
  }

  async store(userId: string, update: SettingsUpdateDto): Promise<void> {
    await this.repository.update(userId, (current) => mergeSettings(current, update));
  }

  /**
   * The owner's effective settings for a run, secrets decrypted; null when the user never saved settings.
   * The result holds secrets: never serve it, log it or put it in an event.
   */
  async resolveForAgent(userId: string): Promise<AgentSettings | null> {
    const stored = await this.repository.find(userId);
    return stored ? toAgentSettings(stored) : null;
  }
}

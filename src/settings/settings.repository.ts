import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SettingsEntity } from './entities/settings.entity.js';
import { SecretCipher } from './secret-cipher.js';
import {
  DEFAULT_SETTINGS_VALUES,
  emptySettingsSecrets,
  type SettingsSecrets,
  type SettingsValues,
  type StoredSettings,
} from './settings.types.js';

/** Binds a ciphertext to its row: another user's ciphertext copied into this row does not decrypt. */
function cipherContext(userId: string): string {
  return `settings:${userId}`;
}

/** Loads and saves users' settings; the secrets are encrypted here, on their way to and from the table. */
@Injectable()
export class SettingsRepository {
  private readonly logger = new Logger(SettingsRepository.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cipher: SecretCipher,
  ) {}

  async find(userId: string): Promise<StoredSettings | null> {
    const row = await this.dataSource.getRepository(SettingsEntity).findOneBy({ userId });
    return row ? this.decode(row) : null;
  }

  /** Read, change and write under a row lock, so that concurrent saves each merge into the other's result. */
  async update(userId: string, change: (current: StoredSettings | null) => StoredSettings): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const settings = manager.getRepository(SettingsEntity);
      const row = await settings.findOne({ where: { userId }, lock: { mode: 'pessimistic_write' } });
      const next = change(row ? this.decode(row) : null);
      await settings.upsert(
        {
          userId,
          values: { ...next.values },
          secrets: this.cipher.encrypt(JSON.stringify(next.secrets), cipherContext(userId)),
          updatedAt: new Date(),
        },
        ['userId'],
      );
    });
  }

  private decode(row: SettingsEntity): StoredSettings {
    return { values: this.decodeValues(row.values), secrets: this.decodeSecrets(row) };
  }

  private decodeValues(stored: Partial<SettingsValues>): SettingsValues {
    const values = { ...DEFAULT_SETTINGS_VALUES } as Record<string, unknown>;
    for (const field of Object.keys(DEFAULT_SETTINGS_VALUES) as Array<keyof SettingsValues>) {
      if (stored[field] !== undefined) values[field] = stored[field];
    }
    return values as unknown as SettingsValues;
  }

  private decodeSecrets(row: SettingsEntity): SettingsSecrets {
    const empty = emptySettingsSecrets();
    if (!row.secrets) return empty;
    try {
      const stored = JSON.parse(this.cipher.decrypt(row.secrets, cipherContext(row.userId))) as Partial<SettingsSecrets>;
      return {
        ...empty,
        ...stored,
        secrets_store: { ...empty.secrets_store, ...stored.secrets_store },
      };
    } catch (error) {
      // Serving the rest of the settings beats failing every request: the user can enter the secrets again.
      this.logger.warn(
        `The stored secrets of user ${row.userId} cannot be decrypted (${(error as Error).name}); ` +
          'they are treated as unset. Was SECRETS_KEY changed?',
      );
      return empty;
    }
  }
}

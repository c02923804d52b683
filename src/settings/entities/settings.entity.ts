import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { SettingsValues } from '../settings.types.js';

/** One row per user who saved settings: plain values, and the secrets as one AES-256-GCM ciphertext. */
@Entity({ name: 'settings' })
export class SettingsEntity {
  @PrimaryColumn({ name: 'user_id', type: 'text' })
  userId: string;

  /** Rows written before a field existed lack it: read them through the defaults. */
  @Column({ type: 'jsonb', default: () => `'{}'` })
  values: Partial<SettingsValues>;

  /** See SecretCipher; never plain text. */
  @Column({ type: 'text', nullable: true })
  secrets: string | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt: Date;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An issued session key; only the SHA-256 of the key is stored. */
@Entity({ name: 'session_keys' })
export class SessionKeyEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ name: 'user_id', type: 'text' })
  userId: string;

  @Column({ name: 'key_hash', type: 'text' })
  keyHash: string;

  @Column({ type: 'text', nullable: true })
  label: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}

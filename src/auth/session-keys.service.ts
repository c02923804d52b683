import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, type Repository } from 'typeorm';
import { ulid } from 'ulid';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { SessionKeyEntity } from './entities/session-key.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { generateSessionKey, hashSessionKey, isValidUserId } from './session-key.util.js';

export interface IssuedKey {
  id: string;
  userId: string;
  key: string;
}

export interface SessionKeySummary {
  id: string;
  userId: string;
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** How long a looked-up key is trusted before the database is asked again (revocation delay). */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;
const BOOTSTRAP_LOCK_KEY = 727_100_002;

@Injectable()
export class SessionKeysService implements OnApplicationBootstrap {
  private readonly logger = new Logger(SessionKeysService.name);
  private readonly operatorKeys = new Map<string, string>();
  private readonly cache = new Map<string, { userId: string | null; expiresAt: number }>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    for (const { user, key } of config.sessionApiKeys) this.operatorKeys.set(hashSessionKey(key), user);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureUsers([...new Set(this.operatorKeys.values())]);
    if (this.operatorKeys.size > 0) return;
    const issued = await this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK_KEY]);
      const active = await manager.getRepository(SessionKeyEntity).count({ where: { revokedAt: IsNull() } });
      if (active > 0) return null;
      return this.issue('admin', 'first start', manager.getRepository(SessionKeyEntity), manager.getRepository(UserEntity));
    });
    if (issued) {
      // Printed once to the terminal, deliberately not through the logger: it is the only copy.
      process.stdout.write(
        `\nNo session key existed, so one was created for user "admin" (shown only now, store it):\n\n  ${issued.key}\n\n` +
          `Send it as the X-Session-API-Key header. Manage keys with: npm run keys -- create|list|revoke\n\n`,
      );
    }
  }

  /** The user a key belongs to, or null for an unknown or revoked key. */
  async authenticate(key: string | undefined | null): Promise<string | null> {
    if (!key || key.length > 512) return null;
    const hash = hashSessionKey(key);
    const operatorUser = this.operatorKeys.get(hash);
    if (operatorUser) return operatorUser;
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > now) return cached.userId;
    const rows: Array<{ user_id: string }> = await this.dataSource.query(
      'SELECT user_id FROM session_keys WHERE key_hash = $1 AND revoked_at IS NULL',
      [hash],
    );
    const userId = rows[0]?.user_id ?? null;
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
    this.cache.set(hash, { userId, expiresAt: now + CACHE_TTL_MS });
    return userId;
  }

  async create(userId: string, label: string | null = null): Promise<IssuedKey> {
    if (!isValidUserId(userId)) throw new Error('A user name uses 1 to 64 letters, digits or _.@-');
    return this.dataSource.transaction((manager) =>
      this.issue(userId, label, manager.getRepository(SessionKeyEntity), manager.getRepository(UserEntity)),
    );
  }

  async list(): Promise<SessionKeySummary[]> {
    const keys = await this.dataSource.getRepository(SessionKeyEntity).find({ order: { createdAt: 'ASC' } });
    return keys.map(({ id, userId, label, createdAt, revokedAt }) => ({ id, userId, label, createdAt, revokedAt }));
  }

  async revoke(id: string): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(SessionKeyEntity)
      .update({ id, revokedAt: IsNull() }, { revokedAt: new Date() });
    this.cache.clear();
    return (result.affected ?? 0) > 0;
  }

  async ensureUsers(userIds: string[]): Promise<void> {
    if (userIds.length === 0) return;
    await this.dataSource.query(
      'INSERT INTO users (id) SELECT unnest($1::text[]) ON CONFLICT (id) DO NOTHING',
      [userIds],
    );
  }

  private async issue(
    userId: string,
    label: string | null,
    keys: Repository<SessionKeyEntity>,
    users: Repository<UserEntity>,
  ): Promise<IssuedKey> {
    await users.createQueryBuilder().insert().values({ id: userId }).orIgnore().execute();
    const key = generateSessionKey();
    const id = ulid();
    await keys.insert({ id, userId, keyHash: hashSessionKey(key), label, revokedAt: null });
    this.logger.log(`Issued session key ${id} for user ${userId}`);
    return { id, userId, key };
  }
}

import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { hashSessionKey } from './session-key.util.js';
import {
  countActiveSessionKeys,
  issueSessionKey,
  listSessionKeys,
  revokeSessionKey,
  type IssuedKey,
  type SessionKeySummary,
} from './session-key.store.js';

export type { IssuedKey, SessionKeySummary } from './session-key.store.js';

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
      if ((await countActiveSessionKeys(manager)) > 0) return null;
      return issueSessionKey(manager, 'admin', 'first start');
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
    const issued = await this.dataSource.transaction((manager) => issueSessionKey(manager, userId, label));
    this.logger.log(`Issued session key ${issued.id} for user ${userId}`);
    return issued;
  }

  async list(): Promise<SessionKeySummary[]> {
    return listSessionKeys(this.dataSource.manager);
  }

  /** True when the key was active. Other processes notice within CACHE_TTL_MS. */
  async revoke(id: string): Promise<boolean> {
    const outcome = await revokeSessionKey(this.dataSource.manager, id);
    this.cache.clear();
    return outcome === 'revoked';
  }

  async ensureUsers(userIds: string[]): Promise<void> {
    if (userIds.length === 0) return;
    await this.dataSource.query(
      'INSERT INTO users (id) SELECT unnest($1::text[]) ON CONFLICT (id) DO NOTHING',
      [userIds],
    );
  }
}

import { IsNull, type EntityManager } from 'typeorm';
import { newUlid } from '../common/ids.js';
import { SessionKeyEntity } from './entities/session-key.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { generateSessionKey, hashSessionKey, isValidUserId } from './session-key.util.js';

/**
 * The session_keys table operations shared by SessionKeysService (inside the service)
 * and the keys CLI (outside it, on its own DataSource).
 */

export interface IssuedKey {
  id: string;
  userId: string;
  /** The only copy of the key: the table keeps its hash. */
  key: string;
}

export interface SessionKeySummary {
  id: string;
  userId: string;
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export class InvalidUserIdError extends Error {
  constructor() {
    super('A user name uses 1 to 64 letters, digits or _.@-');
  }
}

/** Creates the user if needed and a new key for it. */
export async function issueSessionKey(manager: EntityManager, userId: string, label: string | null): Promise<IssuedKey> {
  if (!isValidUserId(userId)) throw new InvalidUserIdError();
  await manager.getRepository(UserEntity).createQueryBuilder().insert().values({ id: userId }).orIgnore().execute();
  const key = generateSessionKey();
  const id = newUlid();
  await manager.getRepository(SessionKeyEntity).insert({ id, userId, keyHash: hashSessionKey(key), label, revokedAt: null });
  return { id, userId, key };
}

export async function listSessionKeys(manager: EntityManager): Promise<SessionKeySummary[]> {
  const keys = await manager.getRepository(SessionKeyEntity).find({ order: { createdAt: 'ASC', id: 'ASC' } });
  return keys.map(({ id, userId, label, createdAt, revokedAt }) => ({ id, userId, label, createdAt, revokedAt }));
}

export type RevokeOutcome = 'revoked' | 'already-revoked' | 'not-found';

export async function revokeSessionKey(manager: EntityManager, id: string): Promise<RevokeOutcome> {
  const keys = manager.getRepository(SessionKeyEntity);
  const result = await keys.update({ id, revokedAt: IsNull() }, { revokedAt: new Date() });
  if ((result.affected ?? 0) > 0) return 'revoked';
  return (await keys.existsBy({ id })) ? 'already-revoked' : 'not-found';
}

export async function countActiveSessionKeys(manager: EntityManager): Promise<number> {
  return manager.getRepository(SessionKeyEntity).count({ where: { revokedAt: IsNull() } });
}

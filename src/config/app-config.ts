import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { isAbsolute, join, resolve } from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface AppConfig {
  host: string;
  port: number;
  /** Absent: the service runs an embedded PostgreSQL under dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  embeddedPostgresPort: number;
  /** Operator keys from SESSION_API_KEYS as [user, key] pairs. */
  sessionApiKeys: Array<{ user: string; key: string }>;
  /** 32 bytes for AES-256-GCM. */
  secretsKey: Buffer;
  workspaceRoot: string;
  logLevel: LogLevel;
  maxBodyBytes: number;
  corsOrigins: string[];
  rateLimitPerMinute: number;
  instanceId: string;
}

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function parseSessionKeys(raw: string | undefined): Array<{ user: string; key: string }> {
  if (!raw) return [];
  return raw
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const colon = pair.indexOf(':');
      const user = colon > 0 ? pair.slice(0, colon).trim() : '';
      const key = colon > 0 ? pair.slice(colon + 1).trim() : '';
      if (!user || !key) {
        throw new ConfigError('SESSION_API_KEYS must be comma-separated user:key pairs');
      }
      if (!/^[A-Za-z0-9_.@-]{1,64}$/.test(user)) {
        throw new ConfigError(`SESSION_API_KEYS: user names use letters, digits and _.@- (got "${user}")`);
      }
      if (key.length < 16) throw new ConfigError(`SESSION_API_KEYS: the key of user "${user}" is shorter than 16 characters`);
      return { user, key };
    });
}

/** SECRETS_KEY as 64 hex digits or base64 of 32 bytes; absent: generated once and kept under dataDir. */
function loadSecretsKey(raw: string | undefined, dataDir: string): Buffer {
  if (raw) {
    const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
    if (key.length !== 32) throw new ConfigError('SECRETS_KEY must be 32 bytes: 64 hex digits or base64');
    return key;
  }
  const file = join(dataDir, 'secrets.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex'), { mode: 0o600 });
  return key;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const dataDir = resolve(env.DATA_DIR || '.data');
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const workspaceRoot = env.WORKSPACE_ROOT || join(dataDir, 'workspaces');
  return {
    host: env.HOST || '127.0.0.1',
    port: integer(env, 'PORT', 3000, 0, 65535),
    databaseUrl,
    dataDir,
    embeddedPostgresPort: integer(env, 'EMBEDDED_PG_PORT', 54329, 1024, 65535),
    sessionApiKeys: parseSessionKeys(env.SESSION_API_KEYS),
    secretsKey: loadSecretsKey(env.SECRETS_KEY, dataDir),
    workspaceRoot: isAbsolute(workspaceRoot) ? workspaceRoot : resolve(workspaceRoot),
    logLevel,
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    corsOrigins: (env.CORS_ORIGINS || '').split(',').map((o) => o.trim()).filter(Boolean),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 6000, 0, 10_000_000),
    instanceId: env.INSTANCE_ID || `${process.pid}-${randomBytes(3).toString('hex')}`,
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');

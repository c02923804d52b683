import pg from 'pg';
import { randomBytes } from 'node:crypto';

export function adminDatabaseUrl(): string {
  const url = process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!url) throw new Error('No test database server: run the tests through jest (global setup) or set DATABASE_URL');
  return url;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A new, empty database on the test server; each suite gets its own. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `acs_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminDatabaseUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: withDatabase(adminDatabaseUrl(), name),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminDatabaseUrl() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await client.end();
    },
  };
}

/** Direct SQL on a test database, for assertions the API cannot make (what is stored at rest). */
export async function queryDatabase<T = Record<string, unknown>>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

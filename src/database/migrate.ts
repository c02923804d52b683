import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';

/** Arbitrary constant: the advisory lock that serialises migrations across instances. */
const MIGRATION_LOCK_KEY = 727_100_001;

/**
 * Applies pending migrations. Several instances may start at once against one
 * database, so the run holds an advisory lock on its single connection.
 */
export async function runMigrations(url: string): Promise<string[]> {
  const dataSource = new DataSource({
    type: 'postgres',
    url,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    extra: { max: 1 },
    logging: false,
  });
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await dataSource.destroy();
  }
}

export async function hasPendingMigrations(dataSource: DataSource): Promise<boolean> {
  const rows: Array<{ name: string }> = await dataSource.query('SELECT name FROM migrations');
  const applied = new Set(rows.map((row) => row.name));
  return MIGRATIONS.some((migration) => !applied.has(migration.name));
}

import type { AppConfig } from '../config/app-config.js';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './embedded-postgres.js';

export interface ResolvedDatabase {
  url: string;
  embedded: EmbeddedPostgresHandle | null;
}

/** DATABASE_URL when set; otherwise the embedded server under DATA_DIR. */
export async function resolveDatabase(config: AppConfig, log?: (line: string) => void): Promise<ResolvedDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: null };
  const embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort, log);
  return { url: embedded.url, embedded };
}

// The PostgreSQL server the e2e suites create their databases on: DATABASE_URL when set
// (CI: the server on 127.0.0.1:5432), otherwise an embedded one, as a fresh machine has.
// Plain ESM importing the build: jest loads global setup outside its transform, and e2e needs the build anyway.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default async function globalSetup() {
  if (process.env.DATABASE_URL) {
    process.env.TEST_ADMIN_DATABASE_URL = process.env.DATABASE_URL;
    return;
  }
  const { startEmbeddedPostgres } = await import('../../dist/src/database/embedded-postgres.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'acs-test-pg-'));
  const port = 55000 + Math.floor(Math.random() * 5000);
  const embedded = await startEmbeddedPostgres(dataDir, port);
  process.env.TEST_ADMIN_DATABASE_URL = embedded.url;
  globalThis.__embeddedPostgres = embedded;
}

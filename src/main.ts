import 'reflect-metadata';
import { ConfigError, loadConfig } from './config/app-config.js';
import { startService } from './bootstrap.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const service = await startService(config);
  const where = service.database.embedded ? `embedded PostgreSQL under ${config.dataDir}` : 'PostgreSQL at DATABASE_URL';
  process.stdout.write(
    `Agent conversation service listening on ${service.url}\n` +
      `  API docs (Swagger UI): ${service.url}/docs\n` +
      `  Database: ${where}\n`,
  );
  // Tests and supervisors read this line to know the service is ready.
  process.stdout.write(`READY ${service.url}\n`);
}

// A failure in background work is logged; it must not take every conversation down with it.
process.on('unhandledRejection', (reason) => {
  process.stderr.write(`Unhandled rejection: ${reason instanceof Error ? reason.message : String(reason)}\n`);
});

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`Failed to start: ${message}\n`);
  process.exit(1);
});

import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DataSource, type EntityManager } from 'typeorm';
import { ConfigError, loadConfig } from '../config/app-config.js';
import { resolveDatabase } from '../database/database-url.js';
import { runMigrations } from '../database/migrate.js';
import { SessionKeyEntity } from './entities/session-key.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { isValidUserId } from './session-key.util.js';
import { issueSessionKey, listSessionKeys, revokeSessionKey } from './session-key.store.js';

const USAGE = `Manage session keys (the X-Session-API-Key values) of the agent conversation service.

Usage:
  npm run keys -- create <user> [--label <text>]   issue a key for <user> (created if new); the key is printed once
  npm run keys -- list [--json]                    show every key: id, user, label, created, revoked (never the key)
  npm run keys -- revoke <id>                      revoke a key; running services refuse it within 5 seconds

The database is DATABASE_URL when set, otherwise the embedded PostgreSQL under DATA_DIR (default .data),
exactly as the service finds it.
`;

const MAX_LABEL_LENGTH = 200;

type Command =
  | { name: 'create'; user: string; label: string | null }
  | { name: 'list'; json: boolean }
  | { name: 'revoke'; id: string }
  | { name: 'help' };

class UsageError extends Error {}

function parseCommand(argv: string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { label: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [name, ...operands] = positionals;
  if (values.help || name === 'help') return { name: 'help' };
  const refuse = (option: 'label' | 'json', allowedIn: string) => {
    if (values[option] !== undefined && name !== allowedIn) throw new UsageError(`--${option} only goes with ${allowedIn}`);
  };
  refuse('label', 'create');
  refuse('json', 'list');
  switch (name) {
    case 'create': {
      if (operands.length !== 1) throw new UsageError('create takes exactly one user name');
      const [user] = operands;
      if (!isValidUserId(user)) throw new UsageError(`"${user}" is not a user name: use 1 to 64 letters, digits or _.@-`);
      const label = values.label?.trim() || null;
      if (label && label.length > MAX_LABEL_LENGTH) throw new UsageError(`--label is longer than ${MAX_LABEL_LENGTH} characters`);
      return { name: 'create', user, label };
    }
    case 'list':
      if (operands.length !== 0) throw new UsageError('list takes no argument');
      return { name: 'list', json: values.json ?? false };
    case 'revoke':
      if (operands.length !== 1 || !operands[0]) throw new UsageError('revoke takes exactly one key id (see list)');
      return { name: 'revoke', id: operands[0] };
    case undefined:
      throw new UsageError('a command is required');
    default:
      throw new UsageError(`unknown command "${name}"`);
  }
}

function formatTable(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()).join('\n') + '\n';
}

/** Runs one command; returns the process exit code. */
async function execute(command: Exclude<Command, { name: 'help' }>, dataSource: DataSource): Promise<number> {
  switch (command.name) {
    case 'create': {
      const issued = await dataSource.transaction((manager: EntityManager) =>
        issueSessionKey(manager, command.user, command.label),
      );
      // The explanation goes to stderr so that `$(npm run -s keys -- create alice)` captures only the key.
      process.stderr.write(
        `Session key ${issued.id} created for user "${issued.userId}". It is shown only now; store it:\n`,
      );
      process.stdout.write(`${issued.key}\n`);
      return 0;
    }
    case 'list': {
      const keys = await listSessionKeys(dataSource.manager);
      if (command.json) {
        const rows = keys.map((key) => ({
          id: key.id,
          user: key.userId,
          label: key.label,
          created_at: key.createdAt.toISOString(),
          revoked_at: key.revokedAt?.toISOString() ?? null,
        }));
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      } else if (keys.length === 0) {
        process.stdout.write('No session keys.\n');
      } else {
        const header = ['ID', 'USER', 'LABEL', 'CREATED', 'REVOKED'];
        const rows = keys.map((key) => [
          key.id,
          key.userId,
          key.label ?? '-',
          key.createdAt.toISOString(),
          key.revokedAt?.toISOString() ?? '-',
        ]);
        process.stdout.write(formatTable([header, ...rows]));
      }
      return 0;
    }
    case 'revoke': {
      const outcome = await revokeSessionKey(dataSource.manager, command.id);
      if (outcome === 'not-found') {
        process.stderr.write(`No session key has the id "${command.id}" (see: npm run keys -- list).\n`);
        return 1;
      }
      process.stdout.write(
        outcome === 'revoked'
          ? `Revoked session key ${command.id}; running services refuse it within 5 seconds.\n`
          : `Session key ${command.id} was already revoked.\n`,
      );
      return 0;
    }
  }
}

async function main(argv: string[]): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`Error: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (command.name === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Configuration error: ${error.message}\n`);
    return 2;
  }
  const database = await resolveDatabase(config);
  try {
    await runMigrations(database.url);
    const dataSource = new DataSource({
      type: 'postgres',
      url: database.url,
      entities: [UserEntity, SessionKeyEntity],
      extra: { max: 1 },
      logging: false,
    });
    await dataSource.initialize();
    try {
      return await execute(command, dataSource);
    } finally {
      await dataSource.destroy();
    }
  } finally {
    if (database.embedded?.owned) await database.embedded.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);

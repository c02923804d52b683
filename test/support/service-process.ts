import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const MAIN_SCRIPT = join(ROOT, 'dist/src/main.js');

export const ALICE_KEY = 'alice-session-key-0123456789';
export const BOB_KEY = 'bob-session-key-0123456789ab';
export const CAROL_KEY = 'carol-session-key-0123456789a';
export const TEST_SESSION_KEYS = `alice:${ALICE_KEY},bob:${BOB_KEY},carol:${CAROL_KEY}`;
export const TEST_SECRETS_KEY = '0'.repeat(63) + '1';

export interface ServiceProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process printed, for diagnosing a failure. */
  output(): string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export interface ServiceOptions {
  databaseUrl?: string;
  env?: Record<string, string | undefined>;
  port?: number;
  timeoutMs?: number;
}

/** Runs the built service (dist/src/main.js) as its own process, as a user would. */
export async function startServiceProcess(options: ServiceOptions = {}): Promise<ServiceProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'acs-service-'));
  const env: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: 'test',
    PORT: String(options.port ?? 0),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    WORKSPACE_ROOT: join(dataDir, 'workspaces'),
    SESSION_API_KEYS: TEST_SESSION_KEYS,
    SECRETS_KEY: TEST_SECRETS_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    // Suites send bursts from one key; the rate-limit suite turns limiting on for itself.
    RATE_LIMIT_PER_MINUTE: '0',
    DATABASE_URL: options.databaseUrl,
    ...options.env,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const child = spawn(process.execPath, ['--enable-source-maps', MAIN_SCRIPT], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in time:\n${output}`)), options.timeoutMs ?? 30_000);
    const onData = () => {
      const match = /READY (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with code ${code}:\n${output}`));
    });
  });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  const stopWith = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await exited;
  };
  return {
    url,
    port: Number(new URL(url).port),
    child,
    output: () => output,
    stop: () => stopWith('SIGTERM'),
    kill: () => stopWith('SIGKILL'),
  };
}

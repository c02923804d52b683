import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, queryDatabase } from '../support/test-database.js';
import { HttpClient } from '../support/http-client.js';
import { startServiceProcess, TEST_SECRETS_KEY, type ServiceProcess } from '../support/service-process.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI_SCRIPT = join(ROOT, 'dist/src/auth/keys.cli.js');
const KEY_PATTERN = /^sk-acs-[A-Za-z0-9_-]{43}$/;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('keys CLI (node dist/src/auth/keys.cli.js)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let http: HttpClient;

  /** Runs the built CLI as an operator would, against the suite's database. */
  function runCli(args: string[]): Promise<CliResult> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: database.url,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'acs-keys-cli-')),
      SECRETS_KEY: TEST_SECRETS_KEY,
    };
    delete env.SESSION_API_KEYS;
    return new Promise((resolvePromise, reject) => {
      const child = spawn(process.execPath, [CLI_SCRIPT, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolvePromise({ code, stdout, stderr }));
    });
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startServiceProcess({ databaseUrl: database.url });
    http = new HttpClient(service.url);
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  let issuedId: string;
  let issuedKey: string;

  it('create prints a new key once; it authenticates against the running service', async () => {
    const result = await runCli(['create', 'erin', '--label', 'laptop of erin']);
    expect(result).toMatchObject({ code: 0 });
    // stdout is the key alone, so a script can capture it; the explanation is on stderr.
    issuedKey = result.stdout.trim();
    expect(issuedKey).toMatch(KEY_PATTERN);
    issuedId = /Session key (\S+) created for user "erin"/.exec(result.stderr)![1];
    expect(result.stderr).toMatch(/shown only now/);

    const settings = await http.get('/api/settings', { key: issuedKey });
    expect(settings.status).toBe(404);
    expect(settings.body).toEqual({ error: 'Settings not found' });
    const stored = await http.post('/api/settings', { key: issuedKey, body: { language: 'en' } });
    expect(stored.status).toBe(200);
  });

  it('list shows id, user, label, creation and revocation, never the key or its hash', async () => {
    const [{ key_hash: hash }] = await queryDatabase<{ key_hash: string }>(
      database.url,
      'SELECT key_hash FROM session_keys WHERE id = $1',
      [issuedId],
    );
    const table = await runCli(['list']);
    expect(table.code).toBe(0);
    const [header, ...lines] = table.stdout.trim().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['ID', 'USER', 'LABEL', 'CREATED', 'REVOKED']);
    const line = lines.find((text) => text.startsWith(issuedId))!;
    expect(line).toMatch(/erin\s+laptop of erin\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+-$/);

    const json = await runCli(['list', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      { id: issuedId, user: 'erin', label: 'laptop of erin', created_at: expect.stringMatching(/Z$/), revoked_at: null },
    ]);
    for (const output of [table, json]) {
      expect(output.stdout + output.stderr).not.toContain(issuedKey);
      expect(output.stdout + output.stderr).not.toContain(hash);
    }
  });

  it('revoke stops the key within the cache TTL of the running service', async () => {
    // Warm the service's cache so that the revocation has to outlive it.
    expect((await http.get('/api/settings', { key: issuedKey })).status).toBe(200);
    const result = await runCli(['revoke', issuedId]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(issuedId);
    const revokedAt = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - revokedAt < 6_000) {
      await new Promise((wait) => setTimeout(wait, 250));
      status = (await http.get('/api/settings', { key: issuedKey })).status;
    }
    expect(status).toBe(401);

    const listed = JSON.parse((await runCli(['list', '--json'])).stdout);
    expect(listed[0].revoked_at).toMatch(/Z$/);
  });

  it('revoking again says so; an unknown id exits 1 with a message', async () => {
    const again = await runCli(['revoke', issuedId]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already revoked/);
    const unknown = await runCli(['revoke', '01HZZZZZZZZZZZZZZZZZZZZZZZ']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No session key has the id "01HZZZZZZZZZZZZZZZZZZZZZZZ"/);
  });

  it.each([
    [[]],
    [['frobnicate']],
    [['create']],
    [['create', 'a', 'b']],
    [['create', 'not a user!']],
    [['create', 'erin', '--colour', 'red']],
    [['list', 'extra']],
    [['list', '--label', 'x']],
    [['revoke']],
  ])('bad usage %j prints the help and exits 2', async (args) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Error: /);
    expect(result.stderr).toContain('npm run keys -- create <user>');
  });

  it('--help prints the help and exits 0', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('npm run keys -- revoke <id>');
  });
});

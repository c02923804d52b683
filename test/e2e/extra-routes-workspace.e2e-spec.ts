// The reference's workspace routes: file upload and download, bash execution; each confined to the
// caller's WORKSPACE_ROOT/<user>/, over HTTP against a real service process.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, BOB_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase } from '../support/test-database.js';

const MAX_UPLOAD_BYTES = 64 * 1024;
const MAX_OUTPUT_CHARS = 2_000;

/** Alive and not a zombie (a killed process whose parent died may wait to be reaped by PID 1). */
function isRunning(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

describe('workspace routes: /api/file/upload, /api/file/download, /api/bash/execute_bash_command', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let anonymous: HttpClient;
  let alice: HttpClient;
  let bob: HttpClient;
  /** WORKSPACE_ROOT/alice and WORKSPACE_ROOT/bob. */
  let aliceRoot: string;
  let bobRoot: string;
  /** A directory outside every workspace root. */
  let outside: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startServiceProcess({
      databaseUrl: database.url,
      env: { MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES), BASH_MAX_OUTPUT_CHARS: String(MAX_OUTPUT_CHARS) },
    });
    anonymous = new HttpClient(service.url);
    alice = anonymous.withKey(ALICE_KEY);
    bob = anonymous.withKey(BOB_KEY);
    const created = await alice.post('/api/conversations', { body: {} });
    aliceRoot = dirname(created.body.workspace.working_dir);
    bobRoot = join(dirname(aliceRoot), 'bob');
    mkdirSync(bobRoot, { recursive: true });
    writeFileSync(join(bobRoot, 'private.txt'), 'bob-private-content');
    outside = mkdtempSync(join(tmpdir(), 'acs-outside-'));
    writeFileSync(join(outside, 'host-secret.txt'), 'host-secret-content');
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    if (outside) rmSync(outside, { recursive: true, force: true });
  });

  /** A multipart upload as the reference's clients send it (fetch + FormData, field "file"). */
  async function upload(path: string, content: Buffer | string, options: { key?: string | null; field?: string } = {}) {
    const form = new FormData();
    form.append(options.field ?? 'file', new Blob([content]), 'upload.bin');
    const key = options.key === undefined ? ALICE_KEY : options.key;
    const response = await fetch(new URL(path, service.url), { method: 'POST', body: form, headers: key ? { 'X-Session-API-Key': key } : {} });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  async function download(path: string, key: string | null = ALICE_KEY) {
    const response = await fetch(new URL(path, service.url), { headers: key ? { 'X-Session-API-Key': key } : {} });
    const bytes = Buffer.from(await response.arrayBuffer());
    let body: any;
    try {
      body = JSON.parse(bytes.toString('utf8'));
    } catch {
      body = undefined;
    }
    return { status: response.status, bytes, body, headers: response.headers };
  }

  const q = (path: string) => `?path=${encodeURIComponent(path)}`;

  function temporaryLeftovers(directory: string): string[] {
    return readdirSync(directory, { recursive: true }).map(String).filter((name) => name.includes('.upload-'));
  }

  describe('upload and download', () => {
    it('round-trips bytes through ?path= and the reference\'s /{path} form, absolute or relative', async () => {
      const bytes = randomBytes(20_000);
      expect(await upload(`/api/file/upload${q(`${aliceRoot}/deep/dir/data.bin`)}`, bytes)).toEqual({ status: 200, body: { success: true } });
      expect(readFileSync(join(aliceRoot, 'deep/dir/data.bin')).equals(bytes)).toBe(true);

      const viaQuery = await download(`/api/file/download${q(`${aliceRoot}/deep/dir/data.bin`)}`);
      expect(viaQuery.status).toBe(200);
      expect(viaQuery.bytes.equals(bytes)).toBe(true);
      expect(viaQuery.headers.get('content-disposition')).toContain('data.bin');
      expect(viaQuery.headers.get('content-length')).toBe('20000');
      const viaPath = await download(`/api/file/download/${aliceRoot}/deep/dir/data.bin`); // aliceRoot starts with "/"
      expect(viaPath.bytes.equals(bytes)).toBe(true);

      expect((await upload(`/api/file/upload/${aliceRoot}/notes.txt`, 'first')).status).toBe(200);
      expect((await upload('/api/file/upload/notes.txt', 'second, relative to the root')).status).toBe(200);
      expect(readFileSync(join(aliceRoot, 'notes.txt'), 'utf8')).toBe('second, relative to the root');
      expect((await download(`/api/file/download${q('notes.txt')}`)).bytes.toString()).toBe('second, relative to the root');
      expect(temporaryLeftovers(aliceRoot)).toEqual([]);
    });

    it('401 without a key, before reading anything', async () => {
      expect((await upload(`/api/file/upload${q('x.txt')}`, 'x', { key: null })).status).toBe(401);
      expect((await download(`/api/file/download${q('notes.txt')}`, null)).status).toBe(401);
      expect(existsSync(join(aliceRoot, 'x.txt'))).toBe(false);
    });

    it.each([
      ['a relative ../ escape', () => '../bob/private.txt'],
      ['an absolute path outside', () => join(outside, 'host-secret.txt')],
      ['another user\'s root', () => join(bobRoot, 'private.txt')],
      ['/etc/passwd', () => '/etc/passwd'],
      ['a ../ inside an absolute path', () => `${aliceRoot}/../bob/private.txt`],
    ])('403 for %s, reading and writing', async (_name, path) => {
      const read = await download(`/api/file/download${q(path())}`);
      expect(read.status).toBe(403);
      expect(read.body.detail).toMatch(/outside your workspace root/);
      expect(read.bytes.toString()).not.toMatch(/private-content|host-secret-content|root:/);
      expect((await upload(`/api/file/upload${q(path())}`, 'overwritten')).status).toBe(403);
    });

    it('403 through symbolic links that point out of the root, for files and directories', async () => {
      symlinkSync(join(outside, 'host-secret.txt'), join(aliceRoot, 'file-link'));
      symlinkSync(outside, join(aliceRoot, 'dir-link'));
      symlinkSync(join(outside, 'not-yet'), join(aliceRoot, 'dangling-link'));
      for (const path of ['file-link', 'dir-link/host-secret.txt', `${aliceRoot}/dir-link/host-secret.txt`]) {
        const read = await download(`/api/file/download${q(path)}`);
        expect([path, read.status]).toEqual([path, 403]);
      }
      for (const path of ['file-link', 'dir-link/new.txt', 'dangling-link']) {
        expect([path, (await upload(`/api/file/upload${q(path)}`, 'escaped')).status]).toEqual([path, 403]);
      }
      expect(readFileSync(join(outside, 'host-secret.txt'), 'utf8')).toBe('host-secret-content');
      expect(readdirSync(outside).sort()).toEqual(['host-secret.txt']);
    });

    it('follows symbolic links that stay inside the root', async () => {
      writeFileSync(join(aliceRoot, 'target.txt'), 'inside');
      symlinkSync(join(aliceRoot, 'target.txt'), join(aliceRoot, 'inside-link'));
      expect((await download(`/api/file/download${q('inside-link')}`)).bytes.toString()).toBe('inside');
    });

    it('download: 404 for a missing file, 422 for a directory or no path', async () => {
      expect((await download(`/api/file/download${q('missing.txt')}`)).status).toBe(404);
      const directory = await download(`/api/file/download${q('deep')}`);
      expect([directory.status, directory.body.detail[0].loc]).toEqual([422, ['query', 'path']]);
      const noPath = await download('/api/file/download');
      expect(noPath.body.detail[0]).toMatchObject({ loc: ['query', 'path'], type: 'missing' });
    });

    it('upload: 422 without the file part, for a malformed body, to a directory or without a path', async () => {
      const noFile = await upload(`/api/file/upload${q('a.txt')}`, 'x', { field: 'document' });
      expect([noFile.status, noFile.body.detail[0].loc]).toEqual([422, ['body', 'file']]);
      const json = await alice.post(`/api/file/upload${q('a.txt')}`, { body: { file: 'x' } });
      expect([json.status, json.body.detail[0].loc]).toEqual([422, ['body', 'file']]);
      const malformed = await alice.post(`/api/file/upload${q('a.txt')}`, {
        rawBody: '--zz\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\ncut off',
        headers: { 'Content-Type': 'multipart/form-data; boundary=zz' },
      });
      expect([malformed.status, malformed.body.detail[0].loc]).toEqual([422, ['body']]);
      const toDirectory = await upload(`/api/file/upload${q('deep')}`, 'x');
      expect([toDirectory.status, toDirectory.body.detail[0].loc]).toEqual([422, ['query', 'path']]);
      const underFile = await upload(`/api/file/upload${q('notes.txt/child')}`, 'x');
      expect(underFile.status).toBe(422);
      const noPath = await upload('/api/file/upload', 'x');
      expect(noPath.body.detail[0]).toMatchObject({ loc: ['query', 'path'], type: 'missing' });
      expect(existsSync(join(aliceRoot, 'a.txt'))).toBe(false);
      expect(temporaryLeftovers(aliceRoot)).toEqual([]);
    });

    it('413 over MAX_UPLOAD_BYTES, leaving the existing file untouched and nothing half-written', async () => {
      writeFileSync(join(aliceRoot, 'kept.txt'), 'original');
      const tooBig = await upload(`/api/file/upload${q('kept.txt')}`, randomBytes(MAX_UPLOAD_BYTES + 1));
      expect(tooBig.status).toBe(413);
      expect(typeof tooBig.body.detail).toBe('string');
      expect(readFileSync(join(aliceRoot, 'kept.txt'), 'utf8')).toBe('original');
      expect(temporaryLeftovers(aliceRoot)).toEqual([]);
      expect((await upload(`/api/file/upload${q('kept.txt')}`, randomBytes(MAX_UPLOAD_BYTES))).status).toBe(200);
    });
  });

  describe('execute_bash_command', () => {
    const run = (body: unknown, client: HttpClient = alice) => client.post('/api/bash/execute_bash_command', { body });

    it('runs in the caller\'s root and answers with the reference\'s BashOutput', async () => {
      const result = await run({ command: 'pwd; echo out; echo err >&2; exit 3' });
      expect(result.status).toBe(200);
      expect(result.body).toEqual({
        id: expect.any(String),
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        command_id: expect.any(String),
        order: 0,
        exit_code: 3,
        stdout: `${aliceRoot}\nout\n`,
        stderr: 'err\n',
        kind: 'BashOutput',
      });
      expect((await run({ command: 'pwd' }, bob)).body.stdout).toBe(`${bobRoot}\n`);
    });

    it('never hands the service\'s environment to the command', async () => {
      const env = (await run({ command: 'env' })).body.stdout as string;
      for (const name of ['DATABASE_URL', 'SECRETS_KEY', 'SESSION_API_KEYS', 'WORKSPACE_ROOT']) expect(env).not.toContain(`${name}=`);
      expect(env).not.toContain(ALICE_KEY);
      expect(env).toContain(`HOME=${aliceRoot}`);
    });

    it('takes a cwd inside the root (created when missing); 403 for one outside, also through a link', async () => {
      expect((await run({ command: 'pwd', cwd: 'work/sub' })).body.stdout).toBe(`${join(aliceRoot, 'work/sub')}\n`);
      expect((await run({ command: 'pwd', cwd: `${aliceRoot}/deep` })).body.stdout).toBe(`${aliceRoot}/deep\n`);
      expect((await run({ command: 'pwd', cwd: null })).body.stdout).toBe(`${aliceRoot}\n`);
      for (const cwd of [outside, '..', '/', bobRoot, 'dir-link', `${aliceRoot}/../bob`]) {
        const refused = await run({ command: 'touch escaped', cwd });
        expect([cwd, refused.status]).toEqual([cwd, 403]);
      }
      expect(readdirSync(outside)).not.toContain('escaped');
      const onFile = await run({ command: 'pwd', cwd: 'notes.txt' });
      expect([onFile.status, onFile.body.detail[0].loc]).toEqual([422, ['body', 'cwd']]);
    });

    it('kills the command and what it started at the timeout: exit_code -1', async () => {
      const started = Date.now();
      const result = await run({ command: 'bash -c \'echo $$ > child.pid; exec sleep 30\' & echo begun; sleep 30', timeout: 1 });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(result.body).toMatchObject({ exit_code: -1, stdout: 'begun\n' });
      expect(result.body.stderr).toMatch(/timed out after 1 seconds/);
      const childPid = Number(readFileSync(join(aliceRoot, 'child.pid'), 'utf8'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(isRunning(childPid)).toBe(false);
    });

    it('caps stdout and stderr, keeping the beginning and the end', async () => {
      const result = await run({ command: 'echo BEGIN; head -c 50000 /dev/zero | tr "\\0" x; echo; echo END; head -c 50000 /dev/zero | tr "\\0" y >&2' });
      expect(result.status).toBe(200);
      const stdout = result.body.stdout as string;
      expect(stdout.length).toBeLessThan(MAX_OUTPUT_CHARS + 100);
      expect(stdout.startsWith('BEGIN\n')).toBe(true);
      expect(stdout.endsWith('END\n')).toBe(true);
      expect(stdout).toMatch(/characters of output omitted/);
      expect((result.body.stderr as string).length).toBeLessThan(MAX_OUTPUT_CHARS + 100);
    });

    it('answers once the shell exits, even when a background job keeps running', async () => {
      const started = Date.now();
      const result = await run({ command: 'sleep 5 & echo detached', timeout: 30 });
      expect(result.body).toMatchObject({ exit_code: 0, stdout: 'detached\n' });
      expect(Date.now() - started).toBeLessThan(3_000);
    });

    it('401 without a key; 422 for a missing, empty or non-string command, a bad timeout or cwd, unknown fields', async () => {
      expect((await run({ command: 'touch unauthorised' }, anonymous)).status).toBe(401);
      expect(existsSync(join(aliceRoot, 'unauthorised'))).toBe(false);
      const bad: Array<[unknown, unknown[]]> = [
        [{}, ['body', 'command']],
        [{ command: '' }, ['body', 'command']],
        [{ command: ['ls'] }, ['body', 'command']],
        [{ command: 'ls', timeout: 0 }, ['body', 'timeout']],
        [{ command: 'ls', timeout: 3601 }, ['body', 'timeout']],
        [{ command: 'ls', timeout: 'soon' }, ['body', 'timeout']],
        [{ command: 'ls', cwd: 5 }, ['body', 'cwd']],
        [{ command: 'ls', shell: 'zsh' }, ['body', 'shell']],
      ];
      for (const [body, loc] of bad) {
        const answer = await run(body);
        expect([answer.status, answer.body.detail[0].loc]).toEqual([422, loc]);
      }
    });
  });
});

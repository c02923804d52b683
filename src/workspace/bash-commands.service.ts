import { Injectable, Logger } from '@nestjs/common';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { constants } from 'node:os';
import { RequestValidationException } from '../common/validation/validation-issue.js';
import { BoundedOutput } from './bounded-output.js';
import type { BashOutputDto, ExecuteBashDto } from './dto/execute-bash.dto.js';
import { fsErrorToHttp } from './fs-errors.js';
import { UserWorkspaces } from './user-workspaces.js';

/** Cap on each of stdout and stderr in one response. */
const MAX_OUTPUT_CHARS = Number(process.env.BASH_MAX_OUTPUT_CHARS) || 1_000_000;
/** After the shell exits, how long output still in flight (or held open by a background job) is awaited. */
const DRAIN_AFTER_EXIT_MS = 200;
const DEFAULT_TIMEOUT_SECONDS = 300;
/** Timed-out commands get this exit code, as the reference's clients read it. */
export const TIMEOUT_EXIT_CODE = -1;

const PASSED_ENV = ['PATH', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SHELL'];

/** A minimal environment: the service's own (DATABASE_URL, SECRETS_KEY, session keys) never reaches a command. */
function commandEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { LANG: 'C.UTF-8' };
  for (const name of PASSED_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, HOME: home, TERM: 'dumb', PAGER: 'cat', GIT_PAGER: 'cat', PYTHONUNBUFFERED: '1', NO_COLOR: '1' };
}

/**
 * POST /api/bash/execute_bash_command: one `bash -c` per request, in the caller's workspace root
 * (or a directory inside it), killed with its whole process group at the timeout or when the
 * client goes away.
 */
@Injectable()
export class BashCommandsService {
  private readonly logger = new Logger(BashCommandsService.name);

  constructor(private readonly workspaces: UserWorkspaces) {}

  async execute(userId: string, request: ExecuteBashDto, signal?: AbortSignal): Promise<BashOutputDto> {
    const cwd = await this.workingDirectory(userId, request.cwd);
    const home = await this.workspaces.realRootOf(userId);
    const timeoutSeconds = request.timeout ?? DEFAULT_TIMEOUT_SECONDS;
    const commandId = randomUUID();
    const result = await this.run(request.command, cwd, home, timeoutSeconds * 1000, signal);
    return {
      id: randomUUID(),
      timestamp: new Date().toISOString(),
      command_id: commandId,
      order: 0,
      exit_code: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      kind: 'BashOutput',
    };
  }

  /** The caller's root, or the directory named inside it (created when missing). */
  private async workingDirectory(userId: string, requested: string | null | undefined): Promise<string> {
    if (requested === undefined || requested === null || requested === '') return this.workspaces.realRootOf(userId);
    const loc = ['body', 'cwd'];
    const resolved = await this.workspaces.resolve(userId, requested, loc);
    try {
      await mkdir(resolved.realPath, { recursive: true });
      if (!(await stat(resolved.realPath)).isDirectory()) throw Object.assign(new Error(), { code: 'EEXIST' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw RequestValidationException.single(loc, `${requested} is not a directory`, 'value_error');
      }
      throw fsErrorToHttp(error, requested, loc);
    }
    return resolved.realPath;
  }

  private run(command: string, cwd: string, home: string, timeoutMs: number, signal?: AbortSignal) {
    return new Promise<{ exitCode: number | null; stdout: string; stderr: string }>((resolve) => {
      const stdout = new BoundedOutput(MAX_OUTPUT_CHARS);
      const stderr = new BoundedOutput(MAX_OUTPUT_CHARS);
      // Its own process group, so the timeout kills what the command started too.
      const child = spawn('bash', ['-c', command], { cwd, env: commandEnv(home), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
      let timedOut = false;
      let settled = false;
      const killGroup = () => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, timeoutMs);
      const onAbort = () => killGroup();
      signal?.addEventListener('abort', onAbort, { once: true });
      const finish = (exitCode: number | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        // A background job may hold the pipes open: stop reading instead of waiting for it.
        child.stdout.destroy();
        child.stderr.destroy();
        let errorText = stderr.text();
        if (timedOut) errorText += `${errorText && !errorText.endsWith('\n') ? '\n' : ''}Command timed out after ${timeoutMs / 1000} seconds and was killed.\n`;
        resolve({ exitCode: timedOut ? TIMEOUT_EXIT_CODE : exitCode, stdout: stdout.text(), stderr: errorText });
      };
      child.once('error', (error) => {
        this.logger.warn(`bash could not start: ${error.message}`);
        stderr.push(Buffer.from(`bash could not start: ${error.message}\n`));
        finish(127);
      });
      child.once('exit', (code, killedBy) => {
        const exitCode = code ?? (killedBy ? 128 + signalNumber(killedBy) : null);
        // Output written just before the exit may still be in the pipes.
        const drained = new Promise<void>((done) => child.once('close', () => done()));
        void Promise.race([drained, new Promise((done) => setTimeout(done, DRAIN_AFTER_EXIT_MS))]).then(() => finish(exitCode));
      });
    });
  }
}

function signalNumber(name: NodeJS.Signals): number {
  return constants.signals[name] ?? 0;
}

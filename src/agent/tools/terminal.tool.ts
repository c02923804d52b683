import { mkdir } from 'node:fs/promises';
import { BashSession, type ShellResult, type WaitLimits } from './bash-session.js';
import { DEFAULT_MAX_OUTPUT_CHARS, truncateMiddle } from './output-limits.js';
import { ToolArguments, toolParameters } from './tool-arguments.js';
import { buildToolDefinition, textContent, type AgentTool, type TextContent, type ToolContext, type ToolDefinition } from './tool.js';

export type TerminalAction = {
  command: string;
  is_input: boolean;
  timeout: number | null;
  reset: boolean;
  kind: 'TerminalAction';
};

export type CmdOutputMetadata = {
  exit_code: number;
  pid: number;
  username: string | null;
  hostname: string | null;
  working_dir: string | null;
  py_interpreter_path: string | null;
  prefix: string;
  suffix: string;
};

export type TerminalObservation = {
  content: TextContent[];
  is_error: boolean;
  command: string | null;
  exit_code: number | null;
  timeout: boolean;
  metadata: CmdOutputMetadata;
  full_output_save_dir: string | null;
  kind: 'TerminalObservation';
};

export type TerminalToolOptions = {
  /** Hand back control when a command prints nothing for this long (no `timeout` given). Default 10 s. */
  noOutputTimeoutMs?: number;
  /** Upper bound on one wait when no `timeout` is given, for commands that never stop printing. Default 10 min. */
  maxWaitMs?: number;
  maxOutputChars?: number;
  /** Shells unused this long are closed. Default 30 min. */
  idleShellTimeoutMs?: number;
  startTimeoutMs?: number;
  /** The shell's environment. Default: a minimal one, so the service's own secrets never reach the agent. */
  env?: NodeJS.ProcessEnv;
};

const CONTROL_KEY = /^C-[a-z\\[\]]$/i;
const PASSED_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SHELL'];

function defaultShellEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of PASSED_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  return {
    LANG: 'C.UTF-8',
    ...env,
    TERM: 'dumb',
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    PYTHONUNBUFFERED: '1',
    NO_COLOR: '1',
  };
}

export class TerminalTool implements AgentTool<TerminalAction, TerminalObservation> {
  readonly name = 'terminal';
  readonly readOnly = false;
  readonly description: string;
  readonly parameters;
  private readonly noOutputTimeoutMs: number;
  private readonly maxWaitMs: number;
  private readonly maxOutputChars: number;
  private readonly idleShellTimeoutMs: number;
  private readonly sessions = new Map<string, BashSession>();
  /** Conversations whose shell was closed for idleness; their next shell says so. */
  private readonly closedForIdleness = new Set<string>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private idleSweep: NodeJS.Timeout | null = null;

  constructor(private readonly options: TerminalToolOptions = {}) {
    this.noOutputTimeoutMs = options.noOutputTimeoutMs ?? 10_000;
    this.maxWaitMs = options.maxWaitMs ?? 600_000;
    this.maxOutputChars = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
    this.idleShellTimeoutMs = options.idleShellTimeoutMs ?? 30 * 60_000;
    const quietSeconds = this.noOutputTimeoutMs / 1000;
    this.description = [
      'Run a bash command in a persistent shell inside the workspace. The working directory, environment variables and',
      'shell functions carry over from one call to the next.',
      '* One command at a time; chain several with `&&` or `;`. Multi-line scripts and heredocs work.',
      `* When a command prints nothing for ${quietSeconds} seconds you get its output so far while it keeps running (exit code -1).`,
      '  Then send an empty command to wait for more, send text with `is_input: true` to type a line into it, or send `C-c`',
      '  with `is_input: true` to interrupt it. Set `timeout` (seconds) to wait that long instead, for installs, builds and test runs.',
      '* Start servers and other programs that never end in the background, with their output in a file:',
      '  `python3 app.py > server.log 2>&1 &`.',
      '* There is no TTY: avoid interactive programs (editors, pagers, password prompts); pass flags such as `-y` or `--no-pager`.',
      `* Output longer than ${this.maxOutputChars} characters is shortened in the middle; redirect long output to a file and search it.`,
      '* `reset: true` replaces the shell with a fresh one (all shell state is lost); use it only when the shell stops responding.',
    ].join('\n');
    this.parameters = toolParameters(
      {
        command: {
          type: 'string',
          description:
            'The bash command to run. With `is_input: true`: a line of text for the running program, or `C-c` to interrupt it. ' +
            'Empty: wait for more output from the command that is still running.',
        },
        is_input: {
          type: 'boolean',
          default: false,
          description: 'true sends `command` to the running program as input instead of running it as a new command.',
        },
        timeout: {
          type: 'number',
          minimum: 0,
          description: `Seconds to wait for the command before getting control back (it keeps running). Without it, you get control back after ${quietSeconds} seconds without output.`,
        },
        reset: { type: 'boolean', default: false, description: 'true starts a fresh shell first. Cannot be combined with `is_input`.' },
      },
      ['command'],
      { readOnly: false },
    );
  }

  toAction(raw: unknown): TerminalAction {
    const args = new ToolArguments(this.name, raw, ['command', 'is_input', 'timeout', 'reset']);
    const reset = args.boolean('reset', false);
    const command = reset && !args.has('command') ? '' : args.requiredString('command');
    const isInput = args.boolean('is_input', false);
    if (reset && isInput) throw args.error('"reset" cannot be combined with "is_input": true.');
    const timeout = args.optionalNumber('timeout', { min: 0 });
    return { command, is_input: isInput, timeout, reset, kind: 'TerminalAction' };
  }

  definition(): ToolDefinition {
    return buildToolDefinition('TerminalTool', this.name, this.description, 'TerminalAction', 'TerminalObservation', {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  }

  execute(action: TerminalAction, ctx: ToolContext): Promise<TerminalObservation> {
    // One action at a time per shell, whoever calls.
    const previous = this.queues.get(ctx.conversationId) ?? Promise.resolve();
    const next = previous.then(async () => {
      const observation = await this.executeNow(action, ctx);
      // The observation already says the shell ended; the next call quietly starts a new one.
      if (this.sessions.get(ctx.conversationId)?.hasExited) this.sessions.delete(ctx.conversationId);
      return observation;
    });
    const settled = next.catch(() => undefined);
    this.queues.set(ctx.conversationId, settled);
    void settled.then(() => {
      if (this.queues.get(ctx.conversationId) === settled) this.queues.delete(ctx.conversationId);
    });
    return next;
  }

  async dispose(conversationId: string): Promise<void> {
    this.sessions.get(conversationId)?.kill();
    this.sessions.delete(conversationId);
    this.closedForIdleness.delete(conversationId);
  }

  async close(): Promise<void> {
    for (const session of this.sessions.values()) session.kill();
    this.sessions.clear();
    if (this.idleSweep) clearInterval(this.idleSweep);
    this.idleSweep = null;
  }

  private async executeNow(action: TerminalAction, ctx: ToolContext): Promise<TerminalObservation> {
    const notes: string[] = [];
    if (action.reset) {
      await this.dispose(ctx.conversationId);
      notes.push('[The terminal was reset: this is a fresh shell; earlier variables, functions and directory changes are gone.]');
    }
    let session: BashSession;
    try {
      session = await this.sessionFor(ctx, notes);
    } catch (error) {
      return this.errorObservation(action, `The shell could not be started: ${(error as Error).message}`);
    }
    const command = action.command;
    const trimmed = command.trim();
    const limits = this.limitsFor(action, ctx.signal);

    if (action.reset && trimmed === '') {
      return this.observation(action, null, session, { prefix: notes.join('\n') });
    }
    if (CONTROL_KEY.test(trimmed) && trimmed.toUpperCase() !== 'C-C') {
      return this.errorObservation(action, `Only C-c can be sent as a control key: there is no TTY, so ${trimmed} has no effect here.`);
    }
    if (session.hasPendingCommand) {
      if (trimmed.toUpperCase() === 'C-C') return this.observation(action, await session.interrupt(limits), session);
      if (action.is_input && trimmed !== '') {
        if (session.pendingCommandFinished) {
          // Typed now, the text would reach the shell itself and run as a command.
          const finished = await session.waitForMore({ timeoutMs: 0, noOutputTimeoutMs: null });
          return this.observation(action, finished, session, {
            prefix: '[The command had already finished, so your input was NOT sent. Its last output:]\n',
          });
        }
        return this.observation(action, await session.sendInput(command, limits), session);
      }
      if (trimmed === '') {
        return this.observation(action, await session.waitForMore(limits), session, { prefix: '[Further output of the running command:]\n' });
      }
      if (!session.pendingCommandFinished) {
        return this.errorObservation(
          action,
          `Your command was NOT run: the previous command is still running. Send an empty command to wait for it, ` +
            'text with `is_input: true` to answer it, or `C-c` with `is_input: true` to stop it, then send your command again.',
          session,
        );
      }
      // The earlier command finished while nobody was looking: report its end along with the new command.
      const earlier = await session.waitForMore({ timeoutMs: 0, noOutputTimeoutMs: null });
      const earlierOutput = truncateMiddle(earlier.output, Math.floor(this.maxOutputChars / 4), earlier.omittedChars);
      notes.push(`[The previous command finished with exit code ${earlier.exitCode}. Its last output:]\n${earlierOutput}\n[Now running your command:]`);
    } else if (action.is_input || trimmed === '' || trimmed.toUpperCase() === 'C-C') {
      return this.errorObservation(
        action,
        'No command is running, so there is nothing to send input to or wait for. Send a command with `is_input: false` to run it.',
        session,
      );
    }
    const result = await session.run(command, limits);
    return this.observation(action, result, session, { prefix: notes.length > 0 ? `${notes.join('\n')}\n` : '' });
  }

  private limitsFor(action: TerminalAction, signal?: AbortSignal): WaitLimits {
    if (action.timeout !== null) return { timeoutMs: action.timeout * 1000, noOutputTimeoutMs: null, signal };
    return { timeoutMs: this.maxWaitMs, noOutputTimeoutMs: this.noOutputTimeoutMs, signal };
  }

  private async sessionFor(ctx: ToolContext, notes: string[]): Promise<BashSession> {
    const existing = this.sessions.get(ctx.conversationId);
    if (existing && !existing.hasExited) return existing;
    if (existing) notes.push('[The previous shell had exited; this is a fresh shell in the workspace.]');
    this.sessions.delete(ctx.conversationId);
    await mkdir(ctx.workspaceDir, { recursive: true });
    const session = await BashSession.start({
      cwd: ctx.workspaceDir,
      env: { ...(this.options.env ?? defaultShellEnv()), ...ctx.env },
      startTimeoutMs: this.options.startTimeoutMs,
      maxOutputChars: this.maxOutputChars,
    });
    if (this.closedForIdleness.delete(ctx.conversationId)) {
      notes.push('[The previous shell was closed after a long idle time; this is a fresh shell in the workspace.]');
    }
    this.sessions.set(ctx.conversationId, session);
    this.scheduleIdleSweep();
    return session;
  }

  private scheduleIdleSweep(): void {
    if (this.idleSweep) return;
    this.idleSweep = setInterval(() => this.closeIdleShells(), Math.min(this.idleShellTimeoutMs, 60_000));
    this.idleSweep.unref();
  }

  private closeIdleShells(): void {
    const now = Date.now();
    for (const [conversationId, session] of this.sessions) {
      if (this.queues.has(conversationId) || now - session.lastUsedAt < this.idleShellTimeoutMs) continue;
      session.kill();
      this.sessions.delete(conversationId);
      this.closedForIdleness.add(conversationId);
    }
    if (this.sessions.size === 0 && this.idleSweep) {
      clearInterval(this.idleSweep);
      this.idleSweep = null;
    }
  }

  private observation(
    action: TerminalAction,
    result: ShellResult | null,
    session: BashSession,
    notes: { prefix?: string } = {},
  ): TerminalObservation {
    const metadata = result?.metadata ?? session.metadata;
    let exitCode: number | null = result?.exitCode ?? null;
    let suffix = '';
    const waitedSeconds = action.timeout ?? this.noOutputTimeoutMs / 1000;
    const howToContinue =
      'Send an empty command to keep waiting, text with `is_input: true` to answer it, or `C-c` with `is_input: true` to stop it.';
    switch (result?.outcome) {
      case 'completed':
        suffix = `\n[The command finished with exit code ${exitCode}.]`;
        break;
      case 'no_output_timeout':
        suffix = `\n[No new output for ${waitedSeconds} seconds; the command is still running. ${howToContinue}]`;
        break;
      case 'timeout':
        suffix = `\n[The command is still running after ${action.timeout !== null ? `the ${waitedSeconds}-second timeout` : `${this.maxWaitMs / 1000} seconds`}. ${howToContinue}]`;
        break;
      case 'aborted':
        suffix = '\n[Stopped waiting because the run was cancelled; the command may still be running.]';
        break;
      case 'shell_exited':
        suffix = `\n[The shell exited${exitCode === null ? '' : ` with code ${exitCode}`}; the next command starts in a fresh shell.]`;
        break;
      case undefined:
        exitCode = 0;
        break;
    }
    const stillRunning = result?.outcome === 'no_output_timeout' || result?.outcome === 'timeout' || result?.outcome === 'aborted';
    if (stillRunning) exitCode = -1;
    const output = result ? truncateMiddle(result.output, this.maxOutputChars, result.omittedChars) : '';
    return {
      content: [textContent(output)],
      is_error: false,
      command: action.command,
      exit_code: exitCode,
      timeout: stillRunning,
      metadata: {
        exit_code: exitCode ?? -1,
        pid: metadata.pid,
        username: metadata.username,
        hostname: metadata.hostname,
        working_dir: metadata.workingDir,
        py_interpreter_path: metadata.pythonPath,
        prefix: notes.prefix ?? '',
        suffix,
      },
      full_output_save_dir: null,
      kind: 'TerminalObservation',
    };
  }

  private errorObservation(action: TerminalAction, message: string, session?: BashSession): TerminalObservation {
    const metadata = session?.metadata;
    return {
      content: [textContent(message)],
      is_error: true,
      command: action.command,
      exit_code: null,
      timeout: false,
      metadata: {
        exit_code: -1,
        pid: metadata?.pid ?? -1,
        username: metadata?.username ?? null,
        hostname: metadata?.hostname ?? null,
        working_dir: metadata?.workingDir ?? null,
        py_interpreter_path: metadata?.pythonPath ?? null,
        prefix: '',
        suffix: '',
      },
      full_output_save_dir: null,
      kind: 'TerminalObservation',
    };
  }
}

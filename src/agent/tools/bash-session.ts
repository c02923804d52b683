// One long-lived bash process, driven through pipes, that behaves like a terminal for the agent:
// `cd`, variables and functions persist between commands, Ctrl-C stops the foreground command.
//
// How it works: bash runs interactive (`-i`, so SIGINT aborts the current command line instead of
// killing the shell) without line editing (`--noediting`, so nothing is echoed). Its prompt (PS1)
// is a marker line carrying an id, the exit status and the working directory; the prompt appears
// exactly when a command line has finished. Each command is sent as one line, `eval $'...'`, so
// bash has read all of it before it starts, and whatever the command reads from stdin is what the
// agent types later (`is_input`). The marker text exists only in a shell variable, never in a
// command line, so `set -x` or a command echoing its input cannot fake a prompt.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export type PromptMetadata = {
  exitCode: number;
  /** `$!`: the last background process started, -1 when none. */
  pid: number;
  username: string | null;
  hostname: string | null;
  workingDir: string;
  pythonPath: string | null;
};

export type WaitLimits = {
  /** Stop waiting this long after the wait began, whatever the command does. */
  timeoutMs: number | null;
  /** Stop waiting once the command has printed nothing for this long. */
  noOutputTimeoutMs: number | null;
  signal?: AbortSignal;
};

export type WaitOutcome = 'completed' | 'no_output_timeout' | 'timeout' | 'aborted' | 'shell_exited';

export type ShellResult = {
  outcome: WaitOutcome;
  output: string;
  /** Characters dropped from the middle of `output` to bound memory. */
  omittedChars: number;
  /** Set when the command finished (`completed`) or the shell ended (`shell_exited`). */
  exitCode: number | null;
  metadata: PromptMetadata;
};

export type BashSessionOptions = {
  cwd: string;
  env: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
  /** Output kept in memory per command is bounded to about four times this. */
  maxOutputChars: number;
};

const FIELD_SEPARATOR = '\x1f';
/** Longer than any marker line (the working directory is at most PATH_MAX). */
const MARKER_SCAN_OVERLAP = 8192;

/** Quotes any text as a bash ANSI-C string ($'...') on a single line. */
export function quoteForBash(text: string): string {
  const escaped = text
    .replace(/\0/g, '')
    .replace(/[\\']/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(/[\x01-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return `$'${escaped}'`;
}

// Every live shell's process group, killed if the service exits without disposing of them.
const liveProcessGroups = new Set<number>();
let exitHookInstalled = false;
function trackProcessGroup(pid: number): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of liveProcessGroups) killGroup(group, 'SIGKILL');
    });
  }
  liveProcessGroups.add(pid);
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

export class BashSession {
  private readonly markerOpen: string;
  private readonly markerPattern: RegExp;
  private readonly compactAt: number;
  /** Output not yet handed out; `outputHead` and `omittedChars` hold what compaction set aside. */
  private output = '';
  private outputHead = '';
  private omittedChars = 0;
  private scannedUpTo = 0;
  private lastOutputAt = Date.now();
  private commandCounter = 0;
  /** Id of the command line whose prompt has not been collected yet; null when the shell is idle. */
  private pendingId: string | null = null;
  private completion: { output: string; outputHead: string; omittedChars: number; metadata: PromptMetadata } | null = null;
  private exitStatus: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private wake: (() => void) | null = null;
  private startupErrors = '';
  metadata: PromptMetadata;
  lastUsedAt = Date.now();

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly options: BashSessionOptions,
  ) {
    const token = randomBytes(8).toString('hex');
    this.markerOpen = `__AGENT_PROMPT_${token}__`;
    const field = `([^${FIELD_SEPARATOR}]*)`;
    this.markerPattern = new RegExp(
      `\\n?${this.markerOpen}${field}${FIELD_SEPARATOR}(-?\\d+)${FIELD_SEPARATOR}(-?\\d+)` +
        `${FIELD_SEPARATOR}${field}${FIELD_SEPARATOR}${field}${FIELD_SEPARATOR}${field}${FIELD_SEPARATOR}${field}__AGENT_PROMPT_END_${token}__`,
    );
    this.compactAt = Math.max(4 * options.maxOutputChars, 256 * 1024);
    this.metadata = { exitCode: -1, pid: -1, username: null, hostname: null, workingDir: options.cwd, pythonPath: null };
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.receive(chunk));
    // Only bash's own start-up complaints arrive here: the set-up line sends stderr to stdout.
    child.stderr.on('data', (chunk: string) => {
      this.startupErrors = (this.startupErrors + chunk).slice(-2000);
    });
    // Write errors (the shell just died) and late process errors surface through 'exit' instead.
    child.stdin.on('error', () => undefined);
    child.on('error', () => undefined);
    child.on('exit', (code, signal) => {
      this.exitStatus = { code, signal };
      liveProcessGroups.delete(child.pid ?? -1);
      this.wake?.();
    });
  }

  static async start(options: BashSessionOptions): Promise<BashSession> {
    const child = spawn('bash', ['--norc', '--noprofile', '--noediting', '-i'], {
      cwd: options.cwd,
      env: { ...options.env, PS1: '', PS2: '' },
      detached: true, // its own process group, so Ctrl-C and kill reach every process it started
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    trackProcessGroup(child.pid!);
    const session = new BashSession(child, options);
    await session.configure(options.startTimeoutMs ?? 10_000);
    return session;
  }

  private async configure(timeoutMs: number): Promise<void> {
    const separator = '\\037'; // octal 037, FIELD_SEPARATOR in prompt syntax
    const markerClose = this.markerOpen.replace('__AGENT_PROMPT_', '__AGENT_PROMPT_END_');
    const prompt =
      `\\n${this.markerOpen}\${__agent_id}${separator}$?${separator}\${!:--1}${separator}\\u${separator}\\h${separator}\${PWD}${separator}` +
      `$(command -v python3 2>/dev/null || command -v python 2>/dev/null)${markerClose}`;
    const setup = [
      'exec 2>&1',
      'set +H',
      'set +o history',
      'unset HISTFILE MAILCHECK',
      'export -n PS1 PS2',
      `__agent_ps1='${prompt}'`,
      // Runs before each prompt; restoring PS1 here survives scripts (virtualenvs) that change it.
      `PROMPT_COMMAND='__agent_id=\${__agent_next:-idle}; __agent_next=; PS1="$__agent_ps1"'`,
      "PS2=''",
      '__agent_next=setup',
    ].join('; ');
    this.pendingId = 'setup';
    this.child.stdin.write(`${setup}\n`);
    const result = await this.waitAndCollect({ timeoutMs, noOutputTimeoutMs: null });
    if (result.outcome !== 'completed') {
      this.kill();
      const detail = (this.startupErrors + result.output).trim();
      throw new Error(`bash did not start (${result.outcome})${detail ? `: ${detail}` : ''}`);
    }
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get hasExited(): boolean {
    return this.exitStatus !== null;
  }

  /** A command line was sent and its end has not been handed out yet (it may have finished meanwhile). */
  get hasPendingCommand(): boolean {
    return this.pendingId !== null;
  }

  /** The pending command has finished; its result is waiting to be collected. */
  get pendingCommandFinished(): boolean {
    return this.completion !== null;
  }

  async run(command: string, limits: WaitLimits): Promise<ShellResult> {
    if (this.pendingId !== null) throw new Error('a command is still pending');
    const id = `c${++this.commandCounter}`;
    this.pendingId = id;
    this.lastUsedAt = Date.now();
    this.child.stdin.write(`__agent_next=${id}; eval ${quoteForBash(command)}\n`);
    return this.waitAndCollect(limits);
  }

  /** Types a line into the running command's stdin. */
  async sendInput(text: string, limits: WaitLimits): Promise<ShellResult> {
    this.lastUsedAt = Date.now();
    this.child.stdin.write(`${text}\n`);
    return this.waitAndCollect(limits);
  }

  /** Ctrl-C: SIGINT to every process of the shell's group; the interactive shell itself survives it. */
  async interrupt(limits: WaitLimits): Promise<ShellResult> {
    this.lastUsedAt = Date.now();
    if (this.completion === null && !this.hasExited) killGroup(this.pid, 'SIGINT');
    return this.waitAndCollect(limits);
  }

  async waitForMore(limits: WaitLimits): Promise<ShellResult> {
    this.lastUsedAt = Date.now();
    return this.waitAndCollect(limits);
  }

  kill(): void {
    killGroup(this.pid, 'SIGKILL');
    liveProcessGroups.delete(this.pid);
    this.child.stdin.destroy();
  }

  private receive(chunk: string): void {
    this.output += chunk;
    this.lastOutputAt = Date.now();
    this.findMarkers();
    if (this.output.length > this.compactAt) this.compact();
    this.wake?.();
  }

  /** Takes every complete prompt marker out of the output; the pending command's one ends it. */
  private findMarkers(): void {
    for (;;) {
      const from = Math.max(0, this.scannedUpTo - MARKER_SCAN_OVERLAP);
      const match = this.markerPattern.exec(this.output.slice(from));
      if (!match) break;
      const start = from + match.index;
      const end = start + match[0].length;
      const before = this.output.slice(0, start);
      this.output = this.output.slice(end);
      this.scannedUpTo = 0;
      const [, id, exitCode, pid, username, hostname, workingDir, pythonPath] = match;
      this.metadata = {
        exitCode: Number(exitCode),
        pid: Number(pid),
        username: username || null,
        hostname: hostname || null,
        workingDir,
        pythonPath: pythonPath || null,
      };
      if (id === this.pendingId && this.completion === null) {
        this.completion = { output: before, outputHead: this.outputHead, omittedChars: this.omittedChars, metadata: this.metadata };
        this.outputHead = '';
        this.omittedChars = 0;
      } else {
        // A prompt nobody waits for (Ctrl-C on an idle shell, typed-ahead input): keep its output only.
        this.output = before + this.output;
      }
    }
    this.scannedUpTo = this.output.length;
  }

  /** Keeps the first and the last part of a flood of output, counting what is dropped in between. */
  private compact(): void {
    const keep = this.options.maxOutputChars;
    if (this.outputHead.length < keep) {
      const take = keep - this.outputHead.length;
      this.outputHead += this.output.slice(0, take);
      this.output = this.output.slice(take);
    }
    const tailKeep = keep + MARKER_SCAN_OVERLAP;
    if (this.output.length > tailKeep) {
      this.omittedChars += this.output.length - tailKeep;
      this.output = this.output.slice(this.output.length - tailKeep);
    }
    this.scannedUpTo = this.output.length;
  }

  private async waitAndCollect(limits: WaitLimits): Promise<ShellResult> {
    const outcome = await this.waitForEnd(limits);
    return this.collect(outcome);
  }

  private async waitForEnd(limits: WaitLimits): Promise<WaitOutcome> {
    const startedAt = Date.now();
    for (;;) {
      if (this.completion) return 'completed';
      if (this.exitStatus) return 'shell_exited';
      if (limits.signal?.aborted) return 'aborted';
      const now = Date.now();
      const hardDeadline = limits.timeoutMs === null ? Infinity : startedAt + limits.timeoutMs;
      const quietDeadline =
        limits.noOutputTimeoutMs === null ? Infinity : Math.max(startedAt, this.lastOutputAt) + limits.noOutputTimeoutMs;
      if (now >= hardDeadline) return 'timeout';
      if (now >= quietDeadline) return 'no_output_timeout';
      await this.nextEvent(Math.min(hardDeadline, quietDeadline) - now, limits.signal);
    }
  }

  private nextEvent(delayMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, Number.isFinite(delayMs) ? Math.max(0, delayMs) : 2 ** 31 - 1);
      signal?.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }

  private collect(outcome: WaitOutcome): ShellResult {
    if (outcome === 'completed' && this.completion) {
      const { output, outputHead, omittedChars, metadata } = this.completion;
      this.completion = null;
      this.pendingId = null;
      return { outcome, output: outputHead + output, omittedChars, exitCode: metadata.exitCode, metadata };
    }
    if (outcome === 'shell_exited') {
      const result = this.takeOutput(false);
      this.pendingId = null;
      return { outcome, ...result, exitCode: this.exitStatus?.code ?? null, metadata: this.metadata };
    }
    return { outcome, ...this.takeOutput(true), exitCode: null, metadata: this.metadata };
  }

  /** Hands out the output so far, holding back a marker that may be only half received. */
  private takeOutput(holdBackPartialMarker: boolean): { output: string; omittedChars: number } {
    let cut = this.output.length;
    if (holdBackPartialMarker) {
      const lastNewline = this.output.lastIndexOf('\n');
      const rest = this.output.slice(lastNewline + 1);
      // A prompt arrives as `\n<marker>`; hand out the newline but not a marker's first characters.
      if (rest && (this.markerOpen.startsWith(rest) || rest.startsWith(this.markerOpen))) cut = lastNewline + 1;
    }
    const output = this.outputHead + this.output.slice(0, cut);
    const omittedChars = this.omittedChars;
    this.output = this.output.slice(cut);
    this.outputHead = '';
    this.omittedChars = 0;
    this.scannedUpTo = 0;
    return { output, omittedChars };
  }
}

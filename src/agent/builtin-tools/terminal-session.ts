import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';

export interface CommandResult {
  output: string;
  /** null while the command is still running. */
  exitCode: number | null;
  workingDir: string;
  stillRunning: boolean;
  hitHardTimeout: boolean;
}

/** A persistent bash for one conversation: cd, variables and functions survive between commands. */
export class TerminalSession {
  private readonly shell: ChildProcessWithoutNullStreams;
  private buffer = '';
  private lastOutputAt = Date.now();
  private running = false;
  private cwd: string;
  private readonly marker = `__ACS_DONE_${randomBytes(6).toString('hex')}__`;
  private exited = false;

  constructor(workingDir: string) {
    this.cwd = workingDir;
    this.shell = spawn('bash', ['--noprofile', '--norc'], {
      cwd: workingDir,
      env: { ...safeEnvironment(), PS1: '', TERM: 'dumb', PAGER: 'cat', GIT_PAGER: 'cat' },
    });
    const collect = (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      this.lastOutputAt = Date.now();
    };
    this.shell.stdout.on('data', collect);
    this.shell.stderr.on('data', collect);
    this.shell.on('exit', () => (this.exited = true));
    this.shell.stdin.on('error', () => undefined);
  }

  get alive(): boolean {
    return !this.exited;
  }

  get busy(): boolean {
    return this.running;
  }

  get pid(): number {
    return this.shell.pid ?? -1;
  }

  /** Runs a command; returns when it ends, when output stops for softTimeoutMs, or at the hard limit. */
  async run(command: string, softTimeoutMs: number, hardTimeoutMs: number | null): Promise<CommandResult> {
    this.buffer = '';
    this.running = true;
    this.shell.stdin.write(`${command}\n__acs_rc=$?; printf '\\n%s %s %s\\n' '${this.marker}' "$__acs_rc" "$PWD"\n`);
    return this.waitForEnd(softTimeoutMs, hardTimeoutMs);
  }

  /** Sends input to the running command (`C-c` interrupts it); an empty input just waits for more output. */
  async input(text: string, softTimeoutMs: number, hardTimeoutMs: number | null): Promise<CommandResult> {
    this.buffer = '';
    if (text === 'C-c') await this.interrupt();
    else if (text === 'C-d') this.shell.stdin.write('\u0004');
    else if (text !== '') this.shell.stdin.write(`${text}\n`);
    return this.waitForEnd(softTimeoutMs, hardTimeoutMs);
  }

  /** SIGINT to the shell's children: the running command stops, the shell stays. */
  async interrupt(): Promise<void> {
    for (const pid of await descendants(this.pid)) {
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        // already gone
      }
    }
  }

  close(): void {
    void descendants(this.pid).then((pids) => pids.forEach((pid) => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }));
    this.shell.kill('SIGKILL');
  }

  private async waitForEnd(softTimeoutMs: number, hardTimeoutMs: number | null): Promise<CommandResult> {
    const started = Date.now();
    this.lastOutputAt = started;
    for (;;) {
      const end = this.findMarker();
      if (end) {
        this.running = false;
        return end;
      }
      const now = Date.now();
      if (this.exited) {
        this.running = false;
        return { output: this.buffer, exitCode: -1, workingDir: this.cwd, stillRunning: false, hitHardTimeout: false };
      }
      if (hardTimeoutMs !== null && now - started >= hardTimeoutMs) {
        await this.interrupt();
        await sleep(200);
        const after = this.findMarker();
        this.running = after ? false : this.running;
        return { ...(after ?? this.partial()), hitHardTimeout: true };
      }
      if (now - this.lastOutputAt >= softTimeoutMs) return this.partial();
      await sleep(20);
    }
  }

  private partial(): CommandResult {
    return { output: this.buffer, exitCode: null, workingDir: this.cwd, stillRunning: true, hitHardTimeout: false };
  }

  private findMarker(): CommandResult | null {
    const index = this.buffer.indexOf(`${this.marker} `);
    if (index < 0) return null;
    const line = this.buffer.slice(index).split('\n')[0];
    const match = new RegExp(`${this.marker} (\\d+) (.*)$`).exec(line);
    if (!match) return null;
    this.cwd = match[2];
    const output = this.buffer.slice(0, index).replace(/\n$/, '');
    return { output, exitCode: Number(match[1]), workingDir: this.cwd, stillRunning: false, hitHardTimeout: false };
  }
}

/** The service's own secrets stay out of the agent's shell. */
function safeEnvironment(): NodeJS.ProcessEnv {
  const hidden = /^(DATABASE_URL|SESSION_API_KEYS|SECRETS_KEY|.*API_KEY.*|.*TOKEN.*|.*SECRET.*|.*PASSWORD.*)$/i;
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !hidden.test(name)));
}

async function descendants(root: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid)!.push(Number(entry));
  }
  const result: number[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    result.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return result;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

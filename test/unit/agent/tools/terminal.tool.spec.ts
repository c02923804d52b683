import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TerminalTool, type TerminalObservation } from '../../../../src/agent/tools/terminal.tool.js';
import { ToolArgumentError, type ToolContext } from '../../../../src/agent/tools/tool.js';

describe('TerminalTool', () => {
  let workspaceDir: string;
  let tool: TerminalTool;
  let ctx: ToolContext;

  const run = (args: Record<string, unknown>, context = ctx): Promise<TerminalObservation> =>
    tool.execute(tool.toAction(args), context);
  const textOf = (observation: TerminalObservation) => observation.content.map((item) => item.text).join('');

  beforeEach(async () => {
    workspaceDir = await realpath(await mkdtemp(join(tmpdir(), 'terminal-tool-')));
    tool = new TerminalTool({ noOutputTimeoutMs: 400, maxOutputChars: 2000 });
    ctx = { workspaceDir, conversationId: 'conversation-1' };
  });

  afterEach(async () => {
    await tool.close();
    await rm(workspaceDir, { recursive: true, force: true });
  });

  it('runs a command in the workspace and reports its exit code', async () => {
    const observation = await run({ command: 'pwd; echo hello' });
    expect(textOf(observation)).toBe(`${workspaceDir}\nhello\n`);
    expect(observation).toMatchObject({
      kind: 'TerminalObservation',
      is_error: false,
      command: 'pwd; echo hello',
      exit_code: 0,
      timeout: false,
      full_output_save_dir: null,
    });
    expect(observation.metadata).toMatchObject({ exit_code: 0, working_dir: workspaceDir, prefix: '' });
    expect(observation.metadata.suffix).toContain('exit code 0');

    const failed = await run({ command: 'ls /definitely-not-here; (exit 3)' });
    expect(failed.exit_code).toBe(3);
    expect(failed.is_error).toBe(false);
    expect(textOf(failed)).toContain('definitely-not-here');
  });

  it('keeps the working directory, variables and functions between calls', async () => {
    await run({ command: 'mkdir -p sub && cd sub && export GREETING=hi && LOCAL=there && shout() { echo "$1!"; }' });
    const observation = await run({ command: 'pwd; echo "$GREETING $LOCAL"; shout yes' });
    expect(textOf(observation)).toBe(`${join(workspaceDir, 'sub')}\nhi there\nyes!\n`);
    expect(observation.metadata.working_dir).toBe(join(workspaceDir, 'sub'));
  });

  it('runs multi-line commands, quotes and heredocs as one command', async () => {
    const observation = await run({ command: "cat <<'END'\nit's $HOME \\n\nEND\necho 'a\tb' \"c\"" });
    expect(textOf(observation)).toBe("it's $HOME \\n\na\tb c\n");
    expect(observation.exit_code).toBe(0);
  });

  it('returns control when a command goes quiet, then waits more and interrupts it with C-c', async () => {
    const started = Date.now();
    const first = await run({ command: 'echo begin; sleep 30; echo never' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(first).toMatchObject({ exit_code: -1, timeout: true, is_error: false });
    expect(textOf(first)).toBe('begin\n');
    expect(first.metadata.suffix).toContain('still running');

    const refused = await run({ command: 'echo other' });
    expect(refused.is_error).toBe(true);
    expect(textOf(refused)).toContain('NOT run');

    const waited = await run({ command: '' });
    expect(waited).toMatchObject({ exit_code: -1, timeout: true });

    const interrupted = await run({ command: 'C-c', is_input: true });
    expect(interrupted.exit_code).toBe(130);
    expect(textOf(interrupted)).not.toContain('never');

    const after = await run({ command: 'echo still alive' });
    expect(textOf(after)).toBe('still alive\n');
  });

  it('interrupts a busy loop of the shell itself', async () => {
    await run({ command: 'X=1; while true; do :; done', timeout: 0.3 });
    const interrupted = await run({ command: 'C-c', is_input: true });
    expect(interrupted.exit_code).toBe(130);
    expect(textOf(await run({ command: 'echo $X' }))).toBe('1\n');
  });

  it('stops waiting at the hard timeout even while output keeps coming', async () => {
    const started = Date.now();
    const observation = await run({ command: 'while true; do echo tick; sleep 0.1; done', timeout: 0.5 });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(3000);
    expect(observation).toMatchObject({ exit_code: -1, timeout: true });
    expect(textOf(observation)).toContain('tick');
    expect(observation.metadata.suffix).toContain('0.5-second timeout');
    expect((await run({ command: 'C-c', is_input: true })).exit_code).toBe(130);
  });

  it('waits past the quiet period when a timeout is given', async () => {
    const observation = await run({ command: 'sleep 0.6; echo done', timeout: 5 });
    expect(observation.exit_code).toBe(0);
    expect(textOf(observation)).toBe('done\n');
  });

  it('sends input lines to the running program', async () => {
    const waiting = await run({ command: 'read -r answer; echo "you said $answer"' });
    expect(waiting.exit_code).toBe(-1);
    const answered = await run({ command: 'forty two', is_input: true });
    expect(textOf(answered)).toBe('you said forty two\n');
    expect(answered.exit_code).toBe(0);
  });

  it('does not type input into the shell when the command has already finished', async () => {
    await run({ command: 'sleep 0.5; echo finished' });
    await new Promise((resolve) => setTimeout(resolve, 600));
    const observation = await run({ command: 'touch typed-into-shell', is_input: true });
    expect(observation.metadata.prefix).toContain('NOT sent');
    expect(textOf(observation)).toBe('finished\n');
    expect(textOf(await run({ command: 'ls' }))).not.toContain('typed-into-shell');
  });

  it('keeps non-ASCII text intact both ways', async () => {
    expect(textOf(await run({ command: "printf '%s\\n' 'héllo ✓ 日本'" }))).toBe('héllo ✓ 日本\n');
  });

  it('refuses input and waiting when nothing runs', async () => {
    const input = await run({ command: 'hello', is_input: true });
    expect(input.is_error).toBe(true);
    expect(textOf(input)).toContain('No command is running');
    expect((await run({ command: '' })).is_error).toBe(true);
  });

  it('shortens long output in the middle', async () => {
    const observation = await run({ command: 'echo START; seq 1 20000; echo END' });
    const text = textOf(observation);
    expect(text.length).toBeLessThan(2200);
    expect(text.startsWith('START\n1\n')).toBe(true);
    expect(text.endsWith('20000\nEND\n')).toBe(true);
    expect(text).toMatch(/\[\.\.\. \d+ characters of output omitted here \.\.\.\]/);
    expect(observation.exit_code).toBe(0);
  });

  it('keeps memory bounded for a flood of output and still sees the end', async () => {
    const observation = await run({ command: 'head -c 3000000 /dev/zero | tr "\\0" x; echo; echo END', timeout: 20 });
    expect(observation.exit_code).toBe(0);
    expect(textOf(observation).endsWith('END\n')).toBe(true);
    expect(textOf(observation)).toContain('omitted');
  });

  it('reset starts a fresh shell', async () => {
    await run({ command: 'cd / && export KEPT=yes' });
    const reset = await run({ reset: true, command: 'pwd; echo "[$KEPT]"' });
    expect(textOf(reset)).toBe(`${workspaceDir}\n[]\n`);
    expect(reset.metadata.prefix).toContain('reset');
  });

  it('reset also stops a command that hangs', async () => {
    await run({ command: 'sleep 30' });
    const reset = await run({ reset: true });
    expect(reset.is_error).toBe(false);
    expect(textOf(await run({ command: 'echo ok' }))).toBe('ok\n');
  });

  it('starts a fresh shell after the command exits the shell', async () => {
    const exited = await run({ command: 'exit 4' });
    expect(exited.exit_code).toBe(4);
    expect(exited.metadata.suffix).toContain('fresh shell');
    expect(textOf(await run({ command: 'pwd' }))).toBe(`${workspaceDir}\n`);
  });

  it('keeps one shell per conversation', async () => {
    const other = { workspaceDir, conversationId: 'conversation-2' };
    await run({ command: 'export WHO=first' });
    await run({ command: 'export WHO=second' }, other);
    expect(textOf(await run({ command: 'echo $WHO' }))).toBe('first\n');
    await tool.dispose('conversation-2');
    expect(textOf(await run({ command: 'echo "[$WHO]"' }, other))).toBe('[]\n');
  });

  it('does not pass the service environment to the shell', async () => {
    process.env.SECRETS_KEY_FOR_TEST = 'do-not-leak';
    try {
      expect(textOf(await run({ command: 'echo "[$SECRETS_KEY_FOR_TEST]"' }))).toBe('[]\n');
    } finally {
      delete process.env.SECRETS_KEY_FOR_TEST;
    }
  });

  it('reports the end of a command that finished after a quiet period along with the next command', async () => {
    await run({ command: 'sleep 0.5; echo late' });
    await new Promise((resolve) => setTimeout(resolve, 600));
    const next = await run({ command: 'echo next' });
    expect(textOf(next)).toBe('next\n');
    expect(next.metadata.prefix).toContain('exit code 0');
    expect(next.metadata.prefix).toContain('late');
  });

  describe('toAction', () => {
    it('fills the defaults and takes the shared arguments', () => {
      expect(tool.toAction({ command: 'ls', summary: 'list files', security_risk: 'LOW' })).toEqual({
        command: 'ls',
        is_input: false,
        timeout: null,
        reset: false,
        kind: 'TerminalAction',
      });
      expect(tool.toAction('{"command":"ls","timeout":"5","is_input":"false"}')).toMatchObject({ timeout: 5, is_input: false });
    });

    it('rejects bad arguments with a message naming the problem', () => {
      expect(() => tool.toAction({})).toThrow(ToolArgumentError);
      expect(() => tool.toAction({})).toThrow(/"command" is required/);
      expect(() => tool.toAction({ command: 'ls', timeout: -1 })).toThrow(/"timeout" must be a number >= 0/);
      expect(() => tool.toAction({ command: 'ls', timeout: 'soon' })).toThrow(/"timeout" must be a number/);
      expect(() => tool.toAction({ command: 'ls', cwd: '/' })).toThrow(/unknown argument\(s\) "cwd"/);
      expect(() => tool.toAction({ command: 'x', is_input: true, reset: true })).toThrow(/cannot be combined/);
      expect(() => tool.toAction({ command: 'ls', security_risk: 'EXTREME' })).toThrow(/security_risk/);
      expect(() => tool.toAction('not json')).toThrow(/not valid JSON/);
    });
  });
});

import { buildAction, buildObservation } from '../../events/dto/event-registry.js';
import { TerminalSession } from './terminal-session.js';
import { callSchema, capOutput, optionalString, requireString, text, ToolArgumentError, toolDefinition, type AgentTool, type ToolContext } from './tool.js';

/** Seconds without output after which a command is reported as still running. */
const SOFT_TIMEOUT_MS = Number(process.env.TERMINAL_SOFT_TIMEOUT_MS) || 10_000;

export class TerminalTool implements AgentTool {
  readonly name = 'terminal';
  readonly readOnly = false;
  readonly description =
    'Run a bash command in a persistent shell in the workspace (cd and variables persist between calls). ' +
    'A command that prints nothing for a while is reported as still running: call again with is_input true and ' +
    'an empty command to keep waiting, text to answer a prompt, or "C-c" to interrupt. Long output is cut in the middle.';
  readonly parameters = callSchema(
    {
      command: { type: 'string', description: 'The bash command, or with is_input the text to send to the running command' },
      is_input: { type: 'boolean', description: 'Send command as input to the running command' },
      timeout: { type: 'number', description: 'Hard limit in seconds; the command is interrupted after it' },
      reset: { type: 'boolean', description: 'Kill the shell and start a fresh one first' },
    },
    ['command'],
    true,
  );
  private readonly sessions = new Map<string, TerminalSession>();

  toAction(args: Record<string, unknown>) {
    const command = requireString(args, 'command');
    const timeout = args.timeout;
    if (timeout !== undefined && timeout !== null && (typeof timeout !== 'number' || timeout <= 0)) {
      throw new ToolArgumentError('"timeout" must be a positive number of seconds');
    }
    for (const flag of ['is_input', 'reset'] as const) {
      if (args[flag] !== undefined && typeof args[flag] !== 'boolean') throw new ToolArgumentError(`"${flag}" must be true or false`);
    }
    optionalString(args, 'command');
    return buildAction('TerminalAction', {
      command,
      is_input: args.is_input === true,
      timeout: (timeout as number | undefined) ?? null,
      reset: args.reset === true,
    }) as unknown as Record<string, unknown>;
  }

  async execute(action: Record<string, unknown>, context: ToolContext) {
    const command = String(action.command);
    let session = this.sessions.get(context.conversationId);
    if (action.reset || !session?.alive) {
      session?.close();
      session = new TerminalSession(context.workspaceDir);
      this.sessions.set(context.conversationId, session);
    }
    const hardMs = typeof action.timeout === 'number' ? action.timeout * 1000 : null;
    if (!action.is_input && session.busy) {
      return this.observation(command, null, false, session, context,
        'A previous command is still running. Send is_input true with an empty command to wait, or "C-c" to interrupt it.', true);
    }
    const result = action.is_input
      ? await session.input(command, SOFT_TIMEOUT_MS, hardMs)
      : await session.run(command, SOFT_TIMEOUT_MS, hardMs);
    let output = capOutput(result.output);
    if (result.stillRunning && !result.hitHardTimeout) {
      output += `\n[The command is still running (no new output for ${SOFT_TIMEOUT_MS / 1000} s). Send is_input true with an empty command to keep waiting, or "C-c" to interrupt.]`;
    }
    if (result.hitHardTimeout) output += `\n[The command was interrupted after its ${action.timeout} s limit.]`;
    return this.observation(command, result.exitCode, result.hitHardTimeout, session, context, output, false, result.workingDir);
  }

  private observation(
    command: string,
    exitCode: number | null,
    timedOut: boolean,
    session: TerminalSession,
    context: ToolContext,
    output: string,
    isError: boolean,
    workingDir = context.workspaceDir,
  ) {
    return buildObservation('TerminalObservation', {
      content: [text(output)],
      is_error: isError,
      command,
      exit_code: exitCode,
      timeout: timedOut,
      metadata: { exit_code: exitCode ?? -1, pid: session.pid, working_dir: workingDir, prefix: '', suffix: '' },
    }) as unknown as Record<string, unknown>;
  }

  definition() {
    return toolDefinition('TerminalTool', this, 'TerminalAction', 'TerminalObservation');
  }

  dispose(conversationId: string): void {
    this.sessions.get(conversationId)?.close();
    this.sessions.delete(conversationId);
  }
}

import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildEvent, validateAction, validateObservation } from '../../../../src/events/dto/event-registry.js';
import {
  createDefaultTools,
  observationToLlmText,
  readSharedArguments,
  sharedDefaultTools,
  ToolRegistry,
  type AgentTool,
  type ToolContext,
} from '../../../../src/agent/tools/index.js';

describe('the default tools together', () => {
  let workspaceDir: string;
  let ctx: ToolContext;
  let registry: ToolRegistry;

  beforeEach(async () => {
    workspaceDir = await realpath(await mkdtemp(join(tmpdir(), 'tool-registry-')));
    ctx = { workspaceDir, conversationId: 'conversation-1' };
    registry = new ToolRegistry(createDefaultTools({ terminal: { noOutputTimeoutMs: 500 } }));
  });

  afterEach(async () => {
    await registry.close();
    await rm(workspaceDir, { recursive: true, force: true });
  });

  it('offers the tools under the names the LLM knows', () => {
    expect(registry.names).toEqual(['terminal', 'file_editor', 'task_tracker', 'think', 'finish', 'glob', 'grep']);
    expect(registry.select(['grep', 'terminal', 'nope']).map((tool) => tool.name)).toEqual(['terminal', 'grep']);
  });

  it('shares one set of default tools per process, so shells outlive a run', () => {
    expect(sharedDefaultTools()).toBe(sharedDefaultTools());
    expect(createDefaultTools()).not.toBe(createDefaultTools());
  });

  it('gives every tool a parameter schema with summary, and security_risk only where it changes things', () => {
    for (const tool of registry.list()) {
      expect(tool.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.parameters.properties.summary).toBeDefined();
      expect(tool.parameters.properties.security_risk === undefined).toBe(tool.readOnly);
      for (const required of tool.parameters.required) expect(tool.parameters.properties[required]).toBeDefined();
      expect(tool.description.length).toBeGreaterThan(40);
    }
    expect(registry.get('terminal')!.parameters.required).toEqual(['command']);
    expect(registry.get('file_editor')!.parameters.required).toEqual(['command', 'path']);
  });

  it('stores valid ToolDefinitions in a SystemPromptEvent', () => {
    const definitions = registry.definitions();
    expect(definitions.map((definition) => definition.kind)).toEqual([
      'TerminalTool',
      'FileEditorTool',
      'TaskTrackerTool',
      'ThinkTool',
      'FinishTool',
      'GlobTool',
      'GrepTool',
    ]);
    expect(definitions[0]).toMatchObject({ title: 'terminal', action_type: 'TerminalAction', observation_type: 'TerminalObservation', meta: null });
    expect(() =>
      buildEvent('SystemPromptEvent', { system_prompt: { type: 'text', text: 'You are an agent.', cache_prompt: false }, tools: definitions as never }),
    ).not.toThrow();
  });

  it('produces actions and observations that validate against the event model', async () => {
    const file = join(workspaceDir, 'notes.md');
    const calls: Array<[string, Record<string, unknown>]> = [
      ['terminal', { command: 'echo hi', summary: 'say hi', security_risk: 'LOW' }],
      ['terminal', { command: 'hello', is_input: true }],
      ['file_editor', { command: 'create', path: file, file_text: 'hello\n' }],
      ['file_editor', { command: 'str_replace', path: file, old_str: 'hello', new_str: 'bye' }],
      ['file_editor', { command: 'view', path: '/etc/passwd' }],
      ['task_tracker', { command: 'plan', task_list: [{ title: 'one' }] }],
      ['task_tracker', {}],
      ['think', { thought: 'hmm' }],
      ['finish', { message: 'done' }],
      ['glob', { pattern: '**/*.md' }],
      ['grep', { pattern: 'bye', include: '*.md' }],
    ];
    for (const [name, args] of calls) {
      const tool = registry.get(name) as AgentTool;
      const action = tool.toAction(args);
      expect({ name, errors: validateAction(action) }).toEqual({ name, errors: [] });
      const observation = await tool.execute(action, ctx);
      expect({ name, errors: validateObservation(observation) }).toEqual({ name, errors: [] });
    }
  });

  it('renders observations for the LLM, the terminal with its notes', async () => {
    const terminal = registry.get('terminal')!;
    const observation = await terminal.execute(terminal.toAction({ command: 'echo hi' }), ctx);
    expect(observationToLlmText(observation)).toBe(`hi\n\n[The command finished with exit code 0.]\n[Current working directory: ${workspaceDir}]`);
    const editor = registry.get('file_editor')!;
    const failure = await editor.execute(editor.toAction({ command: 'view', path: '/etc/passwd' }), ctx);
    expect(observationToLlmText(failure)).toMatch(/^\[The tool reported an error\.\]\nThe path \/etc\/passwd is outside the workspace/);
  });

  it('reads summary and security_risk of a call for the ActionEvent', () => {
    expect(readSharedArguments({ command: 'ls', summary: ' list files ', security_risk: 'high' })).toEqual({ summary: 'list files', security_risk: 'HIGH' });
    expect(readSharedArguments('{"command":"ls"}')).toEqual({ summary: null, security_risk: 'UNKNOWN' });
    expect(readSharedArguments({ security_risk: 'EXTREME' }).security_risk).toBe('UNKNOWN');
  });

  it('disposes a conversation: its shell is replaced by a fresh one', async () => {
    const terminal = registry.get('terminal')!;
    await terminal.execute(terminal.toAction({ command: 'export MARK=1' }), ctx);
    await registry.disposeConversation(ctx.conversationId);
    const observation = await terminal.execute(terminal.toAction({ command: 'echo "[$MARK]"' }), ctx);
    expect(observation.content[0].text).toBe('[]\n');
  });
});

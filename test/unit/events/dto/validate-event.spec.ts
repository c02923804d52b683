import {
  assertValidEvent,
  completeEvent,
  EVENT_KINDS,
  validateEvent,
  type EventKind,
} from '../../../../src/events/dto/index.js';
import { failedConstraints, MINIMAL_EVENT_FIELDS, TOOL_CALL } from './event-samples.js';

type Plain = Record<string, any>;

/** A complete event of `kind` with `extra` merged in, not validated (it may be invalid on purpose). */
function sample(kind: EventKind, extra: Plain = {}): Plain {
  return completeEvent({ ...MINIMAL_EVENT_FIELDS[kind], ...extra, kind });
}

function problems(event: unknown): string[] {
  return failedConstraints(validateEvent(event));
}

// The interface's required fields (R), plus id, timestamp and kind that every served event carries.
const REQUIRED_FIELDS: Record<EventKind, string[]> = {
  Condensation: ['llm_response_id'],
  CondensationRequest: [],
  CondensationSummaryEvent: ['summary'],
  ConversationErrorEvent: ['source', 'code', 'detail'],
  ConversationStateUpdateEvent: [],
  LLMCompletionLogEvent: ['filename', 'log_data'],
  ActionEvent: ['thought', 'tool_name', 'tool_call_id', 'tool_call', 'llm_response_id'],
  MessageEvent: ['source', 'llm_message'],
  AgentErrorEvent: ['tool_name', 'tool_call_id', 'error'],
  ObservationEvent: ['tool_name', 'tool_call_id', 'observation', 'action_id'],
  UserRejectObservation: ['tool_name', 'tool_call_id', 'action_id'],
  SystemPromptEvent: ['system_prompt', 'tools'],
  TokenEvent: ['source', 'prompt_token_ids', 'response_token_ids'],
  PauseEvent: [],
};

describe('validateEvent', () => {
  describe('unknown properties', () => {
    it.each(EVENT_KINDS)('%s rejects an unknown top-level property', (kind) => {
      expect(problems({ ...sample(kind), surprise: 1 })).toEqual(['surprise: whitelistValidation']);
    });

    const nestedCases: Array<[string, Plain, string]> = [
      [
        'an action',
        sample('ActionEvent', { action: { kind: 'TerminalAction', command: 'ls', shell: 'zsh' } }),
        'action.shell',
      ],
      ['a tool call', sample('ActionEvent', { tool_call: { ...TOOL_CALL, type: 'function' } }), 'tool_call.type'],
      ['a thought', sample('ActionEvent', { thought: [{ text: 't', lang: 'en' }] }), 'thought.0.lang'],
      [
        'a thinking block',
        sample('ActionEvent', { thinking_blocks: [{ type: 'redacted_thinking', data: 'x', thinking: 'y' }] }),
        'thinking_blocks.0.thinking',
      ],
      [
        'a reasoning item',
        sample('ActionEvent', { responses_reasoning_item: { id: 'r', tokens: 3 } }),
        'responses_reasoning_item.tokens',
      ],
      [
        'a critic result',
        sample('ActionEvent', { critic_result: { score: 1, message: null, label: 'ok' } }),
        'critic_result.label',
      ],
      ['a message', sample('MessageEvent', { llm_message: { role: 'user', mood: 'happy' } }), 'llm_message.mood'],
      [
        'a message content item',
        sample('MessageEvent', { llm_message: { role: 'user', content: [{ type: 'image', image_urls: [], alt: 'a' }] } }),
        'llm_message.content.0.alt',
      ],
      [
        'an observation',
        sample('ObservationEvent', { observation: { kind: 'ThinkObservation', note: 'n' } }),
        'observation.note',
      ],
      [
        'terminal metadata',
        sample('ObservationEvent', {
          observation: { kind: 'TerminalObservation', command: 'ls', metadata: { shell: 'bash' } },
        }),
        'observation.metadata.shell',
      ],
      [
        'a task item',
        sample('ObservationEvent', {
          observation: { kind: 'TaskTrackerObservation', command: 'plan', task_list: [{ title: 't', owner: 'me' }] },
        }),
        'observation.task_list.0.owner',
      ],
      [
        'a tool definition',
        sample('SystemPromptEvent', {
          tools: [{ kind: 'ThinkTool', title: 'think', description: 'd', action_type: 'ThinkAction', version: 2 }],
        }),
        'tools.0.version',
      ],
      [
        'tool annotations',
        sample('SystemPromptEvent', {
          tools: [
            {
              kind: 'ThinkTool',
              title: 'think',
              description: 'd',
              action_type: 'ThinkAction',
              annotations: { fastHint: true },
            },
          ],
        }),
        'tools.0.annotations.fastHint',
      ],
      ['a system prompt', sample('SystemPromptEvent', { system_prompt: { text: 'p', role: 'system' } }), 'system_prompt.role'],
    ];
    it.each(nestedCases)('rejects an unknown property in %s', (_what, event, path) => {
      expect(problems(event)).toEqual([`${path}: whitelistValidation`]);
    });

    it('accepts any content in free-form objects', () => {
      const event = sample('ActionEvent', {
        action: { kind: 'MCPToolAction', data: { anything: { nested: [1, 'two'] } } },
        critic_result: { score: 0.2, message: 'meh', metadata: { model: 'critic-1', extra: true } },
      });
      expect(problems(event)).toEqual([]);
    });
  });

  describe('missing required fields', () => {
    const cases = EVENT_KINDS.flatMap((kind) =>
      ['id', 'timestamp', ...REQUIRED_FIELDS[kind]].map((field) => [kind, field] as const),
    );
    it.each(cases)('%s without %s is rejected', (kind, field) => {
      const event = sample(kind);
      delete event[field];
      expect(problems(event)).toContain(`${field}: isDefined`);
    });

    it.each([
      ['tool_call.origin', (event: Plain) => delete event.tool_call.origin],
      ['thought.0.text', (event: Plain) => (event.thought = [{ type: 'text' }])],
      ['critic_result.message', (event: Plain) => (event.critic_result = { score: 0.5 })],
      ['critic_result.score', (event: Plain) => (event.critic_result = { message: null })],
      ['action.command', (event: Plain) => (event.action = { kind: 'TerminalAction' })],
      ['action.kind', (event: Plain) => (event.action = { command: 'ls' })],
    ])('an ActionEvent without %s is rejected', (path, strip) => {
      const event = sample('ActionEvent');
      strip(event);
      expect(problems(event).some((problem) => problem.startsWith(`${path}: `))).toBe(true);
    });

    it('rejects an event without kind or of an unknown kind', () => {
      const { kind: _kind, ...withoutKind } = sample('PauseEvent');
      expect(problems(withoutKind)).toEqual(['kind: isIn']);
      expect(problems({ ...withoutKind, kind: 'MysteryEvent' })).toEqual(['kind: isIn']);
      expect(problems({ ...withoutKind, kind: 'toString' })).toEqual(['kind: isIn']);
    });

    it('rejects values that are not objects', () => {
      for (const value of [null, 'PauseEvent', 42, [sample('PauseEvent')]]) {
        expect(validateEvent(value)).toHaveLength(1);
      }
    });
  });

  describe('constraints', () => {
    const action = (fields: Plain) => sample('ActionEvent', { action: fields });
    const cases: Array<[string, Plain, string]> = [
      ['summary_offset -1', sample('Condensation', { summary_offset: -1 }), 'summary_offset: min'],
      ['summary_offset 1.5', sample('Condensation', { summary_offset: 1.5 }), 'summary_offset: isInt'],
      ['critic score 1.5', sample('ActionEvent', { critic_result: { score: 1.5, message: null } }), 'critic_result.score: max'],
      ['critic score -0.1', sample('MessageEvent', { critic_result: { score: -0.1, message: null } }), 'critic_result.score: min'],
      ['close tab_id of 3 chars', action({ kind: 'BrowserCloseTabAction', tab_id: 'abc' }), 'action.tab_id: minLength'],
      ['close tab_id of 5 chars', action({ kind: 'BrowserCloseTabAction', tab_id: 'abcde' }), 'action.tab_id: maxLength'],
      ['switch tab_id of 3 chars', action({ kind: 'BrowserSwitchTabAction', tab_id: 'abc' }), 'action.tab_id: minLength'],
      ['switch tab_id of 5 chars', action({ kind: 'BrowserSwitchTabAction', tab_id: 'abcde' }), 'action.tab_id: maxLength'],
      ['click index -1', action({ kind: 'BrowserClickAction', index: -1 }), 'action.index: min'],
      ['click index 1.5', action({ kind: 'BrowserClickAction', index: 1.5 }), 'action.index: isInt'],
      ['type index -1', action({ kind: 'BrowserTypeAction', index: -1, text: 'x' }), 'action.index: min'],
      [
        'insert_line -1',
        action({ kind: 'FileEditorAction', command: 'insert', path: '/a', new_str: 'x', insert_line: -1 }),
        'action.insert_line: min',
      ],
      [
        'planning insert_line -1',
        action({ kind: 'PlanningFileEditorAction', command: 'insert', path: '/a', insert_line: -1 }),
        'action.insert_line: min',
      ],
      ['start_from_char -1', action({ kind: 'BrowserGetContentAction', start_from_char: -1 }), 'action.start_from_char: min'],
      ['read limit 0', action({ kind: 'ReadFileAction', file_path: 'a', limit: 0 }), 'action.limit: min'],
      ['terminal timeout -1', action({ kind: 'TerminalAction', command: 'ls', timeout: -1 }), 'action.timeout: min'],
      ['scroll sideways', action({ kind: 'BrowserScrollAction', direction: 'left' }), 'action.direction: isIn'],
      ['editor command', action({ kind: 'FileEditorAction', command: 'delete', path: '/a' }), 'action.command: isIn'],
      ['security risk', sample('ActionEvent', { security_risk: 'CRITICAL' }), 'security_risk: isIn'],
      ['source', sample('PauseEvent', { source: 'system' }), 'source: isIn'],
      ['message role', sample('MessageEvent', { llm_message: { role: 'robot' } }), 'llm_message.role: isIn'],
      ['tool call origin', sample('ActionEvent', { tool_call: { ...TOOL_CALL, origin: 'chat' } }), 'tool_call.origin: isIn'],
      ['rejection source', sample('UserRejectObservation', { rejection_source: 'admin' }), 'rejection_source: isIn'],
      [
        'content type',
        sample('MessageEvent', { llm_message: { role: 'user', content: [{ type: 'audio', text: 'x' }] } }),
        'llm_message.content.0.type: equals',
      ],
      ['token ids', sample('TokenEvent', { prompt_token_ids: [1, 'two'] }), 'prompt_token_ids: isInt'],
      [
        'lines_shown of 3',
        sample('ObservationEvent', { observation: { kind: 'ReadFileObservation', file_path: 'a', lines_shown: [1, 2, 3] } }),
        'observation.lines_shown: arrayMaxSize',
      ],
      [
        'task status',
        sample('ObservationEvent', {
          observation: { kind: 'TaskTrackerObservation', command: 'plan', task_list: [{ title: 't', status: 'blocked' }] },
        }),
        'observation.task_list.0.status: isIn',
      ],
      [
        'unknown action kind',
        action({ kind: 'FlyAction' }),
        'action.kind: isIn',
      ],
      [
        'unknown observation kind',
        sample('ObservationEvent', { observation: { kind: 'FlyObservation' } }),
        'observation.kind: isIn',
      ],
      [
        'unknown tool definition kind',
        sample('SystemPromptEvent', { tools: [{ kind: 'FlyTool' }] }),
        'tools.0.kind: isIn',
      ],
      [
        'mcp_tool without name',
        sample('SystemPromptEvent', {
          tools: [{ kind: 'MCPToolDefinition', title: 't', description: 'd', action_type: 'MCPToolAction', mcp_tool: { inputSchema: {} } }],
        }),
        'tools.0.mcp_tool: isMcpToolSpec',
      ],
      ['timestamp', sample('PauseEvent', { timestamp: 'yesterday' }), 'timestamp: isIso8601'],
      ['a string for a boolean', sample('ActionEvent', { thought: [{ text: 't', cache_prompt: 'no' }] }), 'thought.0.cache_prompt: isBoolean'],
      ['null for a non-nullable default', sample('LLMCompletionLogEvent', { model_name: null }), 'model_name: isString'],
      ['an array for an object', sample('MessageEvent', { llm_message: [{ role: 'user' }] }), 'llm_message: isObject'],
    ];
    it.each(cases)('rejects %s', (_what, event, expected) => {
      expect(problems(event)).toContain(expected);
    });

    it('accepts the bounds themselves', () => {
      expect(problems(sample('Condensation', { summary_offset: 0 }))).toEqual([]);
      expect(problems(sample('ActionEvent', { critic_result: { score: 0, message: null } }))).toEqual([]);
      expect(problems(sample('ActionEvent', { critic_result: { score: 1, message: 'ok' } }))).toEqual([]);
      expect(problems(sample('ActionEvent', { action: { kind: 'BrowserClickAction', index: 0 } }))).toEqual([]);
      expect(
        problems(sample('ActionEvent', { action: { kind: 'FileEditorAction', command: 'insert', path: '/a', insert_line: 0 } })),
      ).toEqual([]);
    });

    it('accepts null where the interface allows it', () => {
      expect(problems(sample('ActionEvent', { action: null, summary: null, critic_result: null }))).toEqual([]);
      expect(problems(sample('MessageEvent', { llm_message: { role: 'user', tool_calls: null } }))).toEqual([]);
      expect(problems(sample('ObservationEvent', { observation: { kind: 'TerminalObservation', command: null } }))).toEqual(
        [],
      );
    });

    it('reports a null item of a union array with its path instead of throwing', () => {
      const message = sample('MessageEvent', { llm_message: { role: 'user', content: [{ text: 'a' }, null] } });
      expect(problems(message)).toEqual(['llm_message.content.1: isObject']);
      const prompt = sample('SystemPromptEvent', { tools: [null] });
      expect(problems(prompt)).toEqual(['tools.0: isObject']);
    });
  });
});

describe('assertValidEvent', () => {
  it('passes a valid event', () => {
    expect(() => assertValidEvent(sample('PauseEvent'))).not.toThrow();
  });

  it('throws an Error naming the kind and each problem with its path', () => {
    const event = sample('ActionEvent', { action: { kind: 'BrowserClickAction', index: -1 }, extra: true });
    expect(() => assertValidEvent(event)).toThrow(
      /^Invalid ActionEvent: extra: property extra should not exist; action\.index: index must not be less than 0$/,
    );
  });

  it('throws for an unknown kind', () => {
    expect(() => assertValidEvent({ kind: 'Nope' })).toThrow(/kind must be one of the Event kinds: Condensation, /);
  });
});

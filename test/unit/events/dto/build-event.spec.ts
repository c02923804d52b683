import { readFileSync } from 'node:fs';
import {
  buildEvent,
  completeEvent,
  EVENT_KINDS,
  validateEvent,
  type EventKind,
} from '../../../../src/events/dto/index.js';
import { MINIMAL_EVENT_FIELDS } from './event-samples.js';

const fixtureEvents = JSON.parse(
  readFileSync(new URL('../../../fixtures/events.json', import.meta.url), 'utf8'),
) as Array<Record<string, unknown> & { kind: EventKind }>;

const COMMON_FIELDS = ['id', 'timestamp', 'source', 'kind'];

// Every field of each variant, from the interface's variant table.
const VARIANT_FIELDS: Record<EventKind, string[]> = {
  Condensation: ['forgotten_event_ids', 'summary', 'summary_offset', 'llm_response_id'],
  CondensationRequest: [],
  CondensationSummaryEvent: ['summary'],
  ConversationErrorEvent: ['code', 'detail'],
  ConversationStateUpdateEvent: ['key', 'value'],
  LLMCompletionLogEvent: ['filename', 'log_data', 'model_name', 'usage_id'],
  ActionEvent: [
    'thought',
    'reasoning_content',
    'thinking_blocks',
    'responses_reasoning_item',
    'action',
    'tool_name',
    'tool_call_id',
    'tool_call',
    'llm_response_id',
    'security_risk',
    'critic_result',
    'summary',
  ],
  MessageEvent: ['llm_message', 'llm_response_id', 'activated_skills', 'extended_content', 'sender', 'critic_result'],
  AgentErrorEvent: ['tool_name', 'tool_call_id', 'error'],
  ObservationEvent: ['tool_name', 'tool_call_id', 'observation', 'action_id'],
  UserRejectObservation: ['tool_name', 'tool_call_id', 'action_id', 'rejection_reason', 'rejection_source'],
  SystemPromptEvent: ['system_prompt', 'tools', 'dynamic_context'],
  TokenEvent: ['prompt_token_ids', 'response_token_ids'],
  PauseEvent: [],
};

const DEFAULT_SOURCE: Record<EventKind, string | undefined> = {
  Condensation: 'environment',
  CondensationRequest: 'environment',
  CondensationSummaryEvent: 'environment',
  ConversationErrorEvent: undefined,
  ConversationStateUpdateEvent: 'environment',
  LLMCompletionLogEvent: 'environment',
  ActionEvent: 'agent',
  MessageEvent: undefined,
  AgentErrorEvent: 'agent',
  ObservationEvent: 'environment',
  UserRejectObservation: 'environment',
  SystemPromptEvent: 'agent',
  TokenEvent: undefined,
  PauseEvent: 'user',
};

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ISO_UTC_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('the example events', () => {
  it('holds one event of each of the 14 kinds', () => {
    expect(EVENT_KINDS).toHaveLength(14);
    expect(new Set(fixtureEvents.map((event) => event.kind))).toEqual(new Set(EVENT_KINDS));
  });

  it.each(fixtureEvents.map((event) => [event.kind, event] as const))('%s validates', (_kind, event) => {
    expect(validateEvent(event)).toEqual([]);
  });

  it.each(fixtureEvents.map((event) => [event.kind, event] as const))(
    'buildEvent reproduces %s from its fields, key order included',
    (kind, event) => {
      const { kind: _omitted, ...fields } = event;
      const built = buildEvent(kind, fields as never);
      expect(built).toStrictEqual(event);
      expect(JSON.stringify(built)).toBe(JSON.stringify(event));
    },
  );
});

describe('buildEvent with the fewest fields', () => {
  it.each(EVENT_KINDS)('%s gets every field of its variant and nothing else', (kind) => {
    const event = buildEvent(kind, MINIMAL_EVENT_FIELDS[kind] as never) as unknown as Record<string, unknown>;
    expect(Object.keys(event).sort()).toEqual([...COMMON_FIELDS, ...VARIANT_FIELDS[kind]].sort());
    expect(event.kind).toBe(kind);
    expect(event.id).toMatch(ULID);
    expect(event.timestamp).toMatch(ISO_UTC_MILLIS);
    expect(validateEvent(event)).toEqual([]);
  });

  it.each(EVENT_KINDS.filter((kind) => DEFAULT_SOURCE[kind]))('%s gets its default source', (kind) => {
    const event = buildEvent(kind, MINIMAL_EVENT_FIELDS[kind] as never);
    expect(event.source).toBe(DEFAULT_SOURCE[kind]);
  });

  it.each(EVENT_KINDS.filter((kind) => !DEFAULT_SOURCE[kind]))('%s refuses to be built without a source', (kind) => {
    const { source: _source, ...fields } = MINIMAL_EVENT_FIELDS[kind];
    expect(() => buildEvent(kind, fields as never)).toThrow(/source: is required/);
  });

  it('gives every event a new id and keeps a given id, timestamp and source', () => {
    const first = buildEvent('PauseEvent');
    const second = buildEvent('PauseEvent');
    expect(first.id).not.toBe(second.id);
    const given = buildEvent('PauseEvent', { id: 'evt-1', timestamp: '2026-01-01T00:00:00.000Z', source: 'agent' });
    expect(given).toEqual({ id: 'evt-1', timestamp: '2026-01-01T00:00:00.000Z', source: 'agent', kind: 'PauseEvent' });
  });

  it('applies the defaults and nulls of the interface', () => {
    expect(buildEvent('Condensation', { llm_response_id: 'r' })).toMatchObject({
      forgotten_event_ids: [],
      summary: null,
      summary_offset: null,
    });
    expect(buildEvent('LLMCompletionLogEvent', { filename: 'f', log_data: '{}' })).toMatchObject({
      model_name: 'unknown',
      usage_id: 'default',
    });
    expect(buildEvent('UserRejectObservation', MINIMAL_EVENT_FIELDS.UserRejectObservation as never)).toMatchObject({
      rejection_reason: 'User rejected the action',
      rejection_source: 'user',
    });
    expect(buildEvent('ActionEvent', MINIMAL_EVENT_FIELDS.ActionEvent as never)).toMatchObject({
      reasoning_content: null,
      thinking_blocks: [],
      responses_reasoning_item: null,
      action: null,
      security_risk: 'UNKNOWN',
      critic_result: null,
      summary: null,
    });
    expect(buildEvent('SystemPromptEvent', MINIMAL_EVENT_FIELDS.SystemPromptEvent as never)).toMatchObject({
      system_prompt: { type: 'text', text: 'You are an agent.', cache_prompt: false },
      dynamic_context: null,
    });
  });

  it('keeps an explicit null value of a state update and defaults a missing one', () => {
    expect(buildEvent('ConversationStateUpdateEvent', { key: 'title', value: null })).toMatchObject({ value: null });
    const update = buildEvent('ConversationStateUpdateEvent', { key: 'stats' });
    expect(update.value).toEqual({});
  });

  it('completes nested messages, content, thinking blocks, tool calls and reasoning items', () => {
    const event = buildEvent('MessageEvent', {
      source: 'agent',
      llm_response_id: 'resp-2',
      llm_message: {
        role: 'assistant',
        content: [{ text: 'hi' }, { type: 'image', image_urls: ['data:image/png;base64,AA=='] }],
        thinking_blocks: [{ thinking: 'let me see' }, { type: 'redacted_thinking', data: 'xyz' }],
        tool_calls: [{ id: 'c', name: 'think', arguments: '{}', origin: 'responses' }],
        responses_reasoning_item: { id: 'rs_1' },
      },
      critic_result: { score: 0.5, message: null },
    });
    expect(event.llm_message).toStrictEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'hi', cache_prompt: false },
        { type: 'image', image_urls: ['data:image/png;base64,AA=='], cache_prompt: false },
      ],
      tool_calls: [{ id: 'c', name: 'think', arguments: '{}', origin: 'responses' }],
      tool_call_id: null,
      name: null,
      reasoning_content: null,
      thinking_blocks: [
        { type: 'thinking', thinking: 'let me see', signature: null },
        { type: 'redacted_thinking', data: 'xyz' },
      ],
      responses_reasoning_item: { id: 'rs_1', summary: [], content: null, encrypted_content: null, status: null },
    });
    expect(event.critic_result).toStrictEqual({ score: 0.5, message: null, metadata: null });
  });

  it('completes the action and observation of tool events', () => {
    const action = buildEvent('ActionEvent', {
      ...(MINIMAL_EVENT_FIELDS.ActionEvent as object),
      action: { kind: 'FileEditorAction', command: 'view', path: '/w/a.txt' },
    } as never);
    expect(action.action).toStrictEqual({
      command: 'view',
      path: '/w/a.txt',
      file_text: null,
      old_str: null,
      new_str: null,
      insert_line: null,
      view_range: null,
      kind: 'FileEditorAction',
    });
    const observation = buildEvent('ObservationEvent', {
      ...(MINIMAL_EVENT_FIELDS.ObservationEvent as object),
      observation: { kind: 'TerminalObservation', command: 'ls', exit_code: 0 },
    } as never);
    expect(observation.observation).toStrictEqual({
      content: [],
      is_error: false,
      command: 'ls',
      exit_code: 0,
      timeout: false,
      metadata: {
        exit_code: -1,
        pid: -1,
        username: null,
        hostname: null,
        working_dir: null,
        py_interpreter_path: null,
        prefix: '',
        suffix: '',
      },
      full_output_save_dir: null,
      kind: 'TerminalObservation',
    });
  });

  it('completes tool definitions with their nullable fields', () => {
    const event = buildEvent('SystemPromptEvent', {
      system_prompt: { text: 'p' },
      tools: [
        { kind: 'TerminalTool', title: 'terminal', description: 'Run commands', action_type: 'TerminalAction' },
        {
          kind: 'MCPToolDefinition',
          title: 'fetch',
          description: 'Fetch a URL',
          action_type: 'MCPToolAction',
          annotations: { readOnlyHint: true },
          mcp_tool: { name: 'fetch', inputSchema: { type: 'object' }, extra: 'kept' },
        },
      ],
    });
    expect(event.tools[0]).toStrictEqual({
      description: 'Run commands',
      action_type: 'TerminalAction',
      observation_type: null,
      annotations: null,
      meta: null,
      title: 'terminal',
      kind: 'TerminalTool',
    });
    expect(event.tools[1]).toMatchObject({
      annotations: {
        title: null,
        readOnlyHint: true,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      },
      mcp_tool: { name: 'fetch', inputSchema: { type: 'object' }, extra: 'kept' },
    });
  });

  it('does not share default arrays or objects between events', () => {
    const first = buildEvent('Condensation', { llm_response_id: 'r' });
    first.forgotten_event_ids.push('x');
    expect(buildEvent('Condensation', { llm_response_id: 'r' }).forgotten_event_ids).toEqual([]);
  });

  it('does not change the fields it was given', () => {
    const fields = { llm_message: { role: 'user' as const, content: [{ text: 'hi' }] }, source: 'user' as const };
    const before = structuredClone(fields);
    buildEvent('MessageEvent', fields);
    expect(fields).toEqual(before);
  });

  it('refuses unknown kinds, unknown fields and invalid values', () => {
    expect(() => buildEvent('NoSuchEvent' as EventKind, {})).toThrow(/Unknown event kind/);
    expect(() => buildEvent('PauseEvent', { reason: 'x' } as never)).toThrow(/reason: property reason should not exist/);
    expect(() => buildEvent('Condensation', { llm_response_id: 'r', summary_offset: -1 })).toThrow(/summary_offset/);
  });
});

describe('completeEvent', () => {
  it('completes without validating, keeping unknown properties for the validator to report', () => {
    const complete = completeEvent({ kind: 'PauseEvent', id: 'a', timestamp: 't', extra: 1 });
    expect(complete).toEqual({ id: 'a', timestamp: 't', source: 'user', kind: 'PauseEvent', extra: 1 });
  });

  it('leaves an object of unknown kind as it is', () => {
    expect(completeEvent({ kind: 'Nope', a: 1 })).toEqual({ kind: 'Nope', a: 1 });
  });
});

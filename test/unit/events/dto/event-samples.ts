import type { ValidationError } from 'class-validator';
import type { ActionKind, EventKind, ObservationKind } from '../../../../src/events/dto/index.js';

/** The fewest fields each variant needs (its required ones), for building valid samples in tests. */

export const TOOL_CALL = { id: 'call_1', name: 'terminal', arguments: '{"command": "ls"}', origin: 'completion' };

export const MINIMAL_EVENT_FIELDS: Record<EventKind, Record<string, unknown>> = {
  Condensation: { llm_response_id: 'resp-1' },
  CondensationRequest: {},
  CondensationSummaryEvent: { summary: 'what happened so far' },
  ConversationErrorEvent: { source: 'environment', code: 'MaxIterationsReached', detail: 'stopped' },
  ConversationStateUpdateEvent: {},
  LLMCompletionLogEvent: { filename: 'log.json', log_data: '{}' },
  ActionEvent: {
    thought: [],
    tool_name: 'terminal',
    tool_call_id: 'call_1',
    tool_call: TOOL_CALL,
    llm_response_id: 'resp-1',
  },
  MessageEvent: { source: 'user', llm_message: { role: 'user' } },
  AgentErrorEvent: { tool_name: 'terminal', tool_call_id: 'call_1', error: 'boom' },
  ObservationEvent: {
    tool_name: 'think',
    tool_call_id: 'call_1',
    action_id: 'action-1',
    observation: { kind: 'ThinkObservation' },
  },
  UserRejectObservation: { tool_name: 'terminal', tool_call_id: 'call_1', action_id: 'action-1' },
  SystemPromptEvent: { system_prompt: { text: 'You are an agent.' }, tools: [] },
  TokenEvent: { source: 'agent', prompt_token_ids: [1, 2], response_token_ids: [3] },
  PauseEvent: {},
};

export const MINIMAL_ACTION_FIELDS: Record<ActionKind, Record<string, unknown>> = {
  MCPToolAction: {},
  FinishAction: { message: 'done' },
  ThinkAction: { thought: 'hmm' },
  BrowserAction: {},
  BrowserClickAction: { index: 0 },
  BrowserCloseTabAction: { tab_id: 'ab12' },
  BrowserGetContentAction: {},
  BrowserGetStateAction: {},
  BrowserGetStorageAction: {},
  BrowserGoBackAction: {},
  BrowserListTabsAction: {},
  BrowserNavigateAction: { url: 'https://example.com' },
  BrowserScrollAction: {},
  BrowserSetStorageAction: { storage_state: { cookies: [], origins: [] } },
  BrowserStartRecordingAction: {},
  BrowserStopRecordingAction: {},
  BrowserSwitchTabAction: { tab_id: 'cd34' },
  BrowserTypeAction: { index: 2, text: 'hello' },
  FileEditorAction: { command: 'view', path: '/workspace/a.txt' },
  EditAction: { file_path: 'a.txt', old_string: 'a', new_string: 'b' },
  ListDirectoryAction: {},
  ReadFileAction: { file_path: 'a.txt' },
  WriteFileAction: { file_path: 'a.txt', content: 'text' },
  GlobAction: { pattern: '**/*.ts' },
  GrepAction: { pattern: 'TODO' },
  PlanningFileEditorAction: { command: 'create', path: '/workspace/PLAN.md', file_text: '# Plan' },
  TaskTrackerAction: {},
  TerminalAction: { command: 'ls' },
};

export const MINIMAL_OBSERVATION_FIELDS: Record<ObservationKind, Record<string, unknown>> = {
  MCPToolObservation: { tool_name: 'fetch' },
  FinishObservation: {},
  ThinkObservation: {},
  BrowserObservation: {},
  FileEditorObservation: { command: 'view' },
  EditObservation: {},
  ListDirectoryObservation: {},
  ReadFileObservation: { file_path: 'a.txt' },
  WriteFileObservation: {},
  GlobObservation: { files: [], pattern: '*.ts', search_path: '/workspace' },
  GrepObservation: { matches: [], pattern: 'TODO', search_path: '/workspace' },
  PlanningFileEditorObservation: { command: 'view' },
  TaskTrackerObservation: { command: 'plan' },
  TerminalObservation: { command: null },
};

/** "path: constraint" for every failed constraint, e.g. "action.index: min". */
export function failedConstraints(errors: ValidationError[]): string[] {
  const found: string[] = [];
  const walk = (error: ValidationError, parent: string) => {
    const path = error.property === '' ? parent : parent ? `${parent}.${error.property}` : error.property;
    for (const name of Object.keys(error.constraints ?? {})) found.push(`${path}: ${name}`);
    for (const child of error.children ?? []) walk(child, path);
  };
  for (const error of errors) walk(error, '');
  return found;
}

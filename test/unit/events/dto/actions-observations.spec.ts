import {
  ACTION_KINDS,
  buildAction,
  buildEvent,
  buildObservation,
  completeEvent,
  OBSERVATION_KINDS,
  validateAction,
  validateEvent,
  validateObservation,
} from '../../../../src/events/dto/index.js';
import {
  failedConstraints,
  MINIMAL_ACTION_FIELDS,
  MINIMAL_EVENT_FIELDS,
  MINIMAL_OBSERVATION_FIELDS,
} from './event-samples.js';

describe('Action variants', () => {
  it('are the 28 kinds of the reference', () => {
    expect(ACTION_KINDS).toHaveLength(28);
  });

  it.each(ACTION_KINDS)('%s built with defaults validates, alone and inside an ActionEvent', (kind) => {
    const action = buildAction(kind, MINIMAL_ACTION_FIELDS[kind] as never);
    expect(action.kind).toBe(kind);
    expect(validateAction(action)).toEqual([]);
    const event = buildEvent('ActionEvent', { ...MINIMAL_EVENT_FIELDS.ActionEvent, action } as never);
    expect(event.action).toStrictEqual(action);
  });

  it.each(ACTION_KINDS)('%s rejects an unknown property', (kind) => {
    const action = { ...buildAction(kind, MINIMAL_ACTION_FIELDS[kind] as never), unexpected: true };
    expect(failedConstraints(validateAction(action))).toEqual(['unexpected: whitelistValidation']);
    const event = completeEvent({ ...MINIMAL_EVENT_FIELDS.ActionEvent, action, kind: 'ActionEvent' });
    expect(failedConstraints(validateEvent(event))).toEqual(['action.unexpected: whitelistValidation']);
  });

  it('fill in the defaults of the reference', () => {
    expect(buildAction('TerminalAction', { command: 'ls' })).toStrictEqual({
      command: 'ls',
      is_input: false,
      timeout: null,
      reset: false,
      kind: 'TerminalAction',
    });
    expect(buildAction('BrowserGetContentAction')).toStrictEqual({
      extract_links: false,
      start_from_char: 0,
      kind: 'BrowserGetContentAction',
    });
    expect(buildAction('BrowserClickAction', { index: 3 })).toMatchObject({ new_tab: false });
    expect(buildAction('BrowserScrollAction')).toMatchObject({ direction: 'down' });
    expect(buildAction('BrowserGetStateAction')).toMatchObject({ include_screenshot: false });
    expect(buildAction('EditAction', { file_path: 'a', old_string: 'x', new_string: 'y' })).toMatchObject({
      expected_replacements: 1,
    });
    expect(buildAction('ListDirectoryAction')).toStrictEqual({ dir_path: '.', recursive: false, kind: 'ListDirectoryAction' });
    expect(buildAction('ReadFileAction', { file_path: 'a' })).toMatchObject({ offset: null, limit: null });
    expect(buildAction('GrepAction', { pattern: 'x' })).toMatchObject({ path: null, include: null });
    expect(buildAction('MCPToolAction')).toStrictEqual({ data: {}, kind: 'MCPToolAction' });
    expect(buildAction('TaskTrackerAction', { command: 'plan', task_list: [{ title: 'write tests' }] })).toStrictEqual({
      command: 'plan',
      task_list: [{ title: 'write tests', notes: '', status: 'todo' }],
      kind: 'TaskTrackerAction',
    });
  });

  it('require their required fields', () => {
    expect(failedConstraints(validateAction({ kind: 'BrowserNavigateAction' }))).toContain('url: isDefined');
    expect(failedConstraints(validateAction({ kind: 'FileEditorAction', path: '/a' }))).toContain('command: isDefined');
    expect(failedConstraints(validateAction({ kind: 'FileEditorAction', command: 'view' }))).toContain('path: isDefined');
    expect(failedConstraints(validateAction({ kind: 'BrowserSetStorageAction' }))).toContain('storage_state: isDefined');
    expect(() => buildAction('FinishAction')).toThrow(/^Invalid FinishAction: message: is required$/);
  });

  it('reject an unknown kind', () => {
    expect(failedConstraints(validateAction({ kind: 'JumpAction' }))).toEqual(['kind: isIn']);
    expect(() => buildAction('JumpAction' as never)).toThrow(/Unknown Action kind/);
  });
});

describe('Observation variants', () => {
  it('are the 14 kinds of the interface', () => {
    expect(OBSERVATION_KINDS).toHaveLength(14);
  });

  it.each(OBSERVATION_KINDS)('%s built with defaults validates, alone and inside an ObservationEvent', (kind) => {
    const observation = buildObservation(kind, MINIMAL_OBSERVATION_FIELDS[kind] as never);
    expect(observation.kind).toBe(kind);
    expect(observation.content).toEqual([]);
    expect(observation.is_error).toBe(false);
    expect(validateObservation(observation)).toEqual([]);
    const event = buildEvent('ObservationEvent', { ...MINIMAL_EVENT_FIELDS.ObservationEvent, observation } as never);
    expect(event.observation).toStrictEqual(observation);
  });

  it.each(OBSERVATION_KINDS)('%s rejects an unknown property', (kind) => {
    const observation = { ...buildObservation(kind, MINIMAL_OBSERVATION_FIELDS[kind] as never), unexpected: true };
    expect(failedConstraints(validateObservation(observation))).toEqual(['unexpected: whitelistValidation']);
  });

  it('fill in the defaults of the reference', () => {
    expect(buildObservation('FileEditorObservation', { command: 'create', path: '/a' })).toStrictEqual({
      content: [],
      is_error: false,
      command: 'create',
      path: '/a',
      prev_exist: true,
      old_content: null,
      new_content: null,
      kind: 'FileEditorObservation',
    });
    expect(buildObservation('ReadFileObservation', { file_path: 'a' })).toMatchObject({
      file_content: '',
      is_truncated: false,
      lines_shown: null,
      total_lines: null,
    });
    expect(buildObservation('ListDirectoryObservation')).toMatchObject({
      dir_path: null,
      entries: [],
      total_count: 0,
      is_truncated: false,
    });
    expect(buildObservation('EditObservation')).toMatchObject({ is_new_file: false, replacements_made: 0 });
    expect(buildObservation('GrepObservation', { matches: [], pattern: 'p', search_path: '/' })).toMatchObject({
      include_pattern: null,
      truncated: false,
    });
    expect(buildObservation('BrowserObservation')).toMatchObject({ screenshot_data: null, full_output_save_dir: null });
  });

  it('validate nested file entries and content items', () => {
    const listing = buildObservation('ListDirectoryObservation', {
      content: [{ text: 'a.txt' }],
      entries: [{ name: 'a.txt', path: '/w/a.txt', is_directory: false, size: 3, modified_time: '2026-01-01T00:00:00Z' }],
    });
    expect(listing.content).toEqual([{ type: 'text', text: 'a.txt', cache_prompt: false }]);
    const badEntry = { ...listing, entries: [{ ...listing.entries[0], size: 'big', modified_time: 'today' }] };
    expect(failedConstraints(validateObservation(badEntry))).toEqual([
      'entries.0.size: isInt',
      'entries.0.modified_time: isIso8601',
    ]);
  });

  it('require their required fields', () => {
    expect(failedConstraints(validateObservation({ kind: 'MCPToolObservation' }))).toContain('tool_name: isDefined');
    expect(failedConstraints(validateObservation({ kind: 'GlobObservation', pattern: 'p', search_path: '/' }))).toContain(
      'files: isDefined',
    );
    // command is required even though it may be null
    expect(failedConstraints(validateObservation({ kind: 'TerminalObservation' }))).toContain('command: isDefined');
  });

  it('reject an unknown kind', () => {
    expect(failedConstraints(validateObservation({ kind: 'JumpObservation' }))).toEqual(['kind: isIn']);
    expect(failedConstraints(validateObservation('TerminalObservation'))).toEqual([': isObject']);
  });
});

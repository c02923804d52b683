import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { buildAction, buildObservation } from '../../events/dto/event-registry.js';
import {
  callSchema,
  capOutput,
  confine,
  errorObservation,
  optionalString,
  OutsideWorkspaceError,
  requireString,
  text,
  ToolArgumentError,
  toolDefinition,
  type AgentTool,
  type ToolContext,
} from './tool.js';

const COMMANDS = ['view', 'create', 'str_replace', 'insert', 'undo_edit'] as const;
type Command = (typeof COMMANDS)[number];

class EditFailure extends Error {}

export class FileEditorTool implements AgentTool {
  readonly name = 'file_editor';
  readonly readOnly = false;
  readonly description =
    'View, create and edit files in the workspace. view shows a file with line numbers (view_range [start, end], 1-based, ' +
    'end -1 for the rest) or a directory two levels deep; create writes a new file; str_replace replaces old_str, which must ' +
    'occur exactly once; insert puts new_str after line insert_line (0 for the top); undo_edit reverts the last edit of a file. ' +
    'Paths are absolute.';
  readonly parameters = callSchema(
    {
      command: { type: 'string', enum: [...COMMANDS] },
      path: { type: 'string', description: 'Absolute path inside the workspace' },
      file_text: { type: 'string', description: 'create: the content' },
      old_str: { type: 'string', description: 'str_replace: the exact text to replace' },
      new_str: { type: 'string', description: 'str_replace: the replacement; insert: the text to insert' },
      insert_line: { type: 'integer', minimum: 0, description: 'insert: the line after which new_str goes' },
      view_range: { type: 'array', items: { type: 'integer' }, description: 'view: [start, end] lines' },
    },
    ['command', 'path'],
    true,
  );
  /** Previous contents per file, for undo_edit; keyed by conversation then path. */
  private readonly history = new Map<string, Map<string, string[]>>();

  toAction(args: Record<string, unknown>) {
    const command = requireString(args, 'command') as Command;
    if (!COMMANDS.includes(command)) throw new ToolArgumentError(`"command" must be one of ${COMMANDS.join(', ')}`);
    const insertLine = args.insert_line;
    if (insertLine !== undefined && insertLine !== null && (!Number.isInteger(insertLine) || (insertLine as number) < 0)) {
      throw new ToolArgumentError('"insert_line" must be an integer >= 0');
    }
    const viewRange = args.view_range;
    if (viewRange !== undefined && viewRange !== null
      && (!Array.isArray(viewRange) || viewRange.length !== 2 || !viewRange.every(Number.isInteger))) {
      throw new ToolArgumentError('"view_range" must be two integers [start, end]');
    }
    return buildAction('FileEditorAction', {
      command,
      path: requireString(args, 'path'),
      file_text: optionalString(args, 'file_text'),
      old_str: optionalString(args, 'old_str'),
      new_str: optionalString(args, 'new_str'),
      insert_line: (insertLine as number | undefined) ?? null,
      view_range: (viewRange as number[] | undefined) ?? null,
    }) as unknown as Record<string, unknown>;
  }

  async execute(action: Record<string, unknown>, context: ToolContext) {
    const command = action.command as Command;
    const requested = String(action.path);
    try {
      const path = await confine(context.workspaceDir, requested);
      switch (command) {
        case 'view':
          return this.done(command, path, await this.view(path, action.view_range as number[] | null), true);
        case 'create':
          return await this.create(context, path, action.file_text as string | null);
        case 'str_replace':
          return await this.replace(context, path, action.old_str as string | null, (action.new_str as string | null) ?? '');
        case 'insert':
          return await this.insert(context, path, action.insert_line as number | null, action.new_str as string | null);
        case 'undo_edit':
          return await this.undo(context, path);
      }
    } catch (error) {
      if (error instanceof EditFailure || error instanceof OutsideWorkspaceError) {
        return errorObservation('FileEditorObservation', error.message, { command, path: requested });
      }
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return errorObservation('FileEditorObservation', `${requested} does not exist`, { command, path: requested });
      throw error;
    }
  }

  private async view(path: string, range: number[] | null): Promise<string> {
    const info = await stat(path);
    if (info.isDirectory()) {
      const lines = await listTree(path, path, 2);
      return `Files and directories up to 2 levels deep in ${path}, hidden items excluded:\n${[path, ...lines].join('\n')}`;
    }
    const lines = (await readFile(path, 'utf8')).split('\n');
    let start = 1;
    let end = lines.length;
    if (range) {
      [start, end] = range;
      if (end === -1) end = lines.length;
      if (start < 1 || start > lines.length || end < start || end > lines.length) {
        throw new EditFailure(`view_range ${JSON.stringify(range)} is outside the file's ${lines.length} lines`);
      }
    }
    const numbered = lines.slice(start - 1, end).map((line, index) => `${String(start + index).padStart(6)}\t${line}`);
    return capOutput(`Here is the result of running \`cat -n\` on ${path}:\n${numbered.join('\n')}`);
  }

  private async create(context: ToolContext, path: string, fileText: string | null) {
    if (fileText === null) throw new EditFailure('create needs file_text');
    if (await exists(path)) throw new EditFailure(`${path} already exists: use str_replace or insert to change it`);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, fileText);
    this.remember(context, path, null);
    return this.done('create', path, `File created successfully at: ${path}`, false, null, fileText);
  }

  private async replace(context: ToolContext, path: string, oldStr: string | null, newStr: string) {
    if (oldStr === null || oldStr === '') throw new EditFailure('str_replace needs a non-empty old_str');
    const content = await readFile(path, 'utf8');
    const count = content.split(oldStr).length - 1;
    if (count === 0) throw new EditFailure(`No replacement was performed: old_str does not occur verbatim in ${path}`);
    if (count > 1) {
      const lines = content.split('\n').flatMap((line, index) => (line.includes(oldStr.split('\n')[0]) ? [index + 1] : []));
      throw new EditFailure(`No replacement was performed: old_str occurs ${count} times (lines ${lines.join(', ')}); make it unique`);
    }
    const updated = content.replace(oldStr, () => newStr);
    await writeFile(path, updated);
    this.remember(context, path, content);
    return this.done('str_replace', path, `The file ${path} has been edited.\n${await this.view(path, null)}`, true, content, updated);
  }

  private async insert(context: ToolContext, path: string, line: number | null, newStr: string | null) {
    if (line === null || newStr === null) throw new EditFailure('insert needs insert_line and new_str');
    const content = await readFile(path, 'utf8');
    const lines = content.split('\n');
    if (line > lines.length) throw new EditFailure(`insert_line ${line} is past the file's ${lines.length} lines`);
    const updated = [...lines.slice(0, line), ...newStr.split('\n'), ...lines.slice(line)].join('\n');
    await writeFile(path, updated);
    this.remember(context, path, content);
    return this.done('insert', path, `The file ${path} has been edited: text inserted after line ${line}.`, true, content, updated);
  }

  private async undo(context: ToolContext, path: string) {
    const stack = this.history.get(context.conversationId)?.get(path);
    if (!stack?.length) throw new EditFailure(`No edit of ${path} to undo`);
    const previous = stack.pop()!;
    const current = await readFile(path, 'utf8');
    await writeFile(path, previous);
    return this.done('undo_edit', path, `Last edit to ${path} undone.`, true, current, previous);
  }

  private remember(context: ToolContext, path: string, previous: string | null): void {
    if (previous === null) return;
    if (!this.history.has(context.conversationId)) this.history.set(context.conversationId, new Map());
    const files = this.history.get(context.conversationId)!;
    if (!files.has(path)) files.set(path, []);
    files.get(path)!.push(previous);
  }

  private done(command: Command, path: string, output: string, prevExist: boolean, oldContent: string | null = null, newContent: string | null = null) {
    return buildObservation('FileEditorObservation', {
      content: [text(output)],
      command,
      path,
      prev_exist: prevExist,
      old_content: oldContent,
      new_content: newContent,
    }) as unknown as Record<string, unknown>;
  }

  definition() {
    return toolDefinition('FileEditorTool', this, 'FileEditorAction', 'FileEditorObservation');
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

async function listTree(root: string, dir: string, depth: number): Promise<string[]> {
  if (depth === 0) return [];
  const entries = (await readdir(dir, { withFileTypes: true })).filter((entry) => !entry.name.startsWith('.'));
  entries.sort((a, b) => a.name.localeCompare(b.name));
  const lines: string[] = [];
  for (const entry of entries) {
    const full = join(dir, entry.name);
    lines.push(`${root}/${relative(root, full)}${entry.isDirectory() ? '/' : ''}`);
    if (entry.isDirectory()) lines.push(...(await listTree(root, full, depth - 1)));
  }
  return lines;
}

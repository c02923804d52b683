import { lstat, mkdir, open, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { listDirectory } from './directory-listing.js';
import { DEFAULT_MAX_OUTPUT_CHARS } from './output-limits.js';
import { ToolArguments, toolParameters } from './tool-arguments.js';
import { buildToolDefinition, textContent, type AgentTool, type TextContent, type ToolContext, type ToolDefinition } from './tool.js';
import { resolveInWorkspace, WorkspacePathError, type ResolvedPath } from './workspace-paths.js';

export const FILE_EDITOR_COMMANDS = ['view', 'create', 'str_replace', 'insert', 'undo_edit'] as const;
export type FileEditorCommand = (typeof FILE_EDITOR_COMMANDS)[number];

export type FileEditorAction = {
  command: FileEditorCommand;
  path: string;
  file_text: string | null;
  old_str: string | null;
  new_str: string | null;
  insert_line: number | null;
  view_range: number[] | null;
  kind: 'FileEditorAction';
};

export type FileEditorObservation = {
  content: TextContent[];
  is_error: boolean;
  command: FileEditorCommand;
  path: string | null;
  prev_exist: boolean;
  old_content: string | null;
  new_content: string | null;
  kind: 'FileEditorObservation';
};

export type FileEditorToolOptions = {
  maxOutputChars?: number;
  /** Larger files are neither shown nor edited here; the terminal's tools handle them. Default 5 MiB. */
  maxFileBytes?: number;
  /** Earlier versions kept per file for undo_edit. Default 10. */
  undoDepth?: number;
};

/** A failure the LLM can fix; becomes an observation with is_error. */
class EditRefused extends Error {}

/** What undo_edit restores: the previous content, or null when the edit created the file. */
type EditHistoryEntry = { previousContent: string | null };

const SNIPPET_CONTEXT_LINES = 4;

/** The file's lines, without the empty one after a final newline. */
function splitLines(content: string): string[] {
  const lines = content.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return content === '' ? [] : lines;
}

function lineNumberAt(content: string, index: number): number {
  let line = 1;
  for (let i = content.indexOf('\n'); i !== -1 && i < index; i = content.indexOf('\n', i + 1)) line += 1;
  return line;
}

function occurrences(content: string, search: string): number[] {
  const found: number[] = [];
  for (let i = content.indexOf(search); i !== -1; i = content.indexOf(search, i + search.length)) found.push(i);
  return found;
}

export class FileEditorTool implements AgentTool<FileEditorAction, FileEditorObservation> {
  readonly name = 'file_editor';
  readonly readOnly = false;
  readonly description = [
    'View, create and edit files in the workspace. Every path is absolute and inside the workspace.',
    '* `view`: a file with line numbers (like `cat -n`), optionally only `view_range` [start, end] (1-based, end -1 for the',
    '  rest of the file); a directory as a list of its files and directories two levels deep, hidden ones left out.',
    '* `create`: writes `file_text` to a new file (parent directories are created). It never overwrites an existing file.',
    '* `str_replace`: replaces `old_str` with `new_str` (empty or absent: deletes it). `old_str` must match the file exactly,',
    '  whitespace and indentation included, and occur exactly once; include a few lines of context to make it unique.',
    '* `insert`: inserts `new_str` as new lines after line `insert_line` (0 puts it at the top of the file).',
    '* `undo_edit`: reverts the last create, str_replace or insert of that file made with this tool.',
    'Long views are cut; use `view_range` to read a large file piece by piece, and the terminal for files that are not text.',
  ].join('\n');
  readonly parameters = toolParameters(
    {
      command: { type: 'string', enum: FILE_EDITOR_COMMANDS, description: 'The operation: view, create, str_replace, insert or undo_edit.' },
      path: { type: 'string', description: 'Absolute path of the file or directory, e.g. /workspace/project/src/main.py.' },
      file_text: { type: 'string', description: 'create: the whole content of the new file.' },
      old_str: { type: 'string', description: 'str_replace: the exact text to replace; it must occur exactly once in the file.' },
      new_str: { type: 'string', description: 'str_replace: the replacement text. insert: the text to insert.' },
      insert_line: { type: 'integer', minimum: 0, description: 'insert: the line number after which `new_str` goes; 0 for the top.' },
      view_range: {
        type: 'array',
        items: { type: 'integer' },
        description: 'view of a file: [start, end] line numbers, 1-based and inclusive; [start, -1] shows to the end.',
      },
    },
    ['command', 'path'],
    { readOnly: false },
  );
  private readonly maxOutputChars: number;
  private readonly maxFileBytes: number;
  private readonly undoDepth: number;
  /** Per conversation, per real file path: earlier versions, newest last. */
  private readonly history = new Map<string, Map<string, EditHistoryEntry[]>>();

  constructor(options: FileEditorToolOptions = {}) {
    this.maxOutputChars = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
    this.maxFileBytes = options.maxFileBytes ?? 5 * 1024 * 1024;
    this.undoDepth = options.undoDepth ?? 10;
  }

  toAction(raw: unknown): FileEditorAction {
    const args = new ToolArguments(this.name, raw, ['command', 'path', 'file_text', 'old_str', 'new_str', 'insert_line', 'view_range']);
    const command = args.enumValue('command', FILE_EDITOR_COMMANDS);
    const path = args.requiredString('path');
    if (path.trim() === '') throw args.error('"path" must not be empty; give the absolute path of a file or directory.');
    const action: FileEditorAction = {
      command,
      path,
      file_text: args.optionalString('file_text'),
      old_str: args.optionalString('old_str'),
      new_str: args.optionalString('new_str'),
      insert_line: args.optionalNumber('insert_line', { min: 0, integer: true }),
      view_range: this.readViewRange(args),
      kind: 'FileEditorAction',
    };
    if (command === 'create' && action.file_text === null) throw args.error('`create` needs "file_text", the content of the new file.');
    if (command === 'str_replace' && !action.old_str) {
      throw args.error('`str_replace` needs a non-empty "old_str", the exact text to replace (use `insert` to add text).');
    }
    if (command === 'insert') {
      if (action.insert_line === null) throw args.error('`insert` needs "insert_line", the line after which to insert (0 for the top).');
      if (action.new_str === null) throw args.error('`insert` needs "new_str", the text to insert.');
    }
    return action;
  }

  private readViewRange(args: ToolArguments): number[] | null {
    const range = args.optionalArray('view_range');
    if (range === null) return null;
    const [start, end] = range;
    if (range.length !== 2 || !Number.isInteger(start) || !Number.isInteger(end)) {
      throw args.error(`"view_range" must be two integers [start, end], e.g. [10, 40] or [10, -1], got ${JSON.stringify(range)}.`);
    }
    const [first, last] = [start as number, end as number];
    if (first < 1) throw args.error(`"view_range" starts at line 1; got start ${first}.`);
    if (last !== -1 && last < first) throw args.error(`"view_range" end (${last}) must be >= start (${first}), or -1 for the end of the file.`);
    return [first, last];
  }

  definition(): ToolDefinition {
    return buildToolDefinition('FileEditorTool', this.name, this.description, 'FileEditorAction', 'FileEditorObservation', {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
  }

  async execute(action: FileEditorAction, ctx: ToolContext): Promise<FileEditorObservation> {
    try {
      const target = await resolveInWorkspace(ctx.workspaceDir, action.path);
      switch (action.command) {
        case 'view':
          return await this.view(action, target);
        case 'create':
          return await this.create(action, target, ctx);
        case 'str_replace':
          return await this.replace(action, target, ctx);
        case 'insert':
          return await this.insert(action, target, ctx);
        case 'undo_edit':
          return await this.undo(action, target, ctx);
      }
    } catch (error) {
      if (error instanceof EditRefused || error instanceof WorkspacePathError) return this.failure(action, error.message);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') return this.failure(action, `Permission denied for ${action.path}.`);
      if (code === 'EISDIR') return this.failure(action, `${action.path} is a directory.`);
      if (code === 'EEXIST') return this.failure(action, `${action.path} already exists.`);
      if (code === 'ENOENT' || code === 'ENOTDIR') return this.failure(action, `The path ${action.path} does not exist.`);
      throw error;
    }
  }

  async dispose(conversationId: string): Promise<void> {
    this.history.delete(conversationId);
  }

  private async view(action: FileEditorAction, target: ResolvedPath): Promise<FileEditorObservation> {
    if (!target.exists) throw new EditRefused(`The path ${target.displayPath} does not exist.`);
    if ((await stat(target.realPath)).isDirectory()) {
      if (action.view_range) throw new EditRefused('`view_range` applies to files only; leave it out to list a directory.');
      const listing = await listDirectory(target.realPath, target.displayPath, 400);
      return this.success(action, this.capped(listing.text), {});
    }
    const content = await this.readText(target);
    const lines = splitLines(content);
    if (lines.length === 0) return this.success(action, `The file ${target.displayPath} is empty.`, {});
    let [start, end] = action.view_range ?? [1, -1];
    if (start > lines.length) {
      throw new EditRefused(`view_range starts at line ${start}, but ${target.displayPath} has only ${lines.length} lines.`);
    }
    if (end === -1 || end > lines.length) end = lines.length;
    const header = action.view_range
      ? `Lines ${start}-${end} of ${target.displayPath} (${lines.length} lines in all):`
      : `Contents of ${target.displayPath} with line numbers:`;
    return this.success(action, this.numberedView(header, lines, start, end), {});
  }

  /** Numbered lines start..end, cut at a line boundary when too long, saying where to continue. */
  private numberedView(header: string, lines: string[], start: number, end: number): string {
    let text = header;
    for (let number = start; number <= end; number += 1) {
      const line = `\n${String(number).padStart(6)}\t${lines[number - 1]}`;
      if (text.length + line.length > this.maxOutputChars) {
        if (number === start) text += line.slice(0, this.maxOutputChars - text.length);
        const resumeAt = number === start ? number + 1 : number;
        return `${text}\n[Output cut at line ${number} of ${lines.length}: view the rest with view_range [${resumeAt}, -1].]`;
      }
      text += line;
    }
    return text;
  }

  private async create(action: FileEditorAction, target: ResolvedPath, ctx: ToolContext): Promise<FileEditorObservation> {
    const existing = await lstat(target.displayPath).catch(() => null);
    if (target.exists || existing) {
      const what = existing?.isDirectory() ? 'a directory' : 'a file';
      throw new EditRefused(
        `${target.displayPath} already exists (${what}); \`create\` never overwrites. View it and use \`str_replace\` or \`insert\` to change it.`,
      );
    }
    const fileText = action.file_text ?? '';
    await mkdir(dirname(target.realPath), { recursive: true });
    await writeFile(target.realPath, fileText, { flag: 'wx' }); // wx: fails instead of following a link planted meanwhile
    this.remember(ctx, target, null);
    const lineCount = splitLines(fileText).length;
    return this.success(action, `Created ${target.displayPath} (${lineCount} line${lineCount === 1 ? '' : 's'}).`, {
      prev_exist: false,
      new_content: fileText,
    });
  }

  private async replace(action: FileEditorAction, target: ResolvedPath, ctx: ToolContext): Promise<FileEditorObservation> {
    const content = await this.readExistingFile(target);
    let oldStr = action.old_str ?? '';
    let newStr = action.new_str ?? '';
    if (oldStr === newStr) throw new EditRefused('No change made: `old_str` and `new_str` are the same.');
    let found = occurrences(content, oldStr);
    if (found.length === 0 && content.includes('\r\n') && oldStr.includes('\n')) {
      // The model writes \n; the file uses Windows line ends. Match and write in the file's style.
      oldStr = oldStr.replace(/\r?\n/g, '\r\n');
      newStr = newStr.replace(/\r?\n/g, '\r\n');
      found = occurrences(content, oldStr);
    }
    if (found.length === 0) {
      const trimmed = oldStr.trim();
      const hint =
        trimmed && trimmed !== oldStr && content.includes(trimmed)
          ? ' Text without the leading/trailing whitespace of `old_str` does occur: check spaces, tabs and line ends.'
          : ' Check whitespace and indentation; view the file and copy the exact text.';
      throw new EditRefused(`No replacement made: \`old_str\` does not occur verbatim in ${target.displayPath}.${hint}`);
    }
    if (found.length > 1) {
      const lines = found.map((index) => lineNumberAt(content, index));
      throw new EditRefused(
        `No replacement made: \`old_str\` occurs ${found.length} times in ${target.displayPath} (starting at lines ${lines.join(', ')}). ` +
          'Include more surrounding lines so that it matches exactly once.',
      );
    }
    const at = found[0];
    const newContent = content.slice(0, at) + newStr + content.slice(at + oldStr.length);
    await writeFile(target.realPath, newContent);
    this.remember(ctx, target, content);
    const firstLine = lineNumberAt(newContent, at);
    const lastLine = firstLine + splitLines(newStr).length - 1;
    const snippet = this.snippet(newContent, firstLine, Math.max(firstLine, lastLine));
    return this.success(action, `Edited ${target.displayPath}.\n${snippet}\nCheck that the change is what you intended; edit again if not.`, {
      old_content: content,
      new_content: newContent,
    });
  }

  private async insert(action: FileEditorAction, target: ResolvedPath, ctx: ToolContext): Promise<FileEditorObservation> {
    const content = await this.readExistingFile(target);
    const lines = content.split('\n');
    const lineCount = splitLines(content).length;
    const after = action.insert_line ?? 0;
    if (after > lineCount) {
      throw new EditRefused(`insert_line ${after} is past the end of ${target.displayPath}, which has ${lineCount} lines; use 0 to ${lineCount}.`);
    }
    // A final newline ends the last inserted line; it does not add an empty one.
    const inserted = (action.new_str ?? '').replace(/\r?\n$/, '').split('\n');
    if (content === '') lines.length = 0;
    lines.splice(after, 0, ...inserted);
    const newContent = content === '' ? `${inserted.join('\n')}\n` : lines.join('\n');
    await writeFile(target.realPath, newContent);
    this.remember(ctx, target, content);
    const snippet = this.snippet(newContent, after + 1, after + inserted.length);
    return this.success(
      action,
      `Inserted ${inserted.length} line${inserted.length === 1 ? '' : 's'} after line ${after} of ${target.displayPath}.\n${snippet}\n` +
        'Check the indentation and that nothing is duplicated; edit again if needed.',
      { old_content: content, new_content: newContent },
    );
  }

  private async undo(action: FileEditorAction, target: ResolvedPath, ctx: ToolContext): Promise<FileEditorObservation> {
    const entries = this.history.get(ctx.conversationId)?.get(target.realPath);
    const last = entries?.pop();
    if (!last) {
      throw new EditRefused(`There is no edit of ${target.displayPath} to undo (only edits made with this tool in this conversation can be undone).`);
    }
    const current = target.exists ? await readFile(target.realPath, 'utf8') : null;
    if (last.previousContent === null) {
      if (target.exists) await unlink(target.realPath);
      return this.success(action, `Undid the creation of ${target.displayPath}: the file was removed.`, {
        old_content: current,
        new_content: null,
      });
    }
    await mkdir(dirname(target.realPath), { recursive: true });
    await writeFile(target.realPath, last.previousContent);
    const lines = splitLines(last.previousContent);
    const view = lines.length === 0 ? '(the file is now empty)' : this.numberedView('It now reads:', lines, 1, lines.length);
    return this.success(action, `Undid the last edit of ${target.displayPath}. ${view}`, {
      old_content: current,
      new_content: last.previousContent,
    });
  }

  private remember(ctx: ToolContext, target: ResolvedPath, previousContent: string | null): void {
    let files = this.history.get(ctx.conversationId);
    if (!files) this.history.set(ctx.conversationId, (files = new Map()));
    const entries = files.get(target.realPath) ?? [];
    entries.push({ previousContent });
    if (entries.length > this.undoDepth) entries.shift();
    files.set(target.realPath, entries);
  }

  private async readExistingFile(target: ResolvedPath): Promise<string> {
    if (!target.exists) throw new EditRefused(`The file ${target.displayPath} does not exist; use \`create\` to make it.`);
    if ((await stat(target.realPath)).isDirectory()) throw new EditRefused(`${target.displayPath} is a directory, not a file.`);
    return this.readText(target);
  }

  private async readText(target: ResolvedPath): Promise<string> {
    const info = await stat(target.realPath);
    if (!info.isFile()) throw new EditRefused(`${target.displayPath} is not a regular file.`);
    if (info.size > this.maxFileBytes) {
      throw new EditRefused(
        `${target.displayPath} is ${info.size} bytes, more than this tool handles (${this.maxFileBytes}); use the terminal (head, sed -n, grep) instead.`,
      );
    }
    const handle = await open(target.realPath, 'r');
    try {
      const buffer = await handle.readFile();
      if (buffer.subarray(0, 8192).includes(0)) {
        throw new EditRefused(`${target.displayPath} looks like a binary file; inspect it with the terminal (file, xxd) instead.`);
      }
      return buffer.toString('utf8');
    } finally {
      await handle.close();
    }
  }

  /** Numbered lines around first..last of the new content, for the LLM to check an edit. */
  private snippet(content: string, first: number, last: number): string {
    const lines = splitLines(content);
    const from = Math.max(1, first - SNIPPET_CONTEXT_LINES);
    const to = Math.min(lines.length, last + SNIPPET_CONTEXT_LINES);
    if (lines.length === 0 || from > to) return '(the file is now empty)';
    return this.numberedView(`Lines ${from}-${to} after the edit:`, lines, from, to);
  }

  private capped(text: string): string {
    return text.length <= this.maxOutputChars ? text : `${text.slice(0, this.maxOutputChars)}\n[... output cut ...]`;
  }

  private success(
    action: FileEditorAction,
    text: string,
    fields: Partial<Pick<FileEditorObservation, 'prev_exist' | 'old_content' | 'new_content'>>,
  ): FileEditorObservation {
    return {
      content: [textContent(text)],
      is_error: false,
      command: action.command,
      path: action.path,
      prev_exist: fields.prev_exist ?? true,
      old_content: fields.old_content ?? null,
      new_content: fields.new_content ?? null,
      kind: 'FileEditorObservation',
    };
  }

  private failure(action: FileEditorAction, message: string): FileEditorObservation {
    return { ...this.success(action, message, {}), is_error: true };
  }
}

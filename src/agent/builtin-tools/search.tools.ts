import { readFile, stat } from 'node:fs/promises';
import { glob } from 'tinyglobby';
import { buildAction, buildObservation } from '../../events/dto/event-registry.js';
import {
  callSchema,
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

const MAX_RESULTS = 100;
const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
const IGNORED = ['**/node_modules/**', '**/.git/**'];

async function searchRoot(context: ToolContext, path: string | null): Promise<string> {
  return confine(context.workspaceDir, path ?? context.workspaceDir);
}

async function byNewest(files: string[]): Promise<string[]> {
  const withTimes = await Promise.all(files.map(async (file) => ({ file, mtime: (await stat(file).catch(() => null))?.mtimeMs ?? 0 })));
  return withTimes.sort((a, b) => b.mtime - a.mtime).map((entry) => entry.file);
}

export class GlobTool implements AgentTool {
  readonly name = 'glob';
  readonly readOnly = true;
  readonly description = `Find files by glob pattern (e.g. "**/*.ts"), newest first, at most ${MAX_RESULTS}.`;
  readonly parameters = callSchema({ pattern: { type: 'string' }, path: { type: 'string', description: 'Directory to search (absolute)' } }, ['pattern'], false);

  toAction(args: Record<string, unknown>) {
    return buildAction('GlobAction', { pattern: requireString(args, 'pattern'), path: optionalString(args, 'path') }) as unknown as Record<string, unknown>;
  }

  async execute(action: Record<string, unknown>, context: ToolContext) {
    const pattern = String(action.pattern);
    try {
      const root = await searchRoot(context, action.path as string | null);
      const files = await byNewest(await glob(pattern, { cwd: root, absolute: true, ignore: IGNORED, dot: false }));
      const shown = files.slice(0, MAX_RESULTS);
      return buildObservation('GlobObservation', {
        content: [text(shown.length ? shown.join('\n') : `No files match ${pattern}`)],
        files: shown,
        pattern,
        search_path: root,
        truncated: files.length > MAX_RESULTS,
      }) as unknown as Record<string, unknown>;
    } catch (error) {
      if (error instanceof OutsideWorkspaceError) {
        return errorObservation('GlobObservation', error.message, { files: [], pattern, search_path: String(action.path) });
      }
      throw error;
    }
  }

  definition() {
    return toolDefinition('GlobTool', this, 'GlobAction', 'GlobObservation');
  }
}

export class GrepTool implements AgentTool {
  readonly name = 'grep';
  readonly readOnly = true;
  readonly description = `List the files whose content matches a regular expression, newest first, at most ${MAX_RESULTS}.`;
  readonly parameters = callSchema(
    {
      pattern: { type: 'string', description: 'JavaScript regular expression' },
      path: { type: 'string', description: 'Directory to search (absolute)' },
      include: { type: 'string', description: 'Glob of the files to search, e.g. "*.ts"' },
    },
    ['pattern'],
    false,
  );

  toAction(args: Record<string, unknown>) {
    const pattern = requireString(args, 'pattern');
    try {
      new RegExp(pattern);
    } catch {
      throw new ToolArgumentError(`"pattern" is not a valid regular expression: ${pattern}`);
    }
    return buildAction('GrepAction', { pattern, path: optionalString(args, 'path'), include: optionalString(args, 'include') }) as unknown as Record<string, unknown>;
  }

  async execute(action: Record<string, unknown>, context: ToolContext) {
    const pattern = String(action.pattern);
    const include = (action.include as string | null) ?? null;
    try {
      const root = await searchRoot(context, action.path as string | null);
      const regex = new RegExp(pattern);
      const candidates = await glob(include ? `**/${include}` : '**/*', { cwd: root, absolute: true, ignore: IGNORED });
      const matches: string[] = [];
      for (const file of candidates) {
        const info = await stat(file).catch(() => null);
        if (!info?.isFile() || info.size > MAX_GREP_FILE_BYTES) continue;
        if (regex.test(await readFile(file, 'utf8').catch(() => ''))) matches.push(file);
      }
      const sorted = await byNewest(matches);
      const shown = sorted.slice(0, MAX_RESULTS);
      return buildObservation('GrepObservation', {
        content: [text(shown.length ? shown.join('\n') : `No files match /${pattern}/`)],
        matches: shown,
        pattern,
        search_path: root,
        include_pattern: include,
        truncated: sorted.length > MAX_RESULTS,
      }) as unknown as Record<string, unknown>;
    } catch (error) {
      if (error instanceof OutsideWorkspaceError) {
        return errorObservation('GrepObservation', error.message, { matches: [], pattern, search_path: String(action.path), include_pattern: include });
      }
      throw error;
    }
  }

  definition() {
    return toolDefinition('GrepTool', this, 'GrepAction', 'GrepObservation');
  }
}

import { readFile, realpath } from 'node:fs/promises';
import { glob } from 'tinyglobby';
import {
  IGNORED_PATTERNS,
  MAX_SEARCH_RESULTS,
  newestFirst,
  relativePattern,
  resolveSearchRoot,
  SearchRefused,
  type FoundFile,
  underRoot,
} from './search-scope.js';
import { ToolArguments, toolParameters } from './tool-arguments.js';
import { buildToolDefinition, textContent, type AgentTool, type TextContent, type ToolContext, type ToolDefinition } from './tool.js';
import { isWithin, realWorkspace } from './workspace-paths.js';

export type GrepAction = { pattern: string; path: string | null; include: string | null; kind: 'GrepAction' };

export type GrepObservation = {
  content: TextContent[];
  is_error: boolean;
  matches: string[];
  pattern: string;
  search_path: string;
  include_pattern: string | null;
  truncated: boolean;
  kind: 'GrepObservation';
};

export type GrepToolOptions = {
  /** Larger files are skipped. Default 5 MiB. */
  maxFileBytes?: number;
};

/**
 * The model's regular expression as a JavaScript RegExp, multiline so `^` and `$` work per line as
 * in grep. Leading inline flags such as `(?i)`, common in ripgrep/PCRE syntax, become RegExp flags.
 */
export function compileSearchPattern(pattern: string): RegExp {
  const inline = /^\(\?([imsx]+)\)/.exec(pattern);
  const flags = new Set(['m']);
  for (const flag of inline?.[1] ?? '') if (flag === 'i' || flag === 's') flags.add(flag);
  return new RegExp(inline ? pattern.slice(inline[0].length) : pattern, [...flags].join(''));
}

export class GrepTool implements AgentTool<GrepAction, GrepObservation> {
  readonly name = 'grep';
  readonly readOnly = true;
  readonly description = [
    'Find the files whose content matches a regular expression (JavaScript syntax; `^` and `$` match at line ends;',
    'start with `(?i)` to ignore case). Lists matching files, most recently modified first, at most',
    `${MAX_SEARCH_RESULTS}. Narrow the search with \`include\`, a glob for file names such as "*.py" or "*.{ts,tsx}".`,
    'Hidden files, node_modules, .git and binary files are skipped. To see the matching lines, use the terminal',
    '(`grep -n`) or view the file.',
  ].join('\n');
  readonly parameters = toolParameters(
    {
      pattern: { type: 'string', description: 'Regular expression to look for, e.g. "function\\s+main" or "TODO".' },
      path: { type: 'string', description: 'Absolute path of the directory (or file) to search; the workspace when left out.' },
      include: { type: 'string', description: 'Only search files whose names match this glob, e.g. "*.js" or "*.{ts,tsx}".' },
    },
    ['pattern'],
    { readOnly: true },
  );
  private readonly maxFileBytes: number;

  constructor(options: GrepToolOptions = {}) {
    this.maxFileBytes = options.maxFileBytes ?? 5 * 1024 * 1024;
  }

  toAction(raw: unknown): GrepAction {
    const args = new ToolArguments(this.name, raw, ['pattern', 'path', 'include']);
    const pattern = args.requiredString('pattern');
    if (pattern === '') throw args.error('"pattern" must not be empty.');
    try {
      compileSearchPattern(pattern);
    } catch (error) {
      throw args.error(`"pattern" is not a valid regular expression: ${(error as Error).message}`);
    }
    const include = args.optionalString('include');
    return { pattern, path: args.optionalString('path'), include: include?.trim() ? include.trim() : null, kind: 'GrepAction' };
  }

  definition(): ToolDefinition {
    return buildToolDefinition('GrepTool', this.name, this.description, 'GrepAction', 'GrepObservation', {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  }

  async execute(action: GrepAction, ctx: ToolContext): Promise<GrepObservation> {
    let searchPath = action.path ?? ctx.workspaceDir;
    try {
      const regex = this.compile(action.pattern);
      const root = await resolveSearchRoot(ctx, action.path);
      searchPath = root.displayPath;
      let candidates: FoundFile[];
      if (root.isDirectory) {
        const include = action.include ? relativePattern(action.include, root, 'include pattern') : '**/*';
        const filePattern = include.includes('/') ? include : `**/${include}`;
        const relativePaths = await glob(filePattern, {
          cwd: root.realPath,
          dot: false,
          ignore: IGNORED_PATTERNS,
          followSymbolicLinks: false,
          expandDirectories: false,
          onlyFiles: true,
          signal: ctx.signal,
        });
        candidates = await newestFirst(underRoot(root, relativePaths));
      } else {
        candidates = await newestFirst([root]);
      }
      const { matches, truncated, skippedLarge, cancelled } = await this.scan(candidates, regex, ctx);
      return this.observation(action, this.summary(action, root.displayPath, matches, truncated, skippedLarge, cancelled), {
        matches,
        search_path: root.displayPath,
        truncated,
      });
    } catch (error) {
      if (!(error instanceof SearchRefused)) throw error;
      return { ...this.observation(action, error.message, { matches: [], search_path: searchPath, truncated: false }), is_error: true };
    }
  }

  private compile(pattern: string): RegExp {
    try {
      return compileSearchPattern(pattern);
    } catch (error) {
      throw new SearchRefused(`The pattern is not a valid regular expression: ${(error as Error).message}`);
    }
  }

  /** Reads candidates newest first and stops one match past the limit, which is enough to know the list was cut. */
  private async scan(candidates: FoundFile[], regex: RegExp, ctx: ToolContext) {
    const workspace = await realWorkspace(ctx.workspaceDir);
    const matches: string[] = [];
    let skippedLarge = 0;
    let cancelled = false;
    for (const file of candidates) {
      if (ctx.signal?.aborted) {
        cancelled = true;
        break;
      }
      if (file.size > this.maxFileBytes) {
        skippedLarge += 1;
        continue;
      }
      // A link inside the workspace may point anywhere; only read what really lies inside.
      const target = await realpath(file.realPath).catch(() => null);
      if (!target || !isWithin(workspace, target)) continue;
      const content = await readFile(target).catch(() => null);
      if (!content || content.subarray(0, 8192).includes(0)) continue;
      if (!regex.test(content.toString('utf8'))) continue;
      matches.push(file.displayPath);
      if (matches.length > MAX_SEARCH_RESULTS) break;
    }
    const truncated = matches.length > MAX_SEARCH_RESULTS;
    return { matches: matches.slice(0, MAX_SEARCH_RESULTS), truncated, skippedLarge, cancelled };
  }

  private summary(action: GrepAction, root: string, matches: string[], truncated: boolean, skippedLarge: number, cancelled: boolean): string {
    const where = `${root}${action.include ? ` (files matching "${action.include}")` : ''}`;
    const lines =
      matches.length === 0
        ? [`No files under ${where} contain a match for /${action.pattern}/.`]
        : [`Files under ${where} containing a match for /${action.pattern}/, newest first:`, ...matches];
    if (truncated) lines.push(`[Only the first ${MAX_SEARCH_RESULTS} files are listed; narrow the pattern, the path or include.]`);
    if (skippedLarge > 0) lines.push(`[${skippedLarge} file(s) larger than ${this.maxFileBytes} bytes were not searched.]`);
    if (cancelled) lines.push('[The search was cancelled before it finished.]');
    return lines.join('\n');
  }

  private observation(
    action: GrepAction,
    text: string,
    fields: Pick<GrepObservation, 'matches' | 'search_path' | 'truncated'>,
  ): GrepObservation {
    return {
      content: [textContent(text)],
      is_error: false,
      matches: fields.matches,
      pattern: action.pattern,
      search_path: fields.search_path,
      include_pattern: action.include,
      truncated: fields.truncated,
      kind: 'GrepObservation',
    };
  }
}

import { glob } from 'tinyglobby';
import { IGNORED_PATTERNS, MAX_SEARCH_RESULTS, newestFirst, relativePattern, resolveSearchRoot, SearchRefused, underRoot } from './search-scope.js';
import { ToolArguments, toolParameters } from './tool-arguments.js';
import { buildToolDefinition, textContent, type AgentTool, type TextContent, type ToolContext, type ToolDefinition } from './tool.js';

export type GlobAction = { pattern: string; path: string | null; kind: 'GlobAction' };

export type GlobObservation = {
  content: TextContent[];
  is_error: boolean;
  files: string[];
  pattern: string;
  search_path: string;
  truncated: boolean;
  kind: 'GlobObservation';
};

export class GlobTool implements AgentTool<GlobAction, GlobObservation> {
  readonly name = 'glob';
  readonly readOnly = true;
  readonly description = [
    'Find files by name with a glob pattern, such as "**/*.py", "src/**/*.{ts,tsx}" or "*.md".',
    `Returns absolute paths, most recently modified first, at most ${MAX_SEARCH_RESULTS}.`,
    'Hidden files, node_modules and .git are skipped unless the pattern names them. To search file contents use `grep`.',
  ].join('\n');
  readonly parameters = toolParameters(
    {
      pattern: { type: 'string', description: 'Glob pattern relative to `path`, e.g. "**/*.js".' },
      path: { type: 'string', description: 'Absolute path of the directory to search; the workspace when left out.' },
    },
    ['pattern'],
    { readOnly: true },
  );

  toAction(raw: unknown): GlobAction {
    const args = new ToolArguments(this.name, raw, ['pattern', 'path']);
    const pattern = args.requiredString('pattern');
    if (pattern.trim() === '') throw args.error('"pattern" must not be empty; for example "**/*.ts".');
    return { pattern, path: args.optionalString('path'), kind: 'GlobAction' };
  }

  definition(): ToolDefinition {
    return buildToolDefinition('GlobTool', this.name, this.description, 'GlobAction', 'GlobObservation', {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  }

  async execute(action: GlobAction, ctx: ToolContext): Promise<GlobObservation> {
    let searchPath = action.path ?? ctx.workspaceDir;
    try {
      const root = await resolveSearchRoot(ctx, action.path);
      searchPath = root.displayPath;
      if (!root.isDirectory) throw new SearchRefused(`${root.displayPath} is a file; \`path\` must be a directory.`);
      const pattern = relativePattern(action.pattern.trim(), root, 'pattern');
      const matches = await glob(pattern, {
        cwd: root.realPath,
        dot: false,
        ignore: IGNORED_PATTERNS,
        followSymbolicLinks: false,
        expandDirectories: false,
        onlyFiles: true,
        signal: ctx.signal,
      });
      const files = (await newestFirst(underRoot(root, matches))).map((file) => file.displayPath);
      const shown = files.slice(0, MAX_SEARCH_RESULTS);
      const truncated = files.length > shown.length;
      let text =
        shown.length === 0
          ? `No files match "${action.pattern}" in ${root.displayPath}.`
          : `${files.length} file${files.length === 1 ? '' : 's'} match "${action.pattern}" in ${root.displayPath}, newest first:\n${shown.join('\n')}`;
      if (truncated) text += `\n[Only the ${shown.length} newest of ${files.length} are listed; narrow the pattern or the path.]`;
      return this.observation(action, text, { files: shown, search_path: root.displayPath, truncated });
    } catch (error) {
      if (!(error instanceof SearchRefused)) throw error;
      return { ...this.observation(action, error.message, { files: [], search_path: searchPath, truncated: false }), is_error: true };
    }
  }

  private observation(
    action: GlobAction,
    text: string,
    fields: Pick<GlobObservation, 'files' | 'search_path' | 'truncated'>,
  ): GlobObservation {
    return {
      content: [textContent(text)],
      is_error: false,
      files: fields.files,
      pattern: action.pattern,
      search_path: fields.search_path,
      truncated: fields.truncated,
      kind: 'GlobObservation',
    };
  }
}

// What glob and grep share: where a search may look, what it skips, and newest-first ordering.

import { stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { ToolContext } from './tool.js';
import { resolveInWorkspace, WorkspacePathError, type ResolvedPath } from './workspace-paths.js';

export const MAX_SEARCH_RESULTS = 100;
/** Never searched: dependency trees and VCS internals would drown every result. */
export const IGNORED_PATTERNS = ['**/node_modules/**', '**/.git/**'];

export class SearchRefused extends Error {}

/** The directory (or, for grep, file) to search: `path` when given, else the workspace; always inside it. */
export async function resolveSearchRoot(ctx: ToolContext, path: string | null): Promise<ResolvedPath & { isDirectory: boolean }> {
  let root: ResolvedPath;
  try {
    root = await resolveInWorkspace(ctx.workspaceDir, path ?? ctx.workspaceDir);
  } catch (error) {
    if (error instanceof WorkspacePathError) throw new SearchRefused(error.message);
    throw error;
  }
  if (!root.exists) throw new SearchRefused(`The path ${root.displayPath} does not exist.`);
  return { ...root, isDirectory: (await stat(root.realPath)).isDirectory() };
}

/**
 * A glob pattern relative to the search root. An absolute pattern under the root is made relative
 * (models often write /workspace/src/**); anything reaching outside the root is refused.
 */
export function relativePattern(pattern: string, root: ResolvedPath, argumentName: string): string {
  let relativeToRoot = pattern;
  if (isAbsolute(pattern)) {
    const base = [root.displayPath, root.realPath].find((dir) => pattern === dir || pattern.startsWith(`${dir}${sep}`));
    if (!base) {
      throw new SearchRefused(
        `The ${argumentName} ${pattern} is an absolute path outside ${root.displayPath}; give a pattern relative to the search path, e.g. "**/*.ts".`,
      );
    }
    relativeToRoot = relative(base, pattern) || '**/*';
  }
  if (relativeToRoot.split(/[\\/]/).includes('..')) {
    throw new SearchRefused(`The ${argumentName} must not contain "..": search from a higher \`path\` inside the workspace instead.`);
  }
  return relativeToRoot;
}

export type FoundFile = { realPath: string; displayPath: string; mtimeMs: number; size: number };

/** Paths found under the root, as the tools operate on them and as the LLM sees them. */
export function underRoot(root: ResolvedPath, relativePaths: string[]): Array<Pick<FoundFile, 'realPath' | 'displayPath'>> {
  return relativePaths.map((rel) => ({ realPath: join(root.realPath, rel), displayPath: join(root.displayPath, rel) }));
}

/** The files with their sizes and modification times, most recently modified first; vanished files are dropped. */
export async function newestFirst(files: Array<Pick<FoundFile, 'realPath' | 'displayPath'>>): Promise<FoundFile[]> {
  const found = await Promise.all(
    files.map(async ({ realPath, displayPath }) => {
      const info = await stat(realPath).catch(() => null);
      return info ? { realPath, displayPath, mtimeMs: info.mtimeMs, size: info.size } : null;
    }),
  );
  return found
    .filter((file): file is FoundFile => file !== null)
    .sort((a, b) => b.mtimeMs - a.mtimeMs || a.displayPath.localeCompare(b.displayPath));
}

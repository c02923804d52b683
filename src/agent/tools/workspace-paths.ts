// Keeps file tools inside the conversation's workspace. A path is checked after resolving
// `..` and every symbolic link on the way, so neither `/ws/../etc` nor a link inside the
// workspace that points out of it gives access to anything outside.

import { lstat, mkdir, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export class WorkspacePathError extends Error {}

export type ResolvedPath = {
  /** The absolute path as the LLM should see it (lexically normalised). */
  displayPath: string;
  /** The same location with every symbolic link resolved; what the tool operates on. */
  realPath: string;
  exists: boolean;
};

const MAX_LINK_HOPS = 40;

/** The workspace's real path, creating the directory if it does not exist yet. */
export async function realWorkspace(workspaceDir: string): Promise<string> {
  await mkdir(workspaceDir, { recursive: true });
  return realpath(workspaceDir);
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Resolves every symbolic link in `path`, also when its last parts do not exist yet
 * (a file about to be created, possibly through a dangling link).
 */
async function resolveLinks(path: string, hops = 0): Promise<{ realPath: string; exists: boolean }> {
  if (hops > MAX_LINK_HOPS) throw new WorkspacePathError('too many levels of symbolic links');
  try {
    return { realPath: await realpath(path), exists: true };
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  // Something on the way is missing: is the last part a dangling link, or absent?
  let stats;
  try {
    stats = await lstat(path);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (stats?.isSymbolicLink()) {
    const target = resolve(dirname(path), await readlink(path));
    return { realPath: (await resolveLinks(target, hops + 1)).realPath, exists: false };
  }
  const parent = dirname(path);
  if (parent === path) return { realPath: path, exists: false };
  const resolvedParent = await resolveLinks(parent, hops);
  return { realPath: join(resolvedParent.realPath, basename(path)), exists: false };
}

/**
 * Resolves an absolute path the LLM gave and checks that it stays inside the workspace.
 * Throws WorkspacePathError with a message meant for the LLM.
 */
export async function resolveInWorkspace(workspaceDir: string, path: string): Promise<ResolvedPath> {
  const workspace = resolve(workspaceDir);
  if (!isAbsolute(path)) {
    throw new WorkspacePathError(
      `The path "${path}" is not absolute. Use an absolute path, for example ${join(workspace, path)}`,
    );
  }
  const displayPath = resolve(path);
  const realRoot = await realWorkspace(workspace);
  const outside = new WorkspacePathError(
    `The path ${path} is outside the workspace ${workspace}; only files inside it can be used.`,
  );
  // Paths given through the workspace's own (possibly symlinked) name are checked against its real location.
  if (!isWithin(workspace, displayPath) && !isWithin(realRoot, displayPath)) throw outside;
  const { realPath, exists } = await resolveLinks(displayPath);
  if (!isWithin(realRoot, realPath)) throw outside;
  return { displayPath, realPath, exists };
}

export function isWithin(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { RequestValidationException } from '../common/validation/validation-issue.js';

/**
 * The directory a conversation's tools work in: by default its own folder under the owner's root;
 * a requested working_dir always lands inside the owner's root (WORKSPACE_ROOT/<user>/...),
 * never at an arbitrary host path.
 */
export function resolveWorkingDir(workspaceRoot: string, userId: string, conversationId: string, requested?: string): string {
  const userRoot = resolve(workspaceRoot, userId);
  if (!requested) return join(userRoot, conversationId);
  const absolute = isAbsolute(requested) && isInside(userRoot, resolve(requested))
    ? resolve(requested)
    : resolve(userRoot, requested.replace(/^[/\\]+/, ''));
  if (!isInside(userRoot, absolute)) {
    throw RequestValidationException.single(
      ['body', 'workspace', 'working_dir'],
      'working_dir must stay inside your workspace root',
      'value_error',
    );
  }
  return absolute;
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && !isAbsolute(rel));
}

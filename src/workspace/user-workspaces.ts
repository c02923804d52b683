import { ForbiddenException, Inject, Injectable } from '@nestjs/common';
import { isAbsolute, join, resolve } from 'node:path';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { RequestValidationException, type LocPart } from '../common/validation/validation-issue.js';
import { fsErrorToHttp } from './fs-errors.js';
import { realWorkspace, resolveInWorkspace, WorkspacePathError, type ResolvedPath } from '../agent/tools/workspace-paths.js';

/** Where a path parameter came from, for the 422 body's `loc`. */
export type PathLoc = LocPart[];

const MAX_PATH_CHARS = 4096;

/**
 * Each user's workspace root, WORKSPACE_ROOT/<user>/: the only place the file and bash routes reach.
 * A requested path is confined after `..` and every symbolic link on the way are resolved.
 */
@Injectable()
export class UserWorkspaces {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** The user's root as clients see it (the prefix of their conversations' working_dir). */
  rootOf(userId: string): string {
    return resolve(this.config.workspaceRoot, userId);
  }

  /** The user's root with links resolved, created on first use. */
  realRootOf(userId: string): Promise<string> {
    return realWorkspace(this.rootOf(userId));
  }

  /**
   * Resolves a path inside the user's root: absolute paths must lie inside it, relative ones are taken
   * from it. 422 for a path that is not one (empty, too long, NUL), 403 for one outside the root.
   */
  async resolve(userId: string, requested: unknown, loc: PathLoc): Promise<ResolvedPath> {
    if (requested === undefined) throw RequestValidationException.single(loc, 'Field required', 'missing');
    if (typeof requested !== 'string' || requested.trim() === '') {
      throw RequestValidationException.single(loc, 'Input should be a non-empty path', 'string_type');
    }
    if (requested.length > MAX_PATH_CHARS || requested.includes('\0')) {
      throw RequestValidationException.single(loc, `A path has at most ${MAX_PATH_CHARS} characters and no NUL`, 'value_error');
    }
    const root = this.rootOf(userId);
    const absolute = isAbsolute(requested) ? requested : join(root, requested);
    try {
      return await resolveInWorkspace(root, absolute);
    } catch (error) {
      if (!(error instanceof WorkspacePathError)) throw fsErrorToHttp(error, requested, loc);
      if (/symbolic links/.test(error.message)) {
        throw RequestValidationException.single(loc, 'Too many levels of symbolic links', 'value_error');
      }
      throw new ForbiddenException({ detail: `The path ${requested} is outside your workspace root ${root}` });
    }
  }
}

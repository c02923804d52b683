import type { Request } from 'express';
import type { LocPart } from '../common/validation/validation-issue.js';

export interface RequestedPath {
  value: unknown;
  /** Where it came from, for a 422's `loc`. */
  loc: LocPart[];
}

/**
 * The path a file route names: the reference's `/api/file/<op>/{path}` (an absolute path keeps its
 * leading slash: `/api/file/download//work/a.txt`) or the clients' `?path=`.
 */
export function requestedPath(request: Request): RequestedPath {
  const param: unknown = request.params?.path;
  if (param !== undefined) return { value: Array.isArray(param) ? param.join('/') : param, loc: ['path', 'path'] };
  return { value: request.query?.path, loc: ['query', 'path'] };
}

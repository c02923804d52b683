import { ForbiddenException, HttpException, HttpStatus, NotFoundException } from '@nestjs/common';
import { RequestValidationException, type LocPart } from '../common/validation/validation-issue.js';

/**
 * The HTTP answer for a file-system failure on a path a caller named: what they can act on,
 * never a 500 or an internal path. Unknown failures are returned as they are (a bug: 500).
 */
export function fsErrorToHttp(error: unknown, path: string, loc: LocPart[]): unknown {
  if (error instanceof HttpException) return error;
  switch ((error as NodeJS.ErrnoException | null)?.code) {
    case 'ENOENT':
      return new NotFoundException({ detail: `File not found: ${path}` });
    case 'ENOTDIR':
      return RequestValidationException.single(loc, `A parent of ${path} is not a directory`, 'value_error');
    case 'EISDIR':
      return RequestValidationException.single(loc, `${path} is a directory`, 'value_error');
    case 'EEXIST':
      return RequestValidationException.single(loc, `A parent of ${path} is a file, not a directory`, 'value_error');
    case 'ENAMETOOLONG':
      return RequestValidationException.single(loc, 'The path or one of its names is too long', 'value_error');
    case 'ELOOP':
      return RequestValidationException.single(loc, 'Too many levels of symbolic links', 'value_error');
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new ForbiddenException({ detail: `Permission denied: ${path}` });
    case 'ENOSPC':
    case 'EDQUOT':
      return new HttpException({ detail: 'No space left in the workspace' }, HttpStatus.INSUFFICIENT_STORAGE);
    default:
      return error;
  }
}

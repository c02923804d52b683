import {
  BadRequestException,
  Injectable,
  PayloadTooLargeException,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import { RequestValidationException } from '../common/validation/validation-issue.js';
import type { AuthenticatedRequest } from '../auth/current-user.decorator.js';
import { requestedPath } from './requested-path.js';
import { WorkspaceFilesService, type UploadTarget } from './workspace-files.service.js';

/** The form field the reference's clients send the file in. */
export const UPLOAD_FIELD = 'file';

const DEFAULT_MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

export function maxUploadBytes(): number {
  const configured = Number(process.env.MAX_UPLOAD_BYTES);
  return Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_MAX_UPLOAD_BYTES;
}

export type UploadRequest = Request & AuthenticatedRequest & {
  uploadTarget?: UploadTarget;
  file?: { path?: string; size?: number };
};

interface MulterFile {
  stream: Readable & { truncated?: boolean };
  path?: string;
}

type StorageCallback = (error: unknown, info?: { path: string; size: number }) => void;

/**
 * multer's storage engine for uploads: streams the file part straight into a temporary file beside
 * its target (checked before the body is read), never into memory.
 */
class WorkspaceUploadStorage {
  constructor(private readonly files: WorkspaceFilesService) {}

  _handleFile(request: UploadRequest, file: MulterFile, callback: StorageCallback): void {
    const target = request.uploadTarget!;
    let cut = false;
    file.stream.once('limit', () => (cut = true));
    this.files.writeTemporary(target, file.stream, () => !cut && !file.stream.truncated).then(
      (written) => (written ? callback(null, written) : callback(tooLarge())),
      (error: unknown) => callback(error),
    );
  }

  _removeFile(_request: UploadRequest, file: MulterFile, callback: (error: Error | null) => void): void {
    if (!file.path) return callback(null);
    this.files.discard(file.path).then(() => callback(null), () => callback(null));
  }
}

function tooLarge(): PayloadTooLargeException {
  return new PayloadTooLargeException({ detail: `The file is larger than ${maxUploadBytes()} bytes (MAX_UPLOAD_BYTES)` });
}

/**
 * For POST /api/file/upload: checks the target path first (401 and 403/422 before any byte of the body
 * is read), then parses the multipart body with multer (Nest's FileInterceptor) into our storage.
 * Multipart errors become 422 (malformed body) or 413 (too large) in the contract's shapes.
 */
@Injectable()
export class WorkspaceUploadInterceptor implements NestInterceptor {
  private readonly multer: NestInterceptor;

  constructor(private readonly files: WorkspaceFilesService) {
    const Multer = FileInterceptor(UPLOAD_FIELD, {
      storage: new WorkspaceUploadStorage(files),
      limits: { fileSize: maxUploadBytes(), files: 1, fields: 20, parts: 25, fieldSize: 64 * 1024 },
    });
    this.multer = new (Multer as unknown as new () => NestInterceptor)();
  }

  async intercept(context: ExecutionContext, next: CallHandler) {
    const request = context.switchToHttp().getRequest<UploadRequest>();
    const { value, loc } = requestedPath(request);
    request.uploadTarget = await this.files.uploadTarget(request.userId!, value, loc);
    try {
      return await this.multer.intercept(context, next);
    } catch (error) {
      if (error instanceof PayloadTooLargeException) throw tooLarge();
      if (error instanceof BadRequestException) {
        const cause = error.cause as { code?: string; field?: string } | undefined;
        if (cause?.code === 'LIMIT_UNEXPECTED_FILE') {
          throw RequestValidationException.single(['body', UPLOAD_FIELD], `Field required: send the file in a part named "${UPLOAD_FIELD}", not "${cause.field}"`, 'missing');
        }
        throw RequestValidationException.single(['body'], `Invalid multipart body: ${error.message}`, 'value_error');
      }
      throw error;
    }
  }
}

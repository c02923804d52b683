import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RequestValidationException, type LocPart } from '../common/validation/validation-issue.js';
import { fsErrorToHttp } from './fs-errors.js';
import { UserWorkspaces } from './user-workspaces.js';

/** Where an upload goes, checked before its body is read. */
export interface UploadTarget {
  /** The path as the caller named it (for messages). */
  requested: string;
  /** Inside the caller's root, links resolved. */
  realPath: string;
  loc: LocPart[];
}

export interface OpenedDownload {
  handle: FileHandle;
  stats: Stats;
  fileName: string;
}

/** Reads and writes files in a user's workspace root. */
@Injectable()
export class WorkspaceFilesService {
  constructor(private readonly workspaces: UserWorkspaces) {}

  async uploadTarget(userId: string, requested: unknown, loc: LocPart[]): Promise<UploadTarget> {
    const resolved = await this.workspaces.resolve(userId, requested, loc);
    const existing = await stat(resolved.realPath).catch(() => null);
    if (existing?.isDirectory()) {
      throw RequestValidationException.single(loc, `${String(requested)} is a directory: name the file to write`, 'value_error');
    }
    return { requested: String(requested), realPath: resolved.realPath, loc };
  }

  /**
   * Writes an upload into a temporary file beside its target; `commit` renames it over the target once
   * the whole request has been read, so a failed or cut-off upload never replaces a file with half of one.
   * Null when the stream was cut at the size limit (`isComplete` false): nothing is left behind then.
   */
  async writeTemporary(target: UploadTarget, content: Readable, isComplete: () => boolean): Promise<{ path: string; size: number } | null> {
    const directory = dirname(target.realPath);
    const temporary = join(directory, `.${basename(target.realPath)}.upload-${randomBytes(6).toString('hex')}`);
    try {
      await mkdir(directory, { recursive: true });
      const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
      const sink = handle.createWriteStream();
      await pipeline(content, sink);
      if (!isComplete()) {
        await unlink(temporary);
        return null;
      }
      return { path: temporary, size: sink.bytesWritten };
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      content.resume();
      throw fsErrorToHttp(error, target.requested, target.loc);
    }
  }

  async commit(target: UploadTarget, temporaryPath: string): Promise<void> {
    try {
      await rename(temporaryPath, target.realPath);
    } catch (error) {
      await this.discard(temporaryPath);
      throw fsErrorToHttp(error, target.requested, target.loc);
    }
  }

  async discard(temporaryPath: string): Promise<void> {
    await unlink(temporaryPath).catch(() => undefined);
  }

  /** Opens a regular file for reading; 404 when absent, 422 for a directory or anything else. */
  async openForDownload(userId: string, requested: unknown, loc: LocPart[]): Promise<OpenedDownload> {
    const resolved = await this.workspaces.resolve(userId, requested, loc);
    let handle: FileHandle;
    try {
      // Non-blocking: a FIFO must not hold a thread waiting for a writer. No link is followed at this point.
      handle = await open(resolved.realPath, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    } catch (error) {
      throw fsErrorToHttp(error, String(requested), loc);
    }
    const stats = await handle.stat();
    if (!stats.isFile()) {
      await handle.close();
      throw RequestValidationException.single(loc, `${String(requested)} is not a regular file`, 'value_error');
    }
    return { handle, stats, fileName: basename(resolved.realPath) };
  }
}

import { errnoCode, formatJsonl, parseJsonl, translateFsError, type LogReadResult, type LogRecord, type SessionLog } from '@fh/core';
import { dirname } from 'node:path';
import type * as fsPromises from 'node:fs/promises';

/**
 * A session's record log as a JSONL file (`{root}/sessions/{sessionId}.jsonl`), parsed by the
 * core's `parseJsonl`. Appends are durable when they return (fsync).
 */
export class FsSessionLog implements SessionLog {
  constructor(
    /** The `node:fs/promises` API (or a compatible one) the log is read and written through. */
    private readonly fs: typeof fsPromises,
    /** Absolute path of the JSONL file. */
    readonly path: string,
  ) {}

  /**
   * True once this handle has appended: the file then exists and ends with `\n`, so later appends
   * skip the folder creation and the torn-tail check (the session lock keeps other writers out).
   */
  private tailKnownClean = false;

  /**
   * Append records as JSONL lines with one O_APPEND write, then fsync the file (and, when the file
   * was new, its folder), so the records survive a crash once this resolves. Creates folders as
   * needed. If the file ends in a torn line (no final `\n`), a `\n` is written first so the new
   * records start on their own line. Throws the core's errors (`PermissionError`, ...).
   */
  async append(records: readonly LogRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      if (this.tailKnownClean) {
        await this.write('', formatJsonl(records));
        return;
      }
      const folder = dirname(this.path);
      await this.fs.mkdir(folder, { recursive: true });
      const created = await this.write(null, formatJsonl(records));
      if (created) await this.syncFolder(folder);
      this.tailKnownClean = true;
    } catch (error) {
      this.tailKnownClean = false;
      throw translateFsError(error, `append to session log "${this.path}"`);
    }
  }

  /**
   * Open for appending, write `text` (after a `\n` if `prefix` is null and the file ends torn, or
   * after `prefix`), fsync and close. Returns whether the file was empty before.
   */
  private async write(prefix: string | null, text: string): Promise<boolean> {
    const handle = await this.fs.open(this.path, 'a+');
    try {
      let created = false;
      let separator = prefix ?? '';
      if (prefix === null) {
        const { size } = await handle.stat();
        created = size === 0;
        if (size > 0) {
          const last = Buffer.alloc(1);
          await handle.read(last, 0, 1, size - 1);
          if (last[0] !== 0x0a) separator = '\n';
        }
      }
      const bytes = Buffer.from(separator + text, 'utf8');
      for (let offset = 0; offset < bytes.length; ) {
        const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, null);
        offset += bytesWritten;
      }
      await handle.sync();
      return created;
    } finally {
      await handle.close();
    }
  }

  /** Read every record in order; a missing file reads as empty, bad lines are skipped and reported. */
  async read(): Promise<LogReadResult> {
    let bytes: Buffer;
    try {
      bytes = await this.fs.readFile(this.path);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return { records: [], skipped: [] };
      throw translateFsError(error, `read session log "${this.path}"`);
    }
    return parseJsonl(bytes.toString('utf8'));
  }

  /** fsync a folder so a new entry in it is durable; skipped where folders cannot be opened (Windows). */
  private async syncFolder(folder: string): Promise<void> {
    let handle;
    try {
      handle = await this.fs.open(folder, 'r');
    } catch (error) {
      if (errnoCode(error) === 'EISDIR' || errnoCode(error) === 'EPERM') return;
      throw error;
    }
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

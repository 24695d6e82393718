import { errnoCode, formatJsonl, parseJsonl, type LogReadResult, type LogRecord, type SessionLog } from '@fh/core';
import { dirname } from 'node:path';
import type { FsBackupStoreFileSystem } from './fs-backup-store-options.js';
import { translateError } from './translate-error.js';

/**
 * A session's record log as a JSONL file (`{root}/sessions/{sessionId}.jsonl`), parsed by the
 * core's `parseJsonl`. Appends are durable when they return (fsync).
 */
export class FsSessionLog implements SessionLog {
  constructor(
    private readonly fs: FsBackupStoreFileSystem,
    /** Absolute path of the JSONL file. */
    readonly path: string,
  ) {}

  /**
   * Append records as JSONL lines with one O_APPEND write, then fsync the file (and, when the file
   * was new, its folder), so the records survive a crash once this resolves. Creates folders as
   * needed. If the file ends in a torn line (no final `\n`), a `\n` is written first so the new
   * records start on their own line. Throws the core's errors (`PermissionError`, ...).
   */
  async append(records: readonly LogRecord[]): Promise<void> {
    if (records.length === 0) return;
    const folder = dirname(this.path);
    try {
      await this.fs.mkdir(folder, { recursive: true });
      const handle = await this.fs.open(this.path, 'a+');
      let created: boolean;
      try {
        const { size } = await handle.stat();
        created = size === 0;
        let torn = false;
        if (size > 0) {
          const last = Buffer.alloc(1);
          await handle.read(last, 0, 1, size - 1);
          torn = last[0] !== 0x0a;
        }
        const bytes = Buffer.from((torn ? '\n' : '') + formatJsonl(records), 'utf8');
        for (let offset = 0; offset < bytes.length; ) {
          const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, null);
          offset += bytesWritten;
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (created) await this.syncFolder(folder);
    } catch (error) {
      throw translateError(error, `append to session log "${this.path}"`);
    }
  }

  /** Read every record in order; a missing file reads as empty, bad lines are skipped and reported. */
  async read(): Promise<LogReadResult> {
    let bytes: Buffer;
    try {
      bytes = await this.fs.readFile(this.path);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return { records: [], skipped: [] };
      throw translateError(error, `read session log "${this.path}"`);
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

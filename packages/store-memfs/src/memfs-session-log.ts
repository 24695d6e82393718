import { formatJsonl, parseJsonl, errnoCode, type LogReadResult, type LogRecord, type SessionLog } from '@fh/core';
import type { Volume } from 'memfs';
import { posix } from 'node:path';
import { translateError } from './translate-error.js';

/**
 * A session's record log as a JSONL file in the memfs volume (`{root}/sessions/{sessionId}.jsonl`),
 * parsed by the core's `parseJsonl` like the fs store's log.
 */
export class MemfsSessionLog implements SessionLog {
  constructor(
    private readonly fs: Volume['promises'],
    /** Absolute path of the JSONL file in the volume. */
    readonly path: string,
  ) {}

  /**
   * Append records as JSONL lines in one write, creating folders as needed. If the file ends in a
   * torn line (no final `\n`), a `\n` is written first so the new records start on their own line.
   * Throws the core's errors (`PermissionError`, ...) translated from the volume's.
   */
  async append(records: readonly LogRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      await this.fs.mkdir(posix.dirname(this.path), { recursive: true });
      const separator = (await this.endsTorn()) ? '\n' : '';
      await this.fs.appendFile(this.path, separator + formatJsonl(records));
    } catch (error) {
      throw translateError(error, `append to session log "${this.path}"`);
    }
  }

  /** Read every record in order; a missing file reads as empty, bad lines are skipped and reported. */
  async read(): Promise<LogReadResult> {
    let bytes: Uint8Array;
    try {
      bytes = (await this.fs.readFile(this.path)) as Uint8Array;
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return { records: [], skipped: [] };
      throw translateError(error, `read session log "${this.path}"`);
    }
    return parseJsonl(Buffer.from(bytes).toString('utf8'));
  }

  private async endsTorn(): Promise<boolean> {
    let handle;
    try {
      handle = await this.fs.open(this.path, 'r');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return false;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      if (size === 0) return false;
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, Number(size) - 1);
      return last[0] !== 0x0a;
    } finally {
      await handle.close();
    }
  }
}

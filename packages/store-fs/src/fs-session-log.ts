import { CorruptError, errnoCode, formatJsonl, parseJsonl, parseJsonlLine, translateFsError, type LogEnds, type LogReadResult, type LogTail, type LogRecord, type SessionLog, type SessionLogOptions } from '@fh/core';
import type * as fsPromises from 'node:fs/promises';
import { dirname } from 'node:path';
import { STORE_FILE_MODE, STORE_FOLDER_MODE } from './names.js';

type FileHandle = fsPromises.FileHandle;

/**
 * A session's record log as a JSONL file (`{root}/sessions/{sessionId}.jsonl`), parsed by the
 * core's `parseJsonl`. Appends are durable when they return (fsync), and one instance runs its
 * appends one after another, in call order.
 *
 * The first append opens the file (creating its folder), cuts off a torn last line (an earlier
 * append cut short: not JSON, no `\n`; a last line that parses gets its `\n` instead), and fsyncs
 * the folder when the file is new. Appends run under the session's lock, so no other writer is
 * mid-line. With `holdOpen` the file then stays open
 * and each later append is one write and one fsync, until `close`; otherwise every append opens
 * and closes it. Either way the file is opened for appending, so appends of other processes or
 * instances land whole after whatever is there.
 */
export class FsSessionLog implements SessionLog {
  constructor(
    /** The `node:fs/promises` API (or a compatible one) the log is read and written through. */
    private readonly fs: typeof fsPromises,
    /** Absolute path of the JSONL file. */
    readonly path: string,
    private readonly options: SessionLogOptions = {},
    /**
     * `beforeAppend`: awaited before each append writes (the store makes the session's new
     * backups durable there, so no record reaches the disk ahead of them); a rejection fails the
     * append with nothing written. `openFlags`: how the file is opened for appending and reading
     * (default `'a+'` and `'r'`; the store passes `O_NOFOLLOW` flags so a link at the log's name
     * is never followed). `state`: where the session's state record lives (`readState`,
     * `writeState`; without it a log has no state): its path and the temp written before the rename.
     */
    private readonly hooks: { beforeAppend?: () => Promise<void>; openFlags?: { append: string | number; read: string | number }; state?: { path: string; tempPath: string } } = {},
  ) {}

  /**
   * The state record's bytes (`hooks.state.path`), or undefined when there is none (or this log
   * has no state: no I/O then). A link or anything but a file at its name is not followed and
   * reads as none (the log is then read as without it). Throws the core's errors otherwise.
   */
  async readState(): Promise<Uint8Array | undefined> {
    const path = this.hooks.state?.path;
    if (path === undefined) return undefined;
    try {
      return await this.fs.readFile(path, { flag: this.readFlags });
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' || code === 'ELOOP' || code === 'EISDIR') return undefined;
      throw translateFsError(error, `read session state "${path}"`);
    }
  }

  /**
   * Replace the state record: write its temp (created anew, so never through a link), then rename
   * it over the state's name. Not fsynced (see `SessionLog.writeState`). A no-op for a log without
   * a state. Throws the core's errors (`PermissionError`, ...).
   */
  async writeState(bytes: Uint8Array): Promise<void> {
    const state = this.hooks.state;
    if (state === undefined) return;
    try {
      await this.fs.rm(state.tempPath, { force: true });
      await this.fs.writeFile(state.tempPath, bytes, { flag: 'wx', mode: STORE_FILE_MODE });
      await this.fs.rename(state.tempPath, state.path);
    } catch (error) {
      await this.fs.rm(state.tempPath, { force: true }).catch(() => undefined);
      throw translateFsError(error, `write session state "${state.path}"`);
    }
  }

  private get appendFlags(): string {
    return (this.hooks.openFlags?.append ?? 'a+') as string;
  }

  private get readFlags(): string {
    return (this.hooks.openFlags?.read ?? 'r') as string;
  }

  /** A link (or anything but a file) at the log's name is refused, never followed. */
  private async refuseLink(): Promise<void> {
    let stats;
    try {
      stats = await this.fs.lstat(this.path);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return;
      throw error;
    }
    if (!stats.isFile()) {
      throw new CorruptError(`the session log ${this.path} is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}: fh never follows a link inside its store, so nothing was read or appended; replace it by the log file and run the command again`);
    }
  }

  /** The open file while `holdOpen` keeps it between appends. */
  private handle: FileHandle | undefined;

  /** The last append (or close) queued; the next one starts after it. */
  private tail: Promise<unknown> = Promise.resolve();

  /**
   * True once this instance has appended: the file then exists and ends with `\n`, so a later
   * append that opens it again skips the folder creation and the torn-tail check.
   */
  private tailKnownClean = false;

  /**
   * Append records as JSONL lines with one O_APPEND write, then fsync, so the records survive a
   * crash once this resolves (see the class comment). Throws the core's errors
   * (`PermissionError`, ...); after a failure the file is closed and the next append starts
   * afresh.
   */
  append(records: readonly LogRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const text = formatJsonl(records);
    const appended = this.tail.then(() => this.write(text));
    this.tail = appended.catch(() => undefined);
    return appended;
  }

  /** Close the file `holdOpen` kept open (after the appends queued so far). Idempotent. */
  close(): Promise<void> {
    const closed = this.tail.then(() => this.release());
    this.tail = closed.catch(() => undefined);
    return closed;
  }

  private async write(text: string): Promise<void> {
    try {
      await this.hooks.beforeAppend?.();
      if (this.handle !== undefined) {
        await writeAll(this.handle, Buffer.from(text, 'utf8'));
        await this.handle.sync();
        return;
      }
      if (this.tailKnownClean && this.options.holdOpen !== true) {
        const handle = await this.fs.open(this.path, this.appendFlags, STORE_FILE_MODE);
        try {
          await writeAll(handle, Buffer.from(text, 'utf8'));
          await handle.sync();
        } finally {
          await handle.close();
        }
        return;
      }
      const folder = dirname(this.path);
      await this.fs.mkdir(folder, { recursive: true, mode: STORE_FOLDER_MODE });
      await this.refuseLink();
      const handle = await this.fs.open(this.path, this.appendFlags, STORE_FILE_MODE);
      try {
        const { size } = await handle.stat();
        let separator = '';
        if (size > 0) {
          const last = Buffer.alloc(1);
          await handle.read(last, 0, 1, size - 1);
          if (last[0] !== 0x0a) separator = await this.settleTornTail(handle, size);
        }
        await writeAll(handle, Buffer.from(separator + text, 'utf8'));
        await handle.sync();
        if (size === 0) await this.syncFolder(folder);
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
      this.tailKnownClean = true;
      if (this.options.holdOpen === true) this.handle = handle;
      else await handle.close();
    } catch (error) {
      this.tailKnownClean = false;
      await this.release().catch(() => undefined);
      if (error instanceof CorruptError) throw error;
      if (errnoCode(error) === 'ELOOP') await this.refuseLink();
      throw translateFsError(error, `append to session log "${this.path}"`);
    }
  }

  /**
   * The log ends without `\n` (an append cut short by a crash or a full disk): what to write
   * before the next line. A last line the reader skips as torn (`parseJsonlLine`: not JSON) is an
   * append never acknowledged to anyone: it is cut off (ftruncate to its start), so it does not
   * warn on every later read, and the next line takes its place (''). Any other last line is
   * kept: '\n'.
   */
  private async settleTornTail(handle: FileHandle, size: number): Promise<string> {
    let start = size;
    while (start > 0) {
      const from = Math.max(0, start - TAIL_SCAN_BYTES);
      const newline = (await readRange(handle, from, start - from)).lastIndexOf(0x0a);
      if (newline >= 0) {
        start = from + newline + 1;
        break;
      }
      start = from;
    }
    const last = parseJsonlLine((await readRange(handle, start, size - start)).toString('utf8'), false);
    if (last === undefined || !('reason' in last) || last.reason !== 'torn last line') return '\n';
    await handle.truncate(start);
    return '';
  }

  private async release(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }

  /** Read every record in order; a missing file reads as empty, bad lines are skipped and reported. */
  async read(): Promise<LogReadResult> {
    let bytes: Buffer;
    try {
      await this.refuseLink();
      bytes = await this.fs.readFile(this.path, { flag: this.readFlags });
    } catch (error) {
      if (error instanceof CorruptError) throw error;
      if (errnoCode(error) === 'ENOENT') return { records: [], skipped: [] };
      throw translateFsError(error, `read session log "${this.path}"`);
    }
    return parseJsonl(bytes.toString('utf8'));
  }

  /**
   * The file's bytes in order, in chunks of at most {@link STREAM_CHUNK_BYTES}, read as they are
   * consumed (one open file until the iteration ends). A missing file yields nothing; a log that
   * is a symlink is a `CorruptError`, as for `read`. Throws the core's errors (`PermissionError`, ...).
   */
  async *readStream(): AsyncGenerator<Uint8Array> {
    const handle = await this.openForRead();
    if (handle === undefined) return;
    try {
      for (let position = 0; ; ) {
        let chunk: Buffer;
        try {
          chunk = await readRange(handle, position, STREAM_CHUNK_BYTES);
        } catch (error) {
          throw translateFsError(error, `read session log "${this.path}"`);
        }
        if (chunk.length === 0) return;
        position += chunk.length;
        yield chunk;
      }
    } finally {
      await handle.close();
    }
  }

  /**
   * The log opened for positioned reads (never through a link), or undefined when it does not
   * exist. A linked log is a `CorruptError`; other errors are translated.
   */
  private async openForRead(): Promise<FileHandle | undefined> {
    try {
      await this.refuseLink();
      return await this.fs.open(this.path, this.readFlags);
    } catch (error) {
      if (error instanceof CorruptError) throw error;
      if (errnoCode(error) === 'ENOENT') return undefined;
      throw translateFsError(error, `read session log "${this.path}"`);
    }
  }

  /**
   * The records of the first `headBytes` and the last `tailBytes` of the file (whole lines only),
   * read with two positioned reads; the whole file, parsed once, when the two ranges cover it.
   * A missing file reads as empty and whole.
   */
  async readEnds(headBytes: number, tailBytes: number): Promise<LogEnds> {
    const handle = await this.openForRead();
    if (handle === undefined) return { head: [], tail: [], whole: true };
    try {
      const { size } = await handle.stat();
      if (size <= headBytes + tailBytes) {
        const text = (await readRange(handle, 0, size)).toString('utf8');
        return { head: parseJsonl(text).records, tail: [], whole: true };
      }
      const head = await readRange(handle, 0, headBytes);
      const tail = await readRange(handle, size - tailBytes, tailBytes);
      const headText = head.subarray(0, head.lastIndexOf(0x0a) + 1).toString('utf8');
      const tailText = tail.subarray(tail.indexOf(0x0a) + 1).toString('utf8');
      return { head: parseJsonl(headText).records, tail: parseJsonl(tailText).records, whole: false };
    } catch (error) {
      throw translateFsError(error, `read session log "${this.path}"`);
    } finally {
      await handle.close();
    }
  }

  /**
   * The records of the first `headBytes` (whole lines) and the raw last `tailBytes` of the file,
   * with two positioned reads; every byte in `tail` (and `whole`) when the two ranges cover the
   * file. A missing file reads as empty and whole.
   */
  async readTail(headBytes: number, tailBytes: number): Promise<LogTail> {
    const handle = await this.openForRead();
    if (handle === undefined) return { head: [], tail: new Uint8Array(0), whole: true, size: 0 };
    try {
      const { size } = await handle.stat();
      if (size <= headBytes + tailBytes) return { head: [], tail: await readRange(handle, 0, size), whole: true, size };
      const head = await readRange(handle, 0, headBytes);
      const tail = await readRange(handle, size - tailBytes, tailBytes);
      return { head: parseJsonl(head.subarray(0, head.lastIndexOf(0x0a) + 1).toString('utf8')).records, tail, whole: false, size };
    } catch (error) {
      throw translateFsError(error, `read session log "${this.path}"`);
    } finally {
      await handle.close();
    }
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

/** Bytes read per step when looking back for the start of a torn last line: 64 KiB. */
const TAIL_SCAN_BYTES = 64 * 1024;

/** Bytes per chunk of {@link FsSessionLog.readStream}: 1 MiB. */
export const STREAM_CHUNK_BYTES = 1024 * 1024;

/** `length` bytes from `position` (fewer at the end of the file). */
async function readRange(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Write all of `bytes` at the end of the file (a short write is continued). */
async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  for (let offset = 0; offset < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, null);
    offset += bytesWritten;
  }
}

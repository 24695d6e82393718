/**
 * MemfsBackupStore: a BackupStore that keeps everything — the workspace and the backups — in one
 * memfs volume, for tests and local development.
 *
 * Layout inside the volume (the same as the fs store's on disk):
 *   {root}/file-history/{sessionId}/{backupFileName}   one immutable file per backup
 *   {root}/file-history/{sessionId}/.fh-tmp-*          a backup being written (renamed into place by link)
 *   {root}/sessions/{sessionId}.jsonl                  the session's records, one JSON per line
 * Locks are held in process memory, per volume.
 *
 * memfs has no umask: files it creates are 0o666 and folders 0o777 until chmod'ed.
 */
import {
  ConflictError,
  CorruptError,
  InvalidArgumentError,
  NotFoundError,
  LockedError,
  errnoCode,
  type BackupInfo,
  type BackupStore,
  type SessionLock,
  type SessionLog,
  type SessionSummary,
  type StoreCapabilities,
  type WorkspaceFs,
} from '@fh/core';
import { Volume } from 'memfs';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { posix } from 'node:path';
import { MemfsSessionLog } from './memfs-session-log.js';
import { TEMP_PREFIX, validateName } from './names.js';
import { translateError } from './translate-error.js';

/** Options of {@link MemfsBackupStore}. */
export interface MemfsBackupStoreOptions {
  /** The memfs volume holding both the workspace and the store. Default: a new, empty `Volume`. */
  volume?: Volume;
  /** Absolute folder of the store inside the volume. Default: `'/.fh'`. */
  root?: string;
}

/** Bytes read per chunk by `openBackup`. */
const CHUNK_BYTES = 64 * 1024;

/** Session locks held per volume: `{root}\0{sessionId}` keys. */
const heldLocks = new WeakMap<Volume, Set<string>>();

/** A BackupStore over one memfs volume (workspace and backups together). */
export class MemfsBackupStore implements BackupStore {
  readonly kind = 'memfs';
  readonly capabilities: StoreCapabilities = { hardLinks: true, serverSideCopy: false, locking: true, sha256: false };
  /** The memfs volume; tests read and seed it directly (`volume.toJSON()`, `volume.fromJSON()`). */
  readonly volume: Volume;
  /** Absolute folder of the store in the volume. */
  readonly root: string;
  /** The volume's `promises` API, used as the workspace file system. */
  readonly workspaceFs: WorkspaceFs;
  private readonly fs: Volume['promises'];

  /** Throws `InvalidArgumentError` if `root` is not an absolute path. */
  constructor(options: MemfsBackupStoreOptions = {}) {
    const root = options.root ?? '/.fh';
    if (!posix.isAbsolute(root)) throw new InvalidArgumentError(`root must be an absolute path: ${JSON.stringify(root)}`);
    this.volume = options.volume ?? new Volume();
    this.root = posix.resolve(root);
    this.fs = this.volume.promises;
    this.workspaceFs = this.fs as unknown as WorkspaceFs;
  }

  /** Copy `sourcePath` into a new backup (temp file, chmod, then link into place; never overwrites). */
  async putBackup(sessionId: string, backupFileName: string, sourcePath: string): Promise<BackupInfo> {
    const finalPath = this.backupPath(sessionId, backupFileName);
    const context = `putBackup "${backupFileName}" of session "${sessionId}"`;
    const mode = await this.regularFileMode(sourcePath, context);
    if (await this.exists(finalPath, context)) throw new ConflictError(`${context}: backup already exists`);
    await this.mkdir(posix.dirname(finalPath), context);
    const size = await this.copyIntoPlace(sourcePath, finalPath, mode, context);
    return { size, mode };
  }

  /** Size and mode of a backup, or null when it does not exist. */
  async statBackup(sessionId: string, backupFileName: string): Promise<BackupInfo | null> {
    const path = this.backupPath(sessionId, backupFileName);
    try {
      const stats = await this.fs.stat(path);
      return { size: Number(stats.size), mode: Number(stats.mode) & 0o7777 };
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw translateError(error, `statBackup "${backupFileName}" of session "${sessionId}"`);
    }
  }

  /** Copy a backup to a new file at `destinationPath` (exclusive create), then verify its size. */
  async restoreBackup(sessionId: string, backupFileName: string, destinationPath: string): Promise<void> {
    const path = this.backupPath(sessionId, backupFileName);
    const context = `restoreBackup "${backupFileName}" of session "${sessionId}" to "${destinationPath}"`;
    const info = await this.statBackup(sessionId, backupFileName);
    if (info === null) throw new NotFoundError(`${context}: backup does not exist`);
    try {
      await this.fs.copyFile(path, destinationPath, constants.COPYFILE_EXCL);
    } catch (error) {
      throw translateError(error, context);
    }
    try {
      const written = Number((await this.fs.stat(destinationPath)).size);
      if (written !== info.size) {
        throw new CorruptError(`${context}: wrote ${written} bytes, the backup has ${info.size}`);
      }
    } catch (error) {
      await this.fs.unlink(destinationPath).catch(() => undefined);
      throw translateError(error, context);
    }
  }

  /** Stream a backup's bytes in 64 KiB chunks; throws NotFoundError at once if it is missing. */
  async openBackup(sessionId: string, backupFileName: string): Promise<AsyncIterable<Uint8Array>> {
    const path = this.backupPath(sessionId, backupFileName);
    const context = `openBackup "${backupFileName}" of session "${sessionId}"`;
    let handle: Awaited<ReturnType<Volume['promises']['open']>>;
    try {
      handle = await this.fs.open(path, 'r');
    } catch (error) {
      throw translateError(error, context);
    }
    return (async function* readChunks() {
      try {
        for (let position = 0; ; ) {
          const buffer = new Uint8Array(CHUNK_BYTES);
          const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
          if (bytesRead === 0) return;
          position += bytesRead;
          yield buffer.subarray(0, bytesRead);
        }
      } catch (error) {
        throw translateError(error, context);
      } finally {
        await handle.close();
      }
    })();
  }

  /** Delete one backup; a missing one is not an error. */
  async deleteBackup(sessionId: string, backupFileName: string): Promise<void> {
    try {
      await this.fs.unlink(this.backupPath(sessionId, backupFileName));
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw translateError(error, `deleteBackup "${backupFileName}" of session "${sessionId}"`);
    }
  }

  /** Names of the session's backups (temp files excluded); [] for an unknown session. */
  async listBackups(sessionId: string): Promise<string[]> {
    validateName('sessionId', sessionId);
    const names = await this.readdirOrEmpty(this.sessionFolder(sessionId), `listBackups of session "${sessionId}"`);
    return names.filter((name) => !name.startsWith(TEMP_PREFIX));
  }

  /** Hard-link a backup into another session; 'exists' if the target is already there. */
  async carryBackup(fromSessionId: string, toSessionId: string, backupFileName: string): Promise<'linked' | 'copied' | 'exists'> {
    const from = this.backupPath(fromSessionId, backupFileName);
    const to = this.backupPath(toSessionId, backupFileName);
    const context = `carryBackup "${backupFileName}" from session "${fromSessionId}" to "${toSessionId}"`;
    if (!(await this.exists(from, context))) throw new NotFoundError(`${context}: source backup does not exist`);
    await this.mkdir(posix.dirname(to), context);
    try {
      await this.fs.link(from, to);
      return 'linked';
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') return 'exists';
      throw translateError(error, context);
    }
  }

  /**
   * Every session with backups or records: bytes, backup count and the latest mtime of its files
   * (of its folder, for a session folder left empty).
   */
  async listSessions(): Promise<SessionSummary[]> {
    const context = 'listSessions';
    const sessions = new Map<string, SessionSummary>();
    const summary = (sessionId: string): SessionSummary => {
      let entry = sessions.get(sessionId);
      if (entry === undefined) {
        entry = { sessionId, lastModified: new Date(0), bytes: 0, backups: 0 };
        sessions.set(sessionId, entry);
      }
      return entry;
    };
    const note = (entry: SessionSummary, mtimeMs: number) => {
      if (mtimeMs > entry.lastModified.getTime()) entry.lastModified = new Date(mtimeMs);
    };
    for (const sessionId of await this.readdirOrEmpty(posix.join(this.root, 'file-history'), context)) {
      const folder = this.sessionFolder(sessionId);
      const entry = summary(sessionId);
      const names = await this.readdirOrEmpty(folder, context);
      if (names.length === 0) note(entry, Number((await this.fs.stat(folder)).mtimeMs));
      for (const name of names) {
        const stats = await this.fs.stat(posix.join(folder, name));
        entry.bytes += Number(stats.size);
        if (!name.startsWith(TEMP_PREFIX)) entry.backups += 1;
        note(entry, Number(stats.mtimeMs));
      }
    }
    for (const name of await this.readdirOrEmpty(posix.join(this.root, 'sessions'), context)) {
      if (!name.endsWith('.jsonl')) continue;
      const stats = await this.fs.stat(posix.join(this.root, 'sessions', name));
      const entry = summary(name.slice(0, -'.jsonl'.length));
      entry.bytes += Number(stats.size);
      note(entry, Number(stats.mtimeMs));
    }
    return [...sessions.values()];
  }

  /** Remove a session's backups and records; a missing session is not an error. */
  async deleteSession(sessionId: string): Promise<void> {
    validateName('sessionId', sessionId);
    try {
      await this.fs.rm(this.sessionFolder(sessionId), { recursive: true, force: true });
      await this.fs.rm(this.logPath(sessionId), { force: true });
    } catch (error) {
      throw translateError(error, `deleteSession "${sessionId}"`);
    }
  }

  /** The session's JSONL record log in the volume. No I/O until used. */
  sessionLog(sessionId: string): SessionLog {
    validateName('sessionId', sessionId);
    return new MemfsSessionLog(this.fs, this.logPath(sessionId));
  }

  /** Take the session's in-memory lock (shared by every store on this volume and root). */
  async lockSession(sessionId: string): Promise<SessionLock> {
    validateName('sessionId', sessionId);
    const key = `${this.root}\0${sessionId}`;
    let held = heldLocks.get(this.volume);
    if (held === undefined) {
      held = new Set();
      heldLocks.set(this.volume, held);
    }
    if (held.has(key)) throw new LockedError(`session "${sessionId}" is locked: another handle has it open`);
    held.add(key);
    let released = false;
    const locks = held;
    return {
      release: async () => {
        if (released) return;
        released = true;
        locks.delete(key);
      },
    };
  }

  /** Whether the session's lock is held. */
  async isSessionLocked(sessionId: string): Promise<boolean> {
    validateName('sessionId', sessionId);
    return heldLocks.get(this.volume)?.has(`${this.root}\0${sessionId}`) ?? false;
  }

  /** True when the absolute path is the store's folder or inside it. */
  containsPath(absolutePath: string): boolean {
    const relative = posix.relative(this.root, posix.resolve(absolutePath));
    return relative === '' || (relative !== '..' && !relative.startsWith('../') && !posix.isAbsolute(relative));
  }

  private sessionFolder(sessionId: string): string {
    return posix.join(this.root, 'file-history', sessionId);
  }

  private backupPath(sessionId: string, backupFileName: string): string {
    validateName('sessionId', sessionId);
    validateName('backupFileName', backupFileName);
    return posix.join(this.sessionFolder(sessionId), backupFileName);
  }

  private logPath(sessionId: string): string {
    return posix.join(this.root, 'sessions', `${sessionId}.jsonl`);
  }

  /** Permission bits of a regular source file; NotFoundError / InvalidArgumentError otherwise. */
  private async regularFileMode(sourcePath: string, context: string): Promise<number> {
    let stats;
    try {
      stats = await this.fs.stat(sourcePath);
    } catch (error) {
      throw translateError(error, `${context}: source "${sourcePath}"`);
    }
    if (!stats.isFile()) throw new InvalidArgumentError(`${context}: source "${sourcePath}" is not a regular file`);
    return Number(stats.mode) & 0o7777;
  }

  /**
   * Copy `sourcePath` to a temp file next to `finalPath`, chmod it, and link it into place
   * (EEXIST → ConflictError, nothing overwritten). The temp file is always removed. Returns the size.
   */
  private async copyIntoPlace(sourcePath: string, finalPath: string, mode: number, context: string): Promise<number> {
    const tempPath = posix.join(posix.dirname(finalPath), `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
    try {
      await this.fs.copyFile(sourcePath, tempPath, constants.COPYFILE_EXCL);
      await this.fs.chmod(tempPath, mode);
      const size = Number((await this.fs.stat(tempPath)).size);
      await this.fs.link(tempPath, finalPath);
      return size;
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') throw new ConflictError(`${context}: backup already exists`, { cause: error });
      throw translateError(error, context);
    } finally {
      await this.fs.unlink(tempPath).catch(() => undefined);
    }
  }

  private async exists(path: string, context: string): Promise<boolean> {
    try {
      await this.fs.lstat(path);
      return true;
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return false;
      throw translateError(error, context);
    }
  }

  private async mkdir(path: string, context: string): Promise<void> {
    try {
      await this.fs.mkdir(path, { recursive: true });
    } catch (error) {
      throw translateError(error, context);
    }
  }

  private async readdirOrEmpty(path: string, context: string): Promise<string[]> {
    try {
      return ((await this.fs.readdir(path)) as unknown[]).map(String);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return [];
      throw translateError(error, context);
    }
  }
}

/**
 * FsBackupStore: a BackupStore on the local disk; the workspace is the real file system.
 *
 * Layout under `root` (for example `~/.fh`):
 *   {root}/file-history/{sessionId}/{backupFileName}   one immutable file per backup (seed 000 §6);
 *                                                      the name is `{sha256(absolute path)[:16]}@v{version}`
 *   {root}/file-history/{sessionId}/.fh-tmp-*          a backup being written, linked into place when complete
 *   {root}/sessions/{sessionId}.jsonl                  the session's records, one JSON per line, fsynced
 *   {root}/sessions/{sessionId}.fh-state               the session's state record (the oldest kept snapshot in
 *                                                      full, checked against the log at open; not fsynced),
 *                                                      written through `sessions/.fh-tmp-{sessionId}.fh-state`
 *   {root}/locks/{sessionId}.lock/                     proper-lockfile lock folder while a session is open
 *   {root}/commands/{sessionId}/                       open command windows of `fh hook` / `fh run` (written by
 *                                                      @fh/command-probe; removed with the session)
 *   {root}/locks/{sessionId}.lock/holder.json          `{pid, host}` of the holder, in the folder from the
 *                                                      moment it exists (`session-lock-fs.ts`): a lock of a
 *                                                      process of this machine that is gone is taken over at
 *                                                      once (an older fh wrote `{sessionId}.lock.holder.json`
 *                                                      beside the folder after taking it; still read)
 *
 * A backup is made with copyFile (FICLONE hint: a reflink where the file system has them) — or,
 * for a sparse file, a copy that leaves its holes unallocated (`sparse-copy.ts`; restores too) — into a
 * temp name, chmod'ed to the source's permission bits, then hard-linked to its final name, which
 * fails if the name exists: an existing backup is never opened for writing again. The copy is
 * hashed (sha256) as it is made, read back from the page cache (synchronously up to 256 KiB).
 *
 * Durable order (issue 10): a new backup (or a carried one) is fsynced, with its folder, before the
 * session log appends any record after it: the log's append first fsyncs every backup of that
 * session written since the last append (in parallel) and each folder they are in (once), so a
 * record never reaches the disk ahead of the backups it names, and a session with no log (or a
 * `log: false` history) pays no fsync at all.
 *
 * Permissions (issue 15): every folder the store creates, its root included, is made 0700 and every
 * record file (session log, lock marks) 0600, whatever the umask, so nobody else can list or read
 * them. A backup keeps the permission bits of the file it copies (a restore gives them back); the
 * 0700 folders keep it private. A folder that already exists is left as it is.
 *
 * No links inside the store (issue 10): `file-history/`, `sessions/`, each session folder, each
 * backup and each log must be what they claim, never a symbolic link: a linked one is refused with
 * `CorruptError` (a linked backup would restore outside bytes, a linked session folder send backups
 * elsewhere, a linked log get appended elsewhere). Files are opened with `O_NOFOLLOW` where the
 * file system has it. The store folder itself may be a link (the user's choice of folder).
 *
 * Temp files: taking a session's lock whose last holder did not release it itself (it ended with
 * the session open, was killed, or went stale: the lock's unclean mark, `session-lock-fs.ts`)
 * removes the `.fh-tmp-*` files in its folder: only the lock holder writes backups there, so any
 * temp is a leftover of that holder. After a clean close the folder is not listed.
 * Temp names `.fh-tmp-{host}.{pid}.{token}-{n}` name the machine (8 hex of its name's sha256)
 * and process that writes them. A hook's copy made before it takes the lock (`prepareBackup`) is
 * a temp of its own folder, `{session}/.fh-tmp-prepared/`, which every lock taker lists (a few
 * entries at most; ENOENT when none): it removes those whose process of this machine no longer
 * runs (another machine's after an hour), so a hook killed while it waited leaves nothing behind.
 *
 * Metadata calls on single paths (stat, lstat, link, unlink, rename) are synchronous: each is one
 * system call of a few microseconds on a local disk, where the `fs/promises` twin costs a
 * thread-pool round trip of 40–60 µs, so a backup costs about one async copy instead of five
 * async calls. Copies, reads, writes, fsync, folder listings and recursive removals stay async.
 * On a network file system each sync call blocks the event loop for one server round trip.
 */
import {
  ConflictError,
  CorruptError,
  FhError,
  InvalidArgumentError,
  LockedError,
  NotFoundError,
  errnoCode,
  type BackupBytes,
  type BackupInfo,
  type BackupStore,
  type PreparedBackup,
  type SessionLock,
  type SessionLog,
  type SessionLogOptions,
  type SessionSummary,
  type StoreCapabilities,
  type WorkspaceFs,
  translateFsError,
  translateSourceError,
} from '@fh/core';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, lstatSync, openSync, readFileSync, readSync, realpathSync, renameSync, statSync, unlinkSync } from 'node:fs';
import * as nodeFsPromises from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { FsBackupStoreFileSystem, FsBackupStoreOptions, FsReadSync } from './fs-backup-store-options.js';
import { FsSessionLog } from './fs-session-log.js';
import { LOCK_HOLDER_FILE, lockFileSystem, markUnclean, releasingOwnLock, removeStaleLockTemps, tempBeside, uncleanMarkPath } from './session-lock-fs.js';
import { STORE_FOLDER_MODE, TEMP_PREFIX, validateName } from './names.js';
import { copySparse, isSparse } from './sparse-copy.js';

/** A backup file open for copying (`FsBackupStore.openToCopy`): its descriptor, its `fstat`, and how to close it. */
interface OpenedBackup {
  fd: number;
  stats: { isFile(): boolean; size: number; dev: number; ino: number };
  close(): Promise<void>;
}

/** `node:fs/promises` with the synchronous metadata calls of `node:fs`: the store's default file system. */
export const nodeFileSystem: FsBackupStoreFileSystem = {
  ...nodeFsPromises,
  statSync,
  lstatSync,
  linkSync,
  unlinkSync,
  renameSync,
  readFileSync,
  realpathSync: (path: string) => realpathSync.native(path),
  openSync,
  fstatSync,
  readSync,
  closeSync,
};

/** Backups up to this size (bytes) are hashed with one synchronous read of the fresh copy. */
const SYNC_HASH_LIMIT = 256 * 1024;

/** fsyncs at once when the log flushes new backups. */
const SYNC_CONCURRENCY = 16;

/** Suffix of the file an older fh wrote beside a lock folder naming its holder (`{"pid":…,"host":…}`); still read. */
const HOLDER_SUFFIX = '.holder.json';

/** proper-lockfile's smallest stale time, in ms. */
const MIN_LOCK_STALE_MS = 2000;

/** The folders the store writes under its root. */
const OWN_FOLDERS = ['file-history', 'sessions', 'locks'] as const;

/** What the store calls on its file system; checked at construction. */
const REQUIRED_FILE_SYSTEM_MEMBERS = [
  'stat', 'lstat', 'open', 'copyFile', 'mkdir', 'readdir', 'readFile', 'rm', 'rename', 'unlink',
  'statSync', 'lstatSync', 'linkSync', 'unlinkSync', 'renameSync', 'realpathSync',
] as const satisfies ReadonlyArray<keyof FsBackupStoreFileSystem>;

/** Errors of `link` after which carryBackup copies instead (no hard link across or on this file system). */
const LINK_FALLBACK_CODES = new Set(['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP']);

/** This machine in temp names: 8 hex digits of its host name's sha256. */
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

/** A temp name's writer: `.fh-tmp-{host}.{pid}.{token}-` (older fh named temps `.fh-tmp-{token}-{n}`). */
const TEMP_WRITER = /^\.fh-tmp-([0-9a-f]{8})\.([0-9]+)\.([0-9a-f]+)-/;

/** The folder of a session's prepared copies (`prepareBackup`), inside its folder; a temp name, so never listed as a backup. */
const PREPARED_FOLDER = `${TEMP_PREFIX}prepared`;

/** Age after which a temp written on another machine (whose process fh cannot ask about) is removed, in ms. */
const FOREIGN_TEMP_MAX_AGE_MS = 60 * 60 * 1000;

/** Errors of `link` meaning the file system has no hard links; putBackup then renames into place. */
const NO_HARD_LINK_CODES = new Set(['EPERM', 'ENOTSUP']);

/**
 * `proper-lockfile` (with the `graceful-fs` it patches in), imported on the first lock call: a
 * process that never locks (`fh hook` settling an edit from the log alone) does not load it.
 */
let lockfileModule: Promise<typeof import('proper-lockfile')> | undefined;
function loadLockfile(): Promise<typeof import('proper-lockfile')> {
  lockfileModule ??= import('proper-lockfile').then((module) => module.default);
  return lockfileModule;
}

/** A BackupStore on the local disk, laid out as described at the top of this file. */
export class FsBackupStore implements BackupStore {
  readonly kind: string = 'fs';
  readonly capabilities: StoreCapabilities = { hardLinks: true, serverSideCopy: false, locking: true, sha256: false };
  /** The real file system (or the injected `fileSystem`). */
  readonly workspaceFs: WorkspaceFs;
  /** Absolute store folder. */
  readonly root: string;
  /** The root and its real path (when different): fh's own files are these or under {@link ownFolders}. */
  private readonly roots: readonly string[];
  /** `{root}/file-history/`, `{root}/sessions/`, `{root}/locks/` for each of {@link roots}, with a trailing separator. */
  private readonly ownFolders: readonly string[];
  private readonly fs: FsBackupStoreFileSystem;
  private readonly lockStaleMs: number;

  /**
   * The lock folder of each session whose lock this store holds: a stale takeover by another
   * process puts that process's holder record there, which {@link assertLockHeld} sees before an
   * append.
   */
  private readonly heldLocks = new Map<string, string>();
  /** Random per store object, so temp names of two processes (or stores) never collide. */
  private readonly tempToken = randomBytes(8).toString('hex');
  /** Numbers this store's temp names. */
  private tempCounter = 0;

  /**
   * Throws `InvalidArgumentError` when `root` is missing or empty, `lockStaleMs` is not a number
   * of ms >= 2000, or `fileSystem` is callback-based (`node:fs`) or lacks a member the store calls.
   */
  constructor(options: FsBackupStoreOptions) {
    if (typeof options?.root !== 'string' || options.root === '') {
      throw new InvalidArgumentError(`root must be the store folder path: ${JSON.stringify(options?.root)}`);
    }
    this.root = resolve(options.root);
    const canonicalRoot = canonicalPath(this.root);
    this.roots = canonicalRoot === this.root ? [this.root] : [this.root, canonicalRoot];
    this.ownFolders = this.roots.flatMap((root) => OWN_FOLDERS.map((folder) => join(root, folder)));
    this.fs = options.fileSystem ?? nodeFileSystem;
    if (typeof (this.fs as { promises?: unknown }).promises === 'object') {
      throw new InvalidArgumentError('fileSystem must be promise-based: pass nodeFileSystem (node:fs/promises plus the sync metadata calls), not node:fs');
    }
    const missing = REQUIRED_FILE_SYSTEM_MEMBERS.filter((name) => typeof this.fs?.[name] !== 'function');
    if (missing.length > 0) {
      throw new InvalidArgumentError(`fileSystem must be node:fs/promises plus statSync, lstatSync, linkSync, unlinkSync, renameSync and realpathSync of node:fs (nodeFileSystem); it lacks ${missing.join(', ')}`);
    }
    this.workspaceFs = this.fs as unknown as WorkspaceFs;
    this.lockStaleMs = options.lockStaleMs ?? 10_000;
    if (typeof this.lockStaleMs !== 'number' || !Number.isFinite(this.lockStaleMs) || this.lockStaleMs < MIN_LOCK_STALE_MS) {
      throw new InvalidArgumentError(`lockStaleMs must be a number of milliseconds >= ${MIN_LOCK_STALE_MS}, got ${typeof options.lockStaleMs === 'string' ? JSON.stringify(options.lockStaleMs) : String(options.lockStaleMs)}`);
    }
  }

  /** Throw (fs errors translated as `translateSourceError`, `InvalidArgumentError` for a non-file) unless `sourcePath` is a regular file. */
  private assertRegularSource(sourcePath: string, context: string): void {
    let stats;
    try {
      stats = this.fs.statSync(sourcePath);
    } catch (error) {
      throw translateSourceError(error, context);
    }
    if (!stats.isFile()) throw new InvalidArgumentError(`${context}: not a regular file`);
  }

  /**
   * Copy `sourcePath` into a new backup: copyFile (FICLONE hint; it keeps the source's permission
   * bits) to a temp name, then hard-link it to the final name (fails if it exists) and remove the
   * temp. ConflictError if the backup exists, NotFoundError for a missing source,
   * InvalidArgumentError for a source that is not a regular file (checked first, so a FIFO never
   * blocks the copy). On failure nothing is left behind. The session folder is created when a copy
   * first finds it missing, not on every call.
   */
  async putBackup(sessionId: string, backupFileName: string, sourcePath: string): Promise<BackupInfo> {
    const finalPath = this.backupPath(sessionId, backupFileName);
    const context = `back up "${sourcePath}" as "${backupFileName}" (session "${sessionId}")`;
    this.assertRegularSource(sourcePath, context);
    return this.copyIntoPlace(sourcePath, finalPath, context);
  }

  /**
   * Copy `sourcePath` into a temp of the session's folder and fsync it (see
   * `BackupStore.prepareBackup`); `commit` hard-links it to its backup name (as `putBackup` does)
   * and removes the temp. Errors as `putBackup`; on failure nothing is left behind.
   */
  async prepareBackup(sessionId: string, sourcePath: string): Promise<PreparedBackup> {
    validateName('sessionId', sessionId);
    const folder = this.sessionFolder(sessionId);
    const context = `prepare a backup of "${sourcePath}" (session "${sessionId}")`;
    this.assertRegularSource(sourcePath, context);
    const preparedFolder = join(folder, PREPARED_FOLDER);
    const tempPath = this.tempPath(preparedFolder);
    let info: BackupInfo;
    try {
      this.refuseLinkedFolder(folder);
      this.refuseLinkedFolder(preparedFolder);
      const sparseHash = await this.copyToTemp(sourcePath, tempPath, preparedFolder, context);
      const copied = this.fs.statSync(tempPath);
      const sha256 = sparseHash ?? (await this.hashFile(tempPath, copied.size));
      await this.syncFile(tempPath, this.readNoFollow());
      info = { size: copied.size, mode: copied.mode & 0o7777, sha256 };
    } catch (error) {
      unlinkQuietly(this.fs, tempPath);
      throw translateFsError(error, context);
    }
    let state: 'prepared' | 'committed' | 'discarded' = 'prepared';
    return {
      sourcePath,
      info,
      commit: async (backupFileName: string) => {
        const finalPath = this.backupPath(sessionId, backupFileName);
        const commitContext = `back up "${sourcePath}" as "${backupFileName}" (session "${sessionId}")`;
        if (state !== 'prepared') throw new InvalidArgumentError(`${commitContext}: the prepared copy was already ${state}`);
        try {
          this.linkIntoPlace(tempPath, finalPath, commitContext);
        } catch (error) {
          if (errnoCode(error) === 'EEXIST') throw new ConflictError(`${commitContext}: backup already exists`, { cause: error });
          throw translateFsError(error, commitContext);
        }
        state = 'committed';
        await this.removePreparedCopy(tempPath);
        this.noteUnsynced(sessionId, finalPath);
      },
      discard: async () => {
        if (state !== 'prepared') return;
        state = 'discarded';
        await this.removePreparedCopy(tempPath);
      },
    };
  }

  /**
   * Make one backup per item from its bytes (see `BackupStore.putBackups`): each is written once,
   * straight into a temp of the session's folder (created exclusively, chmod'ed to the item's
   * bits), hard-linked to its name (EEXIST → that item's `ConflictError`; or renamed into place
   * where the file system has no hard links) and its temp removed; then every new backup and the
   * folder are fsynced together, in parallel on the thread pool, so the batch costs about one
   * fsync instead of one per file. A failed fsync removes the batch's backups (each item gets the
   * error). Durable when it resolves: the session log's next append does not fsync them again.
   */
  async putBackups(sessionId: string, items: readonly BackupBytes[]): Promise<Array<BackupInfo | Error>> {
    validateName('sessionId', sessionId);
    const folder = this.sessionFolder(sessionId);
    const results: Array<BackupInfo | Error> = items.map(() => new Error('not stored'));
    if (items.length === 0) return results;
    this.refuseLinkedFolder(join(this.root, 'file-history'));
    this.refuseLinkedFolder(folder);
    if (!this.existsSync(folder, `store backups of session "${sessionId}"`)) await this.mkdir(folder, `store backups of session "${sessionId}"`);
    const stored: Array<{ index: number; finalPath: string; handle: nodeFsPromises.FileHandle }> = [];
    await Promise.all(
      items.map(async (item, index) => {
        const context = `store ${item.bytes.length} bytes as "${item.backupFileName}" (session "${sessionId}")`;
        let handle: nodeFsPromises.FileHandle | undefined;
        const tempPath = this.tempPath(folder);
        let linked = false;
        try {
          validateName('backupFileName', item.backupFileName);
          const finalPath = join(folder, item.backupFileName);
          const mode = item.mode & 0o7777;
          handle = await this.fs.open(tempPath, 'wx', 0o600);
          await handle.writeFile(item.bytes);
          await handle.chmod(mode);
          try {
            linked = true;
            if (this.linkIntoPlace(tempPath, finalPath, context) === 'linked') unlinkQuietly(this.fs, tempPath);
          } catch (error) {
            linked = false;
            if (errnoCode(error) === 'EEXIST') throw new ConflictError(`${context}: backup already exists`, { cause: error });
            throw error;
          }
          results[index] = { size: item.bytes.length, mode, sha256: createHash('sha256').update(item.bytes).digest('hex') };
          stored.push({ index, finalPath, handle });
        } catch (error) {
          await handle?.close().catch(() => undefined);
          if (!linked) unlinkQuietly(this.fs, tempPath);
          results[index] = translateFsError(error, context);
        }
      }),
    );
    if (stored.length === 0) return results;
    try {
      await Promise.all([...stored.map(({ handle }) => handle.sync()), this.syncFile(folder, 'r')]);
    } catch (error) {
      const failed = translateFsError(error, `make the new backups of session "${sessionId}" durable`);
      for (const { index, finalPath } of stored) {
        unlinkQuietly(this.fs, finalPath);
        results[index] = failed;
      }
    } finally {
      await Promise.all(stored.map(({ handle }) => handle.close().catch(() => undefined)));
    }
    return results;
  }

  /** Size and permission bits of a backup, or null when it does not exist. */
  async statBackup(sessionId: string, backupFileName: string): Promise<BackupInfo | null> {
    const path = this.backupPath(sessionId, backupFileName);
    try {
      const stats = this.fs.lstatSync(path);
      if (!stats.isFile()) throw this.linkInStore(path, stats.isSymbolicLink() ? 'is a symbolic link' : 'is not a regular file');
      return { size: stats.size, mode: stats.mode & 0o7777 };
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw translateFsError(error, `statBackup "${backupFileName}" of session "${sessionId}"`);
    }
  }

  /**
   * copyFile(backup, destination, EXCL | FICLONE), then check the copy has the backup's size.
   * The backup is opened without following a link and copied from that open file (on Linux
   * through `/proc/self/fd`), so a backup swapped for a link after it was checked is never read.
   * NotFoundError for a missing backup, ConflictError for an existing destination (left as it
   * is), CorruptError for a short copy or a link or non-file in the store; on failure a
   * destination this call created is removed.
   */
  async restoreBackup(sessionId: string, backupFileName: string, destinationPath: string): Promise<void> {
    const path = this.backupPath(sessionId, backupFileName);
    const context = `restoreBackup "${backupFileName}" of session "${sessionId}" to "${destinationPath}"`;
    let backup: OpenedBackup;
    try {
      backup = await this.openToCopy(path);
    } catch (error) {
      if (errnoCode(error) === 'ELOOP') throw this.linkInStore(path, 'is a symbolic link');
      if (errnoCode(error) === 'ENOENT') throw new NotFoundError(`${context}: backup does not exist`, { cause: error });
      throw translateFsError(error, context);
    }
    try {
      const opened = backup.stats;
      if (!opened.isFile()) throw this.linkInStore(path, 'is not a regular file');
      try {
        const source = this.openFilePath(backup.fd, opened);
        // `/proc/self/fd/N` is a link to the open file, so it is opened following links.
        if (source !== undefined) await this.copyKeepingHoles(source, destinationPath, 'r');
        else await this.copyKeepingHoles(path, destinationPath);
        const written = this.fs.statSync(destinationPath).size;
        if (written !== opened.size) throw new CorruptError(`${context}: wrote ${written} bytes, the backup has ${opened.size}`);
      } catch (error) {
        if (errnoCode(error) === 'EEXIST') throw new ConflictError(`${context}: destination already exists`, { cause: error });
        await this.fs.rm(destinationPath, { force: true }).catch(() => undefined);
        throw error;
      }
    } catch (error) {
      throw translateFsError(error, context);
    } finally {
      await backup.close().catch(() => undefined);
    }
  }

  /**
   * The backup file at `path` opened for reading without following a link, with its `fstat`:
   * synchronously where the file system has `openSync`, `fstatSync` and `closeSync` and numeric
   * open flags (opened with `O_NONBLOCK` too, so a FIFO planted at the name cannot block; no
   * round trips to the thread pool for a rewind's every file), else through a file handle.
   * Throws `open`'s errno errors (`ELOOP` for a link, `ENOENT`).
   */
  private async openToCopy(path: string): Promise<OpenedBackup> {
    const fs = this.fs;
    const flags = this.readNoFollow();
    if (typeof flags === 'number' && typeof fs.openSync === 'function' && typeof fs.fstatSync === 'function' && typeof fs.closeSync === 'function') {
      const sync = fs as FsBackupStoreFileSystem & FsReadSync;
      const fd = sync.openSync(path, flags | (constants.O_NONBLOCK ?? 0));
      try {
        return { fd, stats: sync.fstatSync(fd), close: async () => sync.closeSync(fd) };
      } catch (error) {
        sync.closeSync(fd);
        throw error;
      }
    }
    const handle = await fs.open(path, flags);
    try {
      return { fd: handle.fd, stats: await handle.stat(), close: () => handle.close() };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Stream a backup's bytes. Opens the file at once, so a missing backup throws NotFoundError
   * here; iterate to the end (or break) to close it.
   */
  async openBackup(sessionId: string, backupFileName: string): Promise<AsyncIterable<Uint8Array>> {
    const path = this.backupPath(sessionId, backupFileName);
    const context = `openBackup "${backupFileName}" of session "${sessionId}"`;
    let handle: nodeFsPromises.FileHandle;
    try {
      handle = await this.fs.open(path, this.readNoFollow());
    } catch (error) {
      if (errnoCode(error) === 'ELOOP') throw this.linkInStore(path, 'is a symbolic link');
      throw translateFsError(error, context);
    }
    const stream = handle.createReadStream();
    return (async function* readChunks() {
      try {
        for await (const chunk of stream) yield chunk as Uint8Array;
      } catch (error) {
        throw translateFsError(error, context);
      } finally {
        stream.destroy();
      }
    })();
  }

  /**
   * All bytes of a backup of at most `maxBytes`, read synchronously (see
   * `BackupStore.readBackupSync`): the names are checked and the store folders on the way refused
   * when linked (as every call does), the file is opened with `O_NOFOLLOW` (plus `O_NONBLOCK`, so a
   * FIFO planted at the name cannot block the process) and its descriptor must be a regular file.
   * `undefined` (nothing read) for a backup over `maxBytes`, or when the file system lacks the sync
   * calls (`FsReadSync`) or `O_NOFOLLOW` (the caller then streams it with `openBackup`).
   */
  readBackupSync(sessionId: string, backupFileName: string, maxBytes: number): Uint8Array | undefined {
    const fs = this.fs;
    if (typeof fs.openSync !== 'function' || typeof fs.fstatSync !== 'function' || typeof fs.readSync !== 'function' || typeof fs.closeSync !== 'function') return undefined;
    const sync = fs as FsBackupStoreFileSystem & FsReadSync;
    const path = this.backupPath(sessionId, backupFileName);
    const context = `readBackupSync "${backupFileName}" of session "${sessionId}"`;
    const flags = this.readNoFollow();
    if (typeof flags !== 'number') return undefined;
    let fd: number;
    try {
      fd = sync.openSync(path, flags | (constants.O_NONBLOCK ?? 0));
    } catch (error) {
      if (errnoCode(error) === 'ELOOP') throw this.linkInStore(path, 'is a symbolic link');
      throw translateFsError(error, context);
    }
    try {
      const stats = sync.fstatSync(fd);
      if (!stats.isFile()) throw this.linkInStore(path, 'is not a regular file');
      if (stats.size > maxBytes) return undefined;
      const bytes = new Uint8Array(stats.size);
      let length = 0;
      while (length < bytes.length) {
        const count = sync.readSync(fd, bytes, length, bytes.length - length, length);
        if (count === 0) break;
        length += count;
      }
      return bytes.subarray(0, length);
    } catch (error) {
      throw translateFsError(error, context);
    } finally {
      sync.closeSync(fd);
    }
  }

  /** Delete one backup; a missing one is not an error. */
  async deleteBackup(sessionId: string, backupFileName: string): Promise<void> {
    try {
      this.fs.unlinkSync(this.backupPath(sessionId, backupFileName));
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw translateFsError(error, `deleteBackup "${backupFileName}" of session "${sessionId}"`);
    }
  }

  /** Names of the session's backups (temp files excluded); [] for an unknown session. */
  async listBackups(sessionId: string): Promise<string[]> {
    validateName('sessionId', sessionId);
    const names = await this.readdirOrEmpty(this.sessionFolder(sessionId), `listBackups of session "${sessionId}"`);
    return names.filter((name) => !name.startsWith(TEMP_PREFIX));
  }

  /**
   * Hard-link a backup into another session's folder; on EXDEV, EPERM, EMLINK or ENOTSUP copy it
   * instead (temp + link, like putBackup). Returns 'exists' when the target is already there,
   * throws NotFoundError when the source backup is missing.
   */
  async carryBackup(fromSessionId: string, toSessionId: string, backupFileName: string): Promise<'linked' | 'copied' | 'exists'> {
    const from = this.backupPath(fromSessionId, backupFileName);
    const to = this.backupPath(toSessionId, backupFileName);
    const context = `carryBackup "${backupFileName}" from session "${fromSessionId}" to "${toSessionId}"`;
    await this.mkdir(dirname(to), context);
    try {
      this.fs.linkSync(from, to);
      this.noteUnsynced(toSessionId, to);
      return 'linked';
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'EEXIST') return 'exists';
      if (code === 'ENOENT') throw new NotFoundError(`${context}: source backup does not exist`, { cause: error });
      if (code === undefined || !LINK_FALLBACK_CODES.has(code)) throw translateFsError(error, context);
    }
    try {
      await this.copyIntoPlace(from, to, context);
      return 'copied';
    } catch (error) {
      if (FhError.hasCode(error, 'FH_CONFLICT')) return 'exists';
      throw error;
    }
  }

  /**
   * Every session with backups or records: bytes, backup count and the latest mtime of its files
   * (of its folder, for a session folder left empty).
   */
  async listSessions(): Promise<SessionSummary[]> {
    const context = `cannot list the sessions in store ${this.root}`;
    const sessions = new Map<string, SessionSummary>();
    const add = (sessionId: string, bytes: number, backups: number, mtimeMs: number) => {
      const entry = sessions.get(sessionId) ?? { sessionId, lastModified: new Date(0), bytes: 0, backups: 0 };
      entry.bytes += bytes;
      entry.backups += backups;
      if (mtimeMs > entry.lastModified.getTime()) entry.lastModified = new Date(mtimeMs);
      sessions.set(sessionId, entry);
    };
    try {
      for (const sessionId of await this.readdirOrEmpty(join(this.root, 'file-history'), context)) {
        const folder = this.sessionFolder(sessionId);
        const folderStats = await this.fs.stat(folder);
        if (!folderStats.isDirectory()) continue;
        const names = await this.readdirOrEmpty(folder, context);
        const stats = await Promise.all(names.map((name) => this.statOrNull(join(folder, name))));
        add(sessionId, 0, 0, names.length === 0 ? folderStats.mtimeMs : 0);
        names.forEach((name, index) => {
          const fileStats = stats[index];
          if (fileStats) add(sessionId, fileStats.size, name.startsWith(TEMP_PREFIX) ? 0 : 1, fileStats.mtimeMs);
        });
      }
      for (const name of await this.readdirOrEmpty(join(this.root, 'sessions'), context)) {
        if (!name.endsWith('.jsonl')) continue;
        const fileStats = await this.statOrNull(join(this.root, 'sessions', name));
        if (fileStats) add(name.slice(0, -'.jsonl'.length), fileStats.size, 0, fileStats.mtimeMs);
      }
    } catch (error) {
      throw translateFsError(error, context);
    }
    return [...sessions.values()];
  }

  /** Remove a session's backups, records and lock folder; a missing session is not an error. */
  async deleteSession(sessionId: string): Promise<void> {
    validateName('sessionId', sessionId);
    try {
      await this.fs.rm(this.sessionFolder(sessionId), { recursive: true, force: true });
      await this.fs.rm(this.logPath(sessionId), { force: true });
      await this.fs.rm(this.statePath(sessionId), { force: true });
      await this.fs.rm(join(this.root, 'sessions', `${TEMP_PREFIX}${sessionId}.fh-state`), { force: true });
      await this.fs.rm(this.lockPath(sessionId), { recursive: true, force: true });
      // Command windows `fh hook` / `fh run` keep for the session (see @fh/command-probe).
      await this.fs.rm(join(this.root, 'commands', sessionId), { recursive: true, force: true });
      await this.fs.rm(`${this.lockPath(sessionId)}${HOLDER_SUFFIX}`, { force: true });
      await this.fs.rm(uncleanMarkPath(this.lockPath(sessionId)), { force: true });
    } catch (error) {
      throw translateFsError(error, `deleteSession "${sessionId}"`);
    }
  }

  /**
   * Before an append of session `sessionId` whose lock this store took: throw `LockedError`
   * (nothing appended) when the lock folder no longer holds this process's holder record — this
   * process stalled past `lockStaleMs` without refreshing it, and another process took the lock
   * over as stale and may have appended since, so a record built from what this process read
   * could contradict the log. One small synchronous read.
   */
  private assertLockHeld(sessionId: string): void {
    const lockPath = this.heldLocks.get(sessionId);
    if (lockPath === undefined) return;
    let holder: string | undefined;
    try {
      holder = readFileSync(join(lockPath, LOCK_HOLDER_FILE), 'utf8');
    } catch {
      // No lock folder (or no record in it): not ours any more.
    }
    if (holder === holderRecord()) return;
    throw new LockedError(
      `session "${sessionId}" lost its lock ${lockPath}: this process stalled for over ${this.lockStaleMs / 1000} s without refreshing it and another process took it over, so nothing was appended to its log; run the command again`,
    );
  }

  /** The session's JSONL record log. No I/O until used; with `holdOpen`, call `close` when done. */
  sessionLog(sessionId: string, options: SessionLogOptions = {}): SessionLog {
    validateName('sessionId', sessionId);
    this.refuseLinkedFolder(join(this.root, 'sessions'));
    return new FsSessionLog(this.fs, this.logPath(sessionId), options, {
      beforeAppend: async () => {
        await this.syncBackups(sessionId);
        this.assertLockHeld(sessionId);
      },
      openFlags: this.logFlags(),
      state: { path: this.statePath(sessionId), tempPath: join(this.root, 'sessions', `${TEMP_PREFIX}${sessionId}.fh-state`) },
    });
  }

  /**
   * Take the session's lock (proper-lockfile: the folder `{root}/locks/{sessionId}.lock`, refreshed
   * while held, stale after `lockStaleMs` without refresh). Throws LockedError naming the session if
   * another process or handle holds it. If the lock is lost while held (its folder removed, the
   * refresh failing), a `FhLockCompromised` process warning is emitted.
   */
  async lockSession(sessionId: string): Promise<SessionLock> {
    validateName('sessionId', sessionId);
    const lockPath = this.lockPath(sessionId);
    await this.mkdir(dirname(lockPath), `lockSession "${sessionId}"`);
    await this.keepOutOfGit();
    let release: () => Promise<void>;
    const lockfile = await loadLockfile();
    const take = () =>
      lockfile.lock(this.lockTarget(sessionId), {
        realpath: false,
        lockfilePath: lockPath,
        stale: this.lockStaleMs,
        fs: holderLockFileSystem(),
        onCompromised: (error) =>
          process.emitWarning(`session "${sessionId}" lost its lock ${lockPath}: ${error.message}`, 'FhLockCompromised'),
      });
    try {
      try {
        release = await take();
      } catch (error) {
        if (errnoCode(error) !== 'ELOCKED' || !(await this.removeLockOfDeadHolder(lockPath))) throw error;
        release = await take();
      }
    } catch (error) {
      // ENOENT: the lock just taken was removed before proper-lockfile dated it (another process
      // took it for stale after this one stalled): someone else holds the session now.
      if (errnoCode(error) === 'ELOCKED' || (errnoCode(error) === 'ENOENT' && (error as NodeJS.ErrnoException).path === lockPath)) {
        throw new LockedError(`session "${sessionId}" is locked: another process or handle has it open (${lockPath}); a lock left by a process that died goes stale after ${this.lockStaleMs / 1000} s`, {
          cause: error,
        });
      }
      throw translateFsError(error, `lockSession "${sessionId}"`);
    }
    this.heldLocks.set(sessionId, lockPath);
    const prepared = join(this.sessionFolder(sessionId), PREPARED_FOLDER);
    // The lock folder's leftovers are tidied beside the session folder's (separate folders).
    await Promise.all([
      (async () => {
        await this.tidyAfterUncleanHolder(sessionId, lockPath);
        if ((await this.removeTemporaryFiles(sessionId, prepared)) > 0) await this.fs.rmdir(prepared).catch(() => undefined);
      })(),
      removeStaleLockTemps(lockPath),
    ]);
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        this.heldLocks.delete(sessionId);
        const releaseOver = releasingOwnLock(lockPath);
        try {
          await release();
        } catch (error) {
          if (errnoCode(error) !== 'ERELEASED') throw translateFsError(error, `release lock of session "${sessionId}"`);
        } finally {
          releaseOver();
        }
      },
    };
  }

  /**
   * A lock whose holder (recorded in the lock folder as `{pid, host}`) was a process of this
   * machine that no longer runs is removed at once, instead of after `lockStaleMs`: a killed
   * command's session is usable by the next command. The folder is first renamed aside (only one
   * of several processes taking over can move it) and its holder read again there: a fresh lock
   * another process took meanwhile is put back, not removed. Returns whether it removed the lock.
   */
  private async removeLockOfDeadHolder(lockPath: string): Promise<boolean> {
    const inside = join(lockPath, LOCK_HOLDER_FILE);
    const holder = (await this.readHolder(inside)) ?? (await this.readHolder(`${lockPath}${HOLDER_SUFFIX}`));
    if (holder === undefined || holder.host !== hostname() || typeof holder.pid !== 'number' || !Number.isInteger(holder.pid) || holder.pid <= 0 || processRuns(holder.pid)) return false;
    markUnclean(lockPath);
    const aside = tempBeside(lockPath);
    try {
      await this.fs.rename(lockPath, aside);
    } catch {
      return false;
    }
    const moved = await this.readHolder(join(aside, LOCK_HOLDER_FILE));
    if (moved !== undefined && (moved.pid !== holder.pid || moved.host !== holder.host)) {
      await this.fs.rename(aside, lockPath).catch(() => undefined);
      return false;
    }
    await this.fs.rm(aside, { recursive: true, force: true });
    await this.fs.rm(`${lockPath}${HOLDER_SUFFIX}`, { force: true });
    return true;
  }

  /** The `{pid, host}` record at `path`, or `undefined` when it is missing or not JSON. */
  private async readHolder(path: string): Promise<{ pid?: unknown; host?: unknown } | undefined> {
    try {
      return JSON.parse(String(await this.fs.readFile(path))) as { pid?: unknown; host?: unknown };
    } catch {
      return undefined;
    }
  }

  /**
   * With the session's lock just taken: when the lock's last holder did not release it itself
   * (the unclean mark of `session-lock-fs.ts`: it ended with the session open, or its lock was
   * taken over as stale or dead), remove the session folder's temp files and then the mark. A
   * session closed cleanly costs one `lstat` here, not a listing of its folder.
   */
  private async tidyAfterUncleanHolder(sessionId: string, lockPath: string): Promise<void> {
    const mark = uncleanMarkPath(lockPath);
    try {
      lstatSync(mark);
    } catch {
      return;
    }
    await this.removeTemporaryFiles(sessionId);
    await nodeFsPromises.rm(mark, { force: true }).catch(() => undefined);
  }

  /**
   * Remove the `.fh-tmp-*` files of a session's folder (or its prepared-copies folder, `folder`)
   * left by processes that are gone: called with the session's lock just taken. A temp of a
   * running process of this machine stays (a hook's prepared copy; of this process, only this
   * store object's own), one of
   * another machine stays for {@link FOREIGN_TEMP_MAX_AGE_MS}; older fh's temps go. Returns how
   * many it removed. Tidying: failures are ignored.
   */
  protected async removeTemporaryFiles(sessionId: string, folder = this.sessionFolder(sessionId)): Promise<number> {
    let names: string[];
    let removed = 0;
    try {
      this.refuseLinkedFolder(folder);
      names = await this.fs.readdir(folder);
    } catch {
      return removed;
    }
    const running = new Map<number, boolean>();
    for (const name of names) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      const writer = TEMP_WRITER.exec(name);
      const pid = Number(writer?.[2]);
      if (writer?.[1] === HOST_TAG && pid === process.pid) {
        // This process: only this store object's own temps are live (another object's were left by
        // a history of this process that was dropped, as a crash simulated in one process does).
        if (writer[3] === this.tempToken) continue;
      } else if (writer?.[1] === HOST_TAG && Number.isSafeInteger(pid) && pid > 0) {
        let runs = running.get(pid);
        if (runs === undefined) running.set(pid, (runs = processRuns(pid)));
        if (runs) continue;
      }
      try {
        const stats = this.fs.lstatSync(join(folder, name));
        if (writer !== null && writer[1] !== HOST_TAG && Date.now() - stats.mtimeMs < FOREIGN_TEMP_MAX_AGE_MS) continue;
        if (stats.isFile()) {
          this.fs.unlinkSync(join(folder, name));
          removed += 1;
        }
      } catch {
        // Gone already: nothing to tidy.
      }
    }
    return removed;
  }

  /** Whether a live (not stale) lock on the session is held by anyone, this process included. */
  async isSessionLocked(sessionId: string): Promise<boolean> {
    validateName('sessionId', sessionId);
    try {
      return await (await loadLockfile()).check(this.lockTarget(sessionId), {
        realpath: false,
        lockfilePath: this.lockPath(sessionId),
        stale: this.lockStaleMs,
      });
    } catch (error) {
      throw translateFsError(error, `isSessionLocked "${sessionId}"`);
    }
  }

  /**
   * True for fh's own files: the store folder itself and anything in the folders it writes
   * (`file-history`, `sessions`, `locks`), also through their real paths. Other files under the
   * store folder are not fh's: with the store at `~/.fh` nothing changes, and a store folder that
   * holds the project (`--store ~`) leaves the project's files trackable.
   */
  containsPath(absolutePath: string): boolean {
    const normalized = isAbsolute(absolutePath) && !absolutePath.endsWith(sep) && !absolutePath.includes(`${sep}.`) && !absolutePath.includes(`${sep}${sep}`);
    const path = normalized ? absolutePath : resolve(absolutePath);
    return this.roots.includes(path) || this.ownFolders.some((folder) => path === folder || path.startsWith(folder + sep));
  }

  private sessionFolder(sessionId: string): string {
    return join(this.root, 'file-history', sessionId);
  }

  private backupPath(sessionId: string, backupFileName: string): string {
    validateName('sessionId', sessionId);
    validateName('backupFileName', backupFileName);
    this.refuseLinkedFolder(join(this.root, 'file-history'));
    this.refuseLinkedFolder(this.sessionFolder(sessionId));
    return join(this.sessionFolder(sessionId), backupFileName);
  }

  /** Throw `CorruptError` when `folder` (inside the store) is a symbolic link or not a folder; a missing one is fine. */
  private refuseLinkedFolder(folder: string): void {
    let stats;
    try {
      stats = this.fs.lstatSync(folder);
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw translateFsError(error, `check the store folder ${folder}`);
    }
    if (stats.isSymbolicLink()) throw this.linkInStore(folder, 'is a symbolic link');
    if (!stats.isDirectory()) throw this.linkInStore(folder, 'is not a folder');
  }

  /** The error for something inside the store that is not what the store wrote there. */
  private linkInStore(path: string, what: string): CorruptError {
    return new CorruptError(
      `${path} ${what}: fh never follows a link inside its store (${this.root}), so it was not read or written; replace it by what fh wrote there (or remove it) and run the command again`,
    );
  }

  /** Open flags of the log: append, create, read, never following a link at its name. */
  private logFlags(): { append: string | number; read: string | number } {
    const flags = (this.fs as { constants?: Record<string, number | undefined> }).constants;
    const { O_APPEND, O_CREAT, O_RDWR, O_NOFOLLOW } = flags ?? {};
    if (typeof O_APPEND !== 'number' || typeof O_CREAT !== 'number' || typeof O_RDWR !== 'number' || typeof O_NOFOLLOW !== 'number') return { append: 'a+', read: 'r' };
    return { append: O_APPEND | O_CREAT | O_RDWR | O_NOFOLLOW, read: this.readNoFollow() };
  }

  /** Open flags for reading a store file without following a link at its name. */
  private readNoFollow(): string | number {
    const flags = (this.fs as { constants?: { O_RDONLY?: number; O_NOFOLLOW?: number } }).constants;
    return typeof flags?.O_NOFOLLOW === 'number' && typeof flags.O_RDONLY === 'number' ? flags.O_RDONLY | flags.O_NOFOLLOW : 'r';
  }

  /** Backups written (or carried) per session since its log last flushed them, by folder. */
  private readonly unsynced = new Map<string, Set<string>>();

  /** Note a new backup file that must be durable before the session's next record. */
  private noteUnsynced(sessionId: string, path: string): void {
    let paths = this.unsynced.get(sessionId);
    if (paths === undefined) {
      paths = new Set();
      this.unsynced.set(sessionId, paths);
    }
    paths.add(path);
  }

  /**
   * Make every backup of `sessionId` written since the last call durable: fsync each file (up to
   * {@link SYNC_CONCURRENCY} at once), then each folder they are in, once. Called by the session
   * log before it appends. On failure the backups stay listed (the next append tries again) and
   * the error is thrown, so the record is not appended.
   */
  async syncBackups(sessionId: string): Promise<void> {
    const paths = this.unsynced.get(sessionId);
    if (paths === undefined || paths.size === 0) return;
    const batch = [...paths];
    paths.clear();
    try {
      const queue = [...batch];
      const worker = async () => {
        for (let path = queue.pop(); path !== undefined; path = queue.pop()) await this.syncFile(path, this.readNoFollow());
      };
      await Promise.all(Array.from({ length: Math.min(SYNC_CONCURRENCY, queue.length) }, worker));
      await Promise.all([...new Set(batch.map((path) => dirname(path)))].map((folder) => this.syncFile(folder, 'r')));
    } catch (error) {
      for (const path of batch) paths.add(path);
      throw translateFsError(error, `make the new backups of session "${sessionId}" durable before its next record`);
    }
  }

  /** fsync one file or folder (a backup deleted meanwhile needs nothing; folders that cannot be opened are skipped). */
  private async syncFile(path: string, flags: string | number): Promise<void> {
    let handle;
    try {
      handle = await this.fs.open(path, flags as string);
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' || code === 'EISDIR' || code === 'EPERM') return;
      throw error;
    }
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  private logPath(sessionId: string): string {
    return join(this.root, 'sessions', `${sessionId}.jsonl`);
  }

  /** The session's state record beside its log (`SessionLog.readState`). */
  private statePath(sessionId: string): string {
    return join(this.root, 'sessions', `${sessionId}.fh-state`);
  }

  /** The (never created) file proper-lockfile locks; its lock folder is {@link lockPath}. */
  private lockTarget(sessionId: string): string {
    return join(this.root, 'locks', sessionId);
  }

  private lockPath(sessionId: string): string {
    return `${this.lockTarget(sessionId)}.lock`;
  }

  /**
   * Copy `sourcePath` to a temp file next to `finalPath` (FICLONE hint; copyFile keeps the source's
   * permission bits) and hard-link it to `finalPath` (EEXIST → ConflictError, nothing overwritten).
   * Where the file system has no hard links (EPERM, ENOTSUP) the temp is renamed into place after
   * checking the name is free. The temp file is always removed. Returns the backup's size (bytes)
   * and permission bits, read from the copy itself.
   */
  private async copyIntoPlace(sourcePath: string, finalPath: string, context: string): Promise<BackupInfo> {
    const folder = dirname(finalPath);
    const tempPath = this.tempPath(folder);
    let copied = false;
    try {
      const sparseHash = await this.copyToTemp(sourcePath, tempPath, folder, context);
      copied = true;
      const stats = this.fs.statSync(tempPath);
      const sha256 = sparseHash ?? (await this.hashFile(tempPath, stats.size));
      if (this.linkIntoPlace(tempPath, finalPath, context) === 'renamed') copied = false;
      this.noteUnsynced(sessionIdOf(finalPath), finalPath);
      return { size: stats.size, mode: stats.mode & 0o7777, sha256 };
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') throw new ConflictError(`${context}: backup already exists`, { cause: error });
      throw translateFsError(error, context);
    } finally {
      if (copied) unlinkQuietly(this.fs, tempPath);
    }
  }

  /**
   * Remove a prepared copy's temp and its folder when that is empty now (so a session folder
   * shows only backups between hooks; a copy being prepared meanwhile keeps it, or recreates it:
   * `copyToTemp`). Tidying: failures are ignored.
   */
  private async removePreparedCopy(tempPath: string): Promise<void> {
    unlinkQuietly(this.fs, tempPath);
    await this.fs.rmdir(dirname(tempPath)).catch(() => undefined);
  }

  /** A new temp name in `folder`, naming this machine and process (see the module comment). */
  private tempPath(folder: string): string {
    return join(folder, `${TEMP_PREFIX}${HOST_TAG}.${process.pid}.${this.tempToken}-${(this.tempCounter += 1)}`);
  }

  /**
   * Hard-link the complete temp `tempPath` to `finalPath` (EEXIST thrown as is: the name is
   * taken, nothing overwritten), or where the file system has no hard links rename it there after
   * checking the name is free (ConflictError when taken). Returns how; the caller removes a linked temp.
   */
  private linkIntoPlace(tempPath: string, finalPath: string, context: string): 'linked' | 'renamed' {
    try {
      this.fs.linkSync(tempPath, finalPath);
      return 'linked';
    } catch (error) {
      const code = errnoCode(error);
      if (code === undefined || !NO_HARD_LINK_CODES.has(code)) throw error;
      if (this.existsSync(finalPath, context)) throw new ConflictError(`${context}: backup already exists`, { cause: error });
      this.fs.renameSync(tempPath, finalPath);
      return 'renamed';
    }
  }

  /**
   * copyFile into `tempPath`. When the copy fails with ENOENT the session folder may be missing
   * (the session's first backups), so the folder is created (a no-op if a concurrent copy made it
   * meanwhile) and the copy tried once more; an ENOENT then means the source is gone.
   */
  private async copyToTemp(sourcePath: string, tempPath: string, folder: string, context: string): Promise<string | undefined> {
    const copy = (): Promise<string | undefined> => this.copyKeepingHoles(sourcePath, tempPath);
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await copy();
      } catch (error) {
        // A prepared copy's folder may be removed (empty) by another process between the mkdir and the copy: a few tries.
        if (errnoCode(error) !== 'ENOENT' || attempt >= (basename(folder) === PREPARED_FOLDER ? 3 : 1)) throw error;
      }
      await this.mkdir(folder, context);
    }
  }

  /**
   * A path that opens the file `fd` is open on: `/proc/self/fd/<fd>` when it names that very file
   * (same device and inode; Linux with /proc), else undefined (then only the name can be copied).
   */
  private openFilePath(fd: number, opened: { dev: number; ino: number }): string | undefined {
    const path = `/proc/self/fd/${fd}`;
    if (this.procFdNamesOpenFiles !== undefined) return this.procFdNamesOpenFiles ? path : undefined;
    try {
      const stats = this.fs.statSync(path);
      this.procFdNamesOpenFiles = stats.dev === opened.dev && stats.ino === opened.ino;
    } catch {
      this.procFdNamesOpenFiles = false;
    }
    return this.procFdNamesOpenFiles ? path : undefined;
  }

  /** Whether `/proc/self/fd/N` names the file this store's file system opened as fd N (checked once). */
  private procFdNamesOpenFiles: boolean | undefined;

  /**
   * copyFile(EXCL | FICLONE), or for a sparse source (see `isSparse`) a copy that leaves its holes
   * unallocated (`copySparse`, opening the source with `sourceFlags`; a partial copy is removed). Returns the sha256 when the copy worked
   * it out (sparse copies), else undefined.
   */
  private async copyKeepingHoles(sourcePath: string, destinationPath: string, sourceFlags: string | number = this.readNoFollow()): Promise<string | undefined> {
    const stats = this.fs.statSync(sourcePath);
    if (!isSparse(stats)) {
      await this.fs.copyFile(sourcePath, destinationPath, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      return undefined;
    }
    try {
      return await copySparse(this.fs, sourcePath, destinationPath, stats.mode & 0o7777, sourceFlags);
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') await this.fs.rm(destinationPath, { force: true }).catch(() => undefined);
      throw error;
    }
  }

  /** Lower-case hex sha256 of the file at `path` of `size` bytes (a fresh copy, in the page cache). */
  private async hashFile(path: string, size: number): Promise<string> {
    const hash = createHash('sha256');
    if (size <= SYNC_HASH_LIMIT && typeof this.fs.readFileSync === 'function') {
      hash.update(this.fs.readFileSync(path));
      return hash.digest('hex');
    }
    const handle = await this.fs.open(path, 'r');
    try {
      for await (const chunk of handle.createReadStream({ highWaterMark: 1024 * 1024 })) hash.update(chunk as Uint8Array);
    } finally {
      await handle.close().catch(() => undefined);
    }
    return hash.digest('hex');
  }

  private existsSync(path: string, context: string): boolean {
    try {
      this.fs.lstatSync(path);
      return true;
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return false;
      throw translateFsError(error, context);
    }
  }

  private async statOrNull(path: string) {
    try {
      return await this.fs.stat(path);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw error;
    }
  }

  /** Whether {@link keepOutOfGit} has run in this store instance. */
  private keptOutOfGit = false;

  /**
   * Put a `.gitignore` of `*` in the store's root (once per instance, never over an existing
   * file): a store inside a git work tree (`--store .fhstore`) is then neither committed by
   * `git add -A` nor removed, with the dirty files only it holds, by `git clean -fd`.
   * Failures are ignored (the session lock's own calls report a store that cannot be written).
   */
  private async keepOutOfGit(): Promise<void> {
    if (this.keptOutOfGit) return;
    this.keptOutOfGit = true;
    try {
      await this.fs.writeFile(join(this.root, '.gitignore'), '*\n', { flag: 'wx', mode: 0o600 });
    } catch {
      // There already (the user's own, or an earlier one), or not writable.
    }
  }

  private async mkdir(path: string, context: string): Promise<void> {
    try {
      // 0700: the backups and records are the user's files; nobody else may list or read them.
      await this.fs.mkdir(path, { recursive: true, mode: STORE_FOLDER_MODE });
    } catch (error) {
      throw translateFsError(error, context);
    }
  }

  private async readdirOrEmpty(path: string, context: string): Promise<string[]> {
    try {
      return await this.fs.readdir(path);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return [];
      throw translateFsError(error, context);
    }
  }
}

let lockFs: ReturnType<typeof lockFileSystem> | undefined;
/** The lock file system of this process (one, so proper-lockfile's mtime-precision probe is cached). */
function holderLockFileSystem(): ReturnType<typeof lockFileSystem> {
  lockFs ??= lockFileSystem(holderRecord());
  return lockFs;
}

/** This process's holder record, as a lock folder it takes holds it (a JSON line). */
function holderRecord(): string {
  return `${JSON.stringify({ pid: process.pid, host: hostname() })}\n`;
}

/** Whether a process with this pid runs on this machine (EPERM: it runs, as another user). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === 'EPERM';
  }
}

/** The session id of a backup path `{root}/file-history/{sessionId}/{name}`. */
function sessionIdOf(backupPath: string): string {
  return basename(dirname(backupPath));
}

/** Remove a temp file, ignoring any error (it is gone already, or cleanup must not mask the real error). */
function unlinkQuietly(fs: FsBackupStoreFileSystem, path: string): void {
  try {
    fs.unlinkSync(path);
  } catch {
    // Nothing to add to the outcome already decided.
  }
}

/**
 * The real path of `path`: its nearest existing ancestor resolved through symlinks, with the
 * not-yet-existing rest appended (so a store folder created later is still recognised).
 */
function canonicalPath(path: string): string {
  const missing: string[] = [];
  for (let current = path; ; current = dirname(current)) {
    try {
      return join(realpathSync(current), ...missing);
    } catch {
      if (dirname(current) === current) return path;
      missing.unshift(basename(current));
    }
  }
}

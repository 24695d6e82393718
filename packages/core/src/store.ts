/**
 * The contracts the core depends on: the workspace file system ({@link WorkspaceFs}), the backup
 * store ({@link BackupStore}) and the session log ({@link SessionLog}). The core does no I/O of
 * its own beyond these.
 *
 * A store is written for immutable objects (S3 fits without changes): a backup is written once and
 * never opened for writing again, every member is async and may fail, and there is no random
 * access. Stores translate their native errors into the core's error family (see `errors.ts`),
 * keeping the native error as `cause`.
 */

/** File status as the core reads it (a subset of `fs.Stats`). Times in ms since the epoch. */
export interface FsStats {
  /** Size in bytes. */
  size: number;
  /** File type and permission bits (`st_mode`). */
  mode: number;
  /** Last content modification, ms since the epoch (may be set back by `touch -r`, `cp -p`). */
  mtimeMs: number;
  /** Last status change (content, mode, links), ms since the epoch; cannot be set back by users. */
  ctimeMs: number;
  /** Inode number. */
  ino: number | bigint;
  /** Hard-link count. */
  nlink: number;
  /**
   * Creation time, ms since the epoch, where the file system records one (Linux statx, macOS);
   * 0 or absent where it does not. Only used to tell folders a rewind may remove (`empty-folders.ts`).
   */
  birthtimeMs?: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** An open file, for streaming reads (a subset of `fs/promises` `FileHandle`). */
export interface FsFileHandle {
  /** Read up to `length` bytes at `position` into `buffer` at `offset`. */
  read(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<{ bytesRead: number }>;
  stat(): Promise<FsStats>;
  close(): Promise<void>;
}

/**
 * The workspace file system: a `node:fs/promises`-compatible object. The real `fs/promises`
 * satisfies it, and so does a memfs volume's `promises`. Errors are Node errno errors
 * (`ENOENT`, `EEXIST`, `EISDIR`, ...).
 */
export interface WorkspaceFs {
  stat(path: string): Promise<FsStats>;
  lstat(path: string): Promise<FsStats>;
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, data: Uint8Array | string, options?: { mode?: number; flag?: string }): Promise<void>;
  /** Open a file; `flags` as `fs.open` takes them (a string such as `'r'`, or numeric `O_*` flags). */
  open(path: string, flags: string | number, mode?: number): Promise<FsFileHandle>;
  copyFile(source: string, destination: string, mode?: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** Remove an empty folder (never recursive; `ENOTEMPTY` when it holds anything). */
  rmdir(path: string): Promise<void>;
  mkdir(path: string, options: { recursive: true; mode?: number }): Promise<string | undefined>;
  chmod(path: string, mode: number): Promise<void>;
  realpath(path: string): Promise<string>;
  readdir(path: string): Promise<string[]>;
  rm(path: string, options: { recursive?: boolean; force?: boolean }): Promise<void>;
  utimes(path: string, atime: Date | number, mtime: Date | number): Promise<void>;
  /**
   * Optional synchronous `stat`. When both it and `lstatSync` are present, scans over many tracked
   * files call them instead of the async pair (see `metadata.ts`); `FsBackupStore` offers them.
   */
  statSync?(path: string): FsStats;
  /** Optional synchronous `lstat`; see {@link WorkspaceFs.statSync}. */
  lstatSync?(path: string): FsStats;
  /** Optional synchronous `realpath`; `trackEdit` resolves symlinks with it when present. */
  realpathSync?(path: string): string;
  /**
   * Optional synchronous `readFile`: diff stats read a small changed file (up to
   * `SYNC_READ_LIMIT_BYTES`) with it instead of a few round trips to the thread pool.
   */
  readFileSync?(path: string): Uint8Array;
  /**
   * Optional synchronous `fstat` of an open descriptor (a handle's `fd`): a rewind checks the mode
   * of each file it just wrote with it instead of a round trip to the thread pool.
   */
  fstatSync?(fd: number): FsStats;
  /**
   * Optional open flags (`fs.constants` of `node:fs/promises`). When `O_DIRECTORY` and
   * `O_NOFOLLOW` are here, `open` takes numeric flags, handles carry their `fd` and
   * `/proc/self/fd` exists (Linux), rewinds and undos write through folder descriptors that no
   * symbolic link can redirect (`rewind/project-writer.ts`); otherwise they check each folder with
   * `lstat` right before each write.
   */
  readonly constants?: { readonly O_RDONLY?: number; readonly O_DIRECTORY?: number; readonly O_NOFOLLOW?: number };
}

/** What a store knows about one backup object. */
export interface BackupInfo {
  /** Size of the backup in bytes. */
  size: number;
  /** Permission bits recorded for the backup (`mode & 0o7777`). */
  mode: number;
  /** Lower-case hex sha256 of the bytes, when the store records it (S3); otherwise undefined. */
  sha256?: string;
}

/**
 * A backup's bytes in the store under a temporary name (`BackupStore.prepareBackup`), not yet a
 * backup: it becomes one with `commit`, or is removed with `discard`.
 */
export interface PreparedBackup {
  /** The workspace file copied (absolute, as given). */
  readonly sourcePath: string;
  /** Size, permission bits and sha256 of the copy. */
  readonly info: BackupInfo;
  /**
   * Give the copy the backup name `backupFileName` of session `sessionId` (the one it was prepared
   * for); its directory entry is made durable before the session log's next append, like
   * `putBackup`'s. Throws `ConflictError` when the name is taken (the copy stays prepared, so
   * another name can be tried) and the store's errors. At most one commit succeeds.
   */
  commit(backupFileName: string): Promise<void>;
  /** Remove the copy unless it was committed; idempotent, never throws. */
  discard(): Promise<void>;
}

/** One backup to make from bytes in memory ({@link BackupStore.putBackups}). */
export interface BackupBytes {
  /** The new backup's name (a single path segment, as for `putBackup`). */
  backupFileName: string;
  /** Its whole content. */
  bytes: Uint8Array;
  /** Permission bits it records (`& 0o7777`; a restore gives them back). */
  mode: number;
}

/** Features a store may or may not have; the core checks these before relying on them. */
export interface StoreCapabilities {
  /** `carryBackup` can share a backup between sessions without copying bytes (hard link). */
  hardLinks: boolean;
  /** `carryBackup` copies on the server without downloading (S3 CopyObject). */
  serverSideCopy: boolean;
  /** `lockSession` is implemented. */
  locking: boolean;
  /** `BackupInfo.sha256` is filled, so change detection can hash the workspace file instead of downloading. */
  sha256: boolean;
}

/** One session as a store lists it. */
export interface SessionSummary {
  sessionId: string;
  /** Last write to the session's backups or records. */
  lastModified: Date;
  /** Bytes the session's backups and records take in the store. */
  bytes: number;
  /** Number of backup objects. */
  backups: number;
}

/** A held session lock; `release` is idempotent. */
export interface SessionLock {
  release(): Promise<void>;
}

/** A JSON record in a session log (a transcript line). Unknown types and fields pass through. */
export type LogRecord = { type: string } & Record<string, unknown>;

/** A log line that could not be read back. */
export interface SkippedLine {
  /** 1-based line (or object) number in the log. */
  line: number;
  /** Why it was skipped: `torn last line`, `invalid JSON`, `not an object with a type`. */
  reason: string;
}

/** What {@link SessionLog.read} returns. */
export interface LogReadResult {
  /** The valid records, in append order. */
  records: LogRecord[];
  /** Lines skipped as corrupt or torn; reading never throws for these. */
  skipped: SkippedLine[];
}

/**
 * An append-only, ordered log of one session's records (Claude Code transcript lines).
 */
export interface SessionLog {
  /**
   * Append records in order. Durable when the promise resolves (fsync for files; a written
   * object for S3). Throws `PermissionError`/`UnavailableError` on store failure; on failure no
   * partial record is visible to a later `read` except as a skipped torn line.
   */
  append(records: readonly LogRecord[]): Promise<void>;
  /**
   * Read every record back in append order. A missing log reads as empty. Corrupt and torn
   * lines are skipped and reported in `skipped`, never thrown, and never hide later valid lines.
   */
  read(): Promise<LogReadResult>;
  /**
   * Optional: the records of the log's first `headBytes` and last `tailBytes` only (whole lines;
   * a line cut by either bound is left out), for a caller that needs the log's first records (the
   * `fh-session` record) and its newest ones without parsing everything between. When the two
   * ranges cover the whole log, `whole` is true and `head` holds every record (`tail` is empty).
   * Sizes in bytes.
   */
  readEnds?(headBytes: number, tailBytes: number): Promise<LogEnds>;
  /**
   * Optional: the records of the log's first `headBytes` (whole lines, as `readEnds` gives them)
   * and the raw JSONL bytes of its last `tailBytes`, unparsed (the first line may be cut), for a
   * reader that parses only the newest records it needs (`FileHistory.open` of a long session:
   * `state/tail-rebuild.ts`). When the two ranges cover the whole log, `whole` is true, `head` is
   * empty and `tail` holds every byte. Sizes in bytes. Throws like `read`.
   */
  readTail?(headBytes: number, tailBytes: number): Promise<LogTail>;
  /**
   * Optional: the log's bytes in append order, as JSONL (the bytes a JSONL file of the records
   * would hold), in chunks of any size, read as they are consumed, so a log of any size is read
   * with bounded memory (no whole-log string). A missing log yields nothing. Throws
   * `UnavailableError`/`PermissionError` (from the iterator) on store failure. Stopping the
   * iteration early releases what the read holds. The core splits and parses the lines
   * (`readLogLines`, `jsonl.ts`), so torn and corrupt lines are treated as by `read`.
   */
  readStream?(): AsyncIterable<Uint8Array>;
  /**
   * Optional: the bytes of the session's state record beside the log (`state/state-record.ts`,
   * written by {@link writeState}), or undefined when there is none. Never a source of truth: the
   * core uses it only when it matches the log. Throws like `read`.
   */
  readState?(): Promise<Uint8Array | undefined>;
  /**
   * Optional (with {@link readState}): replace the session's state record by `bytes`, whole or not
   * at all for a reader (write a temp, rename it over). Need not be durable (no fsync): losing it
   * only makes the next open replay more of the log. Throws `PermissionError`/`UnavailableError`.
   */
  writeState?(bytes: Uint8Array): Promise<void>;
  /**
   * Which form snapshot records written to this log must take: `'fh'` (default when absent): fh's
   * compact `fh-snapshot` records (version 2, see ARCHITECTURE.md); `'claude-code'`: Claude Code's
   * own full `file-history-snapshot` records, for a log Claude Code reads (a transcript).
   */
  readonly recordForm?: 'fh' | 'claude-code';
  /**
   * Release what the log keeps open between appends (see {@link SessionLogOptions.holdOpen}).
   * A later `append` opens it again. Absent on logs that keep nothing open.
   */
  close?(): Promise<void>;
}

/** What {@link SessionLog.readEnds} returns. */
export interface LogEnds {
  head: LogRecord[];
  tail: LogRecord[];
  /** True when `head` holds every record of the log (and `tail` is empty). */
  whole: boolean;
}

/** What {@link SessionLog.readTail} returns. */
export interface LogTail {
  /** The records of the log's first bytes (empty when `whole`). */
  head: LogRecord[];
  /** The log's last bytes, as stored (JSONL); the whole log when `whole`. */
  tail: Uint8Array;
  /** True when `tail` holds the whole log. */
  whole: boolean;
  /** Optional: the log's size in bytes when it was read (lets a reader pick its next read). */
  size?: number;
}

/** Options of {@link BackupStore.sessionLog}. */
export interface SessionLogOptions {
  /**
   * Keep the log's file open between appends, so each append is a write and an fsync (instead of
   * open, write, fsync, close); the caller must call `close` when done. For one long-lived
   * writer that holds the session's lock (`FileHistory`). Stores without files ignore it.
   */
  holdOpen?: boolean;
}

/**
 * Where backups and session records live. Implemented by `@fh/store-fs`, `@fh/store-memfs` and
 * `@fh/store-s3`; every implementation passes `@fh/store-test-suite`.
 *
 * Names: `sessionId` and `backupFileName` are single path segments; a store throws
 * `InvalidArgumentError` for an empty name, `.`/`..`, or one containing `/`, `\\` or NUL.
 * Paths given to a store (`sourcePath`, `destinationPath`) are absolute workspace paths, read and
 * written through {@link BackupStore.workspaceFs}.
 */
export interface BackupStore {
  /** Short name for messages: `fs`, `memfs`, `s3`. */
  readonly kind: string;
  /** What this store can do. */
  readonly capabilities: StoreCapabilities;
  /**
   * The file system the store reads sources from and writes restores to; `FileHistory` uses it as
   * the workspace fs unless given another. The memfs store returns its volume; others the real fs.
   */
  readonly workspaceFs: WorkspaceFs;

  /**
   * Copy the workspace file at `sourcePath` into a new backup named `backupFileName`, keeping its
   * permission bits. Never overwrites: throws `ConflictError` if the backup exists. Throws
   * `NotFoundError` if the source does not exist, `InvalidArgumentError` if it is not a regular
   * file. On any failure no backup object is left behind and the source is untouched.
   * Returns the size (bytes), mode and, where the store records it, sha256 of what was stored.
   */
  putBackup(sessionId: string, backupFileName: string, sourcePath: string): Promise<BackupInfo>;

  /**
   * Copy the workspace file at `sourcePath` into the store under a name of its own that no record
   * can reference (a temp of this process), with its data fsynced, so the bytes of a backup are
   * ready before the session's lock is taken; {@link PreparedBackup.commit} then gives it its
   * backup name (one link, under the lock). Optional: a store without it backs files up with
   * `putBackup` only. Errors as `putBackup` (`NotFoundError` for a missing source,
   * `InvalidArgumentError` for one that is not a regular file); on failure nothing is left.
   * A prepared object never committed nor discarded (its process was killed) is removed by the
   * next `lockSession` of the session once its process no longer runs (issue 10).
   */
  prepareBackup?(sessionId: string, sourcePath: string): Promise<PreparedBackup>;

  /**
   * Optional: make one new backup of session `sessionId` per item, holding exactly the item's
   * bytes and permission bits, all at once (the command window stores the before-bytes of the
   * files a command changed this way: issue 12). Unlike `putBackup`, every backup stored is
   * already durable (bytes and name: for files, each fsynced and its folder once, in parallel) when
   * the promise resolves, so the record that names them may be appended at once.
   * Resolves with one result per item, in order: its `BackupInfo` (size, mode and sha256 of what
   * was stored), or the item's error: `ConflictError` when the name is taken (nothing is
   * overwritten), `InvalidArgumentError` for a bad name, the store's errors (`UnavailableError`,
   * `PermissionError`, ...). An item that fails leaves no backup behind; the others are kept.
   * Throws `InvalidArgumentError` for a bad `sessionId` and the store's errors that concern the
   * whole batch (nothing is left then). A store without it stores such bytes with `putBackup`
   * from a file.
   */
  putBackups?(sessionId: string, items: readonly BackupBytes[]): Promise<Array<BackupInfo | Error>>;

  /** Size, mode (and sha256) of a backup, or `null` if it does not exist. */
  statBackup(sessionId: string, backupFileName: string): Promise<BackupInfo | null>;

  /**
   * Write the backup's bytes to a new file at `destinationPath`, which must not exist (it is
   * created exclusively; `ConflictError` otherwise). Does not set the mode and does not rename:
   * the caller does both. Throws `NotFoundError` if the backup is missing and `CorruptError` if
   * its bytes do not match its recorded size or checksum; on failure the destination is removed.
   */
  restoreBackup(sessionId: string, backupFileName: string, destinationPath: string): Promise<void>;

  /** Stream the backup's bytes. Throws `NotFoundError` if it does not exist. */
  openBackup(sessionId: string, backupFileName: string): Promise<AsyncIterable<Uint8Array>>;

  /**
   * Optional: all bytes of a small backup, read synchronously (open, fstat, read, close: no
   * thread-pool round trip), for a caller that needs a few small backups' bytes at once (diff
   * stats). Refuses what {@link BackupStore.openBackup} refuses, and the same way:
   * `InvalidArgumentError` for a bad name (one that would lead outside the store),
   * `NotFoundError` for a missing backup, `CorruptError` for a backup (or a store folder on its
   * way) that is a symbolic link or not a regular file — never reading the file it leads to.
   * Returns `undefined`, having read nothing, when the backup is larger than `maxBytes` or the
   * store cannot read synchronously now; the caller then reads it with `openBackup`. It blocks
   * the event loop while it reads: callers keep `maxBytes` small (diff stats: 256 KiB). Stores
   * whose backups are remote (S3) do not offer it.
   */
  readBackupSync?(sessionId: string, backupFileName: string, maxBytes: number): Uint8Array | undefined;

  /** Delete one backup; a missing backup is not an error. */
  deleteBackup(sessionId: string, backupFileName: string): Promise<void>;

  /** Names of every backup of a session (any order); `[]` for an unknown session. */
  listBackups(sessionId: string): Promise<string[]>;

  /**
   * Make `backupFileName` of session `fromSessionId` available under the same name in session
   * `toSessionId` without ever opening the source for writing: a hard link where the store can
   * (falling back to a copy on EXDEV, EPERM, EMLINK or ENOTSUP), a server-side copy on S3.
   * Returns `'exists'` (and does nothing) if the target already exists. Throws `NotFoundError`
   * if the source backup is missing.
   */
  carryBackup(fromSessionId: string, toSessionId: string, backupFileName: string): Promise<'linked' | 'copied' | 'exists'>;

  /** Every session that has backups or records, with its size and last change. */
  listSessions(): Promise<SessionSummary[]>;

  /** Remove a session's backups, records and lock files. A missing session is not an error. */
  deleteSession(sessionId: string): Promise<void>;

  /** The session's record log. Creating the handle does no I/O. */
  sessionLog(sessionId: string, options?: SessionLogOptions): SessionLog;

  /**
   * Take the session's lock, held until `release`. Throws `LockedError` naming the session if
   * another process (or handle) holds it. Present when `capabilities.locking`.
   */
  lockSession?(sessionId: string): Promise<SessionLock>;

  /** Whether another holder has the session's lock. Present when `capabilities.locking`. */
  isSessionLocked?(sessionId: string): Promise<boolean>;

  /**
   * True when the absolute path lies inside the store's own storage on the workspace file system
   * (fh never tracks its own files). Stores with no local storage return false.
   */
  containsPath(absolutePath: string): boolean;
}

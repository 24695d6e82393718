/**
 * The error family of fh. Every error fh throws on purpose is an {@link FhError} with a stable
 * `code`; the raw error that caused it (an errno error, an S3 service error) is kept as `cause`.
 *
 * `FhError.isInstance(x)` works across two installed copies of `@fh/core` (a store built against
 * another copy still throws errors the core recognises), because it checks a `Symbol.for` marker
 * rather than the class identity.
 */
declare const MARKER: unique symbol;
/** Stable machine-readable codes of {@link FhError}. */
type FhErrorCode = 'FH_ERROR' | 'FH_NOT_FOUND' | 'FH_CONFLICT' | 'FH_UNSUPPORTED' | 'FH_CORRUPT' | 'FH_OUTSIDE_ROOT' | 'FH_INVALID_ARGUMENT' | 'FH_LOCKED' | 'FH_PERMISSION' | 'FH_UNAVAILABLE' | 'FH_BACKUP_MISSING';
/** Options shared by every {@link FhError} constructor. */
interface FhErrorOptions {
    /** The underlying error (errno error, SDK error) this one translates. */
    cause?: unknown;
}
/** Base class of every error fh throws on purpose. */
declare class FhError extends Error {
    /** Stable code; match on this, not on the message. */
    readonly code: FhErrorCode;
    private readonly [MARKER];
    constructor(message: string, options?: FhErrorOptions);
    /** True when `error` is an FhError from any installed copy of `@fh/core`. */
    static isInstance(error: unknown): error is FhError;
    /** True when `error` is an FhError with the given code (from any installed copy). */
    static hasCode(error: unknown, code: FhErrorCode): error is FhError;
}
/** A backup, session, snapshot, message or source file does not exist. */
declare class NotFoundError extends FhError {
    readonly code = "FH_NOT_FOUND";
}
/** An immutable object already exists (a backup written twice, an S3 412 precondition failure). */
declare class ConflictError extends FhError {
    readonly code = "FH_CONFLICT";
}
/** A store or file system lacks a feature the operation needs; the message names the feature. */
declare class UnsupportedError extends FhError {
    readonly code = "FH_UNSUPPORTED";
}
/** Stored data is damaged: a backup whose size or checksum does not match, an unreadable record. */
declare class CorruptError extends FhError {
    readonly code = "FH_CORRUPT";
}
/** A path resolves outside the project root (or inside fh's own storage); the message names it. */
declare class OutsideRootError extends FhError {
    readonly code = "FH_OUTSIDE_ROOT";
}
/** A caller passed a value fh cannot use; the message names the argument and the value. */
declare class InvalidArgumentError extends FhError {
    readonly code = "FH_INVALID_ARGUMENT";
}
/** A session is held open by another process (its lock is taken). */
declare class LockedError extends FhError {
    readonly code = "FH_LOCKED";
}
/** The store or file system refused access (EACCES/EPERM, S3 AccessDenied). */
declare class PermissionError extends FhError {
    readonly code = "FH_PERMISSION";
}
/** The store cannot be reached (network error, server down) after retries. */
declare class UnavailableError extends FhError {
    readonly code = "FH_UNAVAILABLE";
}
/**
 * A rewind was refused before anything changed because backups it needs are missing or do not
 * match their recorded size. `missing` lists each one.
 */
declare class BackupMissingError extends FhError {
    readonly code = "FH_BACKUP_MISSING";
    /** Each backup that failed validation: tracked path, backup file name and why. */
    readonly missing: ReadonlyArray<{
        path: string;
        backupFileName: string;
        reason: string;
    }>;
    constructor(message: string, missing: ReadonlyArray<{
        path: string;
        backupFileName: string;
        reason: string;
    }>, options?: FhErrorOptions);
}
/** The errno code of a Node.js system error (`ENOENT`, `EEXIST`, ...), or undefined. */
declare function errnoCode(error: unknown): string | undefined;

/**
 * Translation of file-system (errno) errors into the core's error family, for stores to use at
 * their boundary. Pure: no I/O.
 */

/**
 * Translate a file-system error into the core's error family at the store boundary, keeping the
 * raw error as `cause`. `context` says what was being done (`putBackup: source "/w/a.txt"`) and
 * opens the message. FhErrors pass through unchanged.
 *
 * ENOENT → NotFoundError; EEXIST → ConflictError; EACCES, EPERM, EROFS → PermissionError;
 * EISDIR, ENOTDIR, ELOOP, ENAMETOOLONG → InvalidArgumentError; ENOTSUP, ENOSYS → UnsupportedError;
 * EMFILE, ENFILE, EBUSY, EAGAIN, EIO → UnavailableError; anything else → FhError.
 */
declare function translateFsError(error: unknown, context: string): FhError;
/**
 * Translate an error met while reading a backup's source file: like {@link translateFsError},
 * except that ENOTDIR (a parent of the path is a regular file) also means the file does not
 * exist, so the core records it as absent rather than failing the backup.
 */
declare function translateSourceError(error: unknown, context: string): FhError;

/**
 * The file-history data model (seed 004 §2). These shapes serialise exactly like the `snapshot`
 * field of a Claude Code `file-history-snapshot` transcript record: Dates become ISO-8601
 * strings through `JSON.stringify`. The optional fields are fh's additions; Claude Code ignores
 * unknown fields, and fh accepts records without them.
 */
/** Most snapshots a state keeps; older ones are dropped first (seed 004 §7.2). */
declare const MAX_SNAPSHOTS = 100;
/** One tracked file's backup as referenced by a snapshot (seed 004 §2.1). */
interface FileHistoryBackup {
    /**
     * Name of the backup object in the store (`{sha256(absolutePath)[:16]}@v{version}`), or `null`
     * when the file did not exist at this version: a rewind then deletes it.
     */
    backupFileName: string | null;
    /** Version number of this file's backups; increases by one per new backup. */
    version: number;
    /**
     * When the backup's bytes were known to equal the file: the time the copy started, or the time
     * a later snapshot verified the file was still unchanged.
     */
    backupTime: Date;
    /** fh: size of the backup in bytes, as recorded when it was made. Absent in Claude Code data. */
    size?: number;
    /** fh: permission bits of the file when backed up (`mode & 0o7777`). Absent in Claude Code data. */
    mode?: number;
    /**
     * fh: lower-case hex sha256 of the backup's bytes, computed by the store as it made the backup
     * (fs: while copying; S3: while uploading). `fh verify` and rewinds check backups against it.
     * Absent in Claude Code data and in entries of stores that do not hash.
     */
    sha256?: string;
    /**
     * fh: set when this version could not be captured (the backup failed) or is known to be gone
     * (resume could not carry it). A rewind reports such a file as failed and leaves it alone; it is
     * never read as "the file did not exist".
     */
    error?: string;
    /**
     * fh: who changed the file during this entry's turn (after the snapshot was taken), each agent
     * once, in the order of its first change: the first element is who first changed it. Absent
     * when no tracked change was seen. Claude Code ignores the field (issue 14, see
     * `attribution/agents.ts`).
     */
    changedBy?: EditAttribution[];
}
/**
 * Who changed a tracked file in a turn (issue 14): the main agent, or a sub-agent with Claude
 * Code's `agent_id` / `agent_type` (seed 004 §8). Serialised as
 * `{"by":"main","at":"<ISO>"}` or `{"by":"subagent","agentId":"…","agentType":"…","at":"<ISO>"}`.
 */
type EditAttribution = {
    by: 'main'; /** When this agent first changed the file in the turn. */
    at: Date;
} | {
    by: 'subagent';
    /** The sub-agent's id (Claude Code's `agent_id`, e.g. `a96cf8a57447af436`). */
    agentId: string;
    /** The sub-agent's type (`agent_type`, e.g. `general-purpose`), when known. */
    agentType?: string;
    /** When this agent first changed the file in the turn. */
    at: Date;
};
/** The state of every tracked file at one main-conversation message (seed 004 §2.1). */
interface FileHistorySnapshot {
    /** The user message this snapshot belongs to. */
    messageId: string;
    /**
     * Tracking path (relative to the project root, `/` separators) → backup at this message. A
     * rebuilt snapshot may build this object on first read (`state/snapshot-chain.ts`); the newest
     * snapshot's object gains entries in place when `trackEdit` attaches backups (no other change
     * is ever made to a snapshot).
     */
    trackedFileBackups: Record<string, FileHistoryBackup>;
    /** When the snapshot was made. */
    timestamp: Date;
}
/** The whole file-history state of one session (seed 004 §2.1). */
interface FileHistoryState {
    /** Snapshots, oldest first; at most {@link MAX_SNAPSHOTS}. */
    snapshots: FileHistorySnapshot[];
    /** Every tracking path ever tracked in this session. */
    trackedFiles: Set<string>;
    /** Counts snapshots ever made; never goes down, even when old snapshots are dropped. */
    snapshotSequence: number;
    /**
     * fh's retention index, kept by `makeSnapshot` and the rebuild: for the sequence number `s` of a
     * held snapshot (the newest is `snapshotSequence`), the backups (tracking path → backup name)
     * snapshot `s` replaced, which retention deletes when snapshot `s − 1` is dropped. So retention
     * looks only at what the dropped snapshot referenced. Absent or without an entry for `s`:
     * retention compares the dropped snapshot with the kept ones instead. Non-enumerable (see
     * {@link setStateBookkeeping}), so a spread copy of a state leaves it out.
     */
    superseded?: ReadonlyMap<number, Readonly<Record<string, string>>>;
    /**
     * How many snapshots the session holds when `snapshots` holds only the newest ones (a history
     * opened with `rebuild: 'latest'`); absent: `snapshots.length`. Non-enumerable, like `superseded`.
     */
    heldSnapshots?: number;
}
/** A fresh, empty state. */
declare function emptyFileHistoryState(): FileHistoryState;
/**
 * Set a state's bookkeeping fields (`superseded`, `heldSnapshots`) as non-enumerable properties,
 * so they follow the state through fh's own updates without showing in comparisons, logs or
 * `JSON.stringify` of a state. An `undefined` value removes the field. Returns `state`.
 */
declare function setStateBookkeeping(state: FileHistoryState, fields: {
    superseded?: FileHistoryState['superseded'];
    heldSnapshots?: number | undefined;
}): FileHistoryState;

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
interface FsStats {
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
interface FsFileHandle {
    /** Read up to `length` bytes at `position` into `buffer` at `offset`. */
    read(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<{
        bytesRead: number;
    }>;
    stat(): Promise<FsStats>;
    close(): Promise<void>;
}
/**
 * The workspace file system: a `node:fs/promises`-compatible object. The real `fs/promises`
 * satisfies it, and so does a memfs volume's `promises`. Errors are Node errno errors
 * (`ENOENT`, `EEXIST`, `EISDIR`, ...).
 */
interface WorkspaceFs {
    stat(path: string): Promise<FsStats>;
    lstat(path: string): Promise<FsStats>;
    readFile(path: string): Promise<Uint8Array>;
    writeFile(path: string, data: Uint8Array | string, options?: {
        mode?: number;
        flag?: string;
    }): Promise<void>;
    /** Open a file; `flags` as `fs.open` takes them (a string such as `'r'`, or numeric `O_*` flags). */
    open(path: string, flags: string | number, mode?: number): Promise<FsFileHandle>;
    copyFile(source: string, destination: string, mode?: number): Promise<void>;
    rename(from: string, to: string): Promise<void>;
    unlink(path: string): Promise<void>;
    /** Remove an empty folder (never recursive; `ENOTEMPTY` when it holds anything). */
    rmdir(path: string): Promise<void>;
    mkdir(path: string, options: {
        recursive: true;
        mode?: number;
    }): Promise<string | undefined>;
    chmod(path: string, mode: number): Promise<void>;
    realpath(path: string): Promise<string>;
    readdir(path: string): Promise<string[]>;
    rm(path: string, options: {
        recursive?: boolean;
        force?: boolean;
    }): Promise<void>;
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
     * Optional open flags (`fs.constants` of `node:fs/promises`). When `O_DIRECTORY` and
     * `O_NOFOLLOW` are here, `open` takes numeric flags, handles carry their `fd` and
     * `/proc/self/fd` exists (Linux), rewinds and undos write through folder descriptors that no
     * symbolic link can redirect (`rewind/project-writer.ts`); otherwise they check each folder with
     * `lstat` right before each write.
     */
    readonly constants?: {
        readonly O_RDONLY?: number;
        readonly O_DIRECTORY?: number;
        readonly O_NOFOLLOW?: number;
    };
}
/** What a store knows about one backup object. */
interface BackupInfo {
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
interface PreparedBackup {
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
/** Features a store may or may not have; the core checks these before relying on them. */
interface StoreCapabilities {
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
interface SessionSummary {
    sessionId: string;
    /** Last write to the session's backups or records. */
    lastModified: Date;
    /** Bytes the session's backups and records take in the store. */
    bytes: number;
    /** Number of backup objects. */
    backups: number;
}
/** A held session lock; `release` is idempotent. */
interface SessionLock {
    release(): Promise<void>;
}
/** A JSON record in a session log (a transcript line). Unknown types and fields pass through. */
type LogRecord = {
    type: string;
} & Record<string, unknown>;
/** A log line that could not be read back. */
interface SkippedLine {
    /** 1-based line (or object) number in the log. */
    line: number;
    /** Why it was skipped: `torn last line`, `invalid JSON`, `not an object with a type`. */
    reason: string;
}
/** What {@link SessionLog.read} returns. */
interface LogReadResult {
    /** The valid records, in append order. */
    records: LogRecord[];
    /** Lines skipped as corrupt or torn; reading never throws for these. */
    skipped: SkippedLine[];
}
/**
 * An append-only, ordered log of one session's records (Claude Code transcript lines).
 */
interface SessionLog {
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
interface LogEnds {
    head: LogRecord[];
    tail: LogRecord[];
    /** True when `head` holds every record of the log (and `tail` is empty). */
    whole: boolean;
}
/** What {@link SessionLog.readTail} returns. */
interface LogTail {
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
interface SessionLogOptions {
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
interface BackupStore {
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

/**
 * `{"type":"file-history-snapshot", messageId, snapshot, isSnapshotUpdate}`: a turn's snapshot
 * (`isSnapshotUpdate: false`) or the same snapshot after a backup was attached to it mid-turn
 * (`true`). Dates are ISO-8601 strings once serialised.
 */
interface FileHistorySnapshotRecord {
    type: 'file-history-snapshot';
    messageId: string;
    snapshot: FileHistorySnapshot;
    isSnapshotUpdate: boolean;
}
/**
 * `{"type":"file-history-delta", messageId, snapshotMessageId, trackingPath, backup, timestamp}`:
 * one tracked file's backup added to the snapshot of `snapshotMessageId`.
 */
interface FileHistoryDeltaRecord {
    type: 'file-history-delta';
    messageId: string;
    snapshotMessageId: string;
    trackingPath: string;
    backup: FileHistoryBackup;
    timestamp: Date;
}
/** A parsed file-history record (see {@link parseFileHistoryRecord}). */
type FileHistoryRecord = FileHistorySnapshotRecord | FileHistoryDeltaRecord;
/** Build the record that persists `snapshot` (seed: recordFileHistorySnapshot). */
declare function snapshotRecord(snapshot: FileHistorySnapshot, isSnapshotUpdate: boolean): FileHistorySnapshotRecord;
/**
 * Most tracked files a snapshot may hold for a mid-turn attachment to be recorded as a whole
 * `file-history-snapshot` update (`isSnapshotUpdate: true`, as Claude Code writes it). Past this,
 * each attached backup is recorded as one `file-history-delta` record instead: an update carries
 * the whole snapshot, so a turn that tracks thousands of files one by one would otherwise write a
 * log that grows with the square of the file count.
 */
declare const SNAPSHOT_UPDATE_MAX_FILES = 64;
/** Build the `file-history-delta` record that adds `backup` of `trackingPath` to `snapshotMessageId`'s snapshot. */
declare function deltaRecord(snapshotMessageId: string, trackingPath: string, backup: FileHistoryBackup, timestamp?: Date): FileHistoryDeltaRecord;
/**
 * The records that persist backups attached mid-turn to `snapshot` (already holding them): one
 * update record while the snapshot holds at most {@link SNAPSHOT_UPDATE_MAX_FILES} files, else
 * one delta record per attached file. `restoreStateFromLog` rebuilds the same state from either.
 */
declare function attachmentRecords(snapshot: FileHistorySnapshot, attachedPaths: readonly string[]): FileHistoryRecord[];
/**
 * The names fh and Claude Code give backups: `{sha256(absolute path)[:16]}@v{version}`. A name
 * read from a record must match this before it reaches a store, so a record can never point a
 * store outside the session's folder.
 */
declare const BACKUP_FILE_NAME_PATTERN: RegExp;
/**
 * True when `name` is a backup name fh accepts from a record ({@link BACKUP_FILE_NAME_PATTERN}),
 * checked character by character (a rebuild checks every entry's name).
 */
declare function isBackupFileName(name: string): boolean;
/**
 * `Date.parse(text)`, read directly for the form `Date#toJSON` writes (`2026-01-02T03:04:05.678Z`,
 * the form of every time fh records) when its fields are plainly in range, else by `Date.parse`:
 * the same number either way.
 */
declare function parseRecordTime(text: string): number;
/**
 * The Dates of the times one rebuild reads, one object per distinct ISO string: entries backed up
 * together share their times (a batch of `trackEdit`s, each `changedBy[].at`), so a rebuild of
 * many entries makes a Date per distinct time instead of two per entry. Entries never change
 * their Dates (fh replaces an entry, never mutates it), so sharing one is safe.
 */
declare class RecordTimes {
    private readonly dates;
    /** The Date of `text` (as {@link parseRecordTime} reads it), or undefined when it is not one. */
    date(text: string): Date | undefined;
}
/** Receives one human-readable warning about a record that was skipped or repaired. */
type RecordWarningHandler = (message: string) => void;
type JsonObject = Record<string, unknown>;
/**
 * Parse one backup entry read from a record (a `file-history-snapshot`, `file-history-delta` or
 * `fh-snapshot` entry), as {@link parseFileHistoryRecord} parses each: a malformed entry is kept,
 * marked with `error` (see there); `label` and `path` name it in warnings. Never throws.
 */
declare function parseBackupEntry(value: unknown, label: string, path: string, warn: RecordWarningHandler, cache?: BackupParseCache): FileHistoryBackup;
/**
 * A backup entry parsed from a log line this fh owns (nobody else holds the object), taken over
 * in place when it is exactly what fh writes: the known fields only, each well formed (the checks
 * of {@link parseBackupEntry}), `backupTime` and each `changedBy[].at` an ISO string. Those strings
 * become Dates in the object itself, and the object is the entry: no copy, so a rebuild of a
 * snapshot of many files costs little more than `JSON.parse` of it. Undefined (and the object left
 * as it was) for anything else, which the caller then parses with {@link parseBackupEntry}.
 * `times`: the rebuild's shared Dates (see {@link RecordTimes}); without it each time is a new Date.
 */
declare function adoptBackupEntry(value: unknown, times?: RecordTimes): FileHistoryBackup | undefined;
/**
 * Parsed backup entries, for one log being read. A session log repeats each unchanged entry in
 * every later snapshot record; with a cache, each distinct entry is parsed (and held in memory)
 * once and the rebuilt snapshots share it. Entries are never changed after parsing. Create one
 * with `new Map()`; its layout is internal.
 */
type BackupParseCache = Map<string, CachedBackup[]>;
/** A parsed entry with the raw fields it came from. */
interface CachedBackup {
    raw: JsonObject;
    parsed: FileHistoryBackup;
}
/**
 * Parse a `file-history-snapshot` or `file-history-delta` record as read from a session log or a
 * Claude Code transcript (dates as ISO strings or Date objects).
 *
 * Returns `undefined` for any other record type (transcripts hold many) without a warning, and
 * for a malformed file-history record with one warning through `onWarning`. Unknown fields are
 * ignored. A malformed backup entry inside an otherwise good record is kept, marked with `error`
 * and `backupFileName: null`, so it is reported as unavailable rather than read as "the file did
 * not exist"; a backup name that is not `{16 hex}@v{n}` is treated as malformed. Never throws.
 * With a `cache` (one per log being read), identical entries share one parsed object.
 */
declare function parseFileHistoryRecord(record: unknown, onWarning?: RecordWarningHandler, cache?: BackupParseCache): FileHistoryRecord | undefined;
/** What {@link fileHistoryRecordHead} reads of a record. */
type FileHistoryRecordHead = {
    type: 'file-history-snapshot';
    messageId: string;
    isSnapshotUpdate: boolean;
} | {
    type: 'file-history-delta';
    snapshotMessageId: string;
};
/**
 * Which snapshot a `file-history-snapshot` or `file-history-delta` record is about, read without
 * parsing its entries. Undefined for exactly the records {@link parseFileHistoryRecord} skips
 * (other types, malformed heads), so a scan can pick records by their heads and parse only those.
 */
declare function fileHistoryRecordHead(record: unknown): FileHistoryRecordHead | undefined;
/** Options of {@link userMessageRecord}. */
interface UserMessageRecordOptions {
    /** The message id; a snapshot of this turn uses the same id as its `messageId`. */
    uuid: string;
    /** The previous message's uuid, or `null` for the first message. */
    parentUuid: string | null;
    sessionId: string;
    /** The prompt text. */
    text: string;
    /** When the prompt was sent. */
    timestamp: Date;
    /** Working folder of the agent (Claude Code records it on every message). */
    cwd?: string;
}
/**
 * A Claude Code transcript `user` record: `{parentUuid, isSidechain: false, userType: 'external',
 * cwd?, sessionId, type: 'user', message: {role: 'user', content: text}, uuid, timestamp}` with
 * the timestamp as an ISO-8601 string. The CLI records each prompt with it, so fh's own sessions
 * list prompts the same way Claude Code sessions do.
 */
declare function userMessageRecord(options: UserMessageRecordOptions): LogRecord;
/** Record type of {@link FhSessionRecord}. */
declare const FH_SESSION_RECORD_TYPE = "fh-session";
/**
 * `{"type":"fh-session", sessionId, projectRoot, createdAt, resumedFrom?, snapshotSequenceOffset?}`:
 * fh's own record (Claude Code ignores unknown types) saying which project a session belongs to.
 * `FileHistory.open` appends it when a session is first opened; a resume writes it first in the
 * new session, with the session it came from.
 */
interface FhSessionRecord {
    type: typeof FH_SESSION_RECORD_TYPE;
    sessionId: string;
    /** Absolute project root the session's tracking paths are relative to. */
    projectRoot: string;
    /** When the session was created. */
    createdAt: Date;
    /** The session this one was resumed from. */
    resumedFrom?: string;
    /**
     * Snapshots made before this log began and not carried into it (they were dropped by the cap);
     * added to the count of snapshot records to give `snapshotSequence`, so it never goes down
     * across a resume.
     */
    snapshotSequenceOffset?: number;
}
/** Build an {@link FhSessionRecord} as a log record (dates as ISO strings). */
declare function fhSessionRecord(options: Omit<FhSessionRecord, 'type'>): LogRecord;
/**
 * Parse an `fh-session` record; `undefined` for other types. A malformed one (no sessionId or
 * projectRoot) gives one warning and `undefined`. Never throws.
 */
declare function parseFhSessionRecord(record: unknown, onWarning?: RecordWarningHandler): FhSessionRecord | undefined;

/** Result shapes of the file-history operations. */
/** What rewinding one tracked file would do (part of {@link DiffStats}). */
interface FileDiffStat {
    /** Tracking path: relative to the project root, `/` separators. */
    path: string;
    /** `created`: exists now, did not at the snapshot (a rewind deletes it); `deleted`: the reverse. */
    status: 'modified' | 'created' | 'deleted';
    /** Lines a rewind would add back (jsdiff `diffLines`); 0 for binary or over-cap files. */
    insertions: number;
    /** Lines a rewind would remove; 0 for binary or over-cap files. */
    deletions: number;
    /** True when either side has a NUL byte in its first 8 KiB: changed, no line counts. */
    binary: boolean;
    /** True when either side is larger than the diff size cap: changed, no line counts. */
    tooLarge?: boolean;
    /**
     * True when the line diff gave up after its time budget (`DIFF_TIMEOUT_MS`): so many lines
     * changed (a reformatted or regenerated file) that counting them would take too long. Changed,
     * no line counts.
     */
    tooManyChanges?: boolean;
    /** True when only the permission bits differ. */
    modeOnly?: boolean;
}
/** The dry run of a rewind (seed: fileHistoryGetDiffStats). Nothing is written to compute it. */
interface DiffStats {
    /** Tracking paths a rewind would change, sorted. */
    filesChanged: string[];
    /** Sum of `insertions` over `files`. */
    insertions: number;
    /** Sum of `deletions` over `files`. */
    deletions: number;
    /** One entry per changed file, sorted by path. */
    files: FileDiffStat[];
    /** fh: tracked files a rewind would leave alone on purpose, with why (as in {@link RewindResult}). */
    skipped?: Array<{
        path: string;
        reason: string;
    }>;
    /**
     * fh: tracked files a rewind could not put back: their backup at the snapshot failed, or the
     * backup is missing from the store (then `rewind` refuses with `BackupMissingError`).
     */
    failed?: Array<{
        path: string;
        reason: string;
    }>;
    /**
     * fh: the entries of `failed` whose backup is missing from the store or damaged, as data: while
     * any is listed, `rewind` (of all files) refuses with `BackupMissingError` and changes nothing;
     * a rewind of the other files (`paths`) works.
     */
    missing?: Array<{
        path: string;
        backupFileName: string;
        reason: string;
    }>;
    /**
     * fh: the files of `filesChanged` that changed after the session's latest snapshot (edits the
     * agent or the user made since the last turn began, which no snapshot holds), sorted. Filled by
     * `rewindPreview` / `RewindSession`; a front end warns before they are overwritten.
     */
    changedSinceLatestSnapshot?: string[];
}
/** Outcome of a rewind, file by file. */
interface RewindResult {
    /** The snapshot rewound to. */
    messageId: string;
    /** Tracking paths whose content or mode was written back. */
    restored: string[];
    /** Tracking paths deleted because they did not exist at the snapshot. */
    deleted: string[];
    /** Tracking paths left alone on purpose, each with why (already equal paths are not listed). */
    skipped: Array<{
        path: string;
        reason: string;
    }>;
    /** Tracking paths that could not be rewound, each with the error. */
    failed: Array<{
        path: string;
        error: Error;
    }>;
}

/**
 * Progress of the long operations (issue 15): a rewind, undo or redo of thousands of files, a
 * dry run's diff stats, a shell command's capture. The core reports, a front end renders: `fh` draws a bar on a terminal,
 * a harness may show its own (`RewindSessionOptions.onProgress`).
 */
/**
 * What an operation is doing when it reports:
 * - `checking`: comparing the files as they are now with what the operation will write (a
 *   rewind's plan, an undo's "already as it was" check, a dry run's plan);
 * - `counting`: counting the changed lines of the files a dry run found changed;
 * - `saving`: saving the files about to be overwritten into the undo point (pre-images);
 * - `writing`: writing files into the project (restores and deletions);
 * - `backing-up`: a command window's copies into the store (issue 12): `beginCommand` backing up
 *   the files a shell command may change, `endCommand` the blobs of files clean in git that it
 *   changed (files and bytes).
 *
 * `endCommand` also reports `checking` while it compares each file with the window's begin.
 */
type ProgressPhase = 'checking' | 'counting' | 'saving' | 'writing' | 'backing-up';
/** One report: the phase and how far it is, in files and bytes. */
interface ProgressEvent {
    phase: ProgressPhase;
    /** Files of this phase done (each file once, whether it succeeded or failed). */
    files: number;
    /** Files this phase will handle. */
    totalFiles: number;
    /** Bytes of this phase done (`counting`: the bytes of both sides read); 0 when the phase does not count bytes (`checking`). */
    bytes: number;
    /** Bytes this phase will handle, when known before it starts; else 0. */
    totalBytes: number;
}
/**
 * Receives {@link ProgressEvent}s: first `(0, total)` when a phase starts, then after each file.
 * Called synchronously from the operation: it must be cheap and must not throw (an exception is
 * caught and ignored, so a broken bar never fails a rewind).
 */
type ProgressCallback = (event: ProgressEvent) => void;
/** Counts one phase's files and bytes and reports each step to a {@link ProgressCallback}. */
interface PhaseProgress {
    /** One more file done, of `bytes` bytes (default 0). */
    file(bytes?: number): void;
}
/**
 * Start reporting `phase` to `callback` (nothing when `callback` is undefined or `totalFiles` is
 * 0): reports `(0, totalFiles)` at once, then one event per {@link PhaseProgress.file}.
 */
declare function startPhase(callback: ProgressCallback | undefined, phase: ProgressPhase, totalFiles: number, totalBytes?: number): PhaseProgress;

/**
 * JSON Lines, the on-disk form of a session log (a Claude Code transcript): one JSON record per
 * line, each line ended by `\n`. Every store that keeps its log as a JSONL file or object parses
 * it here, so torn and corrupt lines are treated the same everywhere.
 */

/**
 * Serialise records as JSONL: each record on its own line, every line ended by `\n`.
 * Dates become ISO-8601 strings (`JSON.stringify`). Returns `''` for no records.
 */
declare function formatJsonl(records: readonly LogRecord[]): string;
/**
 * Parse a JSONL text into records, in order. Never throws for bad content: a line that is not
 * valid JSON, or not an object with a string `type`, is skipped and reported with its 1-based
 * line number and the reason (`invalid JSON`, `not an object with a type`); an unparsable last
 * line with no terminating `\n` (an append cut short) is reported as `torn last line`. Blank
 * lines are ignored, `\r\n` endings accepted. Skipping a line never hides the lines after it.
 */
declare function parseJsonl(text: string): LogReadResult;
/**
 * Parse one JSONL line (without its `\n`; a trailing `\r` is dropped) the way {@link parseJsonl}
 * parses each line: the record, `undefined` for a blank line, or the reason it is skipped
 * (`invalid JSON`, `not an object with a type`, or `torn last line` for an unparsable line that
 * `terminated` false says had no `\n` after it). Never throws.
 */
declare function parseJsonlLine(text: string, terminated?: boolean): {
    record: LogRecord;
} | {
    reason: string;
} | undefined;

/**
 * The conversation model (seed 000 §2-§3): transcript records in the shape Claude Code writes to
 * its session files, so fh's conversations and Claude Code's are one format.
 *
 * A conversation is a list of records. Records whose `type` is one of the chain types (`user`,
 * `assistant`, `system`, `attachment`, `progress`) and that carry a string `uuid` are messages:
 * they form a chain through `parentUuid`. Every other record (`file-history-snapshot`, `summary`,
 * `custom-title`, ...) passes through the conversation functions untouched.
 */
/**
 * The permission mode a user message was sent in (Claude Code's `permissionMode` field). Unknown
 * modes are kept as they are.
 */
type PermissionMode = 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan' | 'dontAsk' | (string & {});
/** A text content block. */
interface TextBlock {
    type: 'text';
    text: string;
    [field: string]: unknown;
}
/** An inline image (`source.type` `base64`: `data` is the base64 of the image bytes). */
interface Base64ImageSource {
    type: 'base64';
    /** MIME type, e.g. `image/png`. */
    media_type: string;
    /** Base64 of the image bytes. */
    data: string;
}
/** An image content block; only base64 sources are restored into the prompt. */
interface ImageBlock {
    type: 'image';
    source: Base64ImageSource | {
        type: string;
        [field: string]: unknown;
    };
    [field: string]: unknown;
}
/** A tool call made by the assistant. */
interface ToolUseBlock {
    type: 'tool_use';
    id: string;
    name: string;
    input: unknown;
    [field: string]: unknown;
}
/** The result of a tool call, carried by a `user` record. */
interface ToolResultBlock {
    type: 'tool_result';
    tool_use_id: string;
    content?: string | ContentBlock[];
    is_error?: boolean;
    [field: string]: unknown;
}
/** Any other block (`thinking`, `redacted_thinking`, `document`, ...): passed through untouched. */
interface OtherBlock {
    type: string;
    [field: string]: unknown;
}
/** One content block of a message. Use the `is…Block` guards to narrow. */
type ContentBlock = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | OtherBlock;
/** The API message a transcript record wraps. */
interface MessageBody {
    role: 'user' | 'assistant' | 'system' | (string & {});
    /** A plain string, or content blocks. */
    content: string | ContentBlock[];
    [field: string]: unknown;
}
/** Any record of a transcript or session log: a JSON object with a `type`. */
type ConversationRecord = {
    type: string;
} & Record<string, unknown>;
/**
 * One message of a conversation, as a Claude Code transcript line. Fields fh does not know are
 * kept as they are.
 */
interface TranscriptMessage {
    /** `user`, `assistant`, `system`, `attachment` or `progress` (see {@link CHAIN_MESSAGE_TYPES}). */
    type: string;
    /** The message id (a UUID); file-history snapshots are keyed by the uuid of user messages. */
    uuid: string;
    /** The previous message of the chain, `null` for the first one. */
    parentUuid: string | null;
    /** The session (conversation) the message was written in. */
    sessionId?: string;
    /** ISO-8601 time the message was created. */
    timestamp?: string;
    /** Injected context (caveats, reminders) rather than something a person typed. */
    isMeta?: boolean;
    /** Part of a sub-agent's side chain, not the main conversation. */
    isSidechain?: boolean;
    /** A summary that replaced earlier messages (compaction). */
    isCompactSummary?: boolean;
    /** Shown only in the transcript view; never a prompt. */
    isVisibleInTranscriptOnly?: boolean;
    /** The permission mode the message was sent in. */
    permissionMode?: PermissionMode;
    /** Paste ids of the message's images, in image-block order (Claude Code `imagePasteIds`). */
    imagePasteIds?: number[];
    /** The API message; absent on some `system`/`progress` records. */
    message?: MessageBody;
    [field: string]: unknown;
}
/** Record types that are messages of the conversation chain. */
declare const CHAIN_MESSAGE_TYPES: ReadonlySet<string>;
/**
 * Texts Claude Code inserts on its own (interrupts, cancels, rejections). A user message whose
 * first text is one of these is synthetic, never a prompt a person typed.
 */
declare const SYNTHETIC_MESSAGE_TEXTS: ReadonlySet<string>;
/**
 * Tags of user-role records that carry output or notifications rather than prompts (Claude Code's
 * selectableUserMessagesFilter, 2.0.x to 2.1.27x): local slash-command output, `!` shell output,
 * task notifications, ticks and messages from other agents. A message whose text holds one of
 * these anywhere is not a prompt. Slash-command invocations (`<command-name>`) are prompts.
 */
declare const NON_PROMPT_TAGS: readonly string[];
/**
 * How the message Claude Code writes after compacting a conversation begins (older versions do
 * not mark it `isCompactSummary`); it continues the conversation and is never offered as a prompt.
 */
declare const COMPACT_CONTINUATION_PREFIX = "This session is being continued from a previous conversation";
/** True for a record that is a message of the conversation chain (see {@link CHAIN_MESSAGE_TYPES}). */
declare function isTranscriptMessage(record: ConversationRecord): record is ConversationRecord & TranscriptMessage;
/** True for a `text` block. */
declare function isTextBlock(block: ContentBlock): block is TextBlock;
/** True for an `image` block with a base64 source. */
declare function isBase64ImageBlock(block: ContentBlock): block is ImageBlock & {
    source: Base64ImageSource;
};
/** True for a `tool_use` block. */
declare function isToolUseBlock(block: ContentBlock): block is ToolUseBlock;
/** True for a `tool_result` block. */
declare function isToolResultBlock(block: ContentBlock): block is ToolResultBlock;
/** The content blocks of a message; a string content reads as one text block, no content as none. */
declare function contentBlocks(message: TranscriptMessage): ContentBlock[];
/**
 * The text of a message: a string content as it is, text blocks joined with `\n` and trimmed;
 * `''` when there is none (seed: getContentText).
 */
declare function messageText(message: TranscriptMessage): string;
/** True for a `user` record that carries tool results (the reply to an assistant's tool call). */
declare function isToolResultMessage(message: TranscriptMessage): boolean;
/**
 * True for a user or assistant record whose first text is an interrupt, cancel or rejection
 * marker Claude Code inserted (see {@link SYNTHETIC_MESSAGE_TEXTS}).
 */
declare function isSyntheticMessage(message: TranscriptMessage): boolean;
/**
 * True when the message's text holds one of {@link NON_PROMPT_TAGS} anywhere (Claude Code looks at
 * a string content, or the last content block when it is text; fh looks at every text block), or
 * begins with {@link COMPACT_CONTINUATION_PREFIX}.
 */
declare function isCommandOrOutputMessage(message: TranscriptMessage): boolean;

/**
 * The prompt of a user message as a person would edit it again (seed 000 §3, restoreMessageSync
 * and textForResubmit): its text, the input mode and its pasted images.
 */

/** One image of a prompt, ready to be pasted back into a prompt box. */
interface PromptImage {
    /** Paste id: the message's `imagePasteIds[i]`, else `i + 1` (i = index among its image blocks). */
    id: number;
    /** MIME type, e.g. `image/png`. */
    mediaType: string;
    /** Base64 of the image bytes, exactly as in the message. */
    data: string;
}
/** What a front end puts back into its prompt box after rewinding to a message. */
interface PromptForResubmit {
    /** The text to edit: the shell command for `bash`, else the prompt without IDE context tags. */
    text: string;
    /** `bash` when the message was a `!` shell command (`<bash-input>`), else `prompt`. */
    mode: 'prompt' | 'bash';
    /** The message's base64 images in order; other image sources are not restorable and left out. */
    images: PromptImage[];
    /** The permission mode the message was sent in, if recorded. */
    permissionMode: PermissionMode | undefined;
}
/**
 * The text, mode, images and permission mode of `message` for editing and resending it
 * (seed: textForResubmit + the image part of restoreMessageSync). Pure; never throws.
 */
declare function promptForResubmit(message: TranscriptMessage): PromptForResubmit;

/**
 * Which messages a person can rewind to (seed 000 §2, selectableUserMessagesFilter), and whether
 * everything after a message is synthetic (seed 000 §7, messagesAfterAreOnlySynthetic).
 */

/**
 * Id of the virtual "current prompt" entry that {@link selectableUserMessages} appends: choosing
 * it means "stay where I am". Never the uuid of a real message.
 */
declare const CURRENT_PROMPT_ID = "<current-prompt>";
/** One entry of the rewind picker. */
interface SelectableMessage {
    /** The message uuid, or {@link CURRENT_PROMPT_ID} for the virtual last entry. */
    messageId: string;
    /** Index of the message in the records given; the records' length for the current prompt. */
    index: number;
    /** The message; `null` for the current prompt. */
    message: TranscriptMessage | null;
    /** True only for the virtual last entry. */
    isCurrentPrompt: boolean;
    /** The prompt text as a person would edit it again (see `promptForResubmit`); `''` for the current prompt. */
    text: string;
    /** Number of base64 images the prompt carried. */
    imageCount: number;
    /** When the message was sent (its `timestamp`), if recorded. */
    timestamp: string | undefined;
}
/**
 * True when `record` is a prompt a person can rewind to — Claude Code's
 * selectableUserMessagesFilter (2.0.x to 2.1.27x), the one filter `fh list`, the menu, `rewind`,
 * `fork` and `sessions` use: a `user` message that is not a tool-result carrier, not synthetic
 * (an interrupt/cancel marker), not `isMeta`, not `isCompactSummary`/`isVisibleInTranscriptOnly`,
 * not on a sub-agent side chain, and whose text holds none of the output/notification tags (see
 * `isCommandOrOutputMessage`; the compact continuation message is not a prompt either).
 * Slash-command prompts (`<command-name>`) are prompts.
 */
declare function isSelectableUserMessage(record: ConversationRecord): record is ConversationRecord & TranscriptMessage;
/**
 * The message ids of the prompts a person can rewind to on the current branch of `records` (a
 * whole transcript or session log: abandoned branches and side chains are left out, see
 * `currentBranch`), oldest first. A snapshot whose message is not among them is not offered.
 */
declare function selectablePromptIds(records: readonly ConversationRecord[]): string[];
/**
 * The rewind picker's entries (seed 000 §2): every prompt a person typed, oldest first, then one
 * virtual entry for the current prompt (id {@link CURRENT_PROMPT_ID}). Records of other types pass
 * through unread. Pure; never throws.
 */
declare function selectableUserMessages(records: readonly ConversationRecord[]): SelectableMessage[];
/**
 * True when nothing after `records[index]` is something a person would miss (seed 000 §7,
 * messagesAfterAreOnlySynthetic): only interrupt/cancel markers, tool results, meta user
 * records, `system`/`progress`/`attachment` records, assistant records without text or tool
 * calls, and records of other types. A typed prompt or an assistant reply with text or a tool
 * call makes it false. Pure.
 */
declare function messagesAfterAreOnlySynthetic(records: readonly ConversationRecord[], index: number): boolean;
/** Options of {@link offeredCheckpointIds}. */
interface OfferedCheckpointOptions {
    /**
     * Also offer a snapshot whose message is not in `records` at all (an fh checkpoint taken without
     * a recorded prompt). Default false: Claude Code's rule, only prompts on the current chain.
     */
    unrecordedMessages?: boolean;
}
/**
 * The message ids among `snapshotMessageIds` a person is offered as checkpoints (`fh list`, the
 * menu, `fh sessions`' count): those whose message is a selectable prompt on the current branch of
 * `records` (see {@link selectablePromptIds}); with `unrecordedMessages`, also those whose message
 * is not recorded at all. A snapshot of a tool result, a compact continuation, an abandoned
 * branch or a side chain is never offered. In the order given, each id once. Pure.
 */
declare function offeredCheckpointIds(records: readonly ConversationRecord[], snapshotMessageIds: Iterable<string>, options?: OfferedCheckpointOptions): string[];

/** Why messages left a conversation. */
type MessagesRemovedReason = 'rewind' | 'summarize' | 'summarize_up_to';
/**
 * Emitted when messages leave a conversation, so a host can drop caches that refer to them (the
 * seed resets its micro-compact state, context-collapse queue and prompt suggestion).
 */
interface MessagesRemovedEvent {
    reason: MessagesRemovedReason;
    /** The message the operation was anchored on. */
    messageId: string;
    /** Uuids of the chain messages no longer in the conversation, in their old order. */
    removedMessageIds: string[];
}
/** Options of {@link rewindConversation}. */
interface RewindConversationOptions {
    /** Called once, synchronously, before `rewindConversation` returns (also when nothing was removed). */
    onMessagesRemoved?: (event: MessagesRemovedEvent) => void;
    /** Makes the new conversation id; default `crypto.randomUUID`. Inject for deterministic tests. */
    generateId?: () => string;
}
/** The outcome of {@link rewindConversation}. */
interface ConversationRewind<R extends ConversationRecord = ConversationRecord> {
    /** The records before the target message, unchanged (same objects, same order). */
    messages: R[];
    /** A fresh id for the rewound conversation (seed: setConversationId(randomUUID())). */
    conversationId: string;
    /** The target message itself (it is not in `messages`). */
    target: TranscriptMessage;
    /** The permission mode of the target message, to switch back to; undefined if not recorded. */
    permissionMode: PermissionMode | undefined;
    /** The target's text, mode and images for the prompt box (edit and resend). */
    prompt: PromptForResubmit;
    /** Uuids of the chain messages removed (the target and everything after it), in order. */
    removedMessageIds: string[];
}
/**
 * Index of the user message `messageId` in `records`, validated as a prompt a person typed.
 * Throws `NotFoundError` if no chain message has that uuid (or it is {@link CURRENT_PROMPT_ID}),
 * `InvalidArgumentError` if the message is not a selectable user message.
 */
declare function findSelectableMessageIndex(records: readonly ConversationRecord[], messageId: string): number;
/**
 * Rewind `records` to just before the user message `messageId` (seed 000 §3). Returns the kept
 * records, a new conversation id, the message's permission mode and its prompt (text, mode,
 * images) so a front end can put it back for editing, and the removed message ids — also passed
 * to `options.onMessagesRemoved`. Records of any type after the target are dropped with it.
 *
 * Throws `NotFoundError` for an unknown id and `InvalidArgumentError` when the id names a record
 * that is not a typed prompt (a tool result, a meta or side-chain message, ...). Pure.
 */
declare function rewindConversation<R extends ConversationRecord>(records: readonly R[], messageId: string, options?: RewindConversationOptions): ConversationRewind<R>;
/** Uuids of the chain messages among `records`, in order. */
declare function messageIds(records: readonly ConversationRecord[]): string[];
/**
 * The conversation half of a lossless rewind (seed 000 §7): true when every record after the
 * user message `messageId` is synthetic (see `messagesAfterAreOnlySynthetic`), so rewinding to it
 * loses nothing a person wrote or read beyond the prompt itself, which goes back into the prompt
 * box. Throws like {@link findSelectableMessageIndex}. Pure.
 */
declare function isLosslessConversationRewind(records: readonly ConversationRecord[], messageId: string): boolean;

/** `summarize`: the chosen message and everything after it; `summarize_up_to`: everything before it. */
type CompactDirection = 'summarize' | 'summarize_up_to';
/** What the summarize callback is told besides the messages. */
interface SummarizeContext {
    direction: CompactDirection;
    /** The chosen message. */
    messageId: string;
    /** Extra instructions a person gave for the summary, passed through as given. */
    instructions: string | undefined;
}
/**
 * The host's summariser: gets the chain messages to replace (in order) and returns the summary
 * text, used as the summary message's content as is. A rejection is passed on to the caller.
 */
type SummarizeCallback = (messages: TranscriptMessage[], context: SummarizeContext) => Promise<string>;
/** Options of {@link partialCompact}. */
interface PartialCompactOptions {
    direction: CompactDirection;
    summarize: SummarizeCallback;
    /** Passed to the callback as `context.instructions`. */
    instructions?: string;
    /** Called once after the summary is made, with the replaced message ids. */
    onMessagesRemoved?: (event: MessagesRemovedEvent) => void;
    /** Makes the summary's uuid; default `crypto.randomUUID`. */
    generateId?: () => string;
    /** The summary's timestamp; default `new Date()`. */
    now?: () => Date;
}
/** The outcome of {@link partialCompact}. */
interface PartialCompactResult<R extends ConversationRecord = ConversationRecord> {
    /**
     * The new conversation. Kept records are the same objects, except a kept message whose parent
     * was replaced: it is a copy whose `parentUuid` is the summary's uuid (its own uuid is kept, so
     * file-history snapshots keyed by it still apply).
     */
    messages: Array<R | TranscriptMessage>;
    /** The new summary message (`type: 'user'`, `isCompactSummary: true`). */
    summaryMessage: TranscriptMessage;
    /** Uuids of the chain messages the summary replaced, in order. */
    removedMessageIds: string[];
}
/**
 * Replace part of `records` with one summary message, anchored on the user message `messageId`:
 * `summarize` replaces that message and every chain message after it; `summarize_up_to` replaces
 * every chain message before it. Records of other types stay where they are.
 *
 * The summary gets a fresh uuid, `parentUuid` = the parent of the first replaced message, and the
 * chosen message's envelope (sessionId, cwd, version, gitBranch, userType). Kept messages whose
 * parent was replaced now point to the summary.
 *
 * Throws `NotFoundError`/`InvalidArgumentError` for a bad `messageId` (see
 * `findSelectableMessageIndex`), `InvalidArgumentError` when there is nothing to summarise or the
 * callback returns something other than a non-empty string; a callback rejection propagates.
 * Pure apart from calling the callback; the input is never changed.
 */
declare function partialCompact<R extends ConversationRecord>(records: readonly R[], messageId: string, options: PartialCompactOptions): Promise<PartialCompactResult<R>>;

/**
 * The current branch of a transcript. A Claude Code transcript file is append-only: after a
 * rewind the new messages point (through `parentUuid`) at an earlier message and the abandoned
 * branch stays in the file, and side-chain (sub-agent) messages may be interleaved. The
 * conversation is the chain that ends at the last main-chain message.
 */

/**
 * The messages of the current branch, oldest first: start at the last message in file order that
 * is not a side-chain message and follow `parentUuid` (or, where it is `null`, a compact
 * boundary's `logicalParentUuid`) back to the root. A parent that is not in `records` ends the
 * walk; a cycle is cut at the first repeated uuid. Records of other types are not included. Pure.
 */
declare function currentBranch<R extends ConversationRecord>(records: readonly R[]): Array<R & TranscriptMessage>;
/**
 * `records` reduced to the current branch: the messages of {@link currentBranch} plus every record
 * that is not a message, in file order (abandoned-branch and side-chain messages are left out).
 * On a linear conversation without side chains this is `records` itself, element for element.
 */
declare function currentBranchRecords<R extends ConversationRecord>(records: readonly R[]): R[];

/** What {@link planFork} decided. */
interface ForkPlan {
    /** The new session id. */
    sessionId: string;
    /**
     * The kept messages, in file order, as copies whose `sessionId` is the new session id;
     * everything else (uuid, parentUuid, content) is unchanged, so the chain is intact: the current
     * branch up to the fork point plus the parallel parts of its assistant replies and their tool
     * results (see {@link planFork}).
     */
    messages: TranscriptMessage[];
    /** Uuids of `messages`, in order. */
    keptMessageIds: string[];
    /**
     * What the fork's transcript gets, in file order: `messages` and the carried session records
     * (titles, permission mode, worktree state; see {@link FORK_CARRIED_TYPES}) with the new `sessionId`.
     */
    records: ConversationRecord[];
    /**
     * The source's file-history records of kept messages (see {@link snapshotOwner}): the file
     * history of the fork, in source order, unchanged.
     */
    fileHistoryRecords: ConversationRecord[];
    /** The rewind the fork is made from; `null` for a fork at the current prompt (a full copy). */
    rewind: ConversationRewind | null;
}
/** Options of {@link planFork}. */
interface PlanForkOptions {
    /** The fork's session id; default a random UUID. */
    sessionId?: string;
}
/**
 * Session records a fork carries (with the new `sessionId`): titles apply to the whole session and
 * are all carried; `permission-mode`, `mode` and `worktree-state` describe the session as it was,
 * so only those written before the fork point are carried.
 */
declare const FORK_CARRIED_TYPES: ReadonlySet<string>;
/**
 * The messages of the current branch (see `currentBranch`) plus the parallel parts of its replies,
 * their tool results and progress records — the records Claude Code's resume recovers after its
 * walk of one parent per message — in file order (an append-only transcript writes every message
 * after its parent, so this is also the chain's order). Side chains and abandoned branches are
 * left out. Pure.
 */
declare function branchWithParallelParts(records: readonly ConversationRecord[]): Array<ConversationRecord & TranscriptMessage>;
/**
 * Plan a fork of `records` (a whole transcript or session log) rewound to before the user message
 * `messageId` of its current branch (see `currentBranch`); {@link CURRENT_PROMPT_ID} forks the
 * whole current branch. The fork keeps every message on the branch before that point, the parallel
 * parts of its replies and their tool results and progress records (siblings a one-parent walk
 * misses), in file order, so no `tool_use` loses its `tool_result`; a `tool_use` that has no result
 * on the kept part (a tool call interrupted at the fork point) is left out, its record dropped and
 * its children re-parented (see {@link unansweredToolUses}), so the resumed fork is accepted by the
 * API; abandoned branches and side chains are left out. Session records of {@link FORK_CARRIED_TYPES} are carried; other records
 * (summaries, fh's own session and undo records) describe the source session and are left out.
 *
 * Throws like `rewindConversation` for an unknown id or one that is not a prompt. Pure.
 */
declare function planFork(records: readonly ConversationRecord[], messageId: string, options?: PlanForkOptions): ForkPlan;
/**
 * The message whose snapshot a file-history record belongs to: `snapshot.messageId` of a
 * `file-history-snapshot` record (older Claude Code writes the assistant message's id as the
 * record's top-level `messageId` of a mid-turn update, so that one is only a fallback), the
 * `snapshotMessageId` of a `file-history-delta`, the `messageId` of fh's `fh-snapshot`; undefined
 * for other records.
 */
declare function snapshotOwner(record: ConversationRecord): string | undefined;

/**
 * The assistant's reply to one prompt, for showing a turn (`fh show`): the text of the assistant
 * messages between a typed prompt and the next typed prompt, in order.
 */

/**
 * The reply text to the typed prompt `messageId` in `records` (a current branch, oldest first):
 * the non-empty texts of the `assistant` messages after it, up to the next typed prompt, joined
 * with blank lines. Undefined when `messageId` is not among `records` or no assistant text
 * follows it (a session whose transcript holds no replies, such as one recorded by `fh snapshot`).
 * Pure.
 */
declare function turnReplyText(records: readonly ConversationRecord[], messageId: string): string | undefined;

/**
 * Rebuild a {@link FileHistoryState} from session records (seed 000 §8:
 * fileHistoryRestoreStateFromLog), for fh's own session logs and Claude Code transcripts alike.
 */

/** Options of {@link restoreStateFromLog}. */
interface RestoreStateOptions {
    /** Absolute project root: absolute keys inside it become relative, keys outside it are dropped. */
    projectRoot: string;
    /** Receives one message per skipped record, dropped key or repaired entry. */
    onWarning?: RecordWarningHandler;
    /** Most snapshots kept (the oldest are dropped first). Default {@link MAX_SNAPSHOTS}. */
    maxSnapshots?: number;
    /**
     * Called with every record in order (all types, before it is read); relative keys of that
     * record resolve against the absolute folder it returns instead of `projectRoot` (Claude Code
     * keys by the base folder in effect when it wrote the record: a worktree after `EnterWorktree`,
     * see `baseFolderTracker`). Default: every key resolves against `projectRoot`.
     */
    baseFolder?: (record: unknown) => string;
}
/**
 * Rebuild the file-history state of a session from its records, in append order (seed 000 §8).
 *
 * - Only `file-history-snapshot`, `file-history-delta` and `fh-session` records are read; every
 *   other record (user/assistant messages, summaries, ...) is ignored. Malformed ones are skipped
 *   with a warning (see {@link parseFileHistoryRecord}).
 * - Snapshots are rebuilt the way `FileHistory` made them: a record with `isSnapshotUpdate: false`
 *   appends a snapshot; an update replaces the latest snapshot with its messageId (a mid-turn
 *   backup attached to the turn), or appends one if there is none (records carried by a resume).
 *   So the last record per messageId wins, and a rewind (which looks for the last snapshot of a
 *   messageId) sees what it saw before the restart. For Claude Code transcripts, which write one
 *   non-update record per turn, this is the same as Claude Code's own rebuild.
 * - A delta adds one file's backup to the latest snapshot of its `snapshotMessageId`; a delta for
 *   a snapshot not seen yet is skipped with a warning.
 * - Relative keys resolve against `baseFolder(record)` when that option is given (else against
 *   `projectRoot`); the result is then treated as an absolute key.
 * - Absolute keys inside `projectRoot` become relative tracking keys (`/` separators); keys outside
 *   it (or climbing out with `..`) are dropped with a warning. If two keys of one snapshot map to
 *   the same tracking key, the higher version wins.
 * - At most `maxSnapshots` (100) are kept, the newest (the same ones `FileHistory` kept, so the
 *   rebuilt state never refers to a backup that retention deleted). `trackedFiles` holds every tracking key of
 *   every snapshot read, including dropped ones. `snapshotSequence` is the number of non-update
 *   snapshot records plus the `snapshotSequenceOffset` of the log's `fh-session` record, and at
 *   least the number of snapshots rebuilt.
 *
 * Entries repeated unchanged across records are parsed once and shared by the rebuilt snapshots
 * (see `BackupParseCache`), so rebuilding a long session costs about one parse per distinct entry.
 *
 * Throws `InvalidArgumentError` when `projectRoot` is not absolute. Never throws for bad records.
 */
declare function restoreStateFromLog(records: Iterable<unknown>, options: RestoreStateOptions): FileHistoryState;
/**
 * The newest snapshot of a log: what `restoreStateFromLog(records, options).snapshots.at(-1)`
 * returns, for a caller that needs only the current turn (`fh hook` asking whether a file is
 * tracked yet). Record heads are scanned without parsing entries; only the records from the last
 * one that adds a whole snapshot on are parsed. Undefined when the log has no snapshot. Throws
 * `InvalidArgumentError` when `projectRoot` is not absolute.
 */
declare function latestSnapshotFromLog(records: readonly unknown[], options: RestoreStateOptions): FileHistorySnapshot | undefined;
/**
 * The newest snapshot from the newest records of a log alone (say its last MiB, see
 * `SessionLog.readEnds`), or undefined when they do not settle it (see {@link tailAnchor}), so the
 * caller reads more of the log. When they settle it, it is exactly what `latestSnapshotFromLog`
 * would give for the whole log. Throws `InvalidArgumentError` when they settle it and
 * `projectRoot` is not absolute.
 */
declare function latestSnapshotFromTail(tail: readonly unknown[], options: RestoreStateOptions): FileHistorySnapshot | undefined;
/** What {@link latestStateFromTail} returns. */
interface TailState {
    /** The snapshots the tail holds from its anchor on (the newest last). */
    state: FileHistoryState;
    /**
     * The anchor is an `fh-snapshot` full record: `snapshotSequence` and the retention index
     * (`state.superseded`) are those of the whole log, so `makeSnapshot` can continue from this
     * state (`state.heldSnapshots` is set). False for older records, whose count only the whole log gives.
     */
    exact: boolean;
    /** See `RebuildResult.diffBase`. */
    diffBase: number | undefined;
}
/**
 * The state from the newest records of a log alone, from the anchor {@link tailAnchor} finds
 * (undefined when it finds none). With an `fh-snapshot` full anchor it is exact enough to make
 * the next snapshot from (see {@link TailState.exact}) without reading the rest of the log.
 */
declare function latestStateFromTail(tail: readonly unknown[], options: RestoreStateOptions): TailState | undefined;
/**
 * Where the newest snapshot starts in the newest records of a log: the index of the last record
 * that adds a whole snapshot (an `fh-snapshot` full record or a non-update
 * `file-history-snapshot`), when every later `file-history-snapshot` update is for a snapshot
 * added from there on; undefined when the records do not settle it (no such record, or a later
 * update of another snapshot, which only the earlier records could place). Reads record heads only.
 */
declare function tailAnchor(tail: readonly unknown[]): number | undefined;

/** Options of {@link copyFileHistoryForResume}. */
interface CopyFileHistoryForResumeOptions {
    /** The store holding both sessions. */
    store: BackupStore;
    /** The session resumed from; its backups and records are read, never written. */
    fromSessionId: string;
    /** The new session; it must not have file-history records yet. */
    toSessionId: string;
    /** Absolute project root (recorded in the new session's `fh-session` record). */
    projectRoot: string;
    /**
     * The state to carry. Default: rebuilt from the old session's records with
     * {@link restoreStateFromLog}.
     */
    state?: FileHistoryState;
    /**
     * Which of the old session's other records (user/assistant messages, ...) to copy first, in
     * order: `'all'` (default) or `'none'`. File-history and `fh-session` records are never copied
     * as they are; the carried state is written instead.
     */
    carryRecords?: 'all' | 'none';
    /** Most backups carried at once. Default 16. */
    concurrency?: number;
    /** Throw {@link ResumeBackupsMissingError} when backups are missing. Default true. */
    throwOnMissing?: boolean;
    /** The time written as the new session's `createdAt`. Default `new Date()`. */
    now?: Date;
    /** Receives warnings about skipped records while rebuilding. */
    onWarning?: RecordWarningHandler;
    /**
     * Progress in backups carried: called with `(0, total)` once the referenced backups are known,
     * then `(done, total)` each time one backup's carry ends (linked, copied, already there, missing
     * or failed), ending with `(total, total)`. For a progress bar; it must not throw.
     */
    onProgress?: (done: number, total: number) => void;
}
/** One backup the old session's records reference but its store no longer has. */
interface MissingBackup {
    backupFileName: string;
    /** Every (messageId, tracking path) entry that referenced it; each is now marked unavailable. */
    references: Array<{
        messageId: string;
        path: string;
    }>;
}
/** What {@link copyFileHistoryForResume} did. */
interface ResumeResult {
    /** The carried state, as written to the new session: entries of missing backups carry `error`. */
    state: FileHistoryState;
    /** Backups hard-linked into the new session. */
    linked: string[];
    /** Backups copied (no hard links on this store, or a link failed with EXDEV/EPERM/EMLINK/ENOTSUP). */
    copied: string[];
    /** Backups the new session already had. */
    existed: string[];
    /** Backups missing from the old session, each with the entries that depended on it. */
    missing: MissingBackup[];
    /** Records written to the new session's log. */
    recordsWritten: number;
}
/**
 * Thrown by {@link copyFileHistoryForResume} after everything else was carried and recorded when
 * backups are missing from the old session. `missing` lists every one; `result` is what was done.
 */
declare class ResumeBackupsMissingError extends NotFoundError {
    readonly missing: readonly MissingBackup[];
    readonly result: ResumeResult;
    constructor(message: string, result: ResumeResult);
}
/**
 * Make every backup referenced by a session's file history available to a new session, and
 * write the history into the new session's log, so a resumed conversation can rewind to turns of
 * the old one (seed 000 §8).
 *
 * Each referenced backup is carried with `store.carryBackup`: a hard link where possible
 * (falling back to a copy on EXDEV, EPERM, EMLINK or ENOTSUP), a server-side copy on S3; a
 * backup the new session already has is left alone. Carried backups are never opened for
 * writing: the new session's later backups continue the version numbers of the carried state, so
 * they get new names.
 *
 * A backup missing from the old session does not stop the others: every one is collected, each
 * snapshot entry that depends on it is marked with `error` ("backup … missing from session …") —
 * never dropped, never read as "the file did not exist" — and the marked state is recorded. Then,
 * unless `throwOnMissing` is false, a {@link ResumeBackupsMissingError} listing every missing
 * backup is thrown.
 *
 * The new session's log gets, in order: the old session's other records (`carryRecords`), an
 * `fh-session` record (`resumedFrom`, and a sequence offset so `snapshotSequence` never goes
 * down), and one `file-history-snapshot` record per carried snapshot.
 *
 * Throws `InvalidArgumentError` if the two ids are equal, `NotFoundError` if the old session has
 * no records at all (a mistyped id; unless `state` is given), `ConflictError` if the new session
 * already has file-history records, and the store's error if a carry fails for another reason
 * than a missing source (nothing is recorded then; running the resume again continues it).
 */
declare function copyFileHistoryForResume(options: CopyFileHistoryForResumeOptions): Promise<ResumeResult>;

/**
 * Which backups to delete when snapshots are dropped by the 100-snapshot cap (seed 004 §7.2).
 */

/** Input of {@link backupsToDelete}. */
interface RetentionInput {
    /** Snapshots that remain in the state. */
    kept: readonly FileHistorySnapshot[];
    /** Snapshots just dropped. */
    dropped: readonly FileHistorySnapshot[];
}
/**
 * The backup names referenced by `dropped` that may now be deleted: those referenced by no
 * snapshot in `kept`, except each file's first backup (version 1, the content before the agent
 * first touched it — the baseline an editor diff view uses). A file that did not exist when it
 * was first tracked has a `null` version 1, so it has no baseline object to keep. Entries marked
 * with `error` never name a deletable object. Sorted, without duplicates. Pure: no I/O.
 */
declare function backupsToDelete(input: RetentionInput): string[];

/** Options of {@link cleanup}. */
interface CleanupOptions {
    store: BackupStore;
    /** Sessions whose last change is more than this many days old are removed. Default 30. */
    olderThanDays?: number;
    /** The current time. Default `new Date()`. */
    now?: Date;
    /** List what would be removed without removing anything. Default false. */
    dryRun?: boolean;
    /**
     * Progress in sessions examined: called with `(0, total)` once the sessions are listed, then
     * `(done, total)` after each session is kept or removed, ending with `(total, total)`. For a
     * progress bar; it must not throw.
     */
    onProgress?: (done: number, total: number) => void;
}
/** Why {@link cleanup} kept a session. */
type CleanupKeptReason = 'recent' | 'locked';
/** What {@link cleanup} did. */
interface CleanupResult {
    /** Sessions removed (or, with `dryRun`, that would be), oldest first. */
    removed: SessionSummary[];
    /** Sessions left in place, each with why. */
    kept: Array<{
        session: SessionSummary;
        reason: CleanupKeptReason;
    }>;
}
/**
 * Remove every session of `store` not modified for more than `olderThanDays` days: its backups,
 * records and lock files. A session that is open (its lock is held by a `FileHistory`, in this
 * process or another) is never removed: where the store can lock, cleanup takes the session's
 * lock before removing it, so a session being opened at the same moment is either kept or removed
 * before it is opened, never half-removed under an open history.
 *
 * Throws `InvalidArgumentError` for a negative or non-finite `olderThanDays`, and the store's
 * error if listing or deleting fails (sessions already removed stay removed).
 */
declare function cleanup(options: CleanupOptions): Promise<CleanupResult>;

/**
 * Normalise a project root: it must be an absolute path. Returns it resolved (no trailing
 * separator, no `.`/`..` segments). Throws `InvalidArgumentError` naming the value otherwise.
 */
declare function normalizeProjectRoot(projectRoot: string): string;
/**
 * The tracking path of `path` (absolute, or relative to `projectRoot`): relative to the root,
 * `/` separators. Throws `OutsideRootError` naming the path when it is the root itself or lies
 * outside it, and `InvalidArgumentError` for an empty path or one containing a NUL byte.
 */
declare function toTrackingPath(projectRoot: string, path: string): string;
/**
 * The absolute path of a tracking path. Accepts the absolute keys older Claude Code sessions
 * used. Throws `OutsideRootError` naming the key when it resolves outside `projectRoot` (a key
 * like `../x` or an absolute path elsewhere), so nothing is ever read or written there.
 */
declare function toAbsolutePath(projectRoot: string, trackingPath: string): string;
/**
 * The store name of a file's backup (seed 000 §6): the first 16 hex digits of the sha256 of the
 * absolute path, then `@v` and the version, e.g. `3f0a9c1b2d4e5f60@v2`.
 */
declare function backupFileName(absolutePath: string, version: number): string;

/** Per-file I/O tasks running at once, by default (issue 2 rule 7). */
declare const DEFAULT_CONCURRENCY = 16;
/**
 * How many times wider than `concurrency` metadata-only calls (`stat`, `lstat`) may queue. They
 * hold no file descriptor, and the file system sees no more of them at once either way (Node runs
 * them on libuv's thread pool, 4 threads by default); a deeper queue only keeps those threads busy
 * instead of waking them one request at a time, which makes scanning many files about 2-3× faster.
 */
declare const METADATA_CONCURRENCY_FACTOR = 16;
/** Files larger than this (bytes) count as changed without a line diff, by default: 8 MiB. */
declare const DEFAULT_DIFF_SIZE_CAP_BYTES: number;
/**
 * How far (ms) a file's timestamps may lag the moment a write really happened, by default: 2 s.
 *
 * Change detection trusts timestamps only when a file's `max(ctime, mtime)` is older than its
 * backup time minus this margin. File systems stamp writes from a coarse clock that lags the
 * clock `Date.now()` reads: Linux by up to one scheduler tick (4-10 ms), FAT rounds mtime down to
 * 2 s, and network file systems (NFS, SMB) use the server's clock, which may be skewed. 2 s covers
 * all local file systems and modest skew; the only cost of a large margin is a byte comparison for
 * files written less than that long before their backup. Raise it for a badly skewed network mount.
 */
declare const DEFAULT_TIMESTAMP_GRANULARITY_MS = 2000;
/**
 * Runs one task under a concurrency limit (a `p-limit` function). Tasks run through a limit must
 * not call the same limit again (that could deadlock): a `metadataLimit` task may call `limit`,
 * and `limit` tasks are leaves.
 */
type RunLimited = <T>(task: () => PromiseLike<T> | T) => Promise<T>;
/**
 * A state updater as the seed's algorithms take it (seed 004 §8.1): called with a function from
 * the current state to the next one, it must call that function synchronously, at most once, and
 * keep its result. A no-op updater (one that never calls the function) turns tracking off: that is
 * how a subagent's edits leave the main conversation's history alone.
 */
type FileHistoryStateUpdater = (update: (state: FileHistoryState) => FileHistoryState) => void;
/** Everything the file-history algorithms need besides the state. */
interface FileHistoryContext {
    /** Absolute, normalised project root; tracking paths are relative to it. */
    readonly projectRoot: string;
    /** The session whose backups are read and written. */
    readonly sessionId: string;
    /** Where backups live. */
    readonly store: BackupStore;
    /** The workspace file system tracked files are read from and restored to. */
    readonly fs: WorkspaceFs;
    /** Shared limit for per-file I/O that opens, reads or writes files or backups (see {@link RunLimited}). */
    readonly limit: RunLimited;
    /**
     * Limit for the workers that scan tracked files with metadata calls (`stat`/`lstat`),
     * {@link METADATA_CONCURRENCY_FACTOR} times wider than `limit`; a scan runs any heavier step
     * (reading bytes, copying, asking the store) through `limit`.
     */
    readonly metadataLimit: RunLimited;
    /** Per-file I/O tasks at once ({@link DEFAULT_CONCURRENCY} by default). */
    readonly concurrency: number;
    /** See {@link DEFAULT_TIMESTAMP_GRANULARITY_MS}. */
    readonly timestampGranularityMs: number;
    /** See {@link DEFAULT_DIFF_SIZE_CAP_BYTES}. */
    readonly diffSizeCapBytes: number;
    /**
     * Persist a snapshot as a `file-history-snapshot` record (seed 000 §8): called synchronously
     * right after each state commit, in commit order, and awaited before the operation returns, so
     * a backup is durable in the log when `trackEdit`/`makeSnapshot` resolve. For an update,
     * `attachedPaths` names the tracking paths just attached (see `attachmentRecords`). Absent:
     * nothing is recorded.
     */
    readonly recordSnapshot?: (snapshot: FileHistorySnapshot, isSnapshotUpdate: boolean, attachedPaths?: readonly string[]) => Promise<void>;
    /**
     * Receives a message when housekeeping that does not change the outcome fails (a backup that
     * retention could not delete stays in the store). Absent: such failures are ignored.
     */
    readonly onWarning?: (message: string) => void;
}
/** Options of {@link createFileHistoryContext}; every knob has a default. */
interface FileHistoryContextOptions {
    /** Absolute project root. */
    projectRoot: string;
    /** Session id (a single path segment). */
    sessionId: string;
    /** The backup store. */
    store: BackupStore;
    /** Workspace file system. Default: `store.workspaceFs`. */
    fs?: WorkspaceFs;
    /** Per-file I/O tasks at once. Default {@link DEFAULT_CONCURRENCY}. */
    concurrency?: number;
    /** Default {@link DEFAULT_TIMESTAMP_GRANULARITY_MS}. */
    timestampGranularityMs?: number;
    /** Default {@link DEFAULT_DIFF_SIZE_CAP_BYTES}. */
    diffSizeCapBytes?: number;
    /** See {@link FileHistoryContext.recordSnapshot}. */
    recordSnapshot?: (snapshot: FileHistorySnapshot, isSnapshotUpdate: boolean, attachedPaths?: readonly string[]) => Promise<void>;
    /** See {@link FileHistoryContext.onWarning}. */
    onWarning?: (message: string) => void;
}
/**
 * Build a {@link FileHistoryContext}, filling defaults. Throws `InvalidArgumentError` naming the
 * option for a relative project root, an empty session id, a missing store, a concurrency that is
 * not a positive integer, or a negative or non-finite granularity or size cap.
 */
declare function createFileHistoryContext(options: FileHistoryContextOptions): FileHistoryContext;
/** The state an updater currently holds, or undefined when the updater is a no-op (seed 004 §8.1). */
declare function captureState(updateState: FileHistoryStateUpdater): FileHistoryState | undefined;

/** Why a file counts as changed. */
type ChangeReason = 'size' | 'mode' | 'content' | 'backup-missing';
/** Outcome of {@link checkFileChanged}. */
type ChangeCheck = {
    changed: true;
    reason: ChangeReason;
}
/** Unchanged, proven by timestamps alone (no bytes read). */
 | {
    changed: false;
    by: 'timestamps';
}
/**
 * Unchanged, proven by comparing bytes that were read after `verifiedAt`: the file equalled the
 * backup at that moment, so `verifiedAt` can serve as a new backup time (git's racy-clean idea).
 */
 | {
    changed: false;
    by: 'content';
    verifiedAt: Date;
};
/** A backup entry that names a backup object. */
type StoredBackup = FileHistoryBackup & {
    backupFileName: string;
};
/**
 * Decide whether the regular file at `absolutePath`, whose current `stats` the caller took (after
 * following symlinks), still has the bytes and permission bits of `backup`. `info` is the store's
 * `statBackup` result when the caller already has it; it is fetched only when the entry lacks
 * `size`/`mode` (Claude Code data) or the store offers checksums. A backup the store no longer has
 * gives `{ changed: true, reason: 'backup-missing' }`; other store and fs errors are thrown.
 */
declare function checkFileChanged(context: FileHistoryContext, absolutePath: string, stats: FsStats, backup: StoredBackup, info?: BackupInfo | null): Promise<ChangeCheck>;
/**
 * The checks that need no bytes, in order: size, permission bits, then timestamps against the
 * backup time (`backupTimeMs`) minus `granularityMs`. Returns the answer, or undefined when only a
 * byte comparison can tell.
 */
declare function compareMetadata(stats: FsStats, size: number, mode: number, backupTimeMs: number, granularityMs: number): ChangeCheck | undefined;
/** The backup time of an entry in ms since the epoch (accepts a Date or an ISO string); NaN if unreadable. */
declare function backupTimeMs(backup: FileHistoryBackup): number;
/**
 * True when the workspace file at `absolutePath` holds exactly the bytes of the stream
 * `openChunks` opens, compared chunk by chunk (memory stays at one chunk). The workspace file is
 * opened first, so the stream is only opened when it will be read; both are closed at the first
 * difference. A file that vanished meanwhile compares unequal. Errors of `openChunks` propagate.
 */
declare function workspaceFileEquals(fs: WorkspaceFs, absolutePath: string, openChunks: () => Promise<AsyncIterable<Uint8Array>>): Promise<boolean>;
/**
 * Lower-case hex sha256 of a workspace file, read in 1 MiB steps (or one step of `expectedSize`
 * bytes plus one, when the caller knows about how big the file is, so small files allocate little).
 */
declare function hashWorkspaceFile(fs: WorkspaceFs, absolutePath: string, expectedSize?: number): Promise<string>;

/** A prepared copy of a workspace file and when the copy started (the backup's `backupTime`). */
interface PreparedEdit {
    backup: PreparedBackup;
    startedAt: Date;
}
/**
 * Copy the workspace file at `absolutePath` (the file itself: a path through a symlink must be
 * resolved first) into `store` for session `sessionId`, durable, under a name no record can
 * reference (`BackupStore.prepareBackup`). Undefined when the store cannot prepare, the file does
 * not exist or is not a regular file: `trackEdit` then decides under the lock as usual. Throws the
 * store's other errors. Pass the result to `trackEdit`'s `prepared`, which commits or removes it;
 * a process killed before then leaves a temp the store removes at the session's next lock.
 */
declare function prepareTrackEdit(store: BackupStore, sessionId: string, absolutePath: string): Promise<PreparedEdit | undefined>;

/**
 * Who changed a tracked file (issue 14, seed 004 §8): the main agent or a sub-agent. Each backup
 * entry of a snapshot may carry `changedBy`, the agents that changed the file during that
 * entry's turn, each once, in the order of its first change. These helpers build, compare,
 * describe and parse those attributions; `agent-changes.ts` answers questions over a state.
 */

/** An agent without the time of a change: the main agent, or a sub-agent by id (and type). */
type AgentIdentity = {
    by: 'main';
} | {
    by: 'subagent';
    agentId: string;
    agentType?: string;
};
/** The main agent (the conversation the user talks to). */
declare const MAIN_AGENT: AgentIdentity;
/**
 * The identity of a sub-agent from Claude Code's `agent_id` / `agent_type` (either may be absent):
 * the main agent when `agentId` is not a non-empty string.
 */
declare function agentFromIds(agentId: unknown, agentType?: unknown): AgentIdentity;
/** True when `a` and `b` are the same agent (sub-agents compare by id only). */
declare function sameAgent(a: AgentIdentity, b: AgentIdentity): boolean;
/** The identity part of an attribution (its time dropped). */
declare function agentOf(attribution: EditAttribution): AgentIdentity;
/** The attribution of a change by `agent` at `at`. */
declare function attributionFor(agent: AgentIdentity, at: Date): EditAttribution;
/** A stable key for maps: `main`, or `subagent:<agentId>`. */
declare function agentKey(agent: AgentIdentity): string;
/** Words for messages: `the main agent`, or `sub-agent a96cf8a5 (general-purpose)`. */
declare function describeAgent(agent: AgentIdentity): string;
/** True when `entry` records a change by `agent` in its turn. */
declare function entryChangedBy(entry: FileHistoryBackup, agent: AgentIdentity): boolean;
/**
 * `entry` with `attribution` added at the end of its `changedBy` (a new object), or `entry`
 * itself when that agent is already listed (only an agent's first change in a turn is kept).
 * A sub-agent first listed without a type gets the type when a later attribution has it.
 */
declare function withAttribution(entry: FileHistoryBackup, attribution: EditAttribution): FileHistoryBackup;
/** `entry` without `changedBy` (itself when it has none): a new turn's entry starts unattributed. */
declare function withoutAttribution(entry: FileHistoryBackup): FileHistoryBackup;
/**
 * Parse a recorded `changedBy` value (an array of `{by, agentId?, agentType?, at}` with `at` as
 * an ISO-8601 string or a Date). Malformed items are dropped, each with one warning through
 * `warn` naming `where`; undefined when nothing valid remains. Never throws.
 */
declare function parseChangedBy(value: unknown, where: string, warn: (message: string) => void): EditAttribution[] | undefined;

/** Options of {@link fileHistoryTrackEdit}. */
interface TrackEditOptions {
    /** The file's bytes copied into the store before (see `prepareTrackEdit`); consumed either way. */
    prepared?: PreparedEdit;
}
/**
 * Call before `agent` (default: the main agent) writes `path` (absolute, or relative to the project root). Resolves once the
 * backup exists and, when the context records snapshots, once the updated snapshot is durable in
 * the session log. Throws `OutsideRootError` naming the path if it lies outside the project root or
 * inside the store's own storage, `NotFoundError` if the session has no snapshot yet,
 * `InvalidArgumentError` if it is a directory, and the store's or log's errors; on any error the
 * state is unchanged and no backup object is left behind.
 */
declare function fileHistoryTrackEdit(updateState: FileHistoryStateUpdater, path: string, context: FileHistoryContext, agent?: AgentIdentity, options?: TrackEditOptions): Promise<void>;

/**
 * Make the snapshot of `messageId` (a non-empty string) from every tracked file's current state.
 * Resolves with the committed snapshot once it is durable in the session log (when the context
 * records snapshots), or undefined when the updater is a no-op. Per-file failures become entries
 * with `error`; only `InvalidArgumentError` for a bad message id and the log's errors are thrown.
 */
declare function fileHistoryMakeSnapshot(updateState: FileHistoryStateUpdater, messageId: string, context: FileHistoryContext): Promise<FileHistorySnapshot | undefined>;
/**
 * The paths of `tracked` in sorted order. A state's tracked-file set only grows, in place
 * (`trackEdit` adds to it; nothing in fh removes a path, and hosts treat the state as read-only):
 * the paths added since the last call are the last ones in its insertion order, so only those are
 * sorted and merged in. A set that shrank, or whose new tail holds a path sorted before (one
 * removed and added again), is sorted afresh. Returns a new array.
 */
declare function sortedPaths(tracked: ReadonlySet<string>): string[];

/** How a {@link ProjectWriter} keeps links out (see the file comment). */
type ProjectWriterMode = 'dirfd' | 'checked-paths';
/** One folder of the project, held for writing. Names are single path components. */
interface ProjectFolder {
    /** Tracking path of the folder (`''` for the project root, `/` separators). */
    readonly relativePath: string;
    /** Absolute path of the folder, for messages. */
    readonly absolutePath: string;
    /** `lstat` of `name` in this folder; undefined when nothing is there. */
    lstat(name: string): Promise<FsStats | undefined>;
    /** Names in this folder. */
    readdir(): Promise<string[]>;
    /** Unlink the file or link `name` (a link is removed, never followed). Errno errors as thrown. */
    unlink(name: string): Promise<void>;
    /** Remove the empty folder `name` (`ENOTEMPTY` when it holds anything). */
    rmdir(name: string): Promise<void>;
    /** Create the folder `name` (`EEXIST` when something is there). */
    mkdir(name: string): Promise<void>;
    /**
     * Put a new regular file at `name`: `write` creates a new file exclusively at the path it is
     * given (for example `store.restoreBackup`), which then gets permission bits `mode`, is fsynced
     * and renamed over `name`. On failure the temp file is removed and `name` is untouched.
     */
    replaceFile(name: string, write: (destination: string) => Promise<void>, mode: number): Promise<void>;
    /**
     * {@link replaceFile} in two steps: the temp file is written, given `mode` and fsynced now; the
     * returned `commit` renames it over `name` (`discard` removes it instead; both idempotent after
     * the first). On failure of `write` the temp is removed and the error thrown. Lets a rewind
     * check every copy before it changes any file.
     */
    stageFile(name: string, write: (destination: string) => Promise<void>, mode: number): Promise<StagedFile>;
    /** Put a symbolic link to `target` at `name` (temp link renamed over it). */
    replaceWithSymlink(name: string, target: string): Promise<void>;
    /**
     * Remove fh's temp files (`.name.fh-<12 hex>.tmp`, regular files only) from this folder: all of
     * them, or with `olderThanMs`, only those whose mtime is older than that (ms since the epoch).
     * Tidying: failures are ignored. Returns the names removed.
     */
    removeTemporaryFiles(olderThanMs?: number): Promise<string[]>;
}
/** A new file written beside its target, not yet renamed over it (`ProjectFolder.stageFile`). */
interface StagedFile {
    /** Rename the file over its target. */
    commit(): Promise<void>;
    /** Remove the file; never throws. */
    discard(): Promise<void>;
}
/** Opens project folders for writing; see the file comment. */
interface ProjectWriter {
    readonly mode: ProjectWriterMode;
    /** Absolute project root. */
    readonly projectRoot: string;
    /**
     * The folder at tracking path `relativeFolder` (`''`: the root). With `create`, missing folders
     * are made one at a time. Throws `OutsideRootError` when a component below the root is a
     * symbolic link, `ConflictError` when one is not a folder, `NotFoundError` when one is missing and
     * `create` is not set; `InvalidArgumentError`-like `FhError` for `..` components.
     */
    folder(relativeFolder: string, options?: {
        create?: boolean;
    }): Promise<ProjectFolder>;
    /** fsync every folder changed since the last flush (new, renamed or removed entries durable). */
    flush(): Promise<void>;
    /** Flush, then close every folder held. Idempotent. */
    close(): Promise<void>;
}

/**
 * What a rewind writes at one path (the `plan` given to `beforeWrite`): a checkpoint backup with
 * the mode the file gets, or `null` (the file is deleted).
 */
interface RewindWrite {
    path: string;
    backupFileName: string | null;
    /** Mode the file gets (see `restored-mode.ts`); `null` for a deletion. */
    mode: number | null;
    size?: number;
}
/** Options of {@link fileHistoryRewind}. */
interface RewindOptions {
    /** Rewind only these tracked files (absolute, or relative to the project root). Default: all. */
    paths?: readonly string[];
    /**
     * Called once after validation and before the first write, with the tracking paths the rewind
     * is about to write or delete, a folder it replaces by a file included (sorted; not called when
     * there are none). If it rejects, the rewind rejects with that error and nothing is written.
     * `plan` says what the rewind will write at each of them. `RewindSession` journals its timeline
     * point here.
     */
    beforeWrite?: (paths: readonly string[], plan: readonly RewindWrite[]) => Promise<void>;
    /**
     * The caller holds the session's lock, so every fh temp file (`.name.fh-<hex>.tmp`) in a folder
     * the rewind writes is a leftover of a killed process and is removed first. Default false: only
     * temps older than 60 s are removed. `FileHistory.rewind` sets it while it holds the lock.
     */
    sessionLocked?: boolean;
    /**
     * Progress for a bar (see `progress.ts`): `checking` while each file is compared with the
     * snapshot, then `writing` (files and bytes restored or deleted). Must not throw.
     */
    onProgress?: ProgressCallback;
    /**
     * `FileHistory.rewind` only: first roll back an interrupted rewind, undo or redo recorded in the
     * session's log (a pending timeline point, see `recoverPending`). Default true; `RewindSession`
     * passes false, having recovered on its own undo store already.
     */
    recoverFirst?: boolean;
}
/**
 * Rewind every tracked file (or `options.paths`) to the snapshot of `messageId`. Returns what was
 * restored, deleted, skipped (with why) and failed (with the error); files already as at the
 * snapshot are not listed. Throws `NotFoundError` when no snapshot has `messageId`,
 * `BackupMissingError` (changing nothing) when a needed backup is missing, the wrong size or fails its content hash, and
 * `InvalidArgumentError` for a path in `options.paths` that is not tracked. A no-op updater
 * (subagent) rewinds nothing and returns an empty result.
 */
declare function fileHistoryRewind(updateState: FileHistoryStateUpdater, messageId: string, context: FileHistoryContext, options?: RewindOptions): Promise<RewindResult>;
/**
 * Whether a rewind to `messageId` is possible: the state has a snapshot for it (seed:
 * `fileHistoryCanRestore`).
 */
declare function fileHistoryCanRestore(state: FileHistoryState, messageId: string): boolean;
/**
 * Remove fh's project temp files from `folders` (tracking paths) before writing there: every one
 * when the caller holds the session's lock (then any temp is a leftover of a killed process of
 * this session: only one process writes the project at a time), otherwise only those older than
 * {@link STALE_TEMPORARY_MS}. A folder that cannot be opened is left alone.
 */
declare function removeLeftoverTemporaryFiles(writer: ProjectWriter, folders: Iterable<string>, sessionLocked: boolean): Promise<void>;

/** Options of {@link fileHistoryGetDiffStats}. */
interface DiffStatsOptions {
    /** Only these tracked files (absolute, or relative to the project root). Default: all. */
    paths?: readonly string[];
    /**
     * Progress in files compared, for a progress bar: `(done, total)` once the rewind is planned,
     * then as each file's lines are counted. It must not throw.
     */
    onProgress?: (done: number, total: number) => void;
    /**
     * Progress in phases, for a bar (see `progress.ts`): `checking` while each file is compared
     * with the snapshot, then `counting` while the changed files' lines are counted (with the bytes
     * of both sides). Must not throw.
     */
    onPhaseProgress?: ProgressCallback;
}
/**
 * What a rewind to `messageId` would change (seed: `fileHistoryGetDiffStats`). Throws
 * `NotFoundError` when no snapshot has `messageId` and `InvalidArgumentError` for an untracked
 * path in `options.paths`. Files whose backup is missing are listed in `failed`, not thrown.
 */
declare function fileHistoryGetDiffStats(state: FileHistoryState, messageId: string, context: FileHistoryContext, options?: DiffStatsOptions): Promise<DiffStats>;
/**
 * True when a rewind to `messageId` would change at least one file (seed:
 * `fileHistoryHasAnyChanges`). Stops at the first difference and counts no lines. A missing
 * backup counts as a change (the rewind would not be a no-op: it would refuse). Throws
 * `NotFoundError` when no snapshot has `messageId`.
 */
declare function fileHistoryHasAnyChanges(state: FileHistoryState, messageId: string, context: FileHistoryContext): Promise<boolean>;
/**
 * Milliseconds one file's line diff may take before it gives up (jsdiff's `timeout`). A diff is
 * quadratic in the lines that changed: 20,000 changed lines take about a minute, so a file whose
 * every line changed (a formatter run, CRLF conversion) would stall a preview without it.
 */
declare const DIFF_TIMEOUT_MS = 1000;
/**
 * Milliseconds all line diffs of one `getDiffStats` call may take together: past it, each further
 * file gets {@link MIN_DIFF_TIMEOUT_MS}, so a dozen reformatted files cost seconds, not a dozen.
 */
declare const DIFF_BUDGET_MS = 3000;
/** The least time a file's line diff gets once the call's budget is spent, in ms. */
declare const MIN_DIFF_TIMEOUT_MS = 50;
/** Line counts between two versions of a file, from {@link countLineChanges}. */
interface LineChanges {
    /** Lines in `target` that are not in `current` (jsdiff `diffLines` additions). */
    insertions: number;
    /** Lines in `current` that are not in `target`. */
    deletions: number;
    /** Either side has a NUL byte in its first 8 KiB: no line counts. */
    binary: boolean;
}
/**
 * Count the lines a change from `current` to `target` adds and removes (`null`: the file does not
 * exist, counted as empty). Bytes are decoded as UTF-8 only to count lines; a NUL byte in the first
 * 8 KiB of either side makes the result `binary` with no counts. Undefined when the diff takes
 * longer than `timeoutMs` (default {@link DIFF_TIMEOUT_MS}).
 */
declare function countLineChanges(current: Uint8Array | null, target: Uint8Array | null, timeoutMs?: number): LineChanges | undefined;

/**
 * Every file a rewind to `messageId` covers (the state's tracked files and the snapshot's entries),
 * sorted by tracking path, each with the entry that holds its state at the snapshot: the
 * snapshot's own entry, else the first entry a later snapshot has for it, else undefined (no
 * entry at or after the snapshot). Undefined when no snapshot has `messageId` (the last snapshot
 * with it counts, as everywhere). Pure: reads `state` only.
 */
declare function snapshotFileBackups(state: Readonly<FileHistoryState>, messageId: string): Map<string, FileHistoryBackup | undefined> | undefined;

/** One file whose backup changed between two consecutive snapshots. */
interface SnapshotFileChange {
    /** Tracking path (relative to the project root, `/` separators). */
    path: string;
    /** Bytes at the previous snapshot; `null` when the file did not exist or was not tracked then. */
    oldContent: Uint8Array | null;
    /** Bytes at the new snapshot; `null` when the file does not exist. */
    newContent: Uint8Array | null;
}
/** Payload of the `snapshotFilesChanged` event. */
interface SnapshotFilesChangedEvent {
    /** Message id of the new snapshot. */
    messageId: string;
    /** Message id of the snapshot compared against; `null` for the first snapshot. */
    previousMessageId: string | null;
    /** The changed files, sorted by path. Files whose backup failed on either side are left out. */
    files: SnapshotFileChange[];
}
/** Listener of the `snapshotFilesChanged` event; may return a promise, which is awaited. */
type SnapshotFilesChangedListener = (event: SnapshotFilesChangedEvent) => void | Promise<void>;
/** Tracking paths whose backup object differs between `previous` and `next` (entries with `error` excluded). */
declare function changedTrackingPaths(previous: FileHistorySnapshot | undefined, next: FileHistorySnapshot): string[];
/**
 * Build the event for `next` against `previous`, reading the changed files' backups from the
 * store (bounded concurrency) whole into memory. Returns undefined when no file changed. Throws
 * the store's errors.
 */
declare function snapshotFilesChangedEvent(context: FileHistoryContext, previous: FileHistorySnapshot | undefined, next: FileHistorySnapshot): Promise<SnapshotFilesChangedEvent | undefined>;

/**
 * What the command window remembers about one path: the fields of `lstat` that change whenever the
 * file's bytes, mode or identity do (size, mode, mtime, ctime, inode). Two equal facts mean the
 * file was not touched in between: ctime cannot be set back by a user, and a rename or a new file
 * gets another inode (issue 12 "Pre-images without copying the tree").
 */

/** One path's `lstat`, reduced to what change detection needs. Times in ms since the epoch. */
interface EntryFacts {
    /**
     * What is at the path (symbolic links are not followed); `missing`: nothing (a file git tracks
     * that was deleted from the work tree before the command), all numbers 0.
     */
    type: 'file' | 'symlink' | 'folder' | 'other' | 'missing';
    /** Size in bytes (of the link itself for a symlink). */
    size: number;
    /** `st_mode`: file type and permission bits. */
    mode: number;
    /** Last content change, ms since the epoch. */
    mtimeMs: number;
    /** Last status change, ms since the epoch. */
    ctimeMs: number;
    /** Inode number (as a JS number; inodes above 2^53 lose precision, which only costs a copy). */
    ino: number;
}
/** The facts of `stats` (from `lstat`). */
declare function factsOf(stats: FsStats): EntryFacts;
/** The facts of a path where nothing is. */
declare const MISSING_FACTS: EntryFacts;
/** True when both describe the same, untouched file (every field equal). */
declare function sameFacts(a: EntryFacts, b: EntryFacts): boolean;
/** Permission bits of a mode (`mode & 0o7777`), as backups record them. */
declare function permissionBits(mode: number): number;

/**
 * The contract between the command window (`begin-command.ts`, `end-command.ts`) and the thing
 * that lists a project: a git repository read through the real `git` binary, or a walk of a
 * folder with `.gitignore`-style rules. The core does no I/O of its own; `@fh/command-probe`
 * implements this interface for Node (`NodeCommandProbe`), and tests may inject another.
 *
 * A probe answers two questions, once before a command and once after it:
 * - which files fh must hold the before-bytes of itself ({@link ProbeListing.own}): in a git
 *   repository the dirty and untracked files (git holds the bytes of every clean file already),
 *   outside one every file the walk reaches;
 * - which ignored paths exist ({@link ProbeListing.ignored}), so a command that touches one is
 *   reported rather than silently missed.
 * In a git repository it also saves the index as it was before the command (the command may run
 * `git checkout`, `git stash`, `git reset --hard`, `git commit`) and, after the command, names
 * the files whose working-tree bytes or mode differ from that saved index, with the index entry
 * that holds their before-bytes ({@link ProbeEnd.indexChanged}); {@link CommandProbe.materializeBlobs}
 * then writes those blobs out for the store to copy. A probe never writes into the user's `.git`.
 */

/** A JSON value: what a probe may keep between `begin` and `end` (it is saved with the window). */
type JsonValue = null | boolean | number | string | JsonValue[] | {
    [key: string]: JsonValue;
};
/** What a probe lists at one moment. Keys are tracking paths (relative to the project root, `/`). */
interface ProbeListing {
    /**
     * Files whose before-bytes fh must keep itself, with their facts now: git's dirty and untracked
     * files (regular files and symlinks), or every file a walk reaches. Never an ignored path.
     */
    own: Map<string, EntryFacts>;
    /**
     * Ignored paths that exist now, with their facts: files, and folders ignored as a whole (their
     * key ends with `/`; a file added or removed directly inside changes the folder's facts).
     */
    ignored: Map<string, EntryFacts>;
}
/** {@link CommandProbe.begin}'s answer. */
interface ProbeBegin extends ProbeListing {
    /** `git`: the project lies in a git work tree; `walk`: it does not. */
    kind: 'git' | 'walk';
    /** The probe's own state (for example where it saved the index), given back to `end`, `materializeBlobs` and `release`. */
    state: JsonValue;
}
/** An entry of the index saved at `begin`: where git holds a file's before-bytes. */
interface IndexEntry {
    /** The blob's object id (hex). */
    blobId: string;
    /** Git's mode: `0o100644`, `0o100755`, `0o120000` (symlink) or `0o160000` (submodule). */
    gitMode: number;
    /**
     * The file's permission bits (`& 0o7777`) at `begin`, when the probe saw them: the blob is
     * restored with them. Absent: only git's executable bit is known.
     */
    mode?: number;
    /** False when the probe knows the bytes still equal the blob (only the mode changed). */
    contentChanged?: boolean;
}
/** {@link CommandProbe.end}'s answer. */
interface ProbeEnd extends ProbeListing {
    /**
     * Git only (empty for a walk): every path whose working-tree file (bytes, executable bit or
     * presence) differs now from the index saved at `begin`, with that index entry. A file dirty at
     * `begin` is listed again when it is still dirty; the window tells them apart.
     */
    indexChanged: Map<string, IndexEntry>;
}
/** A blob written out by {@link CommandProbe.materializeBlobs}. */
interface MaterializedBlob {
    /** Absolute path of a new regular file holding the blob's bytes, with the requested permission bits. */
    path: string;
    /** Its size in bytes. */
    size: number;
}
/** What {@link CommandProbe.materializeBlobs} is asked to write. */
interface BlobRequest {
    blobId: string;
    /** Permission bits (`0o7777` mask) the file gets. */
    mode: number;
}
/** The `code` of a probe's error when a listing passed the probe's size or time limits. */
declare const SCAN_LIMIT_CODE = "FH_SCAN_LIMIT";
/** Lists a project before and after a command; see the top of this file. */
interface CommandProbe {
    /**
     * Before the command: list the project (and, in git, save the index). `windowId` is a single
     * path segment naming this window, for any files the probe keeps. Throws when the project
     * cannot be listed (for example `git` fails); nothing is left behind then.
     */
    begin(projectRoot: string, windowId: string): Promise<ProbeBegin>;
    /**
     * After the command: list the project again, against what `begin` saved (see {@link ProbeEnd}).
     * A probe whose listing passed its limits (the command made the project too large to list in
     * time) throws an error whose `code` is {@link SCAN_LIMIT_CODE}: `endCommand` then closes the
     * window, capturing nothing, and says why (`CommandCapture.scanLimit`), instead of leaving a
     * window no later event could end.
     */
    end(projectRoot: string, windowId: string, state: JsonValue): Promise<ProbeEnd>;
    /**
     * Write each requested blob to its own new file (git only; a walk never asks). Returns one entry
     * per request, in order; `maxBytes` (per blob): a larger blob gets `undefined` and is not written.
     * Throws when git cannot read a blob. The caller removes the files with `release`.
     */
    materializeBlobs(projectRoot: string, windowId: string, state: JsonValue, requests: readonly BlobRequest[], maxBytes: number): Promise<Array<MaterializedBlob | undefined>>;
    /**
     * Remove everything the probe keeps for this window (the saved index, written blobs).
     * Idempotent; a window never begun is not an error.
     */
    release(projectRoot: string, windowId: string, state: JsonValue): Promise<void>;
    /**
     * The permission bits a file checked out from git with `gitMode` has here (the process umask
     * applied), used when a file's own bits are no longer known (it was deleted).
     */
    checkoutMode(gitMode: number): number;
}

/**
 * Where open command windows and the session's pre-image cache live between `beginCommand` and
 * `endCommand`, which may run in two processes (an agent's PreToolUse and PostToolUse hooks).
 * `@fh/command-probe` keeps them as JSON files (`FsCommandJournal`); {@link MemoryCommandJournal}
 * keeps them in memory for one process (`fh run`, embedding hosts, tests).
 *
 * Record format (version 1), one window:
 *   { "version": 1, "windowId", "sessionId", "command"?, "startedAt": ISO, "kind": "git"|"walk",
 *     "probeState": <probe JSON>, "entries": { path: { "facts": EntryFacts, "preImage": PreImage } },
 *     "ignored": { path: EntryFacts }, "notCaptured": [{ "path", "reason" }] }
 * The pre-image cache: { path: { "backup": FileHistoryBackup, "facts": EntryFacts, "attached": bool } }.
 */

/** Version of {@link CommandWindowRecord}; a record of another version is refused. */
declare const COMMAND_WINDOW_RECORD_VERSION = 1;
/** Where a file's before-bytes are, as decided at `beginCommand`. */
type PreImage = 
/** The current checkpoint already tracks the file: its v1 stays, nothing to keep. */
{
    kind: 'tracked';
}
/** A backup in the store (made at this begin, or an unchanged earlier one reused). */
 | {
    kind: 'backup';
    backup: FileHistoryBackup;
}
/** Not kept: the reason (a symlink, over a size cap, the copy failed). */
 | {
    kind: 'none';
    reason: string;
};
/** One file fh holds the before-bytes of for a window. */
interface WindowEntry {
    /** The file's facts at begin. */
    facts: EntryFacts;
    preImage: PreImage;
}
/** A begun command window as the journal keeps it (see the top of this file). */
interface CommandWindowRecord {
    version: typeof COMMAND_WINDOW_RECORD_VERSION;
    windowId: string;
    sessionId: string;
    /** The command line, for messages; absent when the host did not give it. */
    command?: string;
    /** When `beginCommand` started listing, ISO-8601. Windows are ordered by it (then by id). */
    startedAt: string;
    kind: 'git' | 'walk';
    probeState: JsonValue;
    /** Files fh holds the before-bytes of (git: dirty and untracked; walk: every file), by tracking path. */
    entries: Record<string, WindowEntry>;
    /** Ignored paths at begin, with their facts (folders end with `/`). */
    ignored: Record<string, EntryFacts>;
    /** Files whose before-bytes were not kept at begin, with why (reported by `endCommand` only if they changed). */
    notCaptured: Array<{
        path: string;
        reason: string;
    }>;
}
/** One cached pre-image: a backup of a file as it was, for later windows to reuse while the file is unchanged. */
interface PreImageCacheEntry {
    backup: FileHistoryBackup;
    /** The file's facts when the backup was made. */
    facts: EntryFacts;
    /** True once a checkpoint refers to the backup: the command stage never deletes it then. */
    attached: boolean;
}
/** Tracking path → cached pre-image. */
type PreImageCache = Record<string, PreImageCacheEntry>;
/** Keeps windows and the pre-image cache of one session (see the top of this file). */
interface CommandJournal {
    /** Save a window; durable when the promise resolves. Replaces a window of the same id. */
    saveWindow(record: CommandWindowRecord): Promise<void>;
    /** The window `windowId`, or undefined when there is none (never begun, or already ended). */
    loadWindow(windowId: string): Promise<CommandWindowRecord | undefined>;
    /** Every open window of the session, any order. */
    listWindows(): Promise<CommandWindowRecord[]>;
    /** Forget a window; a missing one is not an error. */
    removeWindow(windowId: string): Promise<void>;
    /** The session's pre-image cache (`{}` when none). */
    loadPreImages(): Promise<PreImageCache>;
    /** Replace the pre-image cache; durable when the promise resolves. */
    savePreImages(cache: PreImageCache): Promise<void>;
}
/** A {@link CommandJournal} in memory: for one process (`fh run`, a harness, tests). */
declare class MemoryCommandJournal implements CommandJournal {
    private readonly windows;
    private cache;
    saveWindow(record: CommandWindowRecord): Promise<void>;
    loadWindow(windowId: string): Promise<CommandWindowRecord | undefined>;
    listWindows(): Promise<CommandWindowRecord[]>;
    removeWindow(windowId: string): Promise<void>;
    loadPreImages(): Promise<PreImageCache>;
    savePreImages(cache: PreImageCache): Promise<void>;
}

/** Default per-file cap: 32 MiB. A larger file's before-bytes are not kept. */
declare const DEFAULT_COMMAND_MAX_FILE_BYTES: number;
/** Default per-command cap: 256 MiB copied into the store by one `beginCommand`. */
declare const DEFAULT_COMMAND_MAX_COMMAND_BYTES: number;
/**
 * Default total cap: 1 GiB of pre-images a session keeps for reuse that no checkpoint refers to
 * (dirty and untracked files backed up at `beginCommand` that no command changed yet). Past it
 * the oldest are deleted.
 */
declare const DEFAULT_COMMAND_MAX_TOTAL_BYTES: number;
/** Caps of a command window, in bytes; each defaults to the constant named on it. */
interface CommandLimits {
    /** Largest file whose before-bytes are kept. Default {@link DEFAULT_COMMAND_MAX_FILE_BYTES}. */
    maxFileBytes?: number;
    /** Most bytes one `beginCommand` copies into the store. Default {@link DEFAULT_COMMAND_MAX_COMMAND_BYTES}. */
    maxCommandBytes?: number;
    /** Most bytes of unattached pre-images kept for reuse. Default {@link DEFAULT_COMMAND_MAX_TOTAL_BYTES}. */
    maxTotalBytes?: number;
}
/** {@link CommandLimits} with every default filled. */
type ResolvedCommandLimits = Required<CommandLimits>;
/** Fill defaults; `InvalidArgumentError` naming the option for a value that is not a number >= 0. */
declare function resolveCommandLimits(limits?: CommandLimits): ResolvedCommandLimits;

/** Options of `beginCommand`. */
interface BeginCommandOptions {
    /** Lists the project (git or walk); `@fh/command-probe`'s `NodeCommandProbe` for real projects. */
    probe: CommandProbe;
    /** Keeps the window until `endCommand` (and the pre-image cache). */
    journal: CommandJournal;
    /** The window's id: a single path segment (an agent's `tool_use_id`). Default: a random UUID. */
    windowId?: string;
    /** The command line, for messages. */
    command?: string;
    /** Size caps; see `command-limits.ts`. */
    limits?: CommandLimits;
    /**
     * Progress for a bar (`progress.ts`): a `backing-up` phase, one step per file copied into the
     * store, with its bytes (the total bytes known at the start). Must not throw.
     */
    onProgress?: ProgressCallback;
}
/** What `beginCommand` did. */
interface CommandWindow {
    windowId: string;
    /** When the listing started. */
    startedAt: Date;
    kind: 'git' | 'walk';
    /** Files whose before-bytes fh holds itself (git: dirty and untracked; walk: every file). */
    files: number;
    /** Of those, backed up now: count and bytes. */
    copied: number;
    copiedBytes: number;
    /** Of those, an unchanged earlier backup reused. */
    reused: number;
    /** Of those, already tracked by the current checkpoint. */
    tracked: number;
    /** Files whose before-bytes are not kept (a symlink, over a cap, the copy failed), with why. */
    notCaptured: Array<{
        path: string;
        reason: string;
    }>;
    /** Ignored paths the probe saw (not captured; a change to one is reported by `endCommand`). */
    ignored: number;
}
/**
 * Begin a command window on the newest checkpoint (see the top of this file). Throws
 * `NotFoundError` when the session has no snapshot yet, `InvalidArgumentError` for a window id
 * that is not a single path segment or a window id already open, and the probe's errors (nothing
 * is kept then).
 */
declare function beginCommand(updateState: FileHistoryStateUpdater, context: FileHistoryContext, options: BeginCommandOptions): Promise<CommandWindow>;

/** Options of `endCommand`. */
interface EndCommandOptions {
    /** The probe the window was begun with. */
    probe: CommandProbe;
    /** The journal the window was saved in. */
    journal: CommandJournal;
    /** Size caps; see `command-limits.ts`. */
    limits?: CommandLimits;
    /**
     * Who ran the command (issue 14): every file it changed records this agent in its entry's
     * `changedBy` — a sub-agent's id and type from the hook event, or the main agent (default).
     */
    agent?: AgentIdentity;
    /**
     * Progress for a bar (`progress.ts`): a `checking` phase, one step per file compared with the
     * window's begin, then a `backing-up` phase, one step per blob of a file clean in git at begin
     * copied into the store, with its bytes. Must not throw.
     */
    onProgress?: ProgressCallback;
}
/** How a command changed a file. */
type CommandChange = 'created' | 'modified' | 'deleted' | 'mode';
/** Where a captured file's before-bytes came from. */
type PreImageSource = 
/** Already tracked by the checkpoint: its v1 stays. */
'tracked'
/** A backup made (or reused) at `beginCommand`. */
 | 'backup'
/** Its blob in the index saved at `beginCommand`, copied into the store now. */
 | 'git'
/** It did not exist: a `null` backup, so a rewind deletes it. */
 | 'created';
/** What `endCommand` did. */
interface CommandCapture {
    windowId: string;
    /** The checkpoint (message id) the files were attached to; undefined when covered. */
    messageId: string | undefined;
    /** Files the command changed, now restorable by a rewind to that checkpoint, sorted by path. */
    captured: Array<{
        path: string;
        change: CommandChange;
        source: PreImageSource;
    }>;
    /** Files the command changed whose before-bytes fh does not have, with why, sorted by path. */
    notCaptured: Array<{
        path: string;
        change: CommandChange;
        reason: string;
    }>;
    /** Ignored paths the command created, deleted or changed: not captured. `paths` holds the first 10. */
    ignored: {
        count: number;
        paths: string[];
    };
    /** Bytes copied into the store by this end (blobs of files that were clean in git). */
    copiedBytes: number;
    /** Set when an earlier window still open covers this one (it attached nothing). */
    coveredBy?: string;
    /**
     * Set when the probe's listing after the command passed its size or time limits: the window
     * is closed, nothing was captured, and this is the probe's message saying why.
     */
    scanLimit?: string;
}
/**
 * End the window `windowId` (see the top of this file). Throws `NotFoundError` when no such window
 * is open (never begun, or already ended) or the session has no snapshot, and the probe's, the
 * store's and the log's errors; the window stays open on error, so ending it again retries.
 */
declare function endCommand(updateState: FileHistoryStateUpdater, context: FileHistoryContext, windowId: string, options: EndCommandOptions): Promise<CommandCapture>;
/** Order windows by start time, then id. */
declare function compareWindows(a: CommandWindowRecord, b: CommandWindowRecord): number;
/** Options of `endOpenCommands`. */
interface EndOpenCommandsOptions extends EndCommandOptions {
    /** End only windows begun before this moment. Default: every open window. */
    startedBefore?: Date;
}
/**
 * End the session's open windows (see {@link EndOpenCommandsOptions.startedBefore}): a host calls
 * it at the next prompt, before the turn's snapshot, for commands whose end never came (an agent
 * killed mid-command, a hook that did not run). The newest window ends first, so windows an older
 * one covers cost nothing. Returns one capture per window ended, in that order; stops at the
 * first error (the windows not yet ended stay open).
 */
declare function endOpenCommands(updateState: FileHistoryStateUpdater, context: FileHistoryContext, options: EndOpenCommandsOptions): Promise<CommandCapture[]>;

/**
 * Legacy undo points in the session log (before the timeline of `timeline-records.ts`, which
 * reads them as completed rewind points), and the entry shape both share.
 *
 *   {"type":"fh-undo-point","undoId":…,"sessionId":…,"createdAt":…,"operation":"rewind"|"undo",
 *    "messageId":…|null,"entries":[{"path":…,"kind":"file"|"missing"|"symlink"|"folder",
 *    "backupFileName":…|null,"mode":…|null,"size"?:…,"sha256"?:…,"symlinkTarget"?:…}]}
 *   {"type":"fh-undo-point-removed","undoId":…,"reason":"undone"|"evicted"|"cancelled","timestamp":…}
 *   (`cancelled`: the point's own append failed, so its backups may be deleted)
 *
 * Claude Code ignores these record types. A point is live from its `fh-undo-point` record until
 * an `fh-undo-point-removed` record names it.
 */

/** Record type of an undo point. */
declare const UNDO_POINT_RECORD_TYPE = "fh-undo-point";
/** Record type saying an undo point was used or dropped. */
declare const UNDO_POINT_REMOVED_RECORD_TYPE = "fh-undo-point-removed";
/** How one file was just before the operation an undo point covers. */
interface UndoEntry {
    /** Tracking path (relative to the project root, `/` separators). */
    path: string;
    /**
     * `file`: a regular file, kept as a backup; `missing`: nothing was there; `symlink`: a symbolic
     * link; `folder`: a folder was there (its contents are not saved; a rewind replaces a folder
     * only once it is empty).
     */
    kind: 'file' | 'missing' | 'symlink' | 'folder';
    /** The backup of the file's bytes (in the undo store's session); `null` unless `kind` is `file`. */
    backupFileName: string | null;
    /** Permission bits (`mode & 0o7777`) of the file; `null` unless `kind` is `file`. */
    mode: number | null;
    /** Size of the backup in bytes (`file` only); checked before an undo writes anything. */
    size?: number;
    /**
     * Lower-case hex sha256 of the backup's bytes, as the store computed it when the pre-image was
     * saved (`file` only; absent in older records). Checked before an undo or redo writes anything.
     */
    sha256?: string;
    /** The link's target as `readlink` gave it (`symlink` only). */
    symlinkTarget?: string;
}
/** The files an operation was about to change, as they were just before it. */
interface UndoPoint {
    undoId: string;
    /** The session whose store holds the entries' backups. */
    sessionId: string;
    createdAt: Date;
    /** What the point was saved for (see `PointOperation` in `timeline-records.ts`; legacy records: `rewind` or `undo`). */
    operation: 'rewind' | 'undo' | 'redo' | 'undo-to' | 'recover';
    /** The message a rewind went to; `null` for other operations. */
    messageId: string | null;
    /** One per file, sorted by path. */
    entries: UndoEntry[];
}
/** Why an undo point stopped being live. */
type UndoPointRemovedReason = 'undone' | 'evicted' | 'cancelled';
/** The log record of an undo point (dates as ISO strings). */
declare function undoPointRecord(point: UndoPoint): LogRecord;
/** The log record saying `undoId` is no longer live. */
declare function undoPointRemovedRecord(undoId: string, reason: UndoPointRemovedReason, timestamp: Date): LogRecord;
/** Parse one pre-image entry; `undefined` when malformed (a malformed `sha256` is dropped). Never throws. */
declare function parseUndoEntry(value: unknown): UndoEntry | undefined;
/** Parse an `fh-undo-point` record; `undefined` (with one warning) when malformed. Never throws. */
declare function parseUndoPointRecord(record: LogRecord, onWarning?: RecordWarningHandler): UndoPoint | undefined;
/**
 * The live undo points of a session log, oldest first: every well-formed `fh-undo-point` not
 * named by a later `fh-undo-point-removed`. Other records are ignored; malformed undo records are
 * skipped with a warning. Never throws.
 */
declare function liveUndoPoints(records: readonly LogRecord[], onWarning?: RecordWarningHandler): UndoPoint[];

/**
 * The summary a timeline point carries in its `fh-point` record (issue 11): how many files its
 * operation changes and by how many lines, counted once when the point is saved, so that
 * `fh undo --list` reads records only (its cost grows with the points it shows, not with the bytes
 * of their backups). Points saved before summaries existed have none: a listing shows their files
 * and `?` for lines; `fh diff --undo` counts lines when asked (`undo-preview.ts`).
 *
 * Lines are counted with jsdiff (`countLineChanges`) from each file's pre-image (read from the
 * project, where it is about to be overwritten) to what the operation writes there (its plan
 * entry: a checkpoint backup or a pre-image backup, read from the store). Counting is bounded so
 * a large rewind does not pay for it twice: files over {@link SUMMARY_LINE_CAP_BYTES} either side,
 * binary files, files whose backup cannot be read and every file left once
 * {@link SUMMARY_BUDGET_MS} has passed are `uncounted`.
 */

/** What a point's operation changes, counted when the point was saved (record field `summary`). */
interface PointSummary {
    /** Paths the operation changes (its entries). */
    files: number;
    /** Bytes of the pre-images that are files. */
    bytesBefore: number;
    /** Bytes of the files the operation writes (plan entries with a recorded size). */
    bytesAfter: number;
    /** Lines the operation adds, over the counted files. */
    insertions: number;
    /** Lines the operation removes, over the counted files. */
    deletions: number;
    /** Files whose lines were not counted (binary, over the cap, unreadable, past the budget, a folder or link). */
    uncounted: number;
}
/** Where plan entries that are not `…@undo-…` backups live (a rewind's checkpoint backups). */
interface PlanSource {
    store: BackupStore;
    sessionId: string;
}
/** Files larger than this (either side) are not line-counted for a summary: 1 MiB. */
declare const SUMMARY_LINE_CAP_BYTES: number;
/** Time spent counting lines for one point's summary, in ms; files left after it are `uncounted`. */
declare const SUMMARY_BUDGET_MS = 2000;
/** Inputs of {@link summarizePoint}. */
interface SummarizePointInput {
    projectRoot: string;
    fs: WorkspaceFs;
    /** The point's pre-images (the project's files as they are now). */
    entries: readonly UndoEntry[];
    /** What the operation writes at each path. */
    plan: readonly UndoEntry[];
    /** The store and session of `…@undo-…` plan entries. */
    undo: PlanSource;
    /** The store and session of other plan entries (checkpoint backups); without it they are uncounted. */
    checkpoints?: PlanSource;
    /** Runs one file's count at a time under the caller's concurrency limit. */
    limit: <T>(task: () => Promise<T>) => Promise<T>;
    /** Whether a name is an undo backup's. */
    isUndoBackup: (name: string) => boolean;
}
/**
 * Count what a point's operation changes (see the module comment). Never throws: a file that
 * cannot be read or counted is `uncounted`.
 */
declare function summarizePoint(input: SummarizePointInput): Promise<PointSummary>;
/** Parse a record's `summary`; undefined when absent or malformed (the point is then listed as unsummarized). */
declare function parsePointSummary(value: unknown): PointSummary | undefined;

/**
 * The records of a session's rewind timeline and operation journal (issues 10 and 11), JSON lines
 * in the session log of the undo store (Claude Code ignores these types). Format version
 * {@link TIMELINE_FORMAT_VERSION}:
 *
 *   {"type":"fh-point","v":1,"pointId":…,"sessionId":…,"createdAt":…,
 *    "operation":"rewind"|"undo"|"redo"|"undo-to"|"recover","messageId":…|null,"target":…|null,
 *    "entries":[UndoEntry…],"plan":[UndoEntry…],"summary"?:{"files","bytesBefore","bytesAfter",
 *    "insertions","deletions","uncounted"}}
 *   {"type":"fh-point-done","v":1,"pointId":…,"outcome":"done"|"rolled-back"|"abandoned",
 *    "by":…|null,"timestamp":…}
 *   {"type":"fh-points-pruned","v":1,"pointIds":[…],"timestamp":…}
 *
 * `entries` are the pre-images: each path the operation will change, as it was just before (bytes
 * and mode as an `…@undo-…` backup of the undo store's session, or missing, a symlink, a folder).
 * `plan` is what the operation will write at each of those paths (same shape; a `file` names a
 * checkpoint backup for a rewind, a point's pre-image backup for an undo or redo). A point is
 * written after its backups are durable and before the first project write; `fh-point-done`
 * follows when every write succeeded. A point without it is pending: the next operation rolls it
 * back (`outcome: "rolled-back"`, `by` the `recover` point that did it, `null` when nothing
 * differed). A pending `recover` point is closed as `abandoned` (its pre-images stay reachable).
 * `fh-points-pruned` drops points and their backups (`fh undo --prune`).
 *
 * `summary` (format 1, revision 2; optional, so a reader of revision 1 ignores it): what the
 * operation changes, counted when the point was saved (`point-summary.ts`), so a listing reads
 * records only. Points written before it have none.
 *
 * Legacy `fh-undo-point` records (before the timeline, see `undo-records.ts`) are read as completed
 * `rewind` points while live.
 */

/** Version of the timeline record format written in each record's `v`. */
declare const TIMELINE_FORMAT_VERSION = 1;
/** Record type of a timeline point. */
declare const POINT_RECORD_TYPE = "fh-point";
/** Record type closing a point: done, rolled back or abandoned. */
declare const POINT_DONE_RECORD_TYPE = "fh-point-done";
/** Record type removing points (`fh undo --prune`). */
declare const POINTS_PRUNED_RECORD_TYPE = "fh-points-pruned";
/**
 * What a point was saved for. `rewind`: a rewind to a checkpoint (or a shell capture's rewind);
 * `undo` / `redo`: moving the timeline's cursor back / forward over step `target`; `undo-to`: back
 * to just before point `target` (`fh undo <id>`); `recover`: rolling back the pending point `target`.
 */
type PointOperation = 'rewind' | 'undo' | 'redo' | 'undo-to' | 'recover';
/** How a point ended: `pending` until a done record names it. */
type PointStatus = 'pending' | 'done' | 'rolled-back' | 'abandoned';
/** One point of the timeline: the pre-images of the files an operation changed, and its plan. */
interface TimelinePoint extends UndoPoint {
    operation: PointOperation;
    /** The point an `undo`/`redo`/`undo-to`/`recover` refers to; `null` for a rewind. */
    target: string | null;
    /** What the operation writes at each path of `entries` (see the module comment). */
    plan: UndoEntry[];
    status: PointStatus;
    /** When the point was closed (done, rolled back or abandoned). */
    closedAt?: Date;
    /** True for a legacy `fh-undo-point` record. */
    legacy?: boolean;
    /** Files and +/- counted when the point was saved; undefined for points saved before summaries (or malformed). */
    summary?: PointSummary;
}
/** The `fh-point` record of a point (dates as ISO strings). */
declare function pointRecord(point: Omit<TimelinePoint, 'status' | 'closedAt' | 'legacy'>): LogRecord;
/** The `fh-point-done` record closing `pointId`. */
declare function pointDoneRecord(pointId: string, outcome: Exclude<PointStatus, 'pending'>, timestamp: Date, by?: string | null): LogRecord;
/** The `fh-points-pruned` record removing `pointIds`. */
declare function pointsPrunedRecord(pointIds: readonly string[], timestamp: Date): LogRecord;
/** Parse an `fh-point` record (status `pending`); `undefined` with one warning when malformed or of a newer version. */
declare function parsePointRecord(record: LogRecord, onWarning?: RecordWarningHandler): TimelinePoint | undefined;
/**
 * Every point of a session log, oldest first, with its status: `fh-point` records closed by
 * `fh-point-done`, minus pruned ones, plus live legacy `fh-undo-point` records as done `rewind`
 * points. Malformed records are skipped with a warning. Never throws.
 */
declare function readTimelinePoints(records: readonly LogRecord[], onWarning?: RecordWarningHandler): TimelinePoint[];

/** A session's timeline: its points, the undo stack and where the cursor is. */
interface Timeline {
    /** Every point not pruned, oldest first. */
    points: TimelinePoint[];
    /** The undo stack: ids of completed `rewind` / `undo-to` points, oldest first. */
    steps: string[];
    /** How many steps are applied: `fh undo` undoes `steps[cursor - 1]`, `fh redo` redoes `steps[cursor]`. */
    cursor: number;
    /** Points without a done record, oldest first: interrupted operations. */
    pending: TimelinePoint[];
}
/** Build the timeline of `points` (oldest first, as `readTimelinePoints` returns them). */
declare function buildTimeline(points: readonly TimelinePoint[]): Timeline;
/**
 * The point whose id is `id` or starts with it (at least 4 characters). Throws
 * `InvalidArgumentError` for a prefix of several points, `NotFoundError` for none.
 */
declare function findPoint(timeline: Timeline, id: string, sessionId: string): TimelinePoint;
/**
 * The files as they were just before point `pointId` (see the module comment): path → the
 * pre-image entry, from the earliest point at or after it that touched the path (abandoned points
 * are skipped). Sorted by path.
 */
declare function stateBefore(timeline: Timeline, pointId: string): Map<string, UndoEntry>;
/** The step `fh undo` would undo, or undefined at the start of the stack. */
declare function undoStep(timeline: Timeline): TimelinePoint | undefined;
/**
 * What `fh redo` would do: the step it redoes and the undo point whose pre-state it restores, or
 * undefined at the end of the stack.
 */
declare function redoStep(timeline: Timeline): {
    step: TimelinePoint;
    undo: TimelinePoint;
} | undefined;
/** One point as a listing shows it (`fh undo --list`): from its record alone, no backup is read. */
interface TimelineRow {
    point: TimelinePoint;
    /** True when the point is a step of the undo stack. */
    step: boolean;
    /** True for the step `fh undo` undoes next. */
    current: boolean;
    /** Paths the point's operation changed. */
    files: number;
    /** Lines added and removed, from the point's recorded summary; null for a point saved without one (shown as `?`). */
    insertions: number | null;
    deletions: number | null;
    /** Files of the summary whose lines were not counted; null without a summary. */
    uncounted: number | null;
}
/**
 * The rows of a listing of `timeline`, oldest first. Costs one pass over the points: files and
 * +/- come from each point's recorded summary (`point-summary.ts`).
 */
declare function timelineRows(timeline: Timeline): TimelineRow[];

/** Where the timeline lives: pre-image backups in `store` under `sessionId`, records in `log`. */
interface UndoStore {
    store: BackupStore;
    sessionId: string;
    /** Default `store.sessionLog(sessionId)`. */
    log?: SessionLog;
}
/**
 * The workspace the timeline covers: a `FileHistory` fits. `fs` may offer `readlink`/`symlink`
 * (real `fs/promises` and memfs do); without them a symlink cannot be saved and the operation is
 * refused with `UnsupportedError`.
 */
interface UndoWorkspace {
    projectRoot: string;
    fs: WorkspaceFs;
}
/** Options shared by the timeline operations. */
interface UndoOptions {
    /** File operations at once. Default 16. */
    concurrency?: number;
    /** Makes point ids; default `crypto.randomUUID`. */
    generateId?: () => string;
    /** Clock for record times. Default `() => new Date()`. */
    now?: () => Date;
    /** Receives warnings about malformed records. */
    onWarning?: RecordWarningHandler;
    /**
     * After saving a point, delete the session's `…@undo-…` backups no point refers to (left by a
     * process killed while saving). Only safe while this process holds the session's lock.
     * Default false.
     */
    deleteOrphans?: boolean;
    /**
     * The caller holds the session's lock: every fh temp file in a folder the operation writes is
     * a leftover of a killed process and is removed first (default false: only those older than 60 s).
     */
    sessionLocked?: boolean;
    /**
     * Progress for a bar (see `progress.ts`): `checking` while an undo or redo compares each file
     * with its entry, `saving` while the point's pre-images are saved (files and bytes), `writing`
     * while the files are put back (files and bytes). Must not throw.
     */
    onProgress?: ProgressCallback;
}
/** What {@link capturePoint} saves. */
interface CapturePointInput {
    /** Tracking paths of the files about to be changed. */
    paths: readonly string[];
    operation: PointOperation;
    messageId: string | null;
    target?: string | null;
    /** What the operation will write at each path (see `TimelinePoint.plan`). */
    plan?: readonly UndoEntry[];
    /**
     * Where plan entries that are not `…@undo-…` backups live (a rewind's checkpoint backups), so
     * the point's summary counts their lines; without it they are `uncounted` (see `point-summary.ts`).
     */
    checkpoints?: PlanSource;
}
/** One interrupted operation rolled back by {@link recoverPending}. */
interface RecoveryResult {
    /** The pending point that was rolled back (or abandoned, for a pending `recover` point). */
    pointId: string;
    operation: PointOperation;
    outcome: 'rolled-back' | 'abandoned';
    /** The `recover` point saved before the rollback wrote; `null` when nothing differed. */
    recoverPointId: string | null;
    restored: string[];
    deleted: string[];
}
/** Outcome of an undo, redo, undo-to or rollback, file by file (like a `RewindResult`). */
interface UndoResult {
    /** What ran: `recover` when the command was satisfied by rolling back an interrupted operation. */
    operation: 'undo' | 'redo' | 'undo-to' | 'recover';
    /** The point whose before-state was reached (`undo`, `undo-to`, `recover`) or the step redone (`redo`). */
    target: string;
    /** The point saved for this operation (`null` for a `recover` result that changed nothing). */
    pointId: string | null;
    /** Tracking paths written (a file's bytes and mode, a symlink, or a folder); only files it changed. */
    restored: string[];
    /** Tracking paths removed because nothing was there. */
    deleted: string[];
    /** Tracking paths left alone on purpose, with why. */
    skipped: Array<{
        path: string;
        reason: string;
    }>;
    /** Tracking paths that could not be put back, with the error; the point then stays pending. */
    failed: Array<{
        path: string;
        error: Error;
    }>;
    /** Interrupted operations rolled back first, oldest last. */
    recovered: RecoveryResult[];
}
/** Size of a session's timeline (see {@link timelineSize}). */
interface TimelineSize {
    points: number;
    /** Pre-image backups referenced by the points, and their bytes. */
    backups: number;
    bytes: number;
}
/** Whether a backup name is an undo backup's (`{16 hex}@undo-{12 hex}`). */
declare function isUndoBackupName(name: string): boolean;
/** Backup name of one file in one point: `{sha256(absolutePath)[:16]}@undo-{sha256(pointId)[:12]}`. */
declare function undoBackupFileName(absolutePath: string, undoId: string): string;
/**
 * Whether `log` may hold a timeline point at all, from its raw bytes (`readStream`, one pass, no
 * parsing): false when neither point record type appears anywhere, so there is nothing pending to
 * recover. True when the log cannot stream its bytes.
 */
declare function mayHoldPoints(log: SessionLog): Promise<boolean>;
/** The session's timeline, rebuilt from its log (see `timeline.ts`). */
declare function readTimeline(undo: UndoStore, options?: Pick<UndoOptions, 'onWarning'>): Promise<Timeline>;
/** Every point of the timeline, oldest first (see {@link readTimeline}). */
declare function listUndoPoints(undo: UndoStore, options?: Pick<UndoOptions, 'onWarning'>): Promise<TimelinePoint[]>;
/** Points, pre-image backups and their bytes of the session's timeline. */
declare function timelineSize(undo: UndoStore, options?: Pick<UndoOptions, 'onWarning'>): Promise<TimelineSize>;
/**
 * Save `input.paths` as they are now into a new point and record it (pending until
 * {@link completePoint}). Backups first, then the record: a point never names a backup that is
 * not durable. A folder is saved as a `folder` entry without its contents. Throws — after deleting
 * the backups it made, recording nothing — if a file cannot be saved; `UnsupportedError` when a
 * symlink must be saved and `fs` has no `readlink`, when the store refuses backups (a read-only
 * Claude Code session), or when its log drops `fh-point` records: give an fh store as the undo store.
 */
declare function capturePoint(workspace: UndoWorkspace, undo: UndoStore, input: CapturePointInput, options?: UndoOptions): Promise<TimelinePoint>;
/** Append the done record of `point`: every write of its operation succeeded. */
declare function completePoint(undo: UndoStore, point: Pick<TimelinePoint, 'undoId'>, options?: UndoOptions): Promise<void>;
/**
 * Close `point` as abandoned: its operation was refused before its first write (a rewind that
 * found a damaged backup as it copied, `BackupMissingError`), so it is no step of the timeline.
 * Its own pre-image backups are deleted once the closing record is durable. Throws the log's errors.
 */
declare function abandonPoint(undo: UndoStore, point: Pick<TimelinePoint, 'undoId' | 'entries'>, options?: UndoOptions): Promise<void>;
/**
 * Roll back every pending point (an interrupted or partly failed operation), newest first, to
 * its pre-images: only paths whose current state differs are written, journaled first as a
 * `recover` point; then the point is closed as `rolled-back`. A pending `recover` point is closed
 * as `abandoned` (the rollback it was doing is done again from its target; its own pre-images
 * stay reachable by id). The caller holds the session lock. Throws `FhError` naming the files
 * when a rollback cannot write some of them (the point stays pending; fix and run again), and
 * `BackupMissingError`/`CorruptError` (writing nothing) when a pre-image is missing or unsafe.
 */
declare function recoverPending(workspace: UndoWorkspace, undo: UndoStore, options?: UndoOptions): Promise<RecoveryResult[]>;
/**
 * Undo: first {@link recoverPending}; if that rolled back an interrupted rewind, redo or undo-to,
 * the undo is done (its state before is reached; the result's `operation` is `recover`). Otherwise
 * move the cursor back over the step under it: put back the files as they were just before that
 * step (see `stateBefore`), saved as an `undo` point first. With `options.pointId` (an id or a
 * prefix of one): go back to just before that point (`undo-to`, a new step; a plain undo when it
 * is the step under the cursor). Only files whose state differs are written and reported.
 *
 * Throws `NotFoundError` when there is nothing to undo, no such point or an abandoned one (it
 * changed no file), `InvalidArgumentError` for an ambiguous prefix, `BackupMissingError` (nothing changed) when a pre-image is missing.
 */
declare function undoRewind(workspace: UndoWorkspace, undo: UndoStore, options?: UndoOptions & {
    pointId?: string;
}): Promise<UndoResult>;
/**
 * Redo: first {@link recoverPending}; then move the cursor forward over the next step: put back
 * the files as they were just before the undo that moved the cursor over it, saved as a `redo`
 * point first. Throws `NotFoundError` when there is nothing to redo (no undo, or a rewind since).
 */
declare function redoRewind(workspace: UndoWorkspace, undo: UndoStore, options?: UndoOptions): Promise<UndoResult>;
/**
 * What {@link undoRewind} with `pointId` would write, without writing: the entries of the state
 * just before that point whose paths differ from it now (reporting `checking` to
 * `options.onProgress`). Throws like {@link undoRewind}.
 */
declare function previewUndo(workspace: UndoWorkspace, undo: UndoStore, pointId: string, options?: UndoOptions): Promise<UndoEntry[]>;
/**
 * Remove the points created before `olderThan` that are no longer pending: record the prune, then
 * delete their pre-image backups (a backup another remaining point names is kept). Returns the
 * ids removed. Afterwards the state just before a removed point can no longer be reached.
 */
declare function prunePoints(undo: UndoStore, olderThan: Date, options?: UndoOptions): Promise<string[]>;

/** Environment variable that turns file checkpointing off when set to `1` or `true` (seed 000 §9). */
declare const DISABLE_ENV_VARIABLE = "FH_DISABLE_FILE_CHECKPOINTING";
/** Options of {@link FileHistory.open}. */
interface FileHistoryOptions {
    /** Absolute project root; tracked paths are kept relative to it. */
    projectRoot: string;
    /** The session (a single path segment, e.g. a UUID). */
    sessionId: string;
    /** Where backups and the session log live. */
    store: BackupStore;
    /** Workspace file system (`node:fs/promises`-compatible). Default: `store.workspaceFs`. */
    fs?: WorkspaceFs;
    /**
     * Tracking on or off (seed 000 §9 `fileCheckpointingEnabled`). Default true; the environment
     * variable {@link DISABLE_ENV_VARIABLE} set to `1`/`true` turns it off regardless. When off every
     * call is a cheap no-op: no I/O, empty results, `canRestore` false.
     */
    enabled?: boolean;
    /** Per-file I/O tasks at once. Default 16. */
    concurrency?: number;
    /** Files larger than this many bytes count as changed without a line diff. Default 8 MiB. */
    diffSizeCapBytes?: number;
    /** Margin (ms) for file timestamps in change detection. Default 2000; see `DEFAULT_TIMESTAMP_GRANULARITY_MS`. */
    timestampGranularityMs?: number;
    /** Where snapshot records go. Default `store.sessionLog(sessionId)`; `false` records nothing. */
    log?: SessionLog | false;
    /**
     * State to start from. Default: rebuilt from the session log with `restoreStateFromLog` when the
     * log has records (a restart, or a resumed session), else empty.
     */
    initialState?: FileHistoryState;
    /** Environment read for {@link DISABLE_ENV_VARIABLE}. Default `process.env`. */
    env?: Readonly<Record<string, string | undefined>>;
    /**
     * Hold the session's lock while open, where the store can lock (`capabilities.locking`): a second
     * process or handle opening the same session gets `LockedError`, and `cleanup` leaves the
     * session alone. `close()` releases it. Default true.
     */
    lock?: boolean;
    /**
     * How much of the session's state to rebuild from its log. `'all'` (default): every snapshot
     * (streamed, see `rebuildStateFromLog`). `'latest'`: only the newest ones, read from the two
     * ends of the log where the store can ({@link SessionLog.readEnds}): from the newest full
     * snapshot record on, for a short-lived process that calls `trackEdit` or `makeSnapshot` (an
     * agent hook): its cost does not grow with the session. `makeSnapshot` there continues the
     * session exactly (its snapshot count, and retention from the retention index the full record
     * carries); when the tail starts at an older-format record that does not give them, the first
     * `makeSnapshot` reads the whole log first. Such a history refuses `rewind`, `getDiffStats`,
     * `hasAnyChanges` and `canRestore` with `InvalidArgumentError`, and checks a new snapshot's
     * message id only against the snapshots it read; when the log's ends do not settle the newest
     * snapshot, the whole log is read as with `'all'`.
     */
    rebuild?: 'all' | 'latest';
    /**
     * A lock on the session the caller already took (`store.lockSession`), held by the history
     * instead of taking one, and released by `close()` (or when opening fails). Default: none.
     */
    sessionLock?: SessionLock;
    /**
     * With `rebuild: 'latest'`: the log's ends (`readLogEnds`) the caller read while holding
     * `sessionLock`, so the history does not read them again (an agent hook reads them once per
     * event). Ignored without `sessionLock` (ends read before the lock may be stale).
     */
    logEnds?: LogEnds;
    /**
     * Receives warnings that do not stop the history: session-log lines and records skipped while
     * rebuilding, keys dropped as outside the project root, a project root other than the one the
     * session recorded, backups retention could not delete. Default: ignored.
     */
    onWarning?: (message: string) => void;
}
/** Options of {@link FileHistory.resume}: those of {@link FileHistory.open} for the new session, plus where to resume from. */
interface FileHistoryResumeOptions extends FileHistoryOptions {
    /** The session to resume from; `sessionId` names the new session (it must have no file history yet). */
    fromSessionId: string;
    /**
     * Open the new session even when backups are missing from the old one; their entries are marked
     * unavailable (see `copyFileHistoryForResume`). Default false: throw `ResumeBackupsMissingError`.
     */
    allowMissingBackups?: boolean;
    /** Which other records of the old session to copy (see `copyFileHistoryForResume`). Default `'all'`. */
    carryRecords?: 'all' | 'none';
    /** Progress in backups carried: `(done, total)` (see `copyFileHistoryForResume`). */
    onProgress?: (done: number, total: number) => void;
}
/** Events {@link FileHistory.on} accepts, with their listener types. */
interface FileHistoryEvents {
    /** After a snapshot whose files differ from the previous snapshot's (seed 004 §11). */
    snapshotFilesChanged: SnapshotFilesChangedListener;
}
/** The read side of a file history, shared by {@link FileHistory} and its subagent handle. */
interface FileHistoryReader {
    readonly projectRoot: string;
    readonly sessionId: string;
    readonly store: BackupStore;
    readonly fs: WorkspaceFs;
    readonly enabled: boolean;
    /**
     * The current state; treat as read-only. It is replaced on each change, except that `trackEdit`
     * adds to the newest snapshot's `trackedFileBackups` and to `trackedFiles` in place.
     */
    readonly state: Readonly<FileHistoryState>;
    getDiffStats(messageId: string, options?: DiffStatsOptions): Promise<DiffStats>;
    hasAnyChanges(messageId: string): Promise<boolean>;
    canRestore(messageId: string): boolean;
}
/** The sub-agent {@link FileHistory.forSubagent} attributes edits to (Claude Code's `agent_id` / `agent_type`). */
interface SubagentIdentity {
    /** The sub-agent's id: a non-empty string, unique within the session. */
    agentId: string;
    /** Its type (`general-purpose`, `Explore`, a custom agent's name), when known. */
    agentType?: string;
}
/**
 * A sub-agent's view of the file history (seed 004 §8, issue 14): it reads the main history; its
 * `trackEdit` backs files up into the main conversation's current turn exactly as the main
 * history's does, attributing each change to the sub-agent; `makeSnapshot` does nothing, so
 * snapshots stay one per main-conversation turn.
 */
interface SubagentFileHistory extends FileHistoryReader {
    /** The sub-agent this handle attributes to. */
    readonly agent: Readonly<SubagentIdentity>;
    /**
     * Back `path` up before the sub-agent writes it and record the sub-agent in the entry's
     * `changedBy` (see `fileHistoryTrackEdit`); errors and `options` as {@link FileHistory.trackEdit}.
     */
    trackEdit(path: string, options?: TrackEditOptions): Promise<void>;
    /** Does nothing; resolves to undefined (a sub-agent's messages are not main turns). */
    makeSnapshot(messageId: string): Promise<undefined>;
    /** {@link FileHistory.beginCommand} before a shell command the sub-agent runs (same errors). */
    beginCommand(options: BeginCommandOptions): Promise<CommandWindow>;
    /**
     * {@link FileHistory.endCommand} after it: the files the command changed go into the main turn's
     * checkpoint, each entry's `changedBy` naming the sub-agent (an `agent` in `options` is ignored).
     */
    endCommand(windowId: string, options: EndCommandOptions): Promise<CommandCapture>;
}
/**
 * Most `fh-snapshot` diff records between two full ones: past it the next snapshot is recorded in
 * full, so a rebuild replays at most this many small records after a full one.
 */
declare const FULL_SNAPSHOT_RECORD_EVERY = 1000;
/** One session's file history. Create with {@link FileHistory.open}. */
declare class FileHistory implements FileHistoryReader {
    readonly projectRoot: string;
    readonly sessionId: string;
    readonly store: BackupStore;
    readonly fs: WorkspaceFs;
    readonly enabled: boolean;
    /** What {@link FileHistory.resume} carried into this session; undefined for {@link FileHistory.open}. */
    readonly resumeResult: ResumeResult | undefined;
    private current;
    private readonly context;
    private readonly records;
    private partial;
    private readonly log;
    private readonly recorder;
    private readonly options;
    private readonly closeLog;
    private readonly lock;
    private readonly listeners;
    /** trackEdit calls still running; close waits for them. */
    private readonly tracking;
    /** makeSnapshot and rewind run one at a time, in call order. */
    private serial;
    private closed;
    private readonly updateState;
    private constructor();
    /**
     * Open the file history of `options.sessionId` (issue 3 "Rebuild and resume"):
     * 1. take the session's lock (see {@link FileHistoryOptions.lock}); `LockedError` naming the
     *    session if another process or handle has it open;
     * 2. read the session log and rebuild the state from it with `restoreStateFromLog` (unless
     *    `initialState` is given), so a restart continues where the last process stopped;
     * 3. on the session's first open, append an `fh-session` record naming the project root.
     * Throws `InvalidArgumentError` naming the option for a relative project root, an empty session
     * id or a bad knob (see {@link FileHistoryOptions}), and the store's errors; on any error the
     * lock is released. Does no I/O when tracking is off.
     */
    static open(options: FileHistoryOptions): Promise<FileHistory>;
    /**
     * Resume session `fromSessionId` into the new session `sessionId` (seed 000 §8): carry every
     * backup its history references into the new session (hard links where the store can, copies
     * otherwise, see `copyFileHistoryForResume`), record the carried history there, and open it.
     * The old session is only read. The new session's later backups continue the version numbers.
     *
     * Throws `ResumeBackupsMissingError` listing every backup missing from the old session (unless
     * `allowMissingBackups`): the carried history is recorded anyway, with those entries marked
     * unavailable, so `FileHistory.open` of the new session works afterwards. Throws `ConflictError`
     * if the new session already has file history, `InvalidArgumentError` for equal ids or a `log`
     * option (a resumed session's records go to `store.sessionLog(sessionId)`), `LockedError` if the
     * new session is open elsewhere. When tracking is off it opens the new session and carries nothing.
     */
    static resume(options: FileHistoryResumeOptions): Promise<FileHistory>;
    /** Build a history; `heldLock` is a lock already taken for it (released if opening fails). */
    private static create;
    /** True while this history holds its session's lock: opened with `lock` (the default) and not closed. */
    get holdsLock(): boolean;
    /** The current state (snapshots oldest first, tracked files, sequence); see {@link FileHistoryReader.state}. */
    get state(): Readonly<FileHistoryState>;
    /**
     * Back `path` up before the main agent writes it (seed 000 §5), recording the main agent in
     * the entry's `changedBy` (issue 14). See `fileHistoryTrackEdit`: resolves once the backup and
     * its record are durable; throws `OutsideRootError` for a path outside the project root. A
     * no-op when tracking is off. Sub-agents use {@link forSubagent}. `options.prepared`: the
     * file's bytes already copied into the store (`prepareTrackEdit`, before the session's lock), used
     * as its backup when one is needed and removed otherwise.
     */
    trackEdit(path: string, options?: TrackEditOptions): Promise<void>;
    /** {@link trackEdit} attributed to `agent` (issue 14). */
    private trackEditBy;
    /**
     * Snapshot every tracked file under `messageId` (a user turn). See `fileHistoryMakeSnapshot`.
     * Resolves with the snapshot once it is durable in the log, after `snapshotFilesChanged`
     * listeners ran (a listener's error rejects this call; the snapshot stays made). Undefined when
     * tracking is off. Throws `ConflictError` when the session already has a snapshot for
     * `messageId` (a second one would hide the first from rewinds).
     */
    makeSnapshot(messageId: string): Promise<FileHistorySnapshot | undefined>;
    /** What a rewind to `messageId` would change (dry run). See `fileHistoryGetDiffStats`. */
    getDiffStats(messageId: string, options?: DiffStatsOptions): Promise<DiffStats>;
    /** Whether a rewind to `messageId` would change any file. See `fileHistoryHasAnyChanges`. */
    hasAnyChanges(messageId: string): Promise<boolean>;
    /** Whether a snapshot exists for `messageId` (false when tracking is off). */
    canRestore(messageId: string): boolean;
    /**
     * Put every tracked file (or `options.paths`) back as it was at the snapshot of `messageId`.
     * See `fileHistoryRewind` for the result and the errors (`NotFoundError`, `BackupMissingError`).
     * An empty result when tracking is off.
     *
     * The bare operation: it saves no timeline point, so it cannot be undone (`RewindSession.restore`
     * is the safe path). It does first roll back an operation an interrupted `RewindSession` left
     * pending in this session's log (unless `options.recoverFirst` is false), so it never writes
     * over a half-done rewind or undo; those are listed in the result's `recovered`. Throws
     * `ConflictError` (nothing changed) when one is pending and this history does not hold the lock.
     */
    rewind(messageId: string, options?: RewindOptions): Promise<RewindResult & {
        recovered?: RecoveryResult[];
    }>;
    /**
     * Roll back the operations an interrupted rewind, undo or redo left pending in this session's
     * log (issue 10's journal, `recoverPending`), before a bare rewind writes the project. Reads the
     * log once; nothing to do when it has no pending point (or the history has no log). Throws
     * `ConflictError`, writing nothing, when there is one and this history does not hold the
     * session's lock (a recovery must not race another process).
     */
    private recoverInterrupted;
    /**
     * Begin a command window before a shell command runs (issue 12): keep what is needed to put back
     * every file the command may change. See `beginCommand` (core/src/command) for the pre-images
     * and the errors. Works on a history opened with `rebuild: 'latest'`. Throws
     * `InvalidArgumentError` when tracking is off (there is nothing to attach to).
     */
    beginCommand(options: BeginCommandOptions): Promise<CommandWindow>;
    /**
     * End command window `windowId` after the command ran: attach every file it changed to the
     * newest checkpoint as if `trackEdit` had run before the change. See `endCommand`.
     */
    endCommand(windowId: string, options: EndCommandOptions): Promise<CommandCapture>;
    /** End the session's open command windows (all, or those begun before a moment). See `endOpenCommands`. */
    endOpenCommands(options: EndOpenCommandsOptions): Promise<CommandCapture[]>;
    /**
     * A handle for the sub-agent `agent` (seed 004 §8, issue 14): the same reads; its `trackEdit`
     * backs up into the current main turn and attributes the change to the sub-agent; its
     * `makeSnapshot` does nothing. Throws `InvalidArgumentError` when `agent.agentId` is not a
     * non-empty string or `agent.agentType` is given and is not one.
     */
    forSubagent(agent: SubagentIdentity): SubagentFileHistory;
    /**
     * Listen for `snapshotFilesChanged` (seed 004 §11). Contents are read only while someone
     * listens. Returns a function that removes the listener.
     */
    on<Name extends keyof FileHistoryEvents>(event: Name, listener: FileHistoryEvents[Name]): () => void;
    /**
     * Wait for running operations and pending records, then release the session lock. Idempotent;
     * other calls made after it throw.
     */
    close(): Promise<void>;
    private assertEnabled;
    /** Run `task` as a tracking operation: `close` waits for it. */
    private whileTracking;
    /**
     * Replace a partial state that cannot make the next snapshot (its tail did not start at an
     * `fh-snapshot` full record, so the snapshot count is unknown) with the whole log's.
     */
    private readWholeLog;
    private assertWhole;
    private assertOpen;
    private runSerially;
    private emitFilesChanged;
}

/** Record type of {@link WorktreeStateRecord}. */
declare const WORKTREE_STATE_RECORD_TYPE = "worktree-state";
/** Where a session's worktree was and what it was made from (Claude Code's `WorktreeSession`). */
interface WorktreeSession {
    /** Absolute folder the session started in (in the main checkout). */
    originalCwd: string;
    /** Absolute folder of the worktree. */
    worktreePath: string;
    /** The worktree's short name (e.g. `feature-x` for `.claude/worktrees/feature-x`). */
    worktreeName: string;
    /** The branch checked out in the worktree (without `refs/heads/`). */
    worktreeBranch: string;
    /** The branch the main checkout was on when the worktree was made, if recorded. */
    originalBranch?: string;
    /** The commit (hex object id) the worktree was made from, if recorded. */
    originalHeadCommit?: string;
    /** True when a WorktreeCreate hook made the worktree (it may not be a git worktree). */
    hookBased?: boolean;
}
/** A parsed `worktree-state` record: the session's worktree, or null once it left it. */
interface WorktreeStateRecord {
    type: typeof WORKTREE_STATE_RECORD_TYPE;
    /** The session that wrote the record, if recorded. */
    sessionId: string | undefined;
    worktreeSession: WorktreeSession | null;
}
/** Build the `worktree-state` log record a host appends when a session enters (or, with null, leaves) a worktree. */
declare function worktreeStateRecord(sessionId: string, worktreeSession: WorktreeSession | null): LogRecord;
/**
 * Whether `name` is a branch name git accepts (`git check-ref-format --branch` rules): no control
 * characters, spaces or `~^:?*[\`; no `..`, `@{`, `//`; no component starting with `.` or ending
 * with `.lock`; not starting with `-` or `/`, not ending with `/` or `.`; not `@` or `HEAD`.
 */
declare function isValidBranchName(name: string): boolean;
/**
 * Validate one `worktreeSession` object (see {@link WorktreeSession}) and return a clean copy.
 * Unknown fields are ignored; optional fields may be absent or null. Throws
 * `InvalidArgumentError` naming the field (prefixed with `field`) for a missing or odd value: a
 * relative or non-normalised path, a worktree path equal to the original folder, a name or branch
 * git would not accept, a commit that is not a full hex object id.
 */
declare function parseWorktreeSession(value: unknown, field?: string): WorktreeSession;
/**
 * The session's worktree state from its records (any order of any record types): the last
 * `worktree-state` record wins. Returns undefined when there is none, a record whose
 * `worktreeSession` is null when the session left its worktree. Only the winning record is
 * validated; throws `InvalidArgumentError` naming the field when it is malformed (see
 * {@link parseWorktreeSession}).
 */
declare function findWorktreeState(records: Iterable<unknown>): WorktreeStateRecord | undefined;
/**
 * Check that the worktree sits where a worktree of this repository may: strictly inside
 * `repositoryRoot` (but not inside its `.git` folder) or next to it (same parent folder).
 * `repositoryRoot` defaults to `originalCwd`; pass git's top-level folder when originalCwd is a
 * subfolder. Throws `InvalidArgumentError` naming `worktreeSession.worktreePath` otherwise.
 */
declare function assertWorktreePlacement(session: WorktreeSession, repositoryRoot?: string): void;
/** git's registration of a worktree at the session's path (`git worktree list`). */
interface WorktreeRegistration {
    /** Branch checked out there (without `refs/heads/`), or null for a detached HEAD. */
    branch: string | null;
    /** True when git would prune it (its folder or `.git` file is gone). */
    prunable: boolean;
    /** True when it is locked (`git worktree lock`); prune leaves it alone. */
    locked: boolean;
}
/** What is at the worktree's path on disk. */
type WorktreeFolderState = 'missing' | 'empty' | 'present';
/** The facts {@link planWorktreeRestore} decides on; the caller gathers them from disk and git. */
interface WorktreeFacts {
    /** Git's top-level folder of the repository `originalCwd` is in. Default: originalCwd. */
    repositoryRoot?: string;
    /** `missing`, an `empty` folder, or a folder/file with something in it (`present`). */
    dir: WorktreeFolderState;
    /** git's registration of a worktree at worktreePath, or null when git names none there. */
    registered: WorktreeRegistration | null;
    /** Whether `refs/heads/{worktreeBranch}` exists. */
    branchExists: boolean;
    /** Another registered worktree that has the branch checked out (and whether it is stale), or null. */
    branchCheckedOutAt?: {
        path: string;
        prunable: boolean;
    } | null;
    /** Whether `originalHeadCommit` names a commit in the repository (asked only when the branch is gone). */
    commitExists?: boolean;
}
/** One git step of a restore, run in order. */
type WorktreeAction = 
/** `git worktree prune`: drop registrations whose folders are gone. */
{
    type: 'prune';
}
/**
 * `git worktree add <worktreePath> <branch>`; with `newBranchAt`,
 * `git worktree add -b <branch> <worktreePath> <newBranchAt>`.
 */
 | {
    type: 'add';
    worktreePath: string;
    branch: string;
    newBranchAt?: string;
};
/** What {@link planWorktreeRestore} decided. `actions` are empty unless the worktree is recreated. */
type WorktreeRestorePlan = 
/** The worktree is there, registered, on its branch: use it as it is. */
{
    kind: 'reuse';
    worktreePath: string;
    branch: string;
    actions: [];
}
/** Recreate it on its existing branch. */
 | {
    kind: 'recreate';
    worktreePath: string;
    branch: string;
    actions: WorktreeAction[];
}
/** The branch is gone: recreate it as a new branch at `originalHeadCommit`. */
 | {
    kind: 'recreate-from-commit';
    worktreePath: string;
    branch: string;
    commit: string;
    actions: WorktreeAction[];
}
/** Do nothing; `reason` says why (one sentence naming the path, branch or commit). */
 | {
    kind: 'refuse';
    worktreePath: string;
    branch: string;
    reason: string;
    actions: [];
};
/** Input of {@link planWorktreeRestore}. */
interface PlanWorktreeRestoreInput {
    /** The session's worktree (from {@link findWorktreeState}). */
    worktreeState: WorktreeSession;
    /** What is on disk and in git now. */
    exists: WorktreeFacts;
}
/**
 * Decide how to bring a session's worktree back (seed 000 §8 `restoreWorktreeForResume`):
 * - registered there, folder present, on its branch → `reuse`;
 * - registered there but on another branch, a locked stale registration, a non-empty folder git
 *   does not know as this worktree, the branch checked out in another live worktree, or the branch
 *   gone with no usable `originalHeadCommit`, or a hook-made worktree → `refuse` (nothing changes);
 * - folder missing or empty → `recreate` on the branch, or `recreate-from-commit` (a new branch of
 *   the same name at `originalHeadCommit`) when the branch is gone; a stale registration of the
 *   path or of the branch is pruned first.
 * Throws `InvalidArgumentError` when the worktree path is not inside or next to the repository
 * (see {@link assertWorktreePlacement}).
 */
declare function planWorktreeRestore(input: PlanWorktreeRestoreInput): WorktreeRestorePlan;
/** Input of {@link planWorktreeExit}. */
interface PlanWorktreeExitInput {
    /** The session's worktree (from {@link findWorktreeState}). */
    worktreeState: WorktreeSession;
    exists: {
        /** Git's top-level folder of the repository `originalCwd` is in. Default: originalCwd. */
        repositoryRoot?: string;
        dir: WorktreeFolderState;
        registered: WorktreeRegistration | null;
        /** Paths `git status --porcelain` lists in the worktree (changed, staged, untracked); empty when clean. */
        changedFiles: readonly string[];
    };
}
/** What {@link planWorktreeExit} decided. */
type WorktreeExitPlan = 
/** `git worktree remove <worktreePath>` (without --force); the branch is kept. */
{
    kind: 'remove';
    worktreePath: string;
    branch: string;
}
/** Nothing is there to remove. */
 | {
    kind: 'absent';
    worktreePath: string;
    branch: string;
}
/** Do nothing; `reason` says why; `changedFiles` lists uncommitted changes when those are the reason. */
 | {
    kind: 'refuse';
    worktreePath: string;
    branch: string;
    reason: string;
    changedFiles: string[];
};
/**
 * Decide whether a restored worktree may be removed (seed 000 §8 `exitRestoredWorktree`): only a
 * live worktree git knows at that path, on the session's branch, unlocked, with no uncommitted
 * changes (`git status --porcelain` empty). A folder git does not know as a worktree is never
 * removed. The branch is never deleted. Throws `InvalidArgumentError` for a misplaced worktree path
 * (see {@link assertWorktreePlacement}).
 */
declare function planWorktreeExit(input: PlanWorktreeExitInput): WorktreeExitPlan;
/** Input of {@link planWorktreeRewind}. */
interface PlanWorktreeRewindInput {
    /** The session's worktree. */
    worktreeState: WorktreeSession;
    /** The session's rebuilt file-history state (tracking paths relative to `projectRoot`). */
    state: Readonly<FileHistoryState>;
    /** The absolute root the state's tracking paths are relative to (the session's project root). */
    projectRoot: string;
    /** The snapshot to rewind to. Default: the latest snapshot (of `eligibleMessageIds`, when given). */
    messageId?: string;
    /**
     * Messages whose snapshots were taken while the session was in the worktree (see
     * {@link worktreeSnapshotMessageIds}); others are refused. Default: every snapshot.
     */
    eligibleMessageIds?: ReadonlySet<string>;
}
/** What {@link planWorktreeRewind} decided. */
interface WorktreeRewindPlan {
    /** The snapshot to rewind to, or undefined when the session has no snapshots (nothing to rewind). */
    messageId: string | undefined;
    /** Tracking paths (relative to `projectRoot`) inside the worktree to rewind, sorted. */
    paths: string[];
    /** Tracked paths outside the worktree, left alone, sorted. */
    outside: string[];
    /** The worktree's path relative to `projectRoot` (`''` when they are the same folder). */
    worktreePrefix: string;
}
/**
 * Choose what a worktree restore rewinds: the session's tracked files that lie inside the
 * worktree, to the snapshot of `messageId` (default: the latest eligible one). The session's project
 * root may be the worktree itself or a folder around it (tracked paths outside the worktree are
 * left alone and listed). Throws `NotFoundError` naming the message when no snapshot has it, and
 * `InvalidArgumentError` when it is not eligible or `projectRoot` is not absolute.
 */
declare function planWorktreeRewind(input: PlanWorktreeRewindInput): WorktreeRewindPlan;
/**
 * The messages whose snapshots a session took while it was in the worktree at `worktreePath`.
 * Claude Code re-roots a session's file history when it enters a worktree (its tracking paths then
 * resolve against the worktree), so only these snapshots can be rewound into the worktree.
 *
 * Records are read in order: the session counts as inside from its first record when its first
 * `cwd` is the worktree (or a folder in it), and from each `worktree-state` record naming the
 * worktree until one names something else (or null). A `file-history-snapshot` record that is not
 * an update adds its message when inside and removes it when outside. Malformed records are
 * ignored. Never throws.
 */
declare function worktreeSnapshotMessageIds(records: Iterable<unknown>, worktreePath: string): Set<string>;

/** One agent's changes in a turn: the tracked files it changed, sorted. */
interface AgentTurnChanges {
    agent: AgentIdentity;
    paths: string[];
}
/**
 * Who changed what in the turn of `snapshot`: one entry per agent, the main agent first, then
 * sub-agents in the order of their first change; paths sorted. Empty when nothing was attributed.
 */
declare function turnAgentChanges(snapshot: FileHistorySnapshot): AgentTurnChanges[];
/** A file the chosen agent changed after the checkpoint that other agents changed too. */
interface AgentConflict {
    /** Tracking path. */
    path: string;
    /** The other agents that changed it after the checkpoint, in the order of their first change. */
    changedBy: AgentIdentity[];
}
/** What a rewind of one agent's changes covers (see {@link selectAgentChanges}). */
interface AgentSelection {
    /** The agent the query named. */
    agent: AgentIdentity;
    /** Tracking paths to rewind, sorted: the agent's files no other agent changed, plus conflicts named in `paths`. */
    paths: string[];
    /** The agent's files other agents changed too and `paths` did not name: left alone. */
    conflicts: AgentConflict[];
}
/** Options of {@link selectAgentChanges}. */
interface SelectAgentOptions {
    /** Absolute project root, for `paths`. */
    projectRoot: string;
    /**
     * Conflicting files to rewind anyway (absolute, or relative to the project root). Each must be
     * a file the agent changed after the checkpoint, else `InvalidArgumentError`.
     */
    paths?: readonly string[];
}
/**
 * Every agent named in the attributions of the snapshot of `messageId` and later ones: the main
 * agent first, then sub-agents in the order of their first change.
 */
declare function agentsSince(state: Readonly<FileHistoryState>, messageId: string): AgentIdentity[];
/**
 * The agent `query` names among those that changed files after the checkpoint of `messageId`:
 * `main` for the main agent, else a sub-agent id or a unique prefix of one. Throws
 * `NotFoundError` when no snapshot has `messageId` or no such agent changed anything after it
 * (naming the agents that did), `InvalidArgumentError` for an empty query or a prefix shared by
 * several agents (naming them).
 */
declare function resolveAgent(state: Readonly<FileHistoryState>, messageId: string, query: string): AgentIdentity;
/**
 * Which files a rewind of `query`'s changes after the checkpoint of `messageId` covers
 * (`fh rewind <id> --agent <agentId>`): the files that agent changed in the checkpoint's turn or
 * later. A file another agent (or the main agent) also changed after the checkpoint is a
 * conflict — restoring it would undo their change too — and is left out unless `options.paths`
 * names it. Throws like {@link resolveAgent}, and `InvalidArgumentError` for a path in
 * `options.paths` the agent did not change after the checkpoint. Pure: reads `state` only.
 */
declare function selectAgentChanges(state: Readonly<FileHistoryState>, messageId: string, query: string, options: SelectAgentOptions): AgentSelection;
/** The `skipped` entry a conflict becomes in a rewind's result or dry run. */
declare function conflictSkip(conflict: AgentConflict): {
    path: string;
    reason: string;
};

/**
 * The dry run a front end shows before a rewind (seed 000 §2, §7): the diff stats of the rewind,
 * plus which of the files it would overwrite changed after the session's latest snapshot — edits
 * the agent or the user made since the last turn began, which no snapshot holds. A front end
 * should warn about those; `RewindSession.restore` also saves them in an undo point first.
 */

/** A file because of which a rewind would be refused as a whole, and why. */
interface RewindRefusal {
    /** Tracking path. */
    path: string;
    /** `backup-missing`: its backup at the checkpoint is missing or damaged; `unreadable`: the file as it is now cannot be read, so it cannot be saved in the undo point first. */
    kind: 'backup-missing' | 'unreadable';
    /** The error as the dry run met it. */
    reason: string;
}
/**
 * {@link DiffStats} with `changedSinceLatestSnapshot` and `refusals` always filled, and, for a
 * rewind of one agent's changes, `agent`: which files it covers and which it leaves alone as
 * conflicts (those are listed in `skipped` too).
 */
type RewindPreview = DiffStats & {
    changedSinceLatestSnapshot: string[];
    refusals: RewindRefusal[];
    agent?: AgentSelection;
};
/**
 * The files of `stats` (a dry run of a rewind to `messageId` over `state`) because of which
 * `RewindSession.restore` would refuse the rewind and change nothing: each file whose backup at
 * the checkpoint is missing or damaged (`stats.missing`), and — when the rewind saves an undo point
 * first (`withUndo`, RewindSession's default) — each file the dry run could not read (a `failed`
 * entry whose checkpoint backup did not itself fail when it was taken: those are only reported
 * and the other files rewind). Empty when the rewind would go ahead. Pure.
 */
declare function rewindRefusals(state: Readonly<FileHistoryState>, messageId: string, stats: DiffStats, withUndo?: boolean): RewindRefusal[];
/** Options of {@link rewindPreview}: those of the diff stats, plus `agent`. */
interface RewindPreviewOptions extends DiffStatsOptions {
    /**
     * Only the files this agent changed after the checkpoint (`main`, a sub-agent id or a unique
     * prefix, see `selectAgentChanges`); `paths` then names conflicting files to include.
     */
    agent?: string;
}
/**
 * The dry run of a rewind to `messageId` (optionally only `options.paths`, or only `options.agent`'s
 * files): `history.getDiffStats`
 * plus `changedSinceLatestSnapshot`, the files of `filesChanged` whose current bytes or mode differ
 * from the latest snapshot (sorted), and `refusals` (see {@link rewindRefusals}). Nothing is written. Throws like `getDiffStats`
 * (`NotFoundError` without a snapshot for `messageId`, `InvalidArgumentError` for an untracked path).
 */
declare function rewindPreview(history: FileHistoryReader, messageId: string, previewOptions?: RewindPreviewOptions): Promise<RewindPreview>;

/**
 * The restore menu (seed 000 §2, MessageSelector): what a person may do with a chosen message.
 */

/**
 * - `both`: restore code and conversation (the default when code can be restored)
 * - `conversation`: rewind the conversation only
 * - `code`: restore the files only
 * - `summarize`: replace the message and everything after it with a summary (partial compact)
 * - `summarize_up_to`: replace everything before the message with a summary
 * - `nevermind`: do nothing
 */
type RestoreMode = 'both' | 'conversation' | 'code' | 'summarize' | 'summarize_up_to' | 'nevermind';
/** One entry of the restore menu. */
interface RestoreOption {
    mode: RestoreMode;
    /** A label for the menu, e.g. `Restore code and conversation`. */
    label: string;
    /** True for the option to preselect. */
    isDefault: boolean;
    /**
     * What the option would do to files (dry run): the rewind's stats for `both` and `code`, with
     * `changedSinceLatestSnapshot`; empty stats for the others, which change no file. For an
     * option with `agent`: the stats of that agent's files only, and in `diffStats.agent` the files
     * it covers and the conflicts it leaves alone (see `RewindPreview.agent`).
     */
    diffStats: RewindPreview;
    /**
     * "Only this sub-agent's changes" (issue 14; mode `code`): restoring this option is
     * `restore({ messageId, mode: 'code', agent: agent.agentId })`, which rewinds only the files
     * that sub-agent changed after the checkpoint and leaves those another agent changed too.
     * Absent for every other option.
     */
    agent?: Extract<AgentIdentity, {
        by: 'subagent';
    }>;
}
/** The label of the "only this sub-agent's changes" option of `agent`. */
declare function subagentOptionLabel(agent: {
    agentId: string;
    agentType?: string;
}): string;
/** Menu labels, as Claude Code words them. */
declare const RESTORE_MODE_LABELS: Readonly<Record<RestoreMode, string>>;
/** Diff stats of an option that changes no file. */
declare function emptyDiffStats(): RewindPreview;

/** Options of {@link forkSession}. */
interface ForkSessionOptions {
    /**
     * The store holding the source session; the fork is written to it too (a `ClaudeCodeStore`
     * writes it as a new Claude Code session and needs its `projectRoot` option for that).
     */
    store: BackupStore;
    /** The source session; read, never written. */
    sessionId: string;
    /** Absolute project root the tracking paths are relative to. */
    projectRoot: string;
    /** Fork before this user message (see `planFork`); `CURRENT_PROMPT_ID` copies the whole branch. */
    messageId: string;
    /** The source's records. Default: `store.sessionLog(sessionId).read()`. */
    records?: readonly ConversationRecord[];
    /**
     * The source's file-history state (for example a live `FileHistory`'s). Default: rebuilt from
     * the source records. Either way only the snapshots of kept messages are carried.
     */
    state?: Readonly<FileHistoryState>;
    /** The new session id. Default: a random UUID. */
    newSessionId?: string;
    /** Time recorded as the new session's creation. Default: now. */
    now?: Date;
    /** Receives warnings about skipped records. */
    onWarning?: (message: string) => void;
    /**
     * Progress in backups carried into the fork: `(0, total)` first, then `(done, total)` as each
     * carry ends (see `copyFileHistoryForResume`). For a progress bar; it must not throw.
     */
    onProgress?: (done: number, total: number) => void;
}
/** What {@link forkSession} wrote. */
interface ForkResult {
    /** The new session's id. */
    sessionId: string;
    /** The kept messages (as written), file-history records and the rewind the fork is made from. */
    plan: ForkPlan;
    /**
     * The carried file history: its state (entries whose backup was missing carry `error`), which
     * backups were linked, copied or missing, and the records written.
     */
    resume: ResumeResult;
}
/**
 * Write the conversation of session `sessionId`, rewound to before `messageId`, as a new session
 * (see the file comment). The new log gets the kept messages and carried session records (chain
 * intact, new `sessionId`, see `planFork`), then an `fh-session` record and one
 * `file-history-snapshot` record per carried snapshot, then the carried `worktree-state` records; the
 * backups those snapshots reference are carried into the new session. A backup missing from the
 * source does not stop the fork: its entries are marked unavailable (listed in `resume.missing`).
 *
 * Throws like `planFork` for a bad `messageId`, `ConflictError` when the new session already has
 * records or backups, and the store's error when writing fails — after removing what it had
 * written of the new session.
 */
declare function forkSession(options: ForkSessionOptions): Promise<ForkResult>;

/**
 * `fh-checkpoint` records (version 1): fh-only JSON lines in the session log that mark a snapshot
 * as a checkpoint taken outside a user turn's prompt — at the end of a turn (Claude Code's `Stop`
 * hook event) or on demand (`fh checkpoint [--label]`). The snapshot itself is an ordinary one
 * under its own message id, appended before this record; a snapshot whose record was lost (the
 * process was killed between the two) is still a checkpoint, only unmarked. Claude Code ignores
 * the record type.
 *
 * Shape: `{ "type": "fh-checkpoint", "version": 1, "sessionId", "messageId", "kind":
 * "end-of-turn" | "manual", "label"?: string, "timestamp": ISO 8601 }`.
 */

/** The record type of a checkpoint mark. */
declare const CHECKPOINT_RECORD_TYPE = "fh-checkpoint";
/** Why a checkpoint was taken: a turn ended (`Stop`) or a person asked for one. */
type CheckpointKind = 'end-of-turn' | 'manual';
/** A checkpoint mark as read from the log. */
interface CheckpointMark {
    /** The message id of the snapshot the mark is about. */
    messageId: string;
    kind: CheckpointKind;
    /** The label given to `fh checkpoint --label`; undefined when none. */
    label?: string;
    timestamp: Date;
}
/** The `fh-checkpoint` record marking the snapshot `mark.messageId` (see the module comment). */
declare function checkpointRecord(sessionId: string, mark: CheckpointMark): LogRecord;
/**
 * The checkpoint mark in `record`, or undefined when it is not a well-formed `fh-checkpoint`
 * record of version 1 (an unknown kind, a non-string label or id, a bad timestamp).
 */
declare function parseCheckpointRecord(record: LogRecord): CheckpointMark | undefined;
/** The checkpoint marks among `records`, by message id (a later mark of the same id wins). */
declare function checkpointMarks(records: Iterable<LogRecord>): Map<string, CheckpointMark>;

/** The file history a checkpoint is taken in: a `FileHistory` fits. */
interface CheckpointHistory {
    readonly sessionId: string;
    readonly store: BackupStore;
    makeSnapshot(messageId: string): Promise<FileHistorySnapshot | undefined>;
}
/** Options of {@link takeCheckpoint}. */
interface TakeCheckpointOptions {
    /** Default `manual`; the `Stop` hook passes `end-of-turn`. */
    kind?: CheckpointKind;
    /** A person's name for it (`fh checkpoint --label`), shown by `fh list`: printable, at most {@link MAX_CHECKPOINT_LABEL_LENGTH} characters. */
    label?: string;
    /** The checkpoint's message id. Default `crypto.randomUUID()`. */
    messageId?: string;
    /** Where the mark is appended. Default `history.store.sessionLog(history.sessionId)`. */
    log?: SessionLog;
}
/** A checkpoint taken: its snapshot and its mark. */
interface TakenCheckpoint {
    messageId: string;
    snapshot: FileHistorySnapshot;
    mark: CheckpointMark;
}
/** Longest checkpoint label, in characters. */
declare const MAX_CHECKPOINT_LABEL_LENGTH = 200;
/**
 * Throw `InvalidArgumentError` (nothing recorded) for a label that is empty, longer than
 * {@link MAX_CHECKPOINT_LABEL_LENGTH} or holds a control character (an escape sequence would reach
 * every terminal that lists it).
 */
declare function checkCheckpointLabel(label: string): void;
/**
 * Take a checkpoint now (see the module comment). Resolves once the snapshot and its mark are
 * durable; undefined when tracking is off (nothing recorded). Throws `InvalidArgumentError` for a
 * bad label (see {@link checkCheckpointLabel}) before anything is written, and what `makeSnapshot`
 * and the log's `append` throw.
 */
declare function takeCheckpoint(history: CheckpointHistory, options?: TakeCheckpointOptions): Promise<TakenCheckpoint | undefined>;

/** The file history a {@link RewindSession} drives: a `FileHistory` (not a subagent handle). */
interface RewindableHistory extends FileHistoryReader {
    rewind(messageId: string, options?: RewindOptions): Promise<RewindResult>;
    /**
     * True while this history holds its session's lock (`FileHistory` opened with the default
     * `lock`). Undo backups left orphaned by a killed save are cleared only then.
     */
    readonly holdsLock?: boolean;
    /** Snapshot the tracked files under a new message id (`FileHistory.makeSnapshot`); needed by {@link RewindSession.checkpoint}. */
    makeSnapshot?(messageId: string): Promise<FileHistorySnapshot | undefined>;
}
/** Options of {@link RewindSession}. */
interface RewindSessionOptions<R extends ConversationRecord> {
    history: RewindableHistory;
    /** The conversation so far, in the transcript shape. Default: none (code-only use, `fh undo`). */
    messages?: readonly R[];
    /** The host's summariser; without it the summarize options are not offered. */
    summarize?: SummarizeCallback;
    /**
     * Where the timeline (points and their pre-image backups) goes. Default: the history's own
     * store, session and log. `false`: no timeline (rewinds cannot be undone, nothing is journaled).
     * A Claude Code session is read-only: give an fh store here.
     */
    undo?: UndoStore | false;
    /** Makes ids (conversation ids, summary uuids, undo ids). Default `crypto.randomUUID`. */
    generateId?: () => string;
    /** Clock for summaries and undo records. Default `() => new Date()`. */
    now?: () => Date;
    /**
     * The session's files outside the project (issue 13): a history rooted at `/` whose tracking
     * paths are absolute paths without the leading `/` (see `restoreStateWithOutside`), with the same
     * snapshots as `history`. They are previewed with `previewOutside` and rewound only when a
     * request sets `includeOutside`. `undo`: where the undo points of those rewinds go (default: the
     * outside history's own store and session; `false`: none). Default: no files outside.
     */
    outside?: {
        history: RewindableHistory;
        undo?: UndoStore | false;
    };
    /**
     * Offer checkpoints whose message is not in `messages` at all (fh checkpoints taken without a
     * recorded prompt). `false` is Claude Code's rule for its transcripts: only snapshots of prompts
     * on the current branch (see `offeredCheckpointIds`). Default true.
     */
    unrecordedCheckpoints?: boolean;
    /**
     * Progress of the long operations, for a front end's bar (see `progress.ts`): `restore`'s code
     * half (`checking`, `saving` the undo point, `writing`), `undo`/`redo` (`checking`, `saving`,
     * `writing`) and `preview` (`checking`, `counting`), in files and bytes. Called synchronously;
     * must be cheap; an exception it throws is ignored. Default: none.
     */
    onProgress?: ProgressCallback;
}
/** What a restore did, or left, outside the project (see {@link RestoreRequest.includeOutside}). */
interface OutsideRestoreResult {
    /** Absolute paths of the files outside the project the rewind would change but left alone (no `includeOutside`), sorted. */
    left: string[];
    /** With `includeOutside`: the rewind of those files; paths are absolute. */
    code?: RewindResult;
    /** The undo point saved before those files were written; `null` when none was needed or undo is off. */
    undoPoint?: UndoPoint | null;
}
/** A menu choice to carry out. */
interface RestoreRequest {
    messageId: string;
    mode: RestoreMode;
    /**
     * `code` / `both`: rewind only these tracked files (per-file rewind). Default: all. With
     * `agent`: the conflicting files to rewind anyway.
     */
    paths?: readonly string[];
    /**
     * `code` / `both`: rewind only the files this agent changed after the checkpoint (`main`, a
     * sub-agent id, or a unique prefix of one; issue 14). A file another agent changed too is a
     * conflict: left alone and reported in `code.skipped` and `agent.conflicts`, unless `paths`
     * names it. See `selectAgentChanges` for the errors.
     */
    agent?: string;
    /**
     * Called once the undo point is saved, just before the first file is written (not called when
     * no file needs writing or undo is off). From then on an interrupted restore can be put back
     * with `undoRewind`; a front end can say so if the process is stopped.
     */
    onUndoPointSaved?: (point: UndoPoint) => void;
    /** `summarize` / `summarize_up_to`: extra instructions passed to the summariser. */
    instructions?: string;
    /**
     * `code` / `both`: also rewind the session's files outside the project (see
     * {@link RewindSessionOptions.outside}); never through a symlink (the rewind's own rule, from
     * `/`). Default false: they are left alone and listed in `outside.left`.
     */
    includeOutside?: boolean;
}
/** What {@link RewindSession.restore} did. `codeApplied`/`conversationApplied` say which halves took effect. */
interface RestoreResult {
    messageId: string;
    mode: RestoreMode;
    /** True when the code half ran and every file it had to change was changed. */
    codeApplied: boolean;
    /** True when the conversation half (rewind or summary) ran. */
    conversationApplied: boolean;
    /** The file rewind, file by file (`failed` lists files that could not be written). */
    code?: RewindResult;
    /** With `agent`: which files the agent's rewind covered and which it left alone as conflicts. */
    agent?: AgentSelection;
    /** The timeline point saved before the files were written; `null` when no file needed writing or undo is off. */
    undoPoint?: TimelinePoint | null;
    /** Interrupted operations rolled back before this restore wrote anything. */
    recovered?: RecoveryResult[];
    /** The conversation rewind (`both`, `conversation`): new id, permission mode, prompt to edit. */
    conversation?: ConversationRewind<ConversationRecord>;
    /** The partial compact (`summarize`, `summarize_up_to`). */
    compact?: PartialCompactResult<ConversationRecord>;
    /** Why the conversation half failed (the summariser rejected); the conversation is unchanged. */
    conversationError?: Error;
    /** Errors thrown by `messagesRemoved` listeners (the change itself stands). */
    listenerErrors: Error[];
    /** The code modes of a session with files outside the project: what was done or left there. */
    outside?: OutsideRestoreResult;
}
/** Events of {@link RewindSession.on}. */
interface RewindSessionEvents {
    /** Messages left the conversation (rewind or summary): drop caches that refer to them. */
    messagesRemoved: (event: MessagesRemovedEvent) => void;
}
/** A conversation and its file history, with the restore menu, undo and fork. */
declare class RewindSession<R extends ConversationRecord = ConversationRecord> {
    readonly history: RewindableHistory;
    private list;
    private currentConversationId;
    private readonly summarize;
    private readonly undoStore;
    /** Journaled operations run one at a time, in call order. */
    private serial;
    private readonly generateId;
    private readonly now;
    private readonly listeners;
    private readonly outsideHistory;
    private readonly outsideUndo;
    private readonly unrecordedCheckpoints;
    private readonly onProgress;
    constructor(options: RewindSessionOptions<R>);
    /** The conversation as it is now (after any restore). */
    get messages(): ReadonlyArray<R | TranscriptMessage>;
    /** The conversation id the last rewind gave; undefined before any rewind. */
    get conversationId(): string | undefined;
    /** Replace the conversation (a host calls this as turns are added). */
    setMessages(messages: ReadonlyArray<R | TranscriptMessage>): void;
    /** Listen for an event; returns a function that removes the listener. */
    on<Name extends keyof RewindSessionEvents>(event: Name, listener: RewindSessionEvents[Name]): () => void;
    /** The rewind picker's entries (see `selectableUserMessages`). */
    selectableMessages(): SelectableMessage[];
    /**
     * The full message id a person's short reference names (see `resolveMessageReference`): an
     * exact id, a turn number (`3`, `-1` for the newest checkpoint) or a unique prefix of a
     * checkpoint's or typed prompt's id. `listCommand` is what the errors tell the person to run.
     * Throws `InvalidArgumentError` (empty, ambiguous) or `NotFoundError` (names nothing), each
     * naming the session.
     */
    resolveReference(reference: string, options?: {
        listCommand?: string;
    }): string;
    /**
     * The message ids of the checkpoints a person is offered, oldest first, each once: what `fh list`
     * numbers as turns (see `offeredCheckpointIds` and {@link RewindSessionOptions.unrecordedCheckpoints}).
     */
    checkpointIds(): string[];
    /** The dry run of a code rewind (see `rewindPreview`; `agent` limits it to one agent's changes). */
    preview(messageId: string, options?: {
        paths?: readonly string[];
        agent?: string;
    }): Promise<RewindPreview>;
    /**
     * The dry run of rewinding the session's files outside the project to `messageId`, paths
     * absolute; undefined when the session has none or no snapshot for `messageId` there.
     */
    previewOutside(messageId: string): Promise<RewindPreview | undefined>;
    /**
     * The restore menu for `messageId` (seed 000 §2): `both` (default), `conversation`, `code` when
     * the file history can restore it — followed, when sub-agents changed files in that turn, by one
     * "only this sub-agent's changes" option each (mode `code` with `agent`, see
     * {@link subagentOptions}) — else `conversation` (default); `summarize` and — when messages
     * precede it — `summarize_up_to` when a summariser was given; `nevermind` last. Each carries
     * its dry-run diff stats. For {@link CURRENT_PROMPT_ID} only `nevermind`.
     * Throws `NotFoundError`/`InvalidArgumentError` when `messageId` is not a typed prompt.
     */
    restoreOptions(messageId: string): Promise<RestoreOption[]>;
    /**
     * The "only this sub-agent's changes" options of the checkpoint `messageId` (issue 14): one per
     * sub-agent that changed files in that turn (its snapshot's `changedBy`), in the order of their
     * first change, each mode `code` with `agent` and, in `diffStats`, the dry run of
     * `restore({ messageId, mode: 'code', agent: agentId })` (the agent's files; in
     * `diffStats.agent` the conflicts it would leave alone). Works for any checkpoint, recorded
     * prompt or not; `[]` when the turn had no sub-agent or there is no snapshot for `messageId`.
     */
    subagentOptions(messageId: string): Promise<RestoreOption[]>;
    /**
     * True when rewinding to `messageId` loses nothing (seed 000 §7): no file would change (or the
     * message has no snapshot) and every message after it is synthetic. A front end then rewinds
     * without asking. Throws like {@link restoreOptions} for a bad id.
     */
    isLosslessRewind(messageId: string): Promise<boolean>;
    /**
     * Carry out a menu choice (seed 000 §2). Validates first and throws, changing nothing, when the
     * message is not a typed prompt of the conversation (conversation modes), has no snapshot (code
     * modes: `NotFoundError`), a needed backup is missing or the wrong size (`BackupMissingError`),
     * a path is not tracked, the undo point cannot be saved, or a summarize mode has no summariser.
     * Then `both` restores code, then the conversation, each on its own: a file that fails to
     * write is reported in `code.failed` and the conversation is still rewound. Before any file is
     * written, the files about to change are saved in an undo point (see {@link undoRewind}).
     */
    restore(request: RestoreRequest): Promise<RestoreResult>;
    /** Every timeline point, oldest first; `[]` when undo is off. */
    undoPoints(): Promise<TimelinePoint[]>;
    /**
     * The session's timeline: every point (rewinds, undos, redos, recoveries) oldest first with its
     * status, the undo stack and its cursor (see `timeline.ts`). Empty when undo is off.
     */
    timeline(): Promise<Timeline>;
    /**
     * Roll back any operation that was interrupted (see `recoverPending` in `undo.ts`); every
     * journaled operation does this first. Call it while holding the session's lock.
     */
    recover(): Promise<RecoveryResult[]>;
    /**
     * Go back one point on the timeline (or to just before point `pointId`, an id or a prefix): put
     * back the files exactly as they were, saving the files it overwrites as a new point first (see
     * `undoRewind` in `undo.ts`). After an interrupted rewind, rolling it back is the undo. The
     * conversation is not changed. Throws `UnsupportedError` when undo is off, `NotFoundError` when
     * there is nothing to undo or no such point.
     */
    undo(pointId?: string): Promise<UndoResult>;
    /**
     * Go back one point on the timeline of the files outside the project (see
     * {@link RewindSessionOptions.outside}; rewinds with `includeOutside` journal there), or to just
     * before `pointId`; paths in the result are absolute. A timeline of its own: {@link undo} never
     * touches these files. Throws `UnsupportedError` when the session has no files outside the
     * project or their undo is off, `NotFoundError` when there is nothing to undo.
     */
    undoOutside(pointId?: string): Promise<UndoResult>;
    /**
     * Take a checkpoint now (`manual` unless `options.kind` says otherwise): a snapshot of the
     * tracked files under a new message id, then its `fh-checkpoint` mark with `options.label` (see
     * `takeCheckpoint`). It is listed with the turns' checkpoints and can be rewound to like them.
     * Resolves with the checkpoint, or undefined when tracking is off. Throws `UnsupportedError`
     * when the history cannot make snapshots, `InvalidArgumentError` for a bad label (nothing is
     * recorded).
     */
    checkpoint(options?: Omit<TakeCheckpointOptions, 'messageId'>): Promise<TakenCheckpoint | undefined>;
    /** {@link undo} under its older name. */
    undoRewind(pointId?: string): Promise<UndoResult>;
    /**
     * Go forward one point: undo the last undo (see `redoRewind` in `undo.ts`). Throws
     * `UnsupportedError` when undo is off, `NotFoundError` when there is nothing to redo.
     */
    redo(): Promise<UndoResult>;
    /**
     * Write the conversation, rewound to before `messageId` ({@link CURRENT_PROMPT_ID}: all of it),
     * as a new session of the history's store with the file history of the kept turns, so an agent
     * can resume it (see `forkSession`). The source session is only read. `onProgress` gets
     * `(done, total)` in backups carried. `records`: the whole transcript (abandoned branches,
     * parallel tool-call siblings) when the session's messages are only its current branch, so the
     * fork keeps every record of the branch. Default: the session's messages.
     */
    fork(messageId: string, options?: {
        sessionId?: string;
        now?: Date;
        onProgress?: (done: number, total: number) => void;
        records?: readonly ConversationRecord[];
    }): Promise<ForkResult>;
    /** The outside half of a code restore: rewound with `includeOutside`, else only listed. */
    private restoreOutside;
    /**
     * The code half of a restore: roll back interrupted operations, then rewind, journaling a
     * `rewind` point (pre-images and plan) before the first write and its done record after the
     * last one succeeded. A rewind with failed files stays pending, so the next operation rolls it
     * back and `undo` reaches the state before it.
     */
    private journaledRewind;
    private requireUndo;
    private serially;
    private undoOptions;
}

/** The shortest id prefix that is looked up (shorter references must be whole ids or turn numbers). */
declare const MIN_PREFIX_LENGTH = 4;
/** What {@link resolveMessageReference} matches a reference against. */
interface MessageReferenceCandidates {
    /** The session the ids belong to (named in errors). */
    sessionId: string;
    /** The checkpoints' message ids, oldest first: turn `n` is `checkpointIds[n - 1]`. */
    checkpointIds: readonly string[];
    /** Other ids a reference may name (recorded prompts without a checkpoint, say); prefixes only. */
    otherIds?: readonly string[];
    /** What the command lists the ids with, for the errors' "what to do" (default `fh list`). */
    listCommand?: string;
}
/**
 * Whether `reference` reads as a turn number (`3`, `-1`: digits with an optional leading minus)
 * in {@link resolveMessageReference}, which takes an exact id first: a message id of that form
 * would shadow the turn.
 */
declare function isTurnNumber(reference: string): boolean;
/**
 * The full message id `reference` names among `candidates`, in this order: an exact id; a turn
 * number (`/^-?\d+$/`: `n` from 1 to the number of checkpoints, or `-n` counting back from the
 * newest, `-1` being the newest); a unique prefix of at least {@link MIN_PREFIX_LENGTH}
 * characters of a checkpoint or other id.
 *
 * Throws `InvalidArgumentError` for an empty reference and for a prefix that fits several ids (the
 * message lists them); `NotFoundError` for a turn number out of range and for a reference that
 * names nothing. Every message names the session and says what to give instead. Pure.
 */
declare function resolveMessageReference(reference: string, candidates: MessageReferenceCandidates): string;

/** What {@link undoDiffStats} found. */
interface UndoPreview {
    /** The point the undo would go back to just before. */
    point: TimelinePoint;
    /** The entries the undo would write (state just before the point, where it differs now), sorted by path. */
    entries: UndoEntry[];
    /**
     * Per file, from now to the pre-image: `created` exists now and the undo deletes it, `deleted`
     * the undo brings it back; a folder or symbolic link entry counts as changed with no lines.
     */
    stats: DiffStats;
}
/** Options of {@link undoDiffStats}. */
interface UndoDiffStatsOptions extends Pick<UndoOptions, 'onWarning'> {
    /** Files larger than this (either side) are `tooLarge`, not line-counted. Default 8 MiB. */
    diffSizeCapBytes?: number;
    /** Progress for a bar: `checking` (each file against the state before the point), then `counting` (lines of the changed files). */
    onProgress?: ProgressCallback;
}
/**
 * The bytes of a pre-image entry of `undo`'s session (`kind: "file"`), or null for `missing`.
 * Throws the store's errors (`NotFoundError` when the backup is gone).
 */
declare function undoEntryBytes(undo: UndoStore, entry: UndoEntry): Promise<Uint8Array | null>;
/**
 * What `undoRewind(workspace, undo, { pointId })` would change (see the module comment). The
 * entries are checked as the undo checks them, so this throws what it would throw before writing:
 * `NotFoundError` (no such point), `InvalidArgumentError` (ambiguous prefix), `BackupMissingError`,
 * `CorruptError`.
 */
declare function undoDiffStats(workspace: UndoWorkspace, undo: UndoStore, pointId: string, options?: UndoDiffStatsOptions): Promise<UndoPreview>;

/** Bytes of the log's start read for its `fh-session` record. */
declare const LOG_HEAD_BYTES: number;
/**
 * Tail sizes tried in turn, in bytes, until the tail settles the newest snapshot: most turns fit
 * the first; a turn that tracks thousands of files (its snapshot record alone is over 1 MiB at
 * about 6,000 files) needs the second.
 */
declare const LOG_TAIL_BYTES_STEPS: readonly number[];
/**
 * The log's ends, with a tail long enough to settle the newest snapshot (see `tailAnchor`) when
 * one of {@link LOG_TAIL_BYTES_STEPS} is; the last read otherwise (the caller then reads the whole
 * log). Undefined when the log cannot read its ends.
 */
declare function readLogEnds(log: SessionLog): Promise<LogEnds | undefined>;

/**
 * Reading a session log line by line (`SessionLog.readStream`), so a log of any size is read with
 * memory bounded by its longest line, never as one string (a JSONL file over ~512 MiB cannot be
 * one). Logs without `readStream` are read whole with `read` and their records handed out one by one.
 */

/**
 * Longest line read (bytes): a longer one is skipped as `line too long` without being held in
 * memory. A snapshot record of a million tracked files is about 140 MiB.
 */
declare const MAX_LOG_LINE_BYTES: number;
/** One line of a log, as {@link readLogLines} hands it out. `line` is 1-based. */
type LogLine = 
/** A line's text, without its `\n`; `terminated` false for a last line with no `\n` after it. */
{
    line: number;
    text: string;
    terminated: boolean;
}
/** A record already parsed (a log without `readStream`, read with `read`). */
 | {
    line: number;
    record: LogRecord;
}
/** A line that could not be read, with the reason (`line too long`, or what `read` reported). */
 | {
    line: number;
    skipped: string;
};
/**
 * The log's lines in order (see {@link LogLine}): streamed through `readStream` where the log has
 * it, else from one `read`. Blank lines are left out (their numbers still count). A line longer
 * than `maxLineBytes` (default {@link MAX_LOG_LINE_BYTES}) is reported as skipped. Throws the
 * store's errors.
 */
declare function readLogLines(log: SessionLog, options?: {
    maxLineBytes?: number;
}): AsyncGenerator<LogLine>;

/**
 * fh's compact snapshot records (format version 2, see ARCHITECTURE.md "Record formats"): a turn's
 * snapshot as what changed against the previous one, with a full record often enough that a
 * rebuild replays little. Written only into fh's own session logs (Claude Code ignores the
 * unknown `fh-snapshot` type); a log Claude Code reads gets its own full `file-history-snapshot`
 * records instead (`SessionLog.recordForm`).
 *
 *   {"type":"fh-snapshot","version":2,"kind":"full","sequence":7,"messageId":"…","timestamp":"…",
 *    "entries":{"src/a.ts":{…backup…},…},"pending":{"6":{"src/a.ts":"…@v2"}}}
 *   {"type":"fh-snapshot","version":2,"kind":"diff","sequence":8,"base":7,"messageId":"…",
 *    "timestamp":"…","entries":{"src/a.ts":{…}},"removed":["gone.txt"]}
 *
 * The head fields come first, in this order, so a reader can tell a record's kind, sequence, base
 * and message id from the start of its line without parsing the rest (`sniffFhSnapshotLine`).
 */

/** Record type of fh's compact snapshot records. */
declare const FH_SNAPSHOT_RECORD_TYPE = "fh-snapshot";
/** Format version of the `fh-snapshot` records this fh writes and reads. */
declare const FH_SNAPSHOT_RECORD_VERSION = 2;
/**
 * Backups superseded by one snapshot: tracking path → the name of the backup the previous
 * snapshot held for it and this one replaced (only names retention may delete: not a version 1,
 * not `null`, not an entry with `error`). Retention deletes them when the previous snapshot is
 * dropped.
 */
type SupersededBackups = Readonly<Record<string, string>>;
/** A parsed `fh-snapshot` record. */
interface FhSnapshotRecord {
    type: typeof FH_SNAPSHOT_RECORD_TYPE;
    /**
     * `full`: `entries` holds every tracked file; `diff`: only those that changed against `base`;
     * `attach`: backups attached mid-turn to snapshot `sequence` (one record per batch of `trackEdit`s).
     */
    kind: 'full' | 'diff' | 'attach';
    /** The snapshot's number in the session (`snapshotSequence` once it was made), from 1. */
    sequence: number;
    messageId: string;
    timestamp: Date;
    /** diff: the sequence of the snapshot it is relative to (the one made just before it). */
    base?: number;
    /** Tracking path → backup: every file (full) or the added and replaced ones (diff). */
    entries: Record<string, FileHistoryBackup>;
    /** diff: tracking paths the snapshot no longer holds. */
    removed: string[];
    /**
     * full: what the kept snapshots up to this one superseded (sequence → {@link SupersededBackups}),
     * so retention can run from this record on without the records before it.
     */
    pending: Map<number, SupersededBackups>;
}
/** Head fields of an `fh-snapshot` line, read without parsing it (see {@link sniffFhSnapshotLine}). */
interface FhSnapshotHead {
    kind: 'full' | 'diff' | 'attach';
    sequence: number;
    /** diff: the sequence of the snapshot it is relative to. */
    base?: number;
    messageId: string;
}
/**
 * The head of a line fh wrote as an `fh-snapshot` record (fields in the written order), or
 * undefined when the line does not start like one (it is then parsed in full to find out).
 */
declare function sniffFhSnapshotLine(text: string): FhSnapshotHead | undefined;
/** The head of a parsed `fh-snapshot` record, or undefined for other records and malformed heads. */
declare function fhSnapshotRecordHead(record: unknown): FhSnapshotHead | undefined;
/**
 * The full record of `snapshot`, number `sequence`, carrying `pending` (the superseded backups of
 * the kept snapshots, by sequence; only those after `sequence − MAX_SNAPSHOTS` matter).
 */
declare function fullSnapshotRecord(snapshot: FileHistorySnapshot, sequence: number, pending?: ReadonlyMap<number, SupersededBackups>): LogRecord;
/**
 * The diff record of the snapshot `messageId` number `sequence` against snapshot `base`: the
 * entries added or replaced, and the paths removed.
 */
declare function diffSnapshotRecord(messageId: string, timestamp: Date, sequence: number, base: number, entries: Readonly<Record<string, FileHistoryBackup>>, removed?: readonly string[]): LogRecord;
/**
 * The attach record of backups added mid-turn to snapshot `messageId` number `sequence` (the
 * newest): one record for a batch of `trackEdit`s instead of one `file-history-delta` each.
 */
declare function attachSnapshotRecord(messageId: string, sequence: number, entries: Readonly<Record<string, FileHistoryBackup>>): LogRecord;
/**
 * Parse an `fh-snapshot` record read from a log. Undefined for other types (no warning) and for
 * a malformed or unknown-version one (one warning). Entries are parsed like those of
 * `file-history-snapshot` records (a malformed entry is kept, marked with `error`); malformed
 * `removed` paths and `pending` names are dropped with a warning. Never throws. `owned`: the
 * record was parsed for this call alone (from a log line), so well-formed entries are taken over
 * in place (`adoptBackupEntry`) instead of copied; the record must not be used afterwards.
 * `times`: shared Dates for the entries taken over (see `RecordTimes`).
 */
declare function parseFhSnapshotRecord(record: unknown, warn?: RecordWarningHandler, cache?: BackupParseCache, owned?: boolean, times?: RecordTimes): FhSnapshotRecord | undefined;

/** Options of a rebuild. */
interface RebuildOptions {
    /** Absolute project root: absolute keys inside it become relative, keys outside it are dropped. */
    projectRoot: string;
    /** Receives one message per skipped record, dropped key or repaired entry. */
    onWarning?: RecordWarningHandler;
    /** Most snapshots kept (the oldest are dropped first). Default {@link MAX_SNAPSHOTS}. */
    maxSnapshots?: number;
}
/** Options of {@link StateRebuilder}: a rebuild's, plus a per-record base folder (see `RestoreStateOptions.baseFolder`). */
interface StateRebuilderOptions extends RebuildOptions {
    baseFolder?: (record: unknown) => string;
}
/** What a rebuild found besides the state. */
interface RebuildResult {
    state: FileHistoryState;
    /** The `fh-session` records read, in order. */
    sessions: FhSessionRecord[];
    /** Whether the log held any record at all (of any type). */
    hasRecords: boolean;
    /**
     * The sequence of the newest snapshot when its content is exactly what an `fh-snapshot` record
     * (plus later deltas) holds, so the next snapshot may be recorded as a diff against it;
     * undefined otherwise (the next one is then recorded in full).
     */
    diffBase: number | undefined;
    /**
     * Lines that could not be read, by reason (`invalid JSON`, `torn last line`, ...), with the
     * first one's 1-based line number (0 when it is not known: a rebuild from the log's end, see
     * `tail-rebuild.ts`).
     */
    skippedLines: Map<string, {
        count: number;
        firstLine: number;
    }>;
}
/**
 * Whether `key` is already in tracking form, kept as it is: relative (no leading `/`, no drive
 * letter), `/` separated, no empty, `.` or `..` segment, no trailing `/`, no NUL or `\\`. Checked
 * character by character, as a rebuild checks every key it reads.
 */
declare function isCleanKey(key: string): boolean;
/** Whether retention may delete `backup` once no kept snapshot holds it. */
declare function isRetainable(backup: FileHistoryBackup | undefined): backup is FileHistoryBackup & {
    backupFileName: string;
};
/**
 * Applies records in append order (see `restoreStateFromLog` for the rules) and hands out the
 * state. `before` tells it about the nodes of records it was not given (a streamed rebuild skips
 * the records older snapshots needed): their count and message ids.
 */
declare class StateRebuilder {
    private readonly path;
    private readonly root;
    private readonly baseFolder;
    /** The folder relative keys of the current record resolve against. */
    private base;
    private readonly maxSnapshots;
    private readonly warn;
    private readonly trackingKeys;
    private readonly cache;
    /** Dates of the times read, one per distinct time (entries taken over share them). */
    private readonly times;
    private readonly nodes;
    private readonly latestIndex;
    private readonly keys;
    private running;
    /** `running` is the newest node's own map (copied before a diff changes it). */
    private runningShared;
    private readonly nodesBefore;
    private readonly messageIdsBefore;
    private snapshotRecordCount;
    /** Sequence of the last snapshot before the records given. */
    private readonly sequenceBefore;
    private sequenceOffset;
    readonly sessions: FhSessionRecord[];
    constructor(options: StateRebuilderOptions, before?: {
        nodes: number;
        snapshotRecords: number;
        messageIds: ReadonlySet<string>;
        lastSequence?: number;
    });
    /**
     * Apply one record (any type; only file-history, `fh-snapshot` and `fh-session` ones count).
     * `owned`: the record was parsed from a log line for this rebuild alone, so its entries may be
     * taken over in place (`adoptBackupEntry`); the caller must not use it afterwards.
     */
    push(record: unknown, owned?: boolean): void;
    /** The rebuilt state and what else was found (see {@link RebuildResult}). */
    finish(): Omit<RebuildResult, 'hasRecords' | 'skippedLines' | 'sessions'>;
    /**
     * A `file-history-delta`: checked like `parseFileHistoryRecord` checks it (same warnings), but
     * only the fields a rebuild uses are read (the record's own timestamp is not).
     */
    private pushDelta;
    private pushCompact;
    private nextSequence;
    private appendFull;
    /** An update record: the node's whole map becomes `map` (only that snapshot changes). */
    private replace;
    /** A delta: one entry added to node `index` (the newest, as fh and Claude Code write them). */
    private setEntry;
    /** Give node `index` its own map (a diff node: the nearest full one before it plus the changes between). */
    private build;
    private rekeyed;
    private rekeyedNames;
    private lookup;
    private migrate;
}
/**
 * A line of a log held in memory (`bytes[start, end)`, without its `\n`), decoded only when it is
 * read: a rebuild from bytes holds no string per line between its two passes.
 */
interface ByteLine {
    line: number;
    bytes: Buffer;
    start: number;
    end: number;
    terminated: boolean;
}
/** The text of a {@link ByteLine}. */
declare function lineText(line: ByteLine): string;
/** The head of an `fh-snapshot` line (`sniffFhSnapshotLine`) read from its first bytes, or undefined. */
declare function sniffByteLine(line: ByteLine): FhSnapshotHead | undefined;
/** Whether a line starts as fh writes a `file-history-delta` record. */
declare function isDeltaByteLine(line: ByteLine): boolean;
/** The lines of a log held whole in `bytes`, numbered from 1 (blank ones left out), as `readLogLines` gives them. */
declare function byteLines(bytes: Buffer): Generator<ByteLine>;
/** A line of text held for a rebuild's second pass (from a stream, see `readLogLines`). */
interface TextLine {
    text: string;
    terminated: boolean;
    line: number;
}
/**
 * Bytes of lines parsed by one `JSON.parse` call in {@link parseLines}. V8 allocates what one
 * parse of a long text (100 KiB and more) makes straight in the old generation, so the entries a
 * rebuild keeps are not copied by every young-generation collection on the way, as they are when
 * each line of a few KiB is parsed on its own.
 */
declare const LINE_BATCH_BYTES: number;
/**
 * Parse `lines` in order, as `parseJsonlLine` parses each (same records, same reasons), handing
 * each result to `each` with its line. Consecutive terminated lines are parsed together, as the
 * elements of one JSON array (`[line\n,line\n]`: a raw newline cannot be inside a JSON string, so
 * a well-formed line is exactly one element, and a torn or cut line leaves its record's object
 * open, which no later well-formed line closes, so the batch does not parse); a batch that does
 * not parse, or gives another count of elements than lines, is parsed again line by line. The one
 * difference from parsing each line alone: corrupt lines made to complement each other (one left
 * open inside a list, a later one closing it, and another holding two records) can be read as
 * records; they are then checked like any record, as the same records written whole would be.
 */
declare function parseLines(lines: readonly (ByteLine | TextLine)[], each: (parsed: {
    record: LogRecord;
} | {
    reason: string;
} | undefined, line: ByteLine | TextLine) => void): void;
/**
 * Rebuild a session's state from its log, streamed line by line (`SessionLog.readStream`, see
 * `readLogLines`): never the whole log as one string, at any size. A first pass reads fh's own
 * `fh-snapshot` and `file-history-delta` lines by their first bytes only (other lines are parsed,
 * so a corrupt one is reported, and dropped unless they name a file-history record type) and
 * holds the lines from the newest full record at or before the oldest snapshot that will be kept;
 * the second pass parses and replays only those.
 * So the cost is one scan of the log plus parsing what the kept snapshots need, and memory is
 * bounded by those records. The result equals `restoreStateFromLog` of all the log's records.
 *
 * Throws `InvalidArgumentError` when `projectRoot` is not absolute, and the store's errors.
 */
declare function rebuildStateFromLog(log: SessionLog, options: RebuildOptions): Promise<RebuildResult>;
/**
 * {@link rebuildStateFromLog} of a log already read whole into `bytes` (`SessionLog.readTail`
 * returned it all): the same result, line numbers included, without reading the log again.
 * Each line is decoded only when read, and only the lines the kept snapshots need are parsed.
 */
declare function rebuildStateFromBytes(bytes: Uint8Array, options: RebuildOptions): Promise<RebuildResult>;

/**
 * Rebuilding a long session from the end of its log (`SessionLog.readTail`): the kept snapshots
 * need only the records from the newest `fh-snapshot` full record at or before the oldest kept
 * snapshot, so `FileHistory.open` reads the log's last bytes (more when they do not hold that
 * record), finds that record by the heads of the lines (`sniffFhSnapshotLine`, no parse), and
 * parses and replays only the lines from it on. The open then costs what those records cost, not
 * the session's length.
 *
 * Nothing is written for it (no index or checkpoint beside the log that a crash could leave ahead
 * of the log or out of step with it): the start is found in the log itself at every open, so it is
 * always exactly the log's. The result is what `rebuildStateFromLog` gives for the whole log, for
 * logs in fh's own form (`fh-snapshot` and `file-history-delta` records). A log that one read
 * covers whole (at most {@link TAIL_REBUILD_MAX_BYTES}) is rebuilt whole from the bytes read
 * (`rebuildStateFromBytes`: exactly `rebuildStateFromLog`'s result, every line reported); a longer
 * one whose newest records hold Claude Code's `file-history-snapshot` records, that has no
 * `fh-session` record at its start, or whose start record is not within
 * {@link TAIL_REBUILD_MAX_BYTES} of its end is left to `rebuildStateFromLog` (undefined here).
 * Lines are held as bytes and decoded only when read (a line's head for its kind).
 * What differs: lines before the start record are not read, so a corrupt line there is not
 * reported at open (`fh verify` reads the whole log), and a skipped line's number is not known
 * (`firstLine` 0).
 */

/**
 * Tail sizes tried in turn, in bytes, each 4× the one before (so at most about 4× the bytes needed
 * are read); the first holds about 200 turns of 10 changed files at 1,000 tracked. When a read
 * covers the whole log (past the first), all of it is searched the same way.
 */
declare const TAIL_REBUILD_BYTES_STEPS: readonly number[];
/** Past this many bytes from the end without a start record, the whole log is streamed instead. */
declare const TAIL_REBUILD_MAX_BYTES: number;
/** Options of {@link rebuildFromTail}: a rebuild's, and the byte counts read (tests use small ones). */
interface TailRebuildOptions extends RebuildOptions {
    /** Bytes of the log's start read for its `fh-session` records. Default `LOG_HEAD_BYTES`. */
    headBytes?: number;
    /** Tail sizes tried in turn (each at most {@link TAIL_REBUILD_MAX_BYTES}). Default {@link TAIL_REBUILD_BYTES_STEPS}. */
    tailBytesSteps?: readonly number[];
}
/**
 * The state of a session from the end of its log (see the module comment; from all of it when one
 * read covers it), or undefined when the log cannot read its tail or its end does not settle the
 * kept snapshots; the caller then streams the whole log. Throws `InvalidArgumentError` when
 * `projectRoot` is not absolute, and the store's errors.
 */
declare function rebuildFromTail(log: SessionLog, options: TailRebuildOptions): Promise<RebuildResult | undefined>;

/** One file change read from a transcript. */
interface TranscriptEdit {
    /** The path as the tool call gave it (absolute in Claude Code transcripts). */
    path: string;
    agent: AgentIdentity;
    /** The assistant record's timestamp. */
    at: Date;
    /** The tool (`Edit`, `Write`, `MultiEdit`, `NotebookEdit`). */
    tool: string;
}
/**
 * The file edits in one transcript's records, in file order. In a sub-agent transcript every
 * record names its agent (`agentId`, and since about 2.1.248 `attributionAgent`, its type);
 * `agent` supplies what the records do not (a type from the `.meta.json` or the parent's
 * `toolUseResult`). Main-transcript records with `isSidechain: true` (older versions wrote
 * sidechains inline) count only when they carry an `agentId`. Never throws.
 */
declare function editsFromTranscript(records: Iterable<unknown>, agent?: AgentIdentity): TranscriptEdit[];
/**
 * Sub-agent types the main transcript names, by agent id: from each Task/Agent call's
 * `toolUseResult` (`{agentId, agentType}`), or, when the result has no type, the call's
 * `input.subagent_type` joined through `tool_use_id`. Never throws.
 */
declare function subagentTypesFromTranscript(records: Iterable<unknown>): Map<string, string>;
/** Options of {@link attributeEdits}. */
interface AttributeEditsOptions {
    /** Absolute project root: edits outside it are ignored. */
    projectRoot: string;
}
/** What {@link attributeEdits} gives. */
interface AttributedState {
    /** The state with each edit attributed to its turn's entry (a new state; the given one is not changed). */
    state: FileHistoryState;
    /**
     * Edits of files the turn's snapshot does not track (Claude Code made no backup of them:
     * a sub-agent's file no snapshot covers), or made before the first snapshot: nothing can
     * rewind them. Tracking paths, in time order.
     */
    untracked: Array<TranscriptEdit & {
        trackingPath: string;
    }>;
}
/**
 * Attribute `edits` to `state` (a Claude Code session's): each edit, in time order, goes to the
 * turn it happened in — the newest snapshot taken at or before it — as `withAttribution` on that
 * snapshot's entry for the file. Edits outside the project root are dropped. Pure.
 */
declare function attributeEdits(state: Readonly<FileHistoryState>, edits: readonly TranscriptEdit[], options: AttributeEditsOptions): AttributedState;

/**
 * The real path of `absolutePath` by the sync `realpath` given; for a path that does not exist, the
 * real path of its nearest existing folder with the missing names appended. Undefined when nothing
 * of it exists; `realpath`'s other errors (`EACCES`, `ELOOP`) are thrown.
 */
declare function realPathOrNearest(absolutePath: string, realpath: (path: string) => string): string | undefined;

/** Options of {@link baseFolderTracker}. */
interface BaseFolderTrackerOptions {
    /** The folder the session recorded as its first working folder (its first `cwd`). */
    recordedRoot: string;
    /**
     * The project root the session is opened for (`--project`); paths inside `recordedRoot` are
     * mapped into it, so a session opened for a copy of its project rewinds the copy. Default: `recordedRoot`.
     */
    projectRoot?: string;
}
/**
 * A function for `RestoreStateOptions.baseFolder`: called with every record in file order, it
 * returns the absolute folder relative keys of that record resolve against.
 *
 * - It starts at `recordedRoot`.
 * - A `worktree-state` record with a `worktreeSession` whose `worktreePath` is absolute makes that
 *   worktree the base; one with `worktreeSession: null` makes `recordedRoot` the base again.
 * - A record whose `cwd` is a worktree path seen in an earlier `worktree-state` record, or
 *   `recordedRoot` itself, makes that folder the base (a session resumed inside or outside its
 *   worktree); other `cwd` values (the agent ran `cd`) leave it alone, since Claude Code keys by
 *   its original folder, not its shell's folder.
 *
 * Folders inside `recordedRoot` are mapped into `projectRoot`, except folders already inside
 * `projectRoot` (a worktree opened as the project itself). Pure apart from its own state.
 */
declare function baseFolderTracker(options: BaseFolderTrackerOptions): (record: unknown) => string;

/** The root the state of files outside the project is relative to. */
declare const OUTSIDE_ROOT = "/";
/** Options of {@link restoreStateWithOutside}. */
interface RestoreWithOutsideOptions {
    /** Absolute POSIX project root. */
    projectRoot: string;
    /**
     * The folder the session recorded as its project when it is opened for another one (`--project`):
     * absolute keys inside it are the project's files and map into `projectRoot`. Default: `projectRoot`.
     */
    recordedRoot?: string;
    /** The base folder of each record (see `baseFolderTracker`). Default: `projectRoot` for every record. */
    baseFolder?: (record: unknown) => string;
    /** Receives one message per skipped record or repaired entry. */
    onWarning?: RecordWarningHandler;
    /** Most snapshots kept. Default 100. */
    maxSnapshots?: number;
}
/** A session's state split at its project root. */
interface SplitFileHistoryState {
    /** Tracking paths relative to the project root: what `FileHistory` rewinds. */
    project: FileHistoryState;
    /**
     * The files outside the project, tracking paths relative to {@link OUTSIDE_ROOT} (`tmp/plan.md`
     * for `/tmp/plan.md`), with the same snapshots (message ids, timestamps) as `project`.
     */
    outside: FileHistoryState;
    /** Absolute paths of the files outside the project, sorted. */
    outsideFiles: string[];
}
/**
 * Rebuild a session's state from its records (as `restoreStateFromLog` does) keeping the files
 * outside `projectRoot` instead of dropping them: every key is resolved to an absolute path (a
 * relative key against its record's base folder), then split into the project's state (keys in
 * `projectRoot`, or in `recordedRoot`, mapped into `projectRoot`; of two keys naming one file the
 * higher version wins) and the
 * outside state (see {@link SplitFileHistoryState}). Both have every snapshot, so a message id
 * names the same checkpoint in both. Throws `InvalidArgumentError` when `projectRoot` is not an
 * absolute POSIX path. Never throws for bad records.
 */
declare function restoreStateWithOutside(records: Iterable<unknown>, options: RestoreWithOutsideOptions): SplitFileHistoryState;

/**
 * The message a file-history record is keyed by in Claude Code's resume: the top-level
 * `messageId` (for an update, Claude Code 2.1.x writes the assistant message that edited there;
 * `snapshot.messageId` names the prompt whose snapshot it replaces), else `snapshot.messageId`,
 * else — for a `file-history-delta` — its `snapshotMessageId`. Undefined for other records.
 */
declare function fileHistoryRecordKey(record: unknown): string | undefined;
/**
 * The file-history records Claude Code's resume uses, in the order it applies them:
 *
 * - The chain is the current branch (the chain ending at the last non-side-chain message in file
 *   order) with the parallel parts of its replies and their tool results (`branchWithParallelParts`).
 * - Each `file-history-snapshot` record is keyed by {@link fileHistoryRecordKey}; of several with
 *   one key, the last in file order is the one (Claude Code keeps one per key in a map).
 * - Walking the chain, a message whose uuid keys a snapshot record contributes that record, then
 *   the `file-history-delta` records keyed by it (2.1.220 on; each adds one file), in file order.
 *   Records keyed by messages off the chain (an abandoned branch, a snapshot of a message the
 *   transcript does not hold) are left out.
 *
 * A transcript with no conversation messages at all (a session fh wrote from backups alone), or
 * one holding fh's own compact snapshot records (`fh-snapshot`: a log fh wrote, which never
 * branches), is not walked: its file-history records — with the `fh-snapshot` and `fh-session`
 * ones — are returned as they are, in file order. Records of other types are never returned.
 * Pure; costs one pass over `records` plus the branch walk.
 */
declare function chainFileHistoryRecords<R>(records: readonly R[]): R[];

/**
 * The permission bits a rewind or an undo gives a file it restores (issue 10, shared design:
 * "restored modes are masked"). A record is text anyone who can write the session log can craft,
 * so the setuid and setgid bits (`0o6000`) it names are kept only when the store's own copy of the
 * backup carries them too (the fs and memfs stores keep a backup's mode on the backup file itself,
 * the S3 store in the object's metadata written with it); every other bit is `mode & 0o7777`.
 */
/**
 * `recordedMode & 0o7777`, without the setuid/setgid bits unless `storedMode` (the mode the store
 * reports for the backup object, `BackupInfo.mode`) has the same ones. Both are `st_mode`-style
 * numbers; file-type bits are ignored.
 */
declare function restoredMode(recordedMode: number, storedMode?: number): number;

/** What a backup's record says about it: the size and content hash recorded when it was made. */
interface RecordedBackup {
    backupFileName: string;
    /** Bytes recorded when the backup was made; `undefined` when the record has none. */
    size?: number;
    /** Lower-case hex sha256 recorded when the backup was made; `undefined` for older records. */
    sha256?: string;
}
/**
 * The outcome of checking one backup:
 * - `ok`: it exists, has the recorded size and its bytes hash to the recorded sha256;
 * - `unverifiable`: it exists with the recorded size, but its record has no content hash (made by
 *   an fh before hashes were recorded, or by Claude Code), so its bytes cannot be checked: not
 *   counted as damage;
 * - `missing`: the store has no such backup;
 * - `size`: the store's backup has another size than recorded (truncated, grown, replaced);
 * - `hash`: the size is right but the bytes do not hash to the recorded sha256 (a flipped byte);
 * - `refused`: the store refused to read it as not what it wrote (`CorruptError`: a symbolic link
 *   or another non-file in an fs store); `reason` is the store's message.
 */
type BackupCheck = {
    status: 'ok' | 'unverifiable';
    size: number;
} | {
    status: 'missing';
} | {
    status: 'refused';
    reason: string;
} | {
    status: 'size';
    size: number;
    recordedSize: number;
} | {
    status: 'hash';
    sha256: string;
    recordedSha256: string;
};
/** A check that found damage. */
type DamagedCheck = Extract<BackupCheck, {
    status: 'missing' | 'size' | 'hash' | 'refused';
}>;
/** Whether a check found damage (`missing`, `size`, `hash`, `refused`). */
declare function isDamaged(check: BackupCheck): check is DamagedCheck;
/**
 * Check backup `recorded.backupFileName` of `sessionId` against its record (see {@link BackupCheck}):
 * one `statBackup`, then, when the record has a sha256 and the size is right, all its bytes are
 * read and hashed. A backup the store refuses as not what it wrote (`CorruptError`) is `refused`;
 * other store failures are thrown.
 */
declare function checkBackup(store: BackupStore, sessionId: string, recorded: RecordedBackup): Promise<BackupCheck>;
/**
 * The content half of {@link checkBackup}, for a caller that checked presence and size already:
 * read all bytes of the backup and compare their sha256 with `recordedSha256`.
 */
declare function checkBackupBytes(store: BackupStore, sessionId: string, backupFileName: string, recordedSha256: string, size: number): Promise<BackupCheck>;
/**
 * A damaged check as the end of a sentence about the backup: `the backup does not exist in the
 * store`, …; for `refused`, the store's own message (`<path> is a symbolic link: …`).
 */
declare function describeDamage(check: DamagedCheck): string;

/** Options of {@link verifySession}. */
interface VerifySessionOptions {
    store: BackupStore;
    sessionId: string;
    /** Absolute project root the session's records are keyed against (its `fh-session` record's). */
    projectRoot: string;
    /** The session's records, when the caller read them already; default: read from `store`. */
    records?: readonly LogRecord[];
    /** Backups checked at once. Default 8. */
    concurrency?: number;
    /** Called after each backup is checked, with the number done and the total. */
    onProgress?: (done: number, total: number) => void;
    /** Receives warnings about malformed records. */
    onWarning?: RecordWarningHandler;
}
/** One backup the session references, as checked. */
interface VerifiedBackup {
    backupFileName: string;
    /** See `BackupCheck`: `ok`, `unverifiable` (no recorded hash), or damage: `missing`, `size`, `hash`, `refused` (by the store: a symbolic link in an fs store). */
    status: BackupCheck['status'];
    /** What is wrong, for damage (`the backup does not exist in the store`, …). */
    problem?: string;
    /** Tracking paths it holds bytes of. */
    paths: string[];
    /** Message ids of the checkpoints (snapshots) whose rewind restores it, oldest first. */
    checkpoints: string[];
    /** Ids of the timeline points whose pre-image it is, oldest first. */
    points: string[];
}
/** What {@link verifySession} found. */
interface SessionVerification {
    sessionId: string;
    /** Distinct backups referenced and checked. */
    checked: number;
    ok: number;
    /** Present with the recorded size, but recorded without a content hash: not damage. */
    unverifiable: number;
    /** Damaged backups (missing, wrong size, wrong content hash, refused by the store), sorted by name. */
    damaged: VerifiedBackup[];
    /** Message ids of the checkpoints a rewind to would be refused, oldest first. */
    brokenCheckpoints: string[];
    /** Ids of the points whose before-state can no longer be reached in full, oldest first. */
    brokenPoints: string[];
    /** Bytes of the backups that were read and hashed. */
    bytesHashed: number;
}
/**
 * Check every backup session `sessionId` references (see the module comment). Throws what the
 * store throws for a failed read (`UnavailableError`, `PermissionError`); a missing or damaged
 * backup, or one the store refuses (`CorruptError`: a symbolic link in an fs store), is reported,
 * never thrown.
 */
declare function verifySession(options: VerifySessionOptions): Promise<SessionVerification>;

/**
 * Whether the newest snapshot of a log may track the file at tracking path `key` (relative to
 * `projectRoot`, as `toTrackingPath` gives it), judged from its newest records (`tail`, as
 * `latestSnapshotFromTail` takes them): false when no record from the tail's anchor on (see
 * `tailAnchor`) names the file as an entry (of an `fh-snapshot` record, a
 * `file-history-snapshot` record or a `file-history-delta`) by `key`, `./key` or its absolute
 * path (the keys Claude Code's records use); true when one does (a full rebuild, say
 * `latestSnapshotFromTail`, then tells its entry) or a record of those types has another shape;
 * undefined when the tail does not settle the newest snapshot. A key recorded in yet another
 * spelling (`a//b`) gives false, so a caller treats false as "not known to be tracked" and lets
 * `trackEdit` decide. Looks each spelling up in each record's entry map, without parsing entries.
 */
declare function tailMayTrack(tail: readonly unknown[], projectRoot: string, key: string): boolean | undefined;

export { type AgentConflict, type AgentIdentity, type AgentSelection, type AgentTurnChanges, type AttributeEditsOptions, type AttributedState, BACKUP_FILE_NAME_PATTERN, type BackupCheck, type BackupInfo, BackupMissingError, type BackupParseCache, type BackupStore, type Base64ImageSource, type BaseFolderTrackerOptions, type BeginCommandOptions, type BlobRequest, type ByteLine, CHAIN_MESSAGE_TYPES, CHECKPOINT_RECORD_TYPE, COMMAND_WINDOW_RECORD_VERSION, COMPACT_CONTINUATION_PREFIX, CURRENT_PROMPT_ID, type CapturePointInput, type ChangeCheck, type ChangeReason, type CheckpointHistory, type CheckpointKind, type CheckpointMark, type CleanupKeptReason, type CleanupOptions, type CleanupResult, type CommandCapture, type CommandChange, type CommandJournal, type CommandLimits, type CommandProbe, type CommandWindow, type CommandWindowRecord, type CompactDirection, ConflictError, type ContentBlock, type ConversationRecord, type ConversationRewind, type CopyFileHistoryForResumeOptions, CorruptError, DEFAULT_COMMAND_MAX_COMMAND_BYTES, DEFAULT_COMMAND_MAX_FILE_BYTES, DEFAULT_COMMAND_MAX_TOTAL_BYTES, DEFAULT_CONCURRENCY, DEFAULT_DIFF_SIZE_CAP_BYTES, DEFAULT_TIMESTAMP_GRANULARITY_MS, DIFF_BUDGET_MS, DIFF_TIMEOUT_MS, DISABLE_ENV_VARIABLE, type DamagedCheck, type DiffStats, type DiffStatsOptions, type EditAttribution, type EndCommandOptions, type EndOpenCommandsOptions, type EntryFacts, FH_SESSION_RECORD_TYPE, FH_SNAPSHOT_RECORD_TYPE, FH_SNAPSHOT_RECORD_VERSION, FORK_CARRIED_TYPES, FULL_SNAPSHOT_RECORD_EVERY, FhError, type FhErrorCode, type FhErrorOptions, type FhSessionRecord, type FhSnapshotHead, type FhSnapshotRecord, type FileDiffStat, FileHistory, type FileHistoryBackup, type FileHistoryContext, type FileHistoryContextOptions, type FileHistoryDeltaRecord, type FileHistoryEvents, type FileHistoryOptions, type FileHistoryReader, type FileHistoryRecord, type FileHistoryRecordHead, type FileHistoryResumeOptions, type FileHistorySnapshot, type FileHistorySnapshotRecord, type FileHistoryState, type FileHistoryStateUpdater, type ForkPlan, type ForkResult, type ForkSessionOptions, type FsFileHandle, type FsStats, type ImageBlock, type IndexEntry, InvalidArgumentError, type JsonValue, LINE_BATCH_BYTES, LOG_HEAD_BYTES, LOG_TAIL_BYTES_STEPS, type LineChanges, LockedError, type LogEnds, type LogLine, type LogReadResult, type LogRecord, type LogTail, MAIN_AGENT, MAX_CHECKPOINT_LABEL_LENGTH, MAX_LOG_LINE_BYTES, MAX_SNAPSHOTS, METADATA_CONCURRENCY_FACTOR, MIN_DIFF_TIMEOUT_MS, MIN_PREFIX_LENGTH, MISSING_FACTS, type MaterializedBlob, MemoryCommandJournal, type MessageBody, type MessageReferenceCandidates, type MessagesRemovedEvent, type MessagesRemovedReason, type MissingBackup, NON_PROMPT_TAGS, NotFoundError, OUTSIDE_ROOT, type OfferedCheckpointOptions, type OtherBlock, type OutsideRestoreResult, OutsideRootError, POINTS_PRUNED_RECORD_TYPE, POINT_DONE_RECORD_TYPE, POINT_RECORD_TYPE, type PartialCompactOptions, type PartialCompactResult, PermissionError, type PermissionMode, type PhaseProgress, type PlanForkOptions, type PlanSource, type PlanWorktreeExitInput, type PlanWorktreeRestoreInput, type PlanWorktreeRewindInput, type PointOperation, type PointStatus, type PointSummary, type PreImage, type PreImageCache, type PreImageCacheEntry, type PreImageSource, type PreparedBackup, type PreparedEdit, type ProbeBegin, type ProbeEnd, type ProbeListing, type ProgressCallback, type ProgressEvent, type ProgressPhase, type PromptForResubmit, type PromptImage, RESTORE_MODE_LABELS, type RebuildOptions, type RebuildResult, RecordTimes, type RecordWarningHandler, type RecordedBackup, type RecoveryResult, type ResolvedCommandLimits, type RestoreMode, type RestoreOption, type RestoreRequest, type RestoreResult, type RestoreStateOptions, type RestoreWithOutsideOptions, ResumeBackupsMissingError, type ResumeResult, type RetentionInput, type RewindConversationOptions, type RewindOptions, type RewindPreview, type RewindPreviewOptions, type RewindRefusal, type RewindResult, RewindSession, type RewindSessionEvents, type RewindSessionOptions, type RewindWrite, type RewindableHistory, type RunLimited, SCAN_LIMIT_CODE, SNAPSHOT_UPDATE_MAX_FILES, SUMMARY_BUDGET_MS, SUMMARY_LINE_CAP_BYTES, SYNTHETIC_MESSAGE_TEXTS, type SelectAgentOptions, type SelectableMessage, type SessionLock, type SessionLog, type SessionLogOptions, type SessionSummary, type SessionVerification, type SkippedLine, type SnapshotFileChange, type SnapshotFilesChangedEvent, type SnapshotFilesChangedListener, type SplitFileHistoryState, StateRebuilder, type StateRebuilderOptions, type StoreCapabilities, type StoredBackup, type SubagentFileHistory, type SubagentIdentity, type SummarizeCallback, type SummarizeContext, type SummarizePointInput, type SupersededBackups, TAIL_REBUILD_BYTES_STEPS, TAIL_REBUILD_MAX_BYTES, TIMELINE_FORMAT_VERSION, type TailRebuildOptions, type TailState, type TakeCheckpointOptions, type TakenCheckpoint, type TextBlock, type Timeline, type TimelinePoint, type TimelineRow, type TimelineSize, type ToolResultBlock, type ToolUseBlock, type TrackEditOptions, type TranscriptEdit, type TranscriptMessage, UNDO_POINT_RECORD_TYPE, UNDO_POINT_REMOVED_RECORD_TYPE, UnavailableError, type UndoDiffStatsOptions, type UndoEntry, type UndoOptions, type UndoPoint, type UndoPointRemovedReason, type UndoPreview, type UndoResult, type UndoStore, type UndoWorkspace, UnsupportedError, type UserMessageRecordOptions, type VerifiedBackup, type VerifySessionOptions, WORKTREE_STATE_RECORD_TYPE, type WindowEntry, type WorkspaceFs, type WorktreeAction, type WorktreeExitPlan, type WorktreeFacts, type WorktreeFolderState, type WorktreeRegistration, type WorktreeRestorePlan, type WorktreeRewindPlan, type WorktreeSession, type WorktreeStateRecord, abandonPoint, adoptBackupEntry, agentFromIds, agentKey, agentOf, agentsSince, assertWorktreePlacement, attachSnapshotRecord, attachmentRecords, attributeEdits, attributionFor, backupFileName, backupTimeMs, backupsToDelete, baseFolderTracker, beginCommand, branchWithParallelParts, buildTimeline, byteLines, capturePoint, captureState, chainFileHistoryRecords, changedTrackingPaths, checkBackup, checkBackupBytes, checkCheckpointLabel, checkFileChanged, checkpointMarks, checkpointRecord, cleanup, compareMetadata, compareWindows, completePoint, conflictSkip, contentBlocks, copyFileHistoryForResume, countLineChanges, createFileHistoryContext, currentBranch, currentBranchRecords, deltaRecord, describeAgent, describeDamage, diffSnapshotRecord, editsFromTranscript, emptyDiffStats, emptyFileHistoryState, endCommand, endOpenCommands, entryChangedBy, errnoCode, factsOf, fhSessionRecord, fhSnapshotRecordHead, fileHistoryCanRestore, fileHistoryGetDiffStats, fileHistoryHasAnyChanges, fileHistoryMakeSnapshot, fileHistoryRecordHead, fileHistoryRecordKey, fileHistoryRewind, fileHistoryTrackEdit, findPoint, findSelectableMessageIndex, findWorktreeState, forkSession, formatJsonl, fullSnapshotRecord, hashWorkspaceFile, isBackupFileName, isBase64ImageBlock, isCleanKey, isCommandOrOutputMessage, isDamaged, isDeltaByteLine, isLosslessConversationRewind, isRetainable, isSelectableUserMessage, isSyntheticMessage, isTextBlock, isToolResultBlock, isToolResultMessage, isToolUseBlock, isTranscriptMessage, isTurnNumber, isUndoBackupName, isValidBranchName, latestSnapshotFromLog, latestSnapshotFromTail, latestStateFromTail, lineText, listUndoPoints, liveUndoPoints, mayHoldPoints, messageIds, messageText, messagesAfterAreOnlySynthetic, normalizeProjectRoot, offeredCheckpointIds, parseBackupEntry, parseChangedBy, parseCheckpointRecord, parseFhSessionRecord, parseFhSnapshotRecord, parseFileHistoryRecord, parseJsonl, parseJsonlLine, parseLines, parsePointRecord, parsePointSummary, parseRecordTime, parseUndoEntry, parseUndoPointRecord, parseWorktreeSession, partialCompact, permissionBits, planFork, planWorktreeExit, planWorktreeRestore, planWorktreeRewind, pointDoneRecord, pointRecord, pointsPrunedRecord, prepareTrackEdit, previewUndo, promptForResubmit, prunePoints, readLogEnds, readLogLines, readTimeline, readTimelinePoints, realPathOrNearest, rebuildFromTail, rebuildStateFromBytes, rebuildStateFromLog, recoverPending, redoRewind, redoStep, removeLeftoverTemporaryFiles, resolveAgent, resolveCommandLimits, resolveMessageReference, restoreStateFromLog, restoreStateWithOutside, restoredMode, rewindConversation, rewindPreview, rewindRefusals, sameAgent, sameFacts, selectAgentChanges, selectablePromptIds, selectableUserMessages, setStateBookkeeping, snapshotFileBackups, snapshotFilesChangedEvent, snapshotOwner, snapshotRecord, sniffByteLine, sniffFhSnapshotLine, sortedPaths, startPhase, stateBefore, subagentOptionLabel, subagentTypesFromTranscript, summarizePoint, tailAnchor, tailMayTrack, takeCheckpoint, timelineRows, timelineSize, toAbsolutePath, toTrackingPath, translateFsError, translateSourceError, turnAgentChanges, turnReplyText, undoBackupFileName, undoDiffStats, undoEntryBytes, undoPointRecord, undoPointRemovedRecord, undoRewind, undoStep, userMessageRecord, verifySession, withAttribution, withoutAttribution, workspaceFileEquals, worktreeSnapshotMessageIds, worktreeStateRecord };

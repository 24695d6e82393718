/**
 * What the file-history algorithms run against: the project, the store, the workspace file
 * system and the tuning knobs. The seed-style functions (`fileHistoryTrackEdit`, ...) take one;
 * `FileHistory` builds one from its options.
 */
import pLimit from 'p-limit';
import { InvalidArgumentError } from './errors.js';
import { normalizeProjectRoot } from './paths.js';
import type { BackupStore, WorkspaceFs } from './store.js';
import type { FileHistorySnapshot, FileHistoryState } from './types.js';

/** Per-file I/O tasks running at once, by default (issue 2 rule 7). */
export const DEFAULT_CONCURRENCY = 16;

/**
 * How many times wider than `concurrency` metadata-only calls (`stat`, `lstat`) may queue. They
 * hold no file descriptor, and the file system sees no more of them at once either way (Node runs
 * them on libuv's thread pool, 4 threads by default); a deeper queue only keeps those threads busy
 * instead of waking them one request at a time, which makes scanning many files about 2-3× faster.
 */
export const METADATA_CONCURRENCY_FACTOR = 16;

/** Files larger than this (bytes) count as changed without a line diff, by default: 8 MiB. */
export const DEFAULT_DIFF_SIZE_CAP_BYTES = 8 * 1024 * 1024;

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
export const DEFAULT_TIMESTAMP_GRANULARITY_MS = 2000;

/**
 * Runs one task under a concurrency limit (a `p-limit` function). Tasks run through a limit must
 * not call the same limit again (that could deadlock): a `metadataLimit` task may call `limit`,
 * and `limit` tasks are leaves.
 */
export type RunLimited = <T>(task: () => PromiseLike<T> | T) => Promise<T>;

/**
 * A state updater as the seed's algorithms take it (seed 004 §8.1): called with a function from
 * the current state to the next one, it must call that function synchronously, at most once, and
 * keep its result. A no-op updater (one that never calls the function) turns tracking off: that is
 * how a subagent's edits leave the main conversation's history alone.
 */
export type FileHistoryStateUpdater = (update: (state: FileHistoryState) => FileHistoryState) => void;

/** Everything the file-history algorithms need besides the state. */
export interface FileHistoryContext {
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
export interface FileHistoryContextOptions {
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
export function createFileHistoryContext(options: FileHistoryContextOptions): FileHistoryContext {
  const projectRoot = normalizeProjectRoot(options.projectRoot);
  if (typeof options.sessionId !== 'string' || options.sessionId === '') {
    throw new InvalidArgumentError(`sessionId must be a non-empty string, got ${JSON.stringify(options.sessionId)}`);
  }
  if (typeof options.store !== 'object' || options.store === null || typeof options.store.putBackup !== 'function') {
    throw new InvalidArgumentError(`store must be a BackupStore (for example an FsBackupStore), got ${String(options.store)}`);
  }
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new InvalidArgumentError(`concurrency must be a positive integer, got ${describeValue(concurrency)}`);
  }
  const timestampGranularityMs = nonNegative('timestampGranularityMs', options.timestampGranularityMs, DEFAULT_TIMESTAMP_GRANULARITY_MS);
  const diffSizeCapBytes = nonNegative('diffSizeCapBytes', options.diffSizeCapBytes, DEFAULT_DIFF_SIZE_CAP_BYTES);
  return {
    projectRoot,
    sessionId: options.sessionId,
    store: options.store,
    fs: options.fs ?? options.store.workspaceFs,
    concurrency,
    limit: pLimit(concurrency),
    metadataLimit: pLimit(concurrency * METADATA_CONCURRENCY_FACTOR),
    timestampGranularityMs,
    diffSizeCapBytes,
    ...(options.recordSnapshot === undefined ? {} : { recordSnapshot: options.recordSnapshot }),
    ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
  };
}

/** The state an updater currently holds, or undefined when the updater is a no-op (seed 004 §8.1). */
export function captureState(updateState: FileHistoryStateUpdater): FileHistoryState | undefined {
  let captured: FileHistoryState | undefined;
  updateState((state) => {
    captured = state;
    return state;
  });
  return captured;
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError(`${name} must be a finite number >= 0, got ${describeValue(value)}`);
  }
  return value;
}

/** A value as an error message shows it: strings quoted, so `'4'` does not read as the number 4. */
function describeValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

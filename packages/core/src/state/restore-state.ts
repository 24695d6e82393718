/**
 * Rebuild a {@link FileHistoryState} from session records (seed 000 §8:
 * fileHistoryRestoreStateFromLog), for fh's own session logs and Claude Code transcripts alike.
 */
import { posix, win32 } from 'node:path';
import {
  FH_SESSION_RECORD_TYPE,
  fileHistoryRecordHead,
  parseFhSessionRecord,
  parseFileHistoryRecord,
  type BackupParseCache,
  type RecordWarningHandler,
} from './records.js';
import { InvalidArgumentError } from '../errors.js';
import { MAX_SNAPSHOTS, type FileHistoryBackup, type FileHistorySnapshot, type FileHistoryState } from '../types.js';

/** Options of {@link restoreStateFromLog}. */
export interface RestoreStateOptions {
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

type PathApi = typeof posix;

/** Windows roots (`C:\…`, `\\server\…`) use win32 path rules; everything else POSIX. */
function pathApiFor(projectRoot: string): PathApi {
  return /^[A-Za-z]:[\\/]/.test(projectRoot) || projectRoot.startsWith('\\\\') ? win32 : posix;
}

/**
 * The tracking key (relative to the root, `/` separators) for a key read from a record, or a
 * reason it cannot be one: an absolute path outside the root, or a relative path that climbs out.
 */
function toTrackingKey(key: string, root: string, path: PathApi, base: string = root): { key: string } | { reason: string } {
  if (key.includes('\0')) return { reason: 'contains a NUL character' };
  let relative: string;
  if (path.isAbsolute(key) || base !== root) {
    relative = path.relative(root, path.resolve(base, key));
    if (path.isAbsolute(relative)) return { reason: `is outside the project root ${root}` };
  } else {
    relative = path.normalize(key);
  }
  if (path === win32) relative = relative.replaceAll('\\', '/');
  relative = relative.replace(/\/+$/, '');
  if (relative === '' || relative === '.') return { reason: 'names the project root itself' };
  if (relative === '..' || relative.startsWith('../')) return { reason: `is outside the project root ${root}` };
  return { key: relative.startsWith('./') ? relative.slice(2) : relative };
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
export function restoreStateFromLog(records: Iterable<unknown>, options: RestoreStateOptions): FileHistoryState {
  const path = pathApiFor(options.projectRoot);
  if (!path.isAbsolute(options.projectRoot)) {
    throw new InvalidArgumentError(`projectRoot must be an absolute path, got ${JSON.stringify(options.projectRoot)}`);
  }
  const root = path.resolve(options.projectRoot);
  const maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
  const warn = options.onWarning ?? (() => {});

  const snapshots: FileHistorySnapshot[] = [];
  const latestIndex = new Map<string, number>();
  let snapshotRecordCount = 0;
  let sequenceOffset = 0;

  const trackingKeys = new Map<string, ReturnType<typeof toTrackingKey>>();
  const parsedBackups: BackupParseCache = new Map();
  let base = root;
  const lookup = (key: string): ReturnType<typeof toTrackingKey> => {
    const cacheKey = base === root || path.isAbsolute(key) ? key : `${base}\0${key}`;
    let result = trackingKeys.get(cacheKey);
    if (result === undefined) {
      result = toTrackingKey(key, root, path, base);
      trackingKeys.set(cacheKey, result);
    }
    return result;
  };
  const migrate = (key: string, context: string): string | undefined => {
    const result = lookup(key);
    if ('reason' in result) {
      warn(`${context}: path ${JSON.stringify(key)} ${result.reason}; dropped`);
      return undefined;
    }
    return result.key;
  };

  for (const record of records) {
    if (options.baseFolder !== undefined) base = path.resolve(options.baseFolder(record));
    if (typeof record === 'object' && record !== null && (record as { type?: unknown }).type === FH_SESSION_RECORD_TYPE) {
      const session = parseFhSessionRecord(record, warn);
      if (session?.snapshotSequenceOffset !== undefined) sequenceOffset = Math.max(sequenceOffset, session.snapshotSequenceOffset);
      continue;
    }
    const parsed = parseFileHistoryRecord(record, warn, parsedBackups);
    if (parsed === undefined) continue;
    if (parsed.type === 'file-history-snapshot') {
      if (!parsed.isSnapshotUpdate) snapshotRecordCount += 1;
      const context = `file-history-snapshot ${parsed.messageId}`;
      const parsedBackups = parsed.snapshot.trackedFileBackups;
      let trackedFileBackups: Record<string, FileHistoryBackup> = parsedBackups;
      let rekeyed = false;
      for (const rawKey in parsedBackups) {
        const result = lookup(rawKey);
        if ('reason' in result || result.key !== rawKey) rekeyed = true;
      }
      if (rekeyed) {
        trackedFileBackups = {};
        for (const [rawKey, backup] of Object.entries(parsedBackups)) {
          const key = migrate(rawKey, context);
          if (key === undefined) continue;
          const existing = trackedFileBackups[key];
          if (existing !== undefined && existing.version >= backup.version) continue;
          trackedFileBackups[key] = backup;
        }
      }
      const rebuilt = { messageId: parsed.messageId, trackedFileBackups, timestamp: parsed.snapshot.timestamp };
      const replaced = parsed.isSnapshotUpdate ? latestIndex.get(parsed.messageId) : undefined;
      if (replaced === undefined) {
        latestIndex.set(parsed.messageId, snapshots.length);
        snapshots.push(rebuilt);
      } else {
        snapshots[replaced] = rebuilt;
      }
      continue;
    }
    const targetIndex = latestIndex.get(parsed.snapshotMessageId);
    const target = targetIndex === undefined ? undefined : snapshots[targetIndex];
    if (target === undefined) {
      warn(`file-history-delta for ${parsed.snapshotMessageId}: no snapshot with that messageId precedes it; skipped`);
      continue;
    }
    const key = migrate(parsed.trackingPath, `file-history-delta for ${parsed.snapshotMessageId}`);
    if (key === undefined) continue;
    target.trackedFileBackups = { ...target.trackedFileBackups, [key]: parsed.backup };
  }

  const trackedFiles = new Set<string>();
  for (const snapshot of snapshots) {
    for (const key of Object.keys(snapshot.trackedFileBackups)) trackedFiles.add(key);
  }
  return {
    snapshots: snapshots.slice(Math.max(0, snapshots.length - maxSnapshots)),
    trackedFiles,
    snapshotSequence: Math.max(snapshots.length, sequenceOffset + snapshotRecordCount),
  };
}

/**
 * The newest snapshot of a log: what `restoreStateFromLog(records, options).snapshots.at(-1)`
 * returns, for a caller that needs only the current turn (`fh hook` asking whether a file is
 * tracked yet). Record heads are scanned without parsing entries; only the last record that adds
 * a snapshot and the later updates and deltas of its messageId are parsed. Undefined when the log
 * has no snapshot. Throws `InvalidArgumentError` when `projectRoot` is not absolute.
 */
export function latestSnapshotFromLog(records: readonly unknown[], options: RestoreStateOptions): FileHistorySnapshot | undefined {
  const seen = new Set<string>();
  let adding = -1;
  records.forEach((record, index) => {
    const head = fileHistoryRecordHead(record);
    if (head?.type !== 'file-history-snapshot') return;
    if (!head.isSnapshotUpdate || !seen.has(head.messageId)) adding = index;
    seen.add(head.messageId);
  });
  const messageId = adding < 0 ? undefined : (fileHistoryRecordHead(records[adding]) as { messageId: string }).messageId;
  const needed = records.filter((record, index) => {
    if (index < adding) return false;
    const head = fileHistoryRecordHead(record);
    return head !== undefined && (head.type === 'file-history-snapshot' ? head.messageId : head.snapshotMessageId) === messageId;
  });
  return restoreStateFromLog(needed, { ...options, maxSnapshots: 1 }).snapshots.at(-1);
}

/**
 * The newest snapshot from the newest records of a log alone (say its last MiB, see
 * `SessionLog.readEnds`), or undefined when they do not settle it (see {@link tailAnchor}), so the
 * caller reads more of the log. When they settle it, the newest snapshot is the anchor record
 * with its later updates and deltas, exactly what `latestSnapshotFromLog` would give for the
 * whole log. Throws `InvalidArgumentError` when they settle it and `projectRoot` is not absolute.
 */
export function latestSnapshotFromTail(tail: readonly unknown[], options: RestoreStateOptions): FileHistorySnapshot | undefined {
  const anchor = tailAnchor(tail);
  return anchor === undefined ? undefined : latestSnapshotFromLog(tail.slice(anchor), options);
}

/**
 * Where the newest snapshot starts in the newest records of a log: the index of the last
 * non-update `file-history-snapshot` record, when every later snapshot update is for its
 * messageId; undefined when the records do not settle it (no such record, or a later update of
 * another snapshot, which only the earlier records could place). Reads record heads only.
 */
export function tailAnchor(tail: readonly unknown[]): number | undefined {
  let anchor = -1;
  let messageId: string | undefined;
  tail.forEach((record, index) => {
    const head = fileHistoryRecordHead(record);
    if (head?.type === 'file-history-snapshot' && !head.isSnapshotUpdate) {
      anchor = index;
      messageId = head.messageId;
    }
  });
  if (anchor < 0) return undefined;
  for (const record of tail.slice(anchor + 1)) {
    const head = fileHistoryRecordHead(record);
    if (head?.type === 'file-history-snapshot' && head.messageId !== messageId) return undefined;
  }
  return anchor;
}

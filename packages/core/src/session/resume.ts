/**
 * Carry a session's file history into a new session (seed 000 §8, seed 004 §10:
 * copyFileHistoryForResume), so a resumed conversation can still rewind.
 */
import pLimit from 'p-limit';
import { ConflictError, FhError, InvalidArgumentError, NotFoundError } from '../errors.js';
import { fhSessionRecord, parseFileHistoryRecord, snapshotRecord, FH_SESSION_RECORD_TYPE, type RecordWarningHandler } from '../state/records.js';
import { restoreStateFromLog } from '../state/restore-state.js';
import { FH_SNAPSHOT_RECORD_TYPE, fhSnapshotRecordHead } from '../state/snapshot-records.js';
import type { BackupStore, LogRecord } from '../store.js';
import type { FileHistoryBackup, FileHistorySnapshot, FileHistoryState } from '../types.js';

/** Options of {@link copyFileHistoryForResume}. */
export interface CopyFileHistoryForResumeOptions {
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
export interface MissingBackup {
  backupFileName: string;
  /** Every (messageId, tracking path) entry that referenced it; each is now marked unavailable. */
  references: Array<{ messageId: string; path: string }>;
}

/** What {@link copyFileHistoryForResume} did. */
export interface ResumeResult {
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
export class ResumeBackupsMissingError extends NotFoundError {
  readonly missing: readonly MissingBackup[];
  readonly result: ResumeResult;

  constructor(message: string, result: ResumeResult) {
    super(message);
    this.missing = result.missing;
    this.result = result;
  }
}

const FILE_HISTORY_RECORD_TYPES = new Set(['file-history-snapshot', 'file-history-delta', FH_SNAPSHOT_RECORD_TYPE, FH_SESSION_RECORD_TYPE]);

function markUnavailable(state: FileHistoryState, reasons: ReadonlyMap<string, string>): FileHistoryState {
  const snapshots: FileHistorySnapshot[] = state.snapshots.map((snapshot) => {
    const trackedFileBackups: Record<string, FileHistoryBackup> = {};
    for (const [path, backup] of Object.entries(snapshot.trackedFileBackups)) {
      const reason = backup.backupFileName === null ? undefined : reasons.get(backup.backupFileName);
      trackedFileBackups[path] = reason === undefined || backup.error !== undefined ? { ...backup } : { ...backup, error: reason };
    }
    return { messageId: snapshot.messageId, timestamp: snapshot.timestamp, trackedFileBackups };
  });
  return { snapshots, trackedFiles: new Set(state.trackedFiles), snapshotSequence: state.snapshotSequence };
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
export async function copyFileHistoryForResume(options: CopyFileHistoryForResumeOptions): Promise<ResumeResult> {
  const { store, fromSessionId, toSessionId } = options;
  if (fromSessionId === toSessionId) {
    throw new InvalidArgumentError(`cannot resume session ${fromSessionId} into itself; give a new session id`);
  }
  const targetLog = store.sessionLog(toSessionId);
  const existing = await targetLog.read();
  if (existing.records.some((record) => parseFileHistoryRecord(record) !== undefined || fhSnapshotRecordHead(record) !== undefined)) {
    throw new ConflictError(`session ${toSessionId} already has file history; resume into a new session id`);
  }

  const carryRecords = options.carryRecords ?? 'all';
  let otherRecords: LogRecord[] = [];
  let state = options.state;
  if (state === undefined || carryRecords === 'all') {
    const source = await store.sessionLog(fromSessionId).read();
    if (options.state === undefined && source.records.length === 0) {
      throw new NotFoundError(`session ${fromSessionId} has no records in the ${store.kind} store: nothing to resume (is the session id right?)`);
    }
    if (carryRecords === 'all') otherRecords = source.records.filter((record) => !FILE_HISTORY_RECORD_TYPES.has(record.type));
    state ??= restoreStateFromLog(source.records, {
      projectRoot: options.projectRoot,
      ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    });
  }

  const references = new Map<string, Array<{ messageId: string; path: string }>>();
  for (const snapshot of state.snapshots) {
    for (const [path, backup] of Object.entries(snapshot.trackedFileBackups)) {
      if (backup.backupFileName === null || backup.error !== undefined) continue;
      const list = references.get(backup.backupFileName) ?? [];
      list.push({ messageId: snapshot.messageId, path });
      references.set(backup.backupFileName, list);
    }
  }

  const result: ResumeResult = { state, linked: [], copied: [], existed: [], missing: [], recordsWritten: 0 };
  const failures: unknown[] = [];
  const limit = pLimit(options.concurrency ?? 16);
  const names = [...references.keys()].sort();
  let carried = 0;
  options.onProgress?.(0, names.length);
  await Promise.all(
    names.map((name) =>
      limit(async () => {
        try {
          const outcome = await store.carryBackup(fromSessionId, toSessionId, name);
          if (outcome === 'linked') result.linked.push(name);
          else if (outcome === 'copied') result.copied.push(name);
          else result.existed.push(name);
        } catch (error) {
          if (FhError.hasCode(error, 'FH_NOT_FOUND')) result.missing.push({ backupFileName: name, references: references.get(name) ?? [] });
          else failures.push(error);
        }
        carried += 1;
        options.onProgress?.(carried, names.length);
      }),
    ),
  );
  if (failures.length > 0) throw failures[0];
  for (const list of [result.linked, result.copied, result.existed]) list.sort();
  result.missing.sort((a, b) => a.backupFileName.localeCompare(b.backupFileName));

  const reasons = new Map(result.missing.map((missing) => [missing.backupFileName, `backup ${missing.backupFileName} missing from session ${fromSessionId}`]));
  result.state = markUnavailable(state, reasons);

  const records: LogRecord[] = [
    ...otherRecords,
    fhSessionRecord({
      sessionId: toSessionId,
      projectRoot: options.projectRoot,
      createdAt: options.now ?? new Date(),
      resumedFrom: fromSessionId,
      snapshotSequenceOffset: Math.max(0, result.state.snapshotSequence - result.state.snapshots.length),
    }),
    ...result.state.snapshots.map((snapshot) => snapshotRecord(snapshot, false) as unknown as LogRecord),
  ];
  await targetLog.append(records);
  result.recordsWritten = records.length;

  if (result.missing.length > 0 && options.throwOnMissing !== false) {
    const list = result.missing.map((missing) => `${missing.backupFileName} (${missing.references.map((reference) => reference.path).filter((path, index, all) => all.indexOf(path) === index).join(', ')})`);
    throw new ResumeBackupsMissingError(
      `${result.missing.length} backup${result.missing.length === 1 ? '' : 's'} missing from session ${fromSessionId}; the snapshot entries that need them are marked unavailable in session ${toSessionId}: ${list.join('; ')}`,
      result,
    );
  }
  return result;
}

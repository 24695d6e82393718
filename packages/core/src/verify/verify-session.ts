/**
 * `verifySession` (issue 10; `fh verify`): check every backup a session's records reference —
 * the checkpoint backups of its snapshots and the pre-image backups of its rewind timeline's
 * points — for presence, size and the content hash recorded when it was made, and say what each
 * damaged one breaks (like restic's `check`): which checkpoints a rewind to would be refused, and
 * which points an undo, redo or `undo <id>` needing that pre-image would be refused. Abandoned
 * points (refused before they wrote anything) are skipped: no undo needs their pre-images.
 *
 * Reads the session's log once and each referenced backup once (bounded concurrency); writes
 * nothing. A backup whose record has no content hash (made before fh recorded hashes, or by
 * Claude Code) is reported as unverifiable, not as damage, when it exists with its size.
 */
import pLimit from 'p-limit';
import { restoreStateFromLog } from '../state/restore-state.js';
import { readTimelinePoints } from '../session/timeline-records.js';
import type { RecordWarningHandler } from '../state/records.js';
import type { BackupStore, LogRecord } from '../store.js';
import type { FileHistoryBackup, FileHistorySnapshot } from '../types.js';
import { checkBackup, describeDamage, isDamaged, type BackupCheck, type RecordedBackup } from './backup-check.js';

/** Options of {@link verifySession}. */
export interface VerifySessionOptions {
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
export interface VerifiedBackup {
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
export interface SessionVerification {
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

interface Reference {
  recorded: RecordedBackup;
  paths: Set<string>;
  checkpoints: Set<string>;
  points: Set<string>;
}

/**
 * Check every backup session `sessionId` references (see the module comment). Throws what the
 * store throws for a failed read (`UnavailableError`, `PermissionError`); a missing or damaged
 * backup, or one the store refuses (`CorruptError`: a symbolic link in an fs store), is reported,
 * never thrown.
 */
export async function verifySession(options: VerifySessionOptions): Promise<SessionVerification> {
  const { store, sessionId } = options;
  const records = options.records ?? (await store.sessionLog(sessionId).read()).records;
  const references = new Map<string, Reference>();
  const refer = (recorded: RecordedBackup, path: string): Reference => {
    let reference = references.get(recorded.backupFileName);
    if (reference === undefined) {
      reference = { recorded: { backupFileName: recorded.backupFileName }, paths: new Set(), checkpoints: new Set(), points: new Set() };
      references.set(recorded.backupFileName, reference);
    }
    // The first record that knows a size or a hash for the backup speaks for it.
    if (reference.recorded.size === undefined && recorded.size !== undefined) reference.recorded.size = recorded.size;
    if (reference.recorded.sha256 === undefined && recorded.sha256 !== undefined) reference.recorded.sha256 = recorded.sha256;
    reference.paths.add(path);
    return reference;
  };

  const referCheckpoint = (path: string, backup: FileHistoryBackup, messageId: string) => {
    if (backup.error !== undefined || backup.backupFileName === null) return;
    refer({ backupFileName: backup.backupFileName, ...optional(backup.size, backup.sha256) }, path).checkpoints.add(messageId);
  };

  const state = restoreStateFromLog(records, { projectRoot: options.projectRoot, ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }) });
  // What a rewind to each checkpoint restores (as `snapshotFileBackups`: the snapshot's own entry,
  // else the first later one), walked newest first so each snapshot costs its entries only.
  const lastIndex = new Map(state.snapshots.map((snapshot, index) => [snapshot.messageId, index]));
  const later = new Map<string, FileHistoryBackup>();
  for (let index = state.snapshots.length - 1; index >= 0; index -= 1) {
    const snapshot = state.snapshots[index] as FileHistorySnapshot;
    const own = snapshot.trackedFileBackups;
    if (lastIndex.get(snapshot.messageId) === index) {
      for (const [path, backup] of later) if (own[path] === undefined) referCheckpoint(path, backup, snapshot.messageId);
      for (const [path, backup] of Object.entries(own)) referCheckpoint(path, backup, snapshot.messageId);
    }
    for (const [path, backup] of Object.entries(own)) later.set(path, backup);
  }
  for (const point of readTimelinePoints(records, options.onWarning)) {
    // An abandoned point changed no file (its operation was refused before writing, its own
    // pre-images deleted); no undo reads it (`stateBefore`), so its backups are not checked.
    if (point.status === 'abandoned') continue;
    for (const entry of point.entries) {
      if (entry.kind !== 'file' || entry.backupFileName === null) continue;
      refer({ backupFileName: entry.backupFileName, ...optional(entry.size, entry.sha256) }, entry.path).points.add(point.undoId);
    }
  }

  const names = [...references.keys()].sort();
  const limit = pLimit(options.concurrency ?? 8);
  let done = 0;
  const checks = await Promise.all(
    names.map((name) =>
      limit(async () => {
        const check = await checkBackup(store, sessionId, (references.get(name) as Reference).recorded);
        done += 1;
        options.onProgress?.(done, names.length);
        return check;
      }),
    ),
  );

  const result: SessionVerification = { sessionId, checked: names.length, ok: 0, unverifiable: 0, damaged: [], brokenCheckpoints: [], brokenPoints: [], bytesHashed: 0 };
  const brokenCheckpoints = new Set<string>();
  const brokenPoints = new Set<string>();
  names.forEach((name, index) => {
    const check = checks[index] as BackupCheck;
    const reference = references.get(name) as Reference;
    if (check.status === 'ok') {
      result.ok += 1;
      result.bytesHashed += check.size;
    } else if (check.status === 'unverifiable') result.unverifiable += 1;
    if (!isDamaged(check)) return;
    if (check.status === 'hash') result.bytesHashed += reference.recorded.size ?? 0;
    for (const id of reference.checkpoints) brokenCheckpoints.add(id);
    for (const id of reference.points) brokenPoints.add(id);
    result.damaged.push({
      backupFileName: name,
      status: check.status,
      problem: describeDamage(check),
      paths: [...reference.paths].sort(),
      checkpoints: [...reference.checkpoints].sort((a, b) => (lastIndex.get(a) ?? 0) - (lastIndex.get(b) ?? 0)),
      points: [...reference.points],
    });
  });
  // Oldest first, in the order the records have them.
  result.brokenCheckpoints = [...new Set(state.snapshots.map((snapshot) => snapshot.messageId))].filter((id) => brokenCheckpoints.has(id));
  result.brokenPoints = readTimelinePoints(records).map((point) => point.undoId).filter((id) => brokenPoints.has(id));
  return result;
}

function optional(size: number | undefined, sha256: string | undefined): Omit<RecordedBackup, 'backupFileName'> {
  return { ...(size === undefined ? {} : { size }), ...(sha256 === undefined ? {} : { sha256 }) };
}

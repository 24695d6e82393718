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
import type { RecordWarningHandler } from '../state/records.js';
import type { LogRecord } from '../store.js';

/** Record type of an undo point. */
export const UNDO_POINT_RECORD_TYPE = 'fh-undo-point';
/** Record type saying an undo point was used or dropped. */
export const UNDO_POINT_REMOVED_RECORD_TYPE = 'fh-undo-point-removed';

/** How one file was just before the operation an undo point covers. */
export interface UndoEntry {
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
export interface UndoPoint {
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
export type UndoPointRemovedReason = 'undone' | 'evicted' | 'cancelled';

/** The log record of an undo point (dates as ISO strings). */
export function undoPointRecord(point: UndoPoint): LogRecord {
  return {
    type: UNDO_POINT_RECORD_TYPE,
    undoId: point.undoId,
    sessionId: point.sessionId,
    createdAt: point.createdAt.toISOString(),
    operation: point.operation,
    messageId: point.messageId,
    entries: point.entries.map((entry) => ({ ...entry })),
  };
}

/** The log record saying `undoId` is no longer live. */
export function undoPointRemovedRecord(undoId: string, reason: UndoPointRemovedReason, timestamp: Date): LogRecord {
  return { type: UNDO_POINT_REMOVED_RECORD_TYPE, undoId, reason, timestamp: timestamp.toISOString() };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Parse one pre-image entry; `undefined` when malformed (a malformed `sha256` is dropped). Never throws. */
export function parseUndoEntry(value: unknown): UndoEntry | undefined {
  if (!isObject(value) || typeof value.path !== 'string' || value.path === '') return undefined;
  const { path, kind } = value;
  if (kind === 'file') {
    if (typeof value.backupFileName !== 'string' || typeof value.mode !== 'number') return undefined;
    return {
      path,
      kind,
      backupFileName: value.backupFileName,
      mode: value.mode,
      ...(typeof value.size === 'number' ? { size: value.size } : {}),
      ...(typeof value.sha256 === 'string' && SHA256.test(value.sha256) ? { sha256: value.sha256 } : {}),
    };
  }
  if (kind === 'missing' || kind === 'folder') return { path, kind, backupFileName: null, mode: null };
  if (kind === 'symlink' && typeof value.symlinkTarget === 'string') {
    return { path, kind, backupFileName: null, mode: null, symlinkTarget: value.symlinkTarget };
  }
  return undefined;
}

/** Parse an `fh-undo-point` record; `undefined` (with one warning) when malformed. Never throws. */
export function parseUndoPointRecord(record: LogRecord, onWarning: RecordWarningHandler = () => {}): UndoPoint | undefined {
  const createdAt = typeof record.createdAt === 'string' ? new Date(record.createdAt) : undefined;
  const entries = Array.isArray(record.entries) ? record.entries.map(parseUndoEntry) : undefined;
  if (
    typeof record.undoId !== 'string' ||
    typeof record.sessionId !== 'string' ||
    createdAt === undefined ||
    Number.isNaN(createdAt.getTime()) ||
    (record.operation !== 'rewind' && record.operation !== 'undo') ||
    (record.messageId !== null && typeof record.messageId !== 'string') ||
    entries === undefined ||
    entries.some((entry) => entry === undefined)
  ) {
    onWarning(`skipped a malformed ${UNDO_POINT_RECORD_TYPE} record ${JSON.stringify(record.undoId ?? null)}`);
    return undefined;
  }
  return {
    undoId: record.undoId,
    sessionId: record.sessionId,
    createdAt,
    operation: record.operation,
    messageId: record.messageId as string | null,
    entries: entries as UndoEntry[],
  };
}

/**
 * The live undo points of a session log, oldest first: every well-formed `fh-undo-point` not
 * named by a later `fh-undo-point-removed`. Other records are ignored; malformed undo records are
 * skipped with a warning. Never throws.
 */
export function liveUndoPoints(records: readonly LogRecord[], onWarning: RecordWarningHandler = () => {}): UndoPoint[] {
  const live = new Map<string, UndoPoint>();
  for (const record of records) {
    if (record.type === UNDO_POINT_RECORD_TYPE) {
      const point = parseUndoPointRecord(record, onWarning);
      if (point !== undefined) live.set(point.undoId, point);
    } else if (record.type === UNDO_POINT_REMOVED_RECORD_TYPE && typeof record.undoId === 'string') {
      live.delete(record.undoId);
    }
  }
  return [...live.values()];
}

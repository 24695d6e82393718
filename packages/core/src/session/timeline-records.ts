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
import type { RecordWarningHandler } from '../state/records.js';
import type { LogRecord } from '../store.js';
import { parsePointSummary, type PointSummary } from './point-summary.js';
import {
  parseUndoEntry,
  parseUndoPointRecord,
  UNDO_POINT_RECORD_TYPE,
  UNDO_POINT_REMOVED_RECORD_TYPE,
  type UndoEntry,
  type UndoPoint,
} from './undo-records.js';

/** Version of the timeline record format written in each record's `v`. */
export const TIMELINE_FORMAT_VERSION = 1;
/** Record type of a timeline point. */
export const POINT_RECORD_TYPE = 'fh-point';
/** Record type closing a point: done, rolled back or abandoned. */
export const POINT_DONE_RECORD_TYPE = 'fh-point-done';
/** Record type removing points (`fh undo --prune`). */
export const POINTS_PRUNED_RECORD_TYPE = 'fh-points-pruned';

/**
 * What a point was saved for. `rewind`: a rewind to a checkpoint (or a shell capture's rewind);
 * `undo` / `redo`: moving the timeline's cursor back / forward over step `target`; `undo-to`: back
 * to just before point `target` (`fh undo <id>`); `recover`: rolling back the pending point `target`.
 */
export type PointOperation = 'rewind' | 'undo' | 'redo' | 'undo-to' | 'recover';

/** How a point ended: `pending` until a done record names it. */
export type PointStatus = 'pending' | 'done' | 'rolled-back' | 'abandoned';

/** One point of the timeline: the pre-images of the files an operation changed, and its plan. */
export interface TimelinePoint extends UndoPoint {
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
export function pointRecord(point: Omit<TimelinePoint, 'status' | 'closedAt' | 'legacy'>): LogRecord {
  return {
    type: POINT_RECORD_TYPE,
    v: TIMELINE_FORMAT_VERSION,
    pointId: point.undoId,
    sessionId: point.sessionId,
    createdAt: point.createdAt.toISOString(),
    operation: point.operation,
    messageId: point.messageId,
    target: point.target,
    entries: point.entries.map((entry) => ({ ...entry })),
    plan: point.plan.map((entry) => ({ ...entry })),
    ...(point.summary === undefined ? {} : { summary: { ...point.summary } }),
  };
}

/** The `fh-point-done` record closing `pointId`. */
export function pointDoneRecord(pointId: string, outcome: Exclude<PointStatus, 'pending'>, timestamp: Date, by: string | null = null): LogRecord {
  return { type: POINT_DONE_RECORD_TYPE, v: TIMELINE_FORMAT_VERSION, pointId, outcome, by, timestamp: timestamp.toISOString() };
}

/** The `fh-points-pruned` record removing `pointIds`. */
export function pointsPrunedRecord(pointIds: readonly string[], timestamp: Date): LogRecord {
  return { type: POINTS_PRUNED_RECORD_TYPE, v: TIMELINE_FORMAT_VERSION, pointIds: [...pointIds], timestamp: timestamp.toISOString() };
}

const OPERATIONS: ReadonlySet<string> = new Set(['rewind', 'undo', 'redo', 'undo-to', 'recover']);
const OUTCOMES: ReadonlySet<string> = new Set(['done', 'rolled-back', 'abandoned']);

function parseEntries(value: unknown): UndoEntry[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const entries = value.map(parseUndoEntry);
  return entries.some((entry) => entry === undefined) ? undefined : (entries as UndoEntry[]);
}

/** Parse an `fh-point` record (status `pending`); `undefined` with one warning when malformed or of a newer version. */
export function parsePointRecord(record: LogRecord, onWarning: RecordWarningHandler = () => {}): TimelinePoint | undefined {
  const createdAt = typeof record.createdAt === 'string' ? new Date(record.createdAt) : undefined;
  const entries = parseEntries(record.entries);
  const plan = parseEntries(record.plan ?? []);
  if (typeof record.v === 'number' && record.v > TIMELINE_FORMAT_VERSION) {
    onWarning(`skipped ${POINT_RECORD_TYPE} record ${JSON.stringify(record.pointId ?? null)} of format version ${record.v} (this fh reads version ${TIMELINE_FORMAT_VERSION}); upgrade fh`);
    return undefined;
  }
  if (
    typeof record.pointId !== 'string' ||
    record.pointId === '' ||
    typeof record.sessionId !== 'string' ||
    createdAt === undefined ||
    Number.isNaN(createdAt.getTime()) ||
    typeof record.operation !== 'string' ||
    !OPERATIONS.has(record.operation) ||
    (record.messageId !== null && typeof record.messageId !== 'string') ||
    (record.target !== null && typeof record.target !== 'string') ||
    entries === undefined ||
    plan === undefined
  ) {
    onWarning(`skipped a malformed ${POINT_RECORD_TYPE} record ${JSON.stringify(record.pointId ?? null)}`);
    return undefined;
  }
  return {
    undoId: record.pointId,
    sessionId: record.sessionId,
    createdAt,
    operation: record.operation as PointOperation,
    messageId: record.messageId as string | null,
    target: record.target as string | null,
    entries,
    plan,
    status: 'pending',
    ...summaryOf(record.summary),
  };
}

function summaryOf(value: unknown): { summary?: PointSummary } {
  const summary = parsePointSummary(value);
  return summary === undefined ? {} : { summary };
}

/**
 * Every point of a session log, oldest first, with its status: `fh-point` records closed by
 * `fh-point-done`, minus pruned ones, plus live legacy `fh-undo-point` records as done `rewind`
 * points. Malformed records are skipped with a warning. Never throws.
 */
export function readTimelinePoints(records: readonly LogRecord[], onWarning: RecordWarningHandler = () => {}): TimelinePoint[] {
  const points = new Map<string, TimelinePoint>();
  for (const record of records) {
    if (record.type === POINT_RECORD_TYPE) {
      const point = parsePointRecord(record, onWarning);
      if (point !== undefined && !points.has(point.undoId)) points.set(point.undoId, point);
    } else if (record.type === POINT_DONE_RECORD_TYPE) {
      const point = typeof record.pointId === 'string' ? points.get(record.pointId) : undefined;
      if (point === undefined || point.status !== 'pending' || typeof record.outcome !== 'string' || !OUTCOMES.has(record.outcome)) continue;
      point.status = record.outcome as PointStatus;
      const closedAt = typeof record.timestamp === 'string' ? new Date(record.timestamp) : undefined;
      if (closedAt !== undefined && !Number.isNaN(closedAt.getTime())) point.closedAt = closedAt;
    } else if (record.type === POINTS_PRUNED_RECORD_TYPE && Array.isArray(record.pointIds)) {
      for (const id of record.pointIds) if (typeof id === 'string') points.delete(id);
    } else if (record.type === UNDO_POINT_RECORD_TYPE) {
      const legacy = parseUndoPointRecord(record, onWarning);
      if (legacy !== undefined && !points.has(legacy.undoId)) {
        points.set(legacy.undoId, { ...legacy, operation: 'rewind', target: null, plan: [], status: 'done', legacy: true });
      }
    } else if (record.type === UNDO_POINT_REMOVED_RECORD_TYPE && typeof record.undoId === 'string') {
      if (points.get(record.undoId)?.legacy === true) points.delete(record.undoId);
    }
  }
  return [...points.values()];
}

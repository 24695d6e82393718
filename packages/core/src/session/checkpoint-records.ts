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
import type { LogRecord } from '../store.js';

/** The record type of a checkpoint mark. */
export const CHECKPOINT_RECORD_TYPE = 'fh-checkpoint';

/** Why a checkpoint was taken: a turn ended (`Stop`) or a person asked for one. */
export type CheckpointKind = 'end-of-turn' | 'manual';

/** A checkpoint mark as read from the log. */
export interface CheckpointMark {
  /** The message id of the snapshot the mark is about. */
  messageId: string;
  kind: CheckpointKind;
  /** The label given to `fh checkpoint --label`; undefined when none. */
  label?: string;
  timestamp: Date;
}

/** The `fh-checkpoint` record marking the snapshot `mark.messageId` (see the module comment). */
export function checkpointRecord(sessionId: string, mark: CheckpointMark): LogRecord {
  return {
    type: CHECKPOINT_RECORD_TYPE,
    version: 1,
    sessionId,
    messageId: mark.messageId,
    kind: mark.kind,
    ...(mark.label === undefined ? {} : { label: mark.label }),
    timestamp: mark.timestamp.toISOString(),
  };
}

/**
 * The checkpoint mark in `record`, or undefined when it is not a well-formed `fh-checkpoint`
 * record of version 1 (an unknown kind, a non-string label or id, a bad timestamp).
 */
export function parseCheckpointRecord(record: LogRecord): CheckpointMark | undefined {
  if (record.type !== CHECKPOINT_RECORD_TYPE || record.version !== 1) return undefined;
  const { messageId, kind, label, timestamp } = record as Record<string, unknown>;
  if (typeof messageId !== 'string' || messageId === '') return undefined;
  if (kind !== 'end-of-turn' && kind !== 'manual') return undefined;
  if (label !== undefined && typeof label !== 'string') return undefined;
  const time = typeof timestamp === 'string' ? new Date(timestamp) : undefined;
  if (time === undefined || Number.isNaN(time.getTime())) return undefined;
  return { messageId, kind, ...(label === undefined ? {} : { label }), timestamp: time };
}

/** The checkpoint marks among `records`, by message id (a later mark of the same id wins). */
export function checkpointMarks(records: Iterable<LogRecord>): Map<string, CheckpointMark> {
  const marks = new Map<string, CheckpointMark>();
  for (const record of records) {
    const mark = parseCheckpointRecord(record);
    if (mark !== undefined) marks.set(mark.messageId, mark);
  }
  return marks;
}

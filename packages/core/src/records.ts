/**
 * Session record formats (Claude Code transcript lines) that carry file history. fh writes these
 * into its session log and reads them from Claude Code transcripts; see ARCHITECTURE.md.
 */
import type { FileHistoryBackup, FileHistorySnapshot } from './types.js';

/**
 * `{"type":"file-history-snapshot", messageId, snapshot, isSnapshotUpdate}`: a turn's snapshot
 * (`isSnapshotUpdate: false`) or the same snapshot after a backup was attached to it mid-turn
 * (`true`). Dates are ISO-8601 strings once serialised.
 */
export interface FileHistorySnapshotRecord {
  type: 'file-history-snapshot';
  messageId: string;
  snapshot: FileHistorySnapshot;
  isSnapshotUpdate: boolean;
}

/**
 * `{"type":"file-history-delta", messageId, snapshotMessageId, trackingPath, backup, timestamp}`:
 * one tracked file's backup added to the snapshot of `snapshotMessageId`.
 */
export interface FileHistoryDeltaRecord {
  type: 'file-history-delta';
  messageId: string;
  snapshotMessageId: string;
  trackingPath: string;
  backup: FileHistoryBackup;
  timestamp: Date;
}

/** Build the record that persists `snapshot` (seed: recordFileHistorySnapshot). */
export function snapshotRecord(snapshot: FileHistorySnapshot, isSnapshotUpdate: boolean): FileHistorySnapshotRecord {
  return { type: 'file-history-snapshot', messageId: snapshot.messageId, snapshot, isSnapshotUpdate };
}

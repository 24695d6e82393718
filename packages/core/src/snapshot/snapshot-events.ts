/**
 * The `snapshotFilesChanged` event (seed 004 §11): after a snapshot is made, the files whose
 * backup differs from the previous snapshot's, with their old and new contents, so an editor
 * integration can show what each turn changed.
 */
import { readBackupBytes } from '../rewind/backup-content.js';
import type { FileHistoryContext } from '../file-history-context.js';
import type { FileHistoryBackup, FileHistorySnapshot } from '../types.js';

/** One file whose backup changed between two consecutive snapshots. */
export interface SnapshotFileChange {
  /** Tracking path (relative to the project root, `/` separators). */
  path: string;
  /** Bytes at the previous snapshot; `null` when the file did not exist or was not tracked then. */
  oldContent: Uint8Array | null;
  /** Bytes at the new snapshot; `null` when the file does not exist. */
  newContent: Uint8Array | null;
}

/** Payload of the `snapshotFilesChanged` event. */
export interface SnapshotFilesChangedEvent {
  /** Message id of the new snapshot. */
  messageId: string;
  /** Message id of the snapshot compared against; `null` for the first snapshot. */
  previousMessageId: string | null;
  /** The changed files, sorted by path. Files whose backup failed on either side are left out. */
  files: SnapshotFileChange[];
}

/** Listener of the `snapshotFilesChanged` event; may return a promise, which is awaited. */
export type SnapshotFilesChangedListener = (event: SnapshotFilesChangedEvent) => void | Promise<void>;

/** Tracking paths whose backup object differs between `previous` and `next` (entries with `error` excluded). */
export function changedTrackingPaths(previous: FileHistorySnapshot | undefined, next: FileHistorySnapshot): string[] {
  const changed: string[] = [];
  for (const [path, backup] of Object.entries(next.trackedFileBackups)) {
    const before = previous?.trackedFileBackups[path];
    if (backup.error !== undefined || before?.error !== undefined) continue;
    if (before === undefined ? backup.backupFileName !== null : before.backupFileName !== backup.backupFileName) changed.push(path);
  }
  return changed.sort();
}

/**
 * Build the event for `next` against `previous`, reading the changed files' backups from the
 * store (bounded concurrency) whole into memory. Returns undefined when no file changed. Throws
 * the store's errors.
 */
export async function snapshotFilesChangedEvent(
  context: FileHistoryContext,
  previous: FileHistorySnapshot | undefined,
  next: FileHistorySnapshot,
): Promise<SnapshotFilesChangedEvent | undefined> {
  const paths = changedTrackingPaths(previous, next);
  if (paths.length === 0) return undefined;
  const content = (backup: FileHistoryBackup | undefined) =>
    backup === undefined || backup.backupFileName === null ? Promise.resolve(null) : readBackupBytes(context, backup.backupFileName);
  const files = await Promise.all(
    paths.map((path) =>
      context.limit(async () => ({
        path,
        oldContent: await content(previous?.trackedFileBackups[path]),
        newContent: await content(next.trackedFileBackups[path]),
      })),
    ),
  );
  return { messageId: next.messageId, previousMessageId: previous?.messageId ?? null, files };
}

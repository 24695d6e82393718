/**
 * Which backups to delete when snapshots are dropped by the 100-snapshot cap (seed 004 §7.2).
 */
import type { FileHistorySnapshot } from '../types.js';

/** Input of {@link backupsToDelete}. */
export interface RetentionInput {
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
export function backupsToDelete(input: RetentionInput): string[] {
  const referenced = new Set<string>();
  for (const snapshot of input.kept) {
    for (const backup of Object.values(snapshot.trackedFileBackups)) {
      if (backup.backupFileName !== null) referenced.add(backup.backupFileName);
    }
  }
  const deletable = new Set<string>();
  for (const snapshot of input.dropped) {
    for (const backup of Object.values(snapshot.trackedFileBackups)) {
      const name = backup.backupFileName;
      if (name === null || backup.error !== undefined || backup.version <= 1 || referenced.has(name)) continue;
      deletable.add(name);
    }
  }
  return [...deletable].sort();
}

/** Read-only questions about a {@link FileHistoryState}, shared by the algorithms. */
import type { FileHistoryBackup, FileHistorySnapshot, FileHistoryState } from '../types.js';

/** The last snapshot made for `messageId` (seed: `findLast`), or undefined. */
export function findSnapshot(state: FileHistoryState, messageId: string): FileHistorySnapshot | undefined {
  for (let index = state.snapshots.length - 1; index >= 0; index -= 1) {
    const snapshot = state.snapshots[index];
    if (snapshot !== undefined && snapshot.messageId === messageId) return snapshot;
  }
  return undefined;
}

/** The newest entry any snapshot holds for `trackingPath`, or undefined. */
export function latestBackup(state: FileHistoryState, trackingPath: string): FileHistoryBackup | undefined {
  for (let index = state.snapshots.length - 1; index >= 0; index -= 1) {
    const backup = state.snapshots[index]?.trackedFileBackups[trackingPath];
    if (backup !== undefined) return backup;
  }
  return undefined;
}

/** The version a new backup of `trackingPath` gets: one above any it has had (1 for a new file). */
export function nextVersion(state: FileHistoryState, trackingPath: string): number {
  let highest = 0;
  for (const snapshot of state.snapshots) {
    const backup = snapshot.trackedFileBackups[trackingPath];
    if (backup !== undefined && backup.version > highest) highest = backup.version;
  }
  return highest + 1;
}

/** True when some snapshot refers to the backup object `name`. */
export function isBackupReferenced(state: FileHistoryState, name: string): boolean {
  return state.snapshots.some((snapshot) =>
    Object.values(snapshot.trackedFileBackups).some((backup) => backup.backupFileName === name),
  );
}

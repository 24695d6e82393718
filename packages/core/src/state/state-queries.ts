/** Read-only questions about a {@link FileHistoryState}, shared by the algorithms. */
import type { FileHistoryBackup, FileHistorySnapshot, FileHistoryState } from '../types.js';
import { chainLink, entryOf, isDeferred } from './snapshot-chain.js';

/** The last snapshot made for `messageId` (seed: `findLast`), or undefined. */
export function findSnapshot(state: FileHistoryState, messageId: string): FileHistorySnapshot | undefined {
  for (let index = state.snapshots.length - 1; index >= 0; index -= 1) {
    const snapshot = state.snapshots[index];
    if (snapshot !== undefined && snapshot.messageId === messageId) return snapshot;
  }
  return undefined;
}

/**
 * The newest entry any snapshot holds for `trackingPath`, or undefined. Looks entries up through
 * chained snapshots without building their maps (`snapshot-chain.ts`).
 */
export function latestBackup(state: FileHistoryState, trackingPath: string): FileHistoryBackup | undefined {
  for (let index = state.snapshots.length - 1; index >= 0; index -= 1) {
    const snapshot = state.snapshots[index];
    const backup = snapshot === undefined ? undefined : entryOf(snapshot, trackingPath);
    if (backup !== undefined) return backup;
  }
  return undefined;
}

/**
 * The version a new backup of `trackingPath` gets: one above any it has had in the held snapshots
 * (1 for a new file). One lookup per snapshot: a chained snapshot is looked at only where it
 * changed the path, without building its map.
 */
export function nextVersion(state: FileHistoryState, trackingPath: string): number {
  let highest = 0;
  state.snapshots.forEach((snapshot, index) => {
    const link = isDeferred(snapshot) ? chainLink(snapshot) : undefined;
    const backup = link !== undefined && link.previous === state.snapshots[index - 1] ? link.changes.get(trackingPath) : entryOf(snapshot, trackingPath);
    if (backup !== undefined && backup.version > highest) highest = backup.version;
  });
  return highest + 1;
}

/** True when some snapshot holds the backup object `name` as `trackingPath`'s entry. */
export function isBackupReferenced(state: FileHistoryState, name: string, trackingPath: string): boolean {
  return state.snapshots.some((snapshot) => entryOf(snapshot, trackingPath)?.backupFileName === name);
}

/**
 * Which backup a checkpoint stands for, file by file (seed 000 §4 `applySnapshot`, issue 2 rule 4):
 * the one rule a rewind, a dry run and a printed patch all follow.
 *
 * The state of a file at the snapshot is the snapshot's entry for it; a file first tracked after
 * the snapshot takes its first later entry, the backup made just before the agent's first edit of
 * it — which is also how it was at the earlier snapshot, since nothing was editing it for the agent
 * then (the seed does the same with the file's v1).
 */
import { findSnapshot } from '../state/state-queries.js';
import type { FileHistoryBackup, FileHistoryState } from '../types.js';

/**
 * Every file a rewind to `messageId` covers (the state's tracked files and the snapshot's entries),
 * sorted by tracking path, each with the entry that holds its state at the snapshot: the
 * snapshot's own entry, else the first entry a later snapshot has for it, else undefined (no
 * entry at or after the snapshot). Undefined when no snapshot has `messageId` (the last snapshot
 * with it counts, as everywhere). Pure: reads `state` only.
 */
export function snapshotFileBackups(
  state: Readonly<FileHistoryState>,
  messageId: string,
): Map<string, FileHistoryBackup | undefined> | undefined {
  const targets = snapshotFileTargets(state, messageId);
  return targets === undefined ? undefined : new Map(targets.map((target) => [target.path, target.backup]));
}

/**
 * {@link snapshotFileBackups} as a list, sorted by tracking path (what a rewind plans over): one
 * pass over the snapshot's entries and the tracked files, no intermediate map.
 */
export function snapshotFileTargets(
  state: Readonly<FileHistoryState>,
  messageId: string,
): Array<{ path: string; backup: FileHistoryBackup | undefined }> | undefined {
  const snapshot = findSnapshot(state, messageId);
  if (snapshot === undefined) return undefined;
  const index = state.snapshots.lastIndexOf(snapshot);
  const own = snapshot.trackedFileBackups;
  const paths = Object.keys(own);
  for (const path of state.trackedFiles) if (!Object.hasOwn(own, path)) paths.push(path);
  paths.sort();
  return paths.map((path) => ({ path, backup: (Object.hasOwn(own, path) ? own[path] : undefined) ?? firstBackupAfter(state, index, path) }));
}

/** The first entry for `path` in a snapshot after index `index`: its state before the agent first touched it. */
function firstBackupAfter(state: Readonly<FileHistoryState>, index: number, path: string): FileHistoryBackup | undefined {
  for (let later = index + 1; later < state.snapshots.length; later += 1) {
    const backups = state.snapshots[later]?.trackedFileBackups;
    if (backups !== undefined && Object.hasOwn(backups, path)) return backups[path];
  }
  return undefined;
}

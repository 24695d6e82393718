/**
 * Which backup a checkpoint stands for, file by file (seed 000 §4 `applySnapshot`, issue 2 rule 4):
 * the one rule a rewind, a dry run and a printed patch all follow.
 *
 * The state of a file at the snapshot is the snapshot's entry for it; a file first tracked after
 * the snapshot takes its first later entry, the backup made just before the agent's first edit of
 * it — which is also how it was at the earlier snapshot, since nothing was editing it for the agent
 * then (the seed does the same with the file's v1).
 */
import { absolutePathsOf, sharedSortedPaths } from '../snapshot/make-snapshot.js';
import { columnOf, keysTracked } from '../state/snapshot-chain.js';
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

/** One tracked file a rewind covers and its entry at the snapshot (see {@link snapshotFileTargets}). */
export interface SnapshotFileTarget {
  /** Tracking path. */
  path: string;
  /** Its entry at the snapshot; undefined when no snapshot at or after it has one. */
  backup: FileHistoryBackup | undefined;
  /** The file's absolute path, when already known (undefined: the caller resolves it, and reports a path outside the root). */
  absolutePath?: string;
}

/**
 * {@link snapshotFileBackups} as a list, sorted by tracking path (what a rewind plans over): one
 * pass over the snapshot's entries and the tracked files, no intermediate map. With
 * `projectRoot`, each target also carries its absolute path where it is known already. A snapshot
 * whose every path is tracked (`keysTracked`: every snapshot fh makes or rebuilds) is listed from
 * the tracked files' shared sorted order (`sharedSortedPaths`, sorted once as the set grows) and
 * their absolute paths (`absolutePathsOf`), as `makeSnapshot` reads them: no sort and no
 * resolving per call. Other snapshots list their own keys and the tracked files, sorted.
 */
export function snapshotFileTargets(state: Readonly<FileHistoryState>, messageId: string, projectRoot?: string): SnapshotFileTarget[] | undefined {
  const snapshot = findSnapshot(state, messageId);
  if (snapshot === undefined) return undefined;
  const index = state.snapshots.lastIndexOf(snapshot);
  const own = snapshot.trackedFileBackups;
  const backupOf = (path: string) => (Object.hasOwn(own, path) ? own[path] : undefined) ?? firstBackupAfter(state, index, path);
  if (keysTracked(snapshot)) {
    const paths = sharedSortedPaths(state.trackedFiles);
    const absolutePaths = projectRoot === undefined ? undefined : absolutePathsOf(projectRoot, paths);
    // The newest snapshot's entries by position, when makeSnapshot made it from these very paths.
    const column = columnOf(snapshot);
    const entries = column !== undefined && column.paths === paths ? column.entries : undefined;
    const targets = new Array<SnapshotFileTarget>(paths.length);
    for (let at = 0; at < paths.length; at += 1) {
      const path = paths[at] as string;
      const backup = entries === undefined ? backupOf(path) : entries[at];
      const absolutePath = absolutePaths?.[at];
      targets[at] = absolutePath === undefined ? { path, backup } : { path, backup, absolutePath };
    }
    return targets;
  }
  const paths = Object.keys(own);
  for (const path of state.trackedFiles) if (!Object.hasOwn(own, path)) paths.push(path);
  paths.sort();
  return paths.map((path) => ({ path, backup: backupOf(path) }));
}

/** The first entry for `path` in a snapshot after index `index`: its state before the agent first touched it. */
function firstBackupAfter(state: Readonly<FileHistoryState>, index: number, path: string): FileHistoryBackup | undefined {
  for (let later = index + 1; later < state.snapshots.length; later += 1) {
    const backups = state.snapshots[later]?.trackedFileBackups;
    if (backups !== undefined && Object.hasOwn(backups, path)) return backups[path];
  }
  return undefined;
}

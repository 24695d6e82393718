/**
 * `fileHistoryTrackEdit` (seed 000 §5, seed 004 §3.1): back a file up before an agent edits it.
 *
 * Three phases, so speculative or concurrent calls never overwrite a file's v1:
 * 1. Capture the state. If the most recent snapshot already tracks the file, return: its backup
 *    there is the file as it was before this turn's first edit.
 * 2. Outside any state update, copy the file into the store (or note `null` when it does not exist
 *    yet, so a rewind deletes a file the agent created).
 * 3. Commit with a re-check: attach the backup to the most recent snapshot, unless another
 *    `trackEdit` won meanwhile; then the now unused backup object is deleted (no orphan).
 *
 * With no snapshot yet there is no turn to attach the backup to, and the seed returns without
 * doing anything (it logs "Missing most recent snapshot"); so does fh. A host makes a snapshot at
 * each user turn before the agent acts, so this only happens when a host skips that step.
 */
import { OutsideRootError } from './errors.js';
import { createBackup } from './create-backup.js';
import { captureState, type FileHistoryContext, type FileHistoryStateUpdater } from './file-history-context.js';
import { toAbsolutePath, toTrackingPath } from './paths.js';
import { isBackupReferenced, nextVersion } from './state-queries.js';
import type { FileHistorySnapshot, FileHistoryState } from './types.js';

/**
 * Call before an agent writes `path` (absolute, or relative to the project root). Resolves once the
 * backup exists and, when the context records snapshots, once the updated snapshot is durable in
 * the session log. Throws `OutsideRootError` naming the path if it lies outside the project root or
 * inside the store's own storage, `InvalidArgumentError` if it is a directory, and the store's or
 * log's errors; on any error the state is unchanged and no backup object is left behind.
 */
export async function fileHistoryTrackEdit(updateState: FileHistoryStateUpdater, path: string, context: FileHistoryContext): Promise<void> {
  const trackingPath = toTrackingPath(context.projectRoot, path);
  const absolutePath = toAbsolutePath(context.projectRoot, trackingPath);
  if (context.store.containsPath(absolutePath)) {
    throw new OutsideRootError(`${path} is inside fh's own storage and is never tracked`);
  }

  const captured = captureState(updateState);
  const mostRecent = captured?.snapshots.at(-1);
  if (captured === undefined || mostRecent === undefined || mostRecent.trackedFileBackups[trackingPath] !== undefined) return;

  const backup = await createBackup(context, absolutePath, nextVersion(captured, trackingPath));

  let committed: FileHistorySnapshot | undefined;
  let finalState: FileHistoryState | undefined;
  updateState((state) => {
    finalState = state;
    const latest = state.snapshots.at(-1);
    if (latest === undefined || latest.trackedFileBackups[trackingPath] !== undefined) return state;
    committed = { ...latest, trackedFileBackups: { ...latest.trackedFileBackups, [trackingPath]: backup } };
    const snapshots = state.snapshots.slice(0, -1);
    snapshots.push(committed);
    const trackedFiles = state.trackedFiles.has(trackingPath) ? state.trackedFiles : new Set(state.trackedFiles).add(trackingPath);
    finalState = { ...state, snapshots, trackedFiles };
    return finalState;
  });

  if (committed !== undefined) {
    await context.recordSnapshot?.(committed, true);
    return;
  }
  if (backup.backupFileName !== null && (finalState === undefined || !isBackupReferenced(finalState, backup.backupFileName))) {
    await context.store.deleteBackup(context.sessionId, backup.backupFileName);
  }
}

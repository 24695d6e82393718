/**
 * The dry run a front end shows before a rewind (seed 000 §2, §7): the diff stats of the rewind,
 * plus which of the files it would overwrite changed after the session's latest snapshot — edits
 * the agent or the user made since the last turn began, which no snapshot holds. A front end
 * should warn about those; `RewindSession.restore` also saves them in an undo point first.
 */
import type { DiffStatsOptions } from '../rewind/diff-stats.js';
import type { FileHistoryReader } from '../file-history.js';
import type { DiffStats } from '../results.js';

/** {@link DiffStats} with `changedSinceLatestSnapshot` always filled. */
export type RewindPreview = DiffStats & { changedSinceLatestSnapshot: string[] };

/**
 * The dry run of a rewind to `messageId` (optionally only `options.paths`): `history.getDiffStats`
 * plus `changedSinceLatestSnapshot`, the files of `filesChanged` whose current bytes or mode differ
 * from the latest snapshot (sorted). Nothing is written. Throws like `getDiffStats`
 * (`NotFoundError` without a snapshot for `messageId`, `InvalidArgumentError` for an untracked path).
 */
export async function rewindPreview(history: FileHistoryReader, messageId: string, options: DiffStatsOptions = {}): Promise<RewindPreview> {
  const stats = await history.getDiffStats(messageId, options);
  const latest = history.state.snapshots.at(-1);
  let sinceLatest: readonly string[] = [];
  if (latest !== undefined && stats.filesChanged.length > 0) {
    sinceLatest = latest.messageId === messageId ? stats.filesChanged : (await history.getDiffStats(latest.messageId, options)).filesChanged;
  }
  const changed = new Set(sinceLatest);
  return { ...stats, changedSinceLatestSnapshot: stats.filesChanged.filter((path) => changed.has(path)) };
}

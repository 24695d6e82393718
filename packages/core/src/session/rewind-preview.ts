/**
 * The dry run a front end shows before a rewind (seed 000 §2, §7): the diff stats of the rewind,
 * plus which of the files it would overwrite changed after the session's latest snapshot — edits
 * the agent or the user made since the last turn began, which no snapshot holds. A front end
 * should warn about those; `RewindSession.restore` also saves them in an undo point first.
 */
import { conflictSkip, selectAgentChanges, type AgentSelection } from '../attribution/agent-changes.js';
import type { DiffStatsOptions } from '../rewind/diff-stats.js';
import { snapshotFileBackups } from '../rewind/snapshot-targets.js';
import type { FileHistoryReader } from '../file-history.js';
import type { DiffStats } from '../results.js';
import type { FileHistoryState } from '../types.js';

/** A file because of which a rewind would be refused as a whole, and why. */
export interface RewindRefusal {
  /** Tracking path. */
  path: string;
  /** `backup-missing`: its backup at the checkpoint is missing or damaged; `unreadable`: the file as it is now cannot be read, so it cannot be saved in the undo point first. */
  kind: 'backup-missing' | 'unreadable';
  /** The error as the dry run met it. */
  reason: string;
}

/**
 * {@link DiffStats} with `changedSinceLatestSnapshot` and `refusals` always filled, and, for a
 * rewind of one agent's changes, `agent`: which files it covers and which it leaves alone as
 * conflicts (those are listed in `skipped` too).
 */
export type RewindPreview = DiffStats & { changedSinceLatestSnapshot: string[]; refusals: RewindRefusal[]; agent?: AgentSelection };

/**
 * The files of `stats` (a dry run of a rewind to `messageId` over `state`) because of which
 * `RewindSession.restore` would refuse the rewind and change nothing: each file whose backup at
 * the checkpoint is missing or damaged (`stats.missing`), and — when the rewind saves an undo point
 * first (`withUndo`, RewindSession's default) — each file the dry run could not read (a `failed`
 * entry whose checkpoint backup did not itself fail when it was taken: those are only reported
 * and the other files rewind). Empty when the rewind would go ahead. Pure.
 */
export function rewindRefusals(state: Readonly<FileHistoryState>, messageId: string, stats: DiffStats, withUndo = true): RewindRefusal[] {
  const refusals: RewindRefusal[] = (stats.missing ?? []).map((entry) => ({ path: entry.path, kind: 'backup-missing', reason: entry.reason }));
  if (!withUndo) return refusals;
  const missing = new Set(refusals.map((refusal) => refusal.path));
  const entries = snapshotFileBackups(state, messageId);
  for (const failure of stats.failed ?? []) {
    if (missing.has(failure.path) || entries?.get(failure.path)?.error !== undefined) continue;
    refusals.push({ path: failure.path, kind: 'unreadable', reason: failure.reason });
  }
  return refusals;
}

/** Options of {@link rewindPreview}: those of the diff stats, plus `agent`. */
export interface RewindPreviewOptions extends DiffStatsOptions {
  /**
   * Only the files this agent changed after the checkpoint (`main`, a sub-agent id or a unique
   * prefix, see `selectAgentChanges`); `paths` then names conflicting files to include.
   */
  agent?: string;
}

/**
 * The dry run of a rewind to `messageId` (optionally only `options.paths`, or only `options.agent`'s
 * files): `history.getDiffStats`
 * plus `changedSinceLatestSnapshot`, the files of `filesChanged` whose current bytes or mode differ
 * from the latest snapshot (sorted), and `refusals` (see {@link rewindRefusals}). Nothing is written. Throws like `getDiffStats`
 * (`NotFoundError` without a snapshot for `messageId`, `InvalidArgumentError` for an untracked path).
 */
export async function rewindPreview(history: FileHistoryReader, messageId: string, previewOptions: RewindPreviewOptions = {}): Promise<RewindPreview> {
  const { agent: agentQuery, ...options } = previewOptions;
  if (agentQuery !== undefined) {
    const selection = selectAgentChanges(history.state, messageId, agentQuery, { projectRoot: history.projectRoot, ...(options.paths === undefined ? {} : { paths: options.paths }) });
    const preview = await rewindPreview(history, messageId, { ...options, paths: selection.paths });
    return { ...preview, skipped: [...(preview.skipped ?? []), ...selection.conflicts.map(conflictSkip)], agent: selection };
  }
  const stats = await history.getDiffStats(messageId, options);
  const latest = history.state.snapshots.at(-1);
  let sinceLatest: readonly string[] = [];
  if (latest !== undefined && stats.filesChanged.length > 0) {
    sinceLatest = latest.messageId === messageId ? stats.filesChanged : (await history.getDiffStats(latest.messageId, options)).filesChanged;
  }
  const changed = new Set(sinceLatest);
  return {
    ...stats,
    changedSinceLatestSnapshot: stats.filesChanged.filter((path) => changed.has(path)),
    refusals: rewindRefusals(history.state, messageId, stats),
  };
}

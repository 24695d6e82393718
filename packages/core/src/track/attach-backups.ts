/**
 * Phase 3 of `trackEdit` (seed 000 §5), batched: backups that finish in the same turn of the event
 * loop are attached to the most recent snapshot in one state update and one record write. Each
 * attachment adds its entry to the newest snapshot's map and its path to the tracked-file set in
 * place, so a call costs the same however many files are tracked already (no copy of either). Each attachment is still re-checked on its own: the first backup of a file
 * wins and later ones for that file are reported as lost.
 */
import { withAttribution } from '../attribution/agents.js';
import type { FileHistoryContext, FileHistoryStateUpdater } from '../file-history-context.js';
import { entryOf, setEntry } from '../state/snapshot-chain.js';
import { setStateBookkeeping, type EditAttribution, type FileHistoryBackup, type FileHistorySnapshot, type FileHistoryState } from '../types.js';

/** How one attachment ended. */
export type AttachOutcome =
  /** Attached; `recorded` resolves when the updated snapshot is durable in the log. */
  | { attached: true; recorded: Promise<void> }
  /**
   * Another backup of the file was attached first (or the updater is a no-op); `state` is the
   * state after the update. When the item carried an attribution, it was added to the entry that
   * won and `recorded` resolves once that is durable.
   */
  | { attached: false; state: FileHistoryState | undefined; recorded?: Promise<void> };

interface PendingAttach {
  trackingPath: string;
  /** The backup to attach; undefined for an attribution alone (the file is tracked already). */
  backup: FileHistoryBackup | undefined;
  /** Who is changing the file (issue 14): added to the entry that ends up in the snapshot. */
  attribution: EditAttribution | undefined;
  settle(outcome: AttachOutcome): void;
}

interface PendingBatch {
  context: FileHistoryContext;
  items: PendingAttach[];
}

/** Attachments waiting for the next flush, per state updater. */
const pendingBatches = new WeakMap<FileHistoryStateUpdater, PendingBatch>();

/**
 * Attach `backup` as `trackingPath`'s entry in the most recent snapshot, unless that snapshot
 * already has one by the time the batch is committed (checked per attachment, in call order).
 */
export function attachBackup(
  updateState: FileHistoryStateUpdater,
  context: FileHistoryContext,
  trackingPath: string,
  backup: FileHistoryBackup | undefined,
  attribution?: EditAttribution,
): Promise<AttachOutcome> {
  let batch = pendingBatches.get(updateState);
  if (batch === undefined) {
    batch = { context, items: [] };
    pendingBatches.set(updateState, batch);
    setImmediate(() => flush(updateState));
  }
  const items = batch.items;
  return new Promise((settle) => items.push({ trackingPath, backup, attribution, settle }));
}

function flush(updateState: FileHistoryStateUpdater): void {
  const batch = pendingBatches.get(updateState);
  pendingBatches.delete(updateState);
  if (batch === undefined) return;
  const won = new Set<PendingAttach>();
  const attributed = new Set<PendingAttach>();
  let committed: FileHistorySnapshot | undefined;
  let finalState: FileHistoryState | undefined;
  try {
    updateState((state) => {
      finalState = state;
      const latest = state.snapshots.at(-1);
      if (latest === undefined) return state;
      // The newest snapshot's entries and the tracked-file set grow in place: one entry per backup
      // attached, never a copy of what is already tracked (see FileHistorySnapshot); a snapshot
      // derived from the one before (snapshot-chain.ts) gets it in its own changes, unbuilt.
      for (const item of batch.items) {
        const existing = entryOf(latest, item.trackingPath);
        if (existing !== undefined || item.backup === undefined) {
          // The file is tracked (now): only the attribution, if this agent is not listed yet; the
          // entry is replaced in place (a new object, so snapshots sharing the old one keep it).
          if (existing === undefined || item.attribution === undefined) continue;
          const entry = withAttribution(existing, item.attribution);
          if (entry === existing) continue;
          setEntry(latest, item.trackingPath, entry);
          attributed.add(item);
          continue;
        }
        setEntry(latest, item.trackingPath, item.attribution === undefined ? item.backup : withAttribution(item.backup, item.attribution));
        state.trackedFiles.add(item.trackingPath);
        won.add(item);
      }
      if (won.size === 0 && attributed.size === 0) return state;
      committed = latest;
      finalState = setStateBookkeeping({ ...state }, { superseded: state.superseded, heldSnapshots: state.heldSnapshots });
      return finalState;
    });
  } catch (error) {
    const failed = Promise.reject(error);
    failed.catch(() => undefined);
    for (const item of batch.items) item.settle({ attached: true, recorded: failed });
    return;
  }
  const changedPaths = [...new Set([...won, ...attributed].map((item) => item.trackingPath))];
  const recorded = committed === undefined ? Promise.resolve() : (batch.context.recordSnapshot?.(committed, true, changedPaths) ?? Promise.resolve());
  recorded.catch(() => undefined);
  for (const item of batch.items) {
    item.settle(won.has(item) ? { attached: true, recorded } : attributed.has(item) ? { attached: false, state: finalState, recorded } : { attached: false, state: finalState });
  }
}

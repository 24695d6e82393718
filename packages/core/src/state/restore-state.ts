/**
 * Rebuild a {@link FileHistoryState} from session records (seed 000 §8:
 * fileHistoryRestoreStateFromLog), for fh's own session logs and Claude Code transcripts alike.
 */
import { fileHistoryRecordHead, type RecordWarningHandler } from './records.js';
import { StateRebuilder } from './rebuild.js';
import { fhSnapshotRecordHead } from './snapshot-records.js';
import { MAX_SNAPSHOTS, setStateBookkeeping, type FileHistorySnapshot, type FileHistoryState } from '../types.js';

/** Options of {@link restoreStateFromLog}. */
export interface RestoreStateOptions {
  /** Absolute project root: absolute keys inside it become relative, keys outside it are dropped. */
  projectRoot: string;
  /** Receives one message per skipped record, dropped key or repaired entry. */
  onWarning?: RecordWarningHandler;
  /** Most snapshots kept (the oldest are dropped first). Default {@link MAX_SNAPSHOTS}. */
  maxSnapshots?: number;
  /**
   * Called with every record in order (all types, before it is read); relative keys of that
   * record resolve against the absolute folder it returns instead of `projectRoot` (Claude Code
   * keys by the base folder in effect when it wrote the record: a worktree after `EnterWorktree`,
   * see `baseFolderTracker`). Default: every key resolves against `projectRoot`.
   */
  baseFolder?: (record: unknown) => string;
}

/**
 * Rebuild the file-history state of a session from its records, in append order (seed 000 §8).
 *
 * - Only `file-history-snapshot`, `file-history-delta` and `fh-session` records are read; every
 *   other record (user/assistant messages, summaries, ...) is ignored. Malformed ones are skipped
 *   with a warning (see {@link parseFileHistoryRecord}).
 * - Snapshots are rebuilt the way `FileHistory` made them: a record with `isSnapshotUpdate: false`
 *   appends a snapshot; an update replaces the latest snapshot with its messageId (a mid-turn
 *   backup attached to the turn), or appends one if there is none (records carried by a resume).
 *   So the last record per messageId wins, and a rewind (which looks for the last snapshot of a
 *   messageId) sees what it saw before the restart. For Claude Code transcripts, which write one
 *   non-update record per turn, this is the same as Claude Code's own rebuild.
 * - A delta adds one file's backup to the latest snapshot of its `snapshotMessageId`; a delta for
 *   a snapshot not seen yet is skipped with a warning.
 * - Relative keys resolve against `baseFolder(record)` when that option is given (else against
 *   `projectRoot`); the result is then treated as an absolute key.
 * - Absolute keys inside `projectRoot` become relative tracking keys (`/` separators); keys outside
 *   it (or climbing out with `..`) are dropped with a warning. If two keys of one snapshot map to
 *   the same tracking key, the higher version wins.
 * - At most `maxSnapshots` (100) are kept, the newest (the same ones `FileHistory` kept, so the
 *   rebuilt state never refers to a backup that retention deleted). `trackedFiles` holds every tracking key of
 *   every snapshot read, including dropped ones. `snapshotSequence` is the number of non-update
 *   snapshot records plus the `snapshotSequenceOffset` of the log's `fh-session` record, and at
 *   least the number of snapshots rebuilt.
 *
 * Entries repeated unchanged across records are parsed once and shared by the rebuilt snapshots
 * (see `BackupParseCache`), so rebuilding a long session costs about one parse per distinct entry.
 *
 * Throws `InvalidArgumentError` when `projectRoot` is not absolute. Never throws for bad records.
 */
export function restoreStateFromLog(records: Iterable<unknown>, options: RestoreStateOptions): FileHistoryState {
  const rebuilder = new StateRebuilder(options);
  for (const record of records) rebuilder.push(record);
  return rebuilder.finish().state;
}

/** Where the newest snapshot's records start (see {@link findAnchor}). */
interface Anchor {
  /** Index of the record that adds the newest full node (every later snapshot chains from it). */
  index: number;
  /** Nodes added before it, snapshot records before it, and their message ids. */
  nodesBefore: number;
  snapshotRecordsBefore: number;
  messageIdsBefore: Set<string>;
  /** The anchor is an `fh-snapshot` full record (its sequence and retention info are exact). */
  compact: boolean;
}

/**
 * The last record that adds a snapshot with its whole map (an `fh-snapshot` full record, a
 * `file-history-snapshot` that is not an update, or an update of a message id not seen before),
 * scanning record heads only. Undefined when there is none.
 */
function findAnchor(records: readonly unknown[]): Anchor | undefined {
  const seen = new Set<string>();
  let anchor: Anchor | undefined;
  let nodes = 0;
  let snapshotRecords = 0;
  const order: string[] = [];
  records.forEach((record, index) => {
    const compact = fhSnapshotRecordHead(record);
    if (compact?.kind === 'attach') return;
    if (compact !== undefined) {
      if (compact.kind === 'full') anchor = { index, nodesBefore: nodes, snapshotRecordsBefore: snapshotRecords, messageIdsBefore: new Set(), compact: true };
      seen.add(compact.messageId);
      order.push(compact.messageId);
      nodes += 1;
      snapshotRecords += 1;
      return;
    }
    const head = fileHistoryRecordHead(record);
    if (head?.type !== 'file-history-snapshot') return;
    if (!head.isSnapshotUpdate || !seen.has(head.messageId)) {
      anchor = { index, nodesBefore: nodes, snapshotRecordsBefore: snapshotRecords, messageIdsBefore: new Set(), compact: false };
      seen.add(head.messageId);
      order.push(head.messageId);
      nodes += 1;
    }
    if (!head.isSnapshotUpdate) snapshotRecords += 1;
  });
  if (anchor !== undefined) anchor.messageIdsBefore = new Set(order.slice(0, anchor.nodesBefore));
  return anchor;
}

/**
 * The newest snapshot of a log: what `restoreStateFromLog(records, options).snapshots.at(-1)`
 * returns, for a caller that needs only the current turn (`fh hook` asking whether a file is
 * tracked yet). Record heads are scanned without parsing entries; only the records from the last
 * one that adds a whole snapshot on are parsed. Undefined when the log has no snapshot. Throws
 * `InvalidArgumentError` when `projectRoot` is not absolute.
 */
export function latestSnapshotFromLog(records: readonly unknown[], options: RestoreStateOptions): FileHistorySnapshot | undefined {
  const anchor = findAnchor(records);
  if (anchor === undefined) return restoreStateFromLog([], options).snapshots.at(-1);
  const rebuilder = new StateRebuilder(
    { ...options, maxSnapshots: 1 },
    { nodes: anchor.nodesBefore, snapshotRecords: anchor.snapshotRecordsBefore, messageIds: anchor.messageIdsBefore },
  );
  for (let index = anchor.index; index < records.length; index += 1) rebuilder.push(records[index]);
  return rebuilder.finish().state.snapshots.at(-1);
}

/**
 * The newest snapshot from the newest records of a log alone (say its last MiB, see
 * `SessionLog.readEnds`), or undefined when they do not settle it (see {@link tailAnchor}), so the
 * caller reads more of the log. When they settle it, it is exactly what `latestSnapshotFromLog`
 * would give for the whole log. Throws `InvalidArgumentError` when they settle it and
 * `projectRoot` is not absolute.
 */
export function latestSnapshotFromTail(tail: readonly unknown[], options: RestoreStateOptions): FileHistorySnapshot | undefined {
  const anchor = tailAnchor(tail);
  return anchor === undefined ? undefined : latestSnapshotFromLog(tail.slice(anchor), options);
}

/** What {@link latestStateFromTail} returns. */
export interface TailState {
  /** The snapshots the tail holds from its anchor on (the newest last). */
  state: FileHistoryState;
  /**
   * The anchor is an `fh-snapshot` full record: `snapshotSequence` and the retention index
   * (`state.superseded`) are those of the whole log, so `makeSnapshot` can continue from this
   * state (`state.heldSnapshots` is set). False for older records, whose count only the whole log gives.
   */
  exact: boolean;
  /** See `RebuildResult.diffBase`. */
  diffBase: number | undefined;
}

/**
 * The state from the newest records of a log alone, from the anchor {@link tailAnchor} finds
 * (undefined when it finds none). With an `fh-snapshot` full anchor it is exact enough to make
 * the next snapshot from (see {@link TailState.exact}) without reading the rest of the log.
 */
export function latestStateFromTail(tail: readonly unknown[], options: RestoreStateOptions): TailState | undefined {
  const index = tailAnchor(tail);
  if (index === undefined) return undefined;
  const rebuilder = new StateRebuilder(options);
  for (let at = index; at < tail.length; at += 1) rebuilder.push(tail[at]);
  const { state, diffBase } = rebuilder.finish();
  const exact = fhSnapshotRecordHead(tail[index])?.kind === 'full';
  const maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
  if (exact) setStateBookkeeping(state, { heldSnapshots: Math.min(maxSnapshots, state.snapshotSequence) });
  return { state, exact, diffBase };
}

/**
 * Where the newest snapshot starts in the newest records of a log: the index of the last record
 * that adds a whole snapshot (an `fh-snapshot` full record or a non-update
 * `file-history-snapshot`), when every later `file-history-snapshot` update is for a snapshot
 * added from there on; undefined when the records do not settle it (no such record, or a later
 * update of another snapshot, which only the earlier records could place). Reads record heads only.
 */
export function tailAnchor(tail: readonly unknown[]): number | undefined {
  let anchor = -1;
  tail.forEach((record, index) => {
    const compact = fhSnapshotRecordHead(record);
    if (compact?.kind === 'full') anchor = index;
    const head = fileHistoryRecordHead(record);
    if (head?.type === 'file-history-snapshot' && !head.isSnapshotUpdate) anchor = index;
  });
  if (anchor < 0) return undefined;
  const added = new Set<string>();
  for (const record of tail.slice(anchor)) {
    const compact = fhSnapshotRecordHead(record);
    if (compact !== undefined) {
      added.add(compact.messageId);
      continue;
    }
    const head = fileHistoryRecordHead(record);
    if (head?.type !== 'file-history-snapshot') continue;
    if (head.isSnapshotUpdate && !added.has(head.messageId)) return undefined;
    added.add(head.messageId);
  }
  return anchor;
}

/**
 * Checkpoints taken outside a user turn's prompt (issue 11): at the end of a turn (Claude Code's
 * `Stop` hook event) or on demand (`fh checkpoint [--label]`, `RewindSession.checkpoint`). A
 * checkpoint is an ordinary snapshot under a new message id — backups of the tracked files that
 * changed since the turn's snapshot — followed by its `fh-checkpoint` mark
 * (`checkpoint-records.ts`): the snapshot first, so a mark never names a snapshot that is not
 * durable. A rewind to it (`fh rewind <id>`) puts the files back as they were when it was taken.
 */
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../errors.js';
import type { SessionLog, BackupStore } from '../store.js';
import type { FileHistorySnapshot } from '../types.js';
import { chainLink } from '../state/snapshot-chain.js';
import { checkpointRecord, type CheckpointKind, type CheckpointMark } from './checkpoint-records.js';

/** The file history a checkpoint is taken in: a `FileHistory` fits. */
export interface CheckpointHistory {
  readonly sessionId: string;
  readonly store: BackupStore;
  makeSnapshot(messageId: string): Promise<FileHistorySnapshot | undefined>;
}

/** Options of {@link takeCheckpoint}. */
export interface TakeCheckpointOptions {
  /** Default `manual`; the `Stop` hook passes `end-of-turn`. */
  kind?: CheckpointKind;
  /** A person's name for it (`fh checkpoint --label`), shown by `fh list`: printable, at most {@link MAX_CHECKPOINT_LABEL_LENGTH} characters. */
  label?: string;
  /** The checkpoint's message id. Default `crypto.randomUUID()`. */
  messageId?: string;
  /** Where the mark is appended. Default `history.store.sessionLog(history.sessionId)`. */
  log?: SessionLog;
}

/** A checkpoint taken: its snapshot and its mark. */
export interface TakenCheckpoint {
  messageId: string;
  snapshot: FileHistorySnapshot;
  mark: CheckpointMark;
}

/** Longest checkpoint label, in characters. */
export const MAX_CHECKPOINT_LABEL_LENGTH = 200;

/**
 * Throw `InvalidArgumentError` (nothing recorded) for a label that is empty, longer than
 * {@link MAX_CHECKPOINT_LABEL_LENGTH} or holds a control character (an escape sequence would reach
 * every terminal that lists it).
 */
export function checkCheckpointLabel(label: string): void {
  if (label.trim() === '') throw new InvalidArgumentError('the checkpoint label is empty; give some text or leave the label out; nothing was recorded');
  if (label.length > MAX_CHECKPOINT_LABEL_LENGTH) {
    throw new InvalidArgumentError(`the checkpoint label is ${label.length} characters, over the ${MAX_CHECKPOINT_LABEL_LENGTH} allowed; shorten it; nothing was recorded`);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(label)) throw new InvalidArgumentError('the checkpoint label holds a control character; use printable characters only; nothing was recorded');
}

/**
 * Take a checkpoint now (see the module comment). Resolves once the snapshot and its mark are
 * durable; undefined when tracking is off (nothing recorded). Throws `InvalidArgumentError` for a
 * bad label (see {@link checkCheckpointLabel}) before anything is written, and what `makeSnapshot`
 * and the log's `append` throw.
 */
export async function takeCheckpoint(history: CheckpointHistory, options: TakeCheckpointOptions = {}): Promise<TakenCheckpoint | undefined> {
  if (options.label !== undefined) checkCheckpointLabel(options.label);
  const messageId = options.messageId ?? randomUUID();
  const snapshot = await history.makeSnapshot(messageId);
  if (snapshot === undefined) return undefined;
  const mark: CheckpointMark = { messageId, kind: options.kind ?? 'manual', ...(options.label === undefined ? {} : { label: options.label }), timestamp: snapshot.timestamp };
  await (options.log ?? history.store.sessionLog(history.sessionId)).append([checkpointRecord(history.sessionId, mark)]);
  return { messageId, snapshot, mark };
}

/**
 * The files whose backup failed when `snapshot` was taken (store full, file unreadable, …): its
 * entries with an `error` that `previous` (the snapshot before it, if any) does not already hold,
 * sorted by tracking path. A rewind to `snapshot` cannot restore them. For a front end to say so
 * after `makeSnapshot` (`fh snapshot`, `fh checkpoint`, the hook's prompt and Stop).
 */
export function newBackupFailures(snapshot: FileHistorySnapshot, previous: FileHistorySnapshot | undefined): Array<{ path: string; error: string }> {
  const failures: Array<{ path: string; error: string }> = [];
  // A snapshot chained to `previous` lists what changed: only those entries (no map is built).
  const link = chainLink(snapshot);
  const entries = link !== undefined && link.previous === previous ? link.changes.entries() : Object.entries(snapshot.trackedFileBackups);
  for (const [path, entry] of entries) {
    if (entry?.error === undefined) continue;
    const before = previous === undefined || !Object.hasOwn(previous.trackedFileBackups, path) ? undefined : previous.trackedFileBackups[path];
    if (before === entry || (before?.error === entry.error && before.backupTime?.getTime() === entry.backupTime?.getTime())) continue;
    failures.push({ path, error: entry.error });
  }
  return failures.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

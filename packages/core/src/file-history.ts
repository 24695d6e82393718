/**
 * `FileHistory`: one session's file history with its own state — the small class most hosts use
 * (issue 2 "The public API"). It runs the seed-style algorithms (`fileHistoryTrackEdit`, ...) over
 * the state it owns, records every snapshot in the session log, and emits `snapshotFilesChanged`.
 *
 *   const history = await FileHistory.open({ projectRoot, sessionId, store });
 *   await history.makeSnapshot(userMessageId);      // at each user turn
 *   await history.trackEdit('src/app.ts');          // before the agent writes a file
 *   await history.getDiffStats(userMessageId);      // preview a rewind
 *   await history.rewind(userMessageId);            // put the files back
 *   await history.close();
 */
import { ConflictError, FhError, InvalidArgumentError } from './errors.js';
import {
  createFileHistoryContext,
  type FileHistoryContext,
  type FileHistoryStateUpdater,
} from './file-history-context.js';
import { fileHistoryGetDiffStats, fileHistoryHasAnyChanges, type DiffStatsOptions } from './rewind/diff-stats.js';
import { fileHistoryMakeSnapshot } from './snapshot/make-snapshot.js';
import { coalesceSnapshotUpdates, RecordQueue } from './state/record-queue.js';
import { attachmentRecords, deltaRecord, fhSessionRecord, parseFhSessionRecord, snapshotRecord, SNAPSHOT_UPDATE_MAX_FILES } from './state/records.js';
import { readLogEnds } from './state/log-ends.js';
import { rebuildStateFromLog, StateRebuilder } from './state/rebuild.js';
import { rebuildFromTail } from './state/tail-rebuild.js';
import { latestStateFromTail } from './state/restore-state.js';
import { entryOf, notedDiff } from './state/snapshot-chain.js';
import { attachSnapshotRecord, diffSnapshotRecord, fullSnapshotRecord } from './state/snapshot-records.js';
import { anchorOf, formatStateRecord, type AnchorLine } from './state/state-record.js';
import { copyFileHistoryForResume, type ResumeResult } from './session/resume.js';
import type { DiffStats, RewindResult } from './results.js';
import { fileHistoryCanRestore, fileHistoryRewind, type RewindOptions } from './rewind/rewind.js';
import { snapshotFilesChangedEvent, type SnapshotFilesChangedListener } from './snapshot/snapshot-events.js';
import { findSnapshot } from './state/state-queries.js';
import type { BackupStore, LogEnds, LogRecord, SessionLock, SessionLog, WorkspaceFs } from './store.js';
import { fileHistoryTrackEdit, type TrackEditOptions } from './track/track-edit.js';
import { beginCommand, type BeginCommandOptions, type CommandWindow } from './command/begin-command.js';
import { endCommand, endOpenCommands, type CommandCapture, type EndCommandOptions, type EndOpenCommandsOptions } from './command/end-command.js';
import { emptyFileHistoryState, MAX_SNAPSHOTS, type FileHistoryBackup, type FileHistorySnapshot, type FileHistoryState } from './types.js';
import { agentFromIds, MAIN_AGENT, type AgentIdentity } from './attribution/agents.js';
import { pointFreeLog, readTimeline, recoverPending, type PointFreeLog, type RecoveryResult } from './session/undo.js';

/** Environment variable that turns file checkpointing off when set to `1` or `true` (seed 000 §9). */
export const DISABLE_ENV_VARIABLE = 'FH_DISABLE_FILE_CHECKPOINTING';

/** Options of {@link FileHistory.makeSnapshot}. */
export interface MakeSnapshotOptions {
  /**
   * Log records written in the same append as the snapshot's record, just before it (the turn's
   * `user` message record, say): one durable write for both, one request on S3.
   */
  records?: readonly LogRecord[];
}

/** Options of {@link FileHistory.open}. */
export interface FileHistoryOptions {
  /** Absolute project root; tracked paths are kept relative to it. */
  projectRoot: string;
  /** The session (a single path segment, e.g. a UUID). */
  sessionId: string;
  /** Where backups and the session log live. */
  store: BackupStore;
  /** Workspace file system (`node:fs/promises`-compatible). Default: `store.workspaceFs`. */
  fs?: WorkspaceFs;
  /**
   * Tracking on or off (seed 000 §9 `fileCheckpointingEnabled`). Default true; the environment
   * variable {@link DISABLE_ENV_VARIABLE} set to `1`/`true` turns it off regardless. When off every
   * call is a cheap no-op: no I/O, empty results, `canRestore` false.
   */
  enabled?: boolean;
  /** Per-file I/O tasks at once. Default 16. */
  concurrency?: number;
  /** Files larger than this many bytes count as changed without a line diff. Default 8 MiB. */
  diffSizeCapBytes?: number;
  /** Margin (ms) for file timestamps in change detection. Default 2000; see `DEFAULT_TIMESTAMP_GRANULARITY_MS`. */
  timestampGranularityMs?: number;
  /** Where snapshot records go. Default `store.sessionLog(sessionId)`; `false` records nothing. */
  log?: SessionLog | false;
  /**
   * State to start from. Default: rebuilt from the session log with `restoreStateFromLog` when the
   * log has records (a restart, or a resumed session), else empty.
   */
  initialState?: FileHistoryState;
  /** Environment read for {@link DISABLE_ENV_VARIABLE}. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Hold the session's lock while open, where the store can lock (`capabilities.locking`): a second
   * process or handle opening the same session gets `LockedError`, and `cleanup` leaves the
   * session alone. `close()` releases it. Default true.
   */
  lock?: boolean;
  /**
   * How much of the session's state to rebuild from its log. `'all'` (default): every snapshot
   * (streamed, see `rebuildStateFromLog`). `'latest'`: only the newest ones, read from the two
   * ends of the log where the store can ({@link SessionLog.readEnds}): from the newest full
   * snapshot record on, for a short-lived process that calls `trackEdit` or `makeSnapshot` (an
   * agent hook): its cost does not grow with the session. `makeSnapshot` there continues the
   * session exactly (its snapshot count, and retention from the retention index the full record
   * carries); when the tail starts at an older-format record that does not give them, the first
   * `makeSnapshot` reads the whole log first. Such a history refuses `rewind`, `getDiffStats`,
   * `hasAnyChanges` and `canRestore` with `InvalidArgumentError`, and checks a new snapshot's
   * message id only against the snapshots it read; when the log's ends do not settle the newest
   * snapshot, the whole log is read as with `'all'`.
   */
  rebuild?: 'all' | 'latest';
  /**
   * A lock on the session the caller already took (`store.lockSession`), held by the history
   * instead of taking one, and released by `close()` (or when opening fails). Default: none.
   */
  sessionLock?: SessionLock;
  /**
   * With `rebuild: 'latest'`: the log's ends (`readLogEnds`) the caller read while holding
   * `sessionLock`, so the history does not read them again (an agent hook reads them once per
   * event). Ignored without `sessionLock` (ends read before the lock may be stale).
   */
  logEnds?: LogEnds;
  /**
   * Receives warnings that do not stop the history: session-log lines and records skipped while
   * rebuilding, keys dropped as outside the project root, a project root other than the one the
   * session recorded, backups retention could not delete. Default: ignored.
   */
  onWarning?: (message: string) => void;
}

/** Options of {@link FileHistory.resume}: those of {@link FileHistory.open} for the new session, plus where to resume from. */
export interface FileHistoryResumeOptions extends FileHistoryOptions {
  /** The session to resume from; `sessionId` names the new session (it must have no file history yet). */
  fromSessionId: string;
  /**
   * Open the new session even when backups are missing from the old one; their entries are marked
   * unavailable (see `copyFileHistoryForResume`). Default false: throw `ResumeBackupsMissingError`.
   */
  allowMissingBackups?: boolean;
  /** Which other records of the old session to copy (see `copyFileHistoryForResume`). Default `'all'`. */
  carryRecords?: 'all' | 'none';
  /** Progress in backups carried: `(done, total)` (see `copyFileHistoryForResume`). */
  onProgress?: (done: number, total: number) => void;
}

/** Events {@link FileHistory.on} accepts, with their listener types. */
export interface FileHistoryEvents {
  /** After a snapshot whose files differ from the previous snapshot's (seed 004 §11). */
  snapshotFilesChanged: SnapshotFilesChangedListener;
}

/** The read side of a file history, shared by {@link FileHistory} and its subagent handle. */
export interface FileHistoryReader {
  readonly projectRoot: string;
  readonly sessionId: string;
  readonly store: BackupStore;
  readonly fs: WorkspaceFs;
  readonly enabled: boolean;
  /**
   * The current state; treat as read-only. It is replaced on each change, except that `trackEdit`
   * adds to the newest snapshot's `trackedFileBackups` and to `trackedFiles` in place.
   */
  readonly state: Readonly<FileHistoryState>;
  getDiffStats(messageId: string, options?: DiffStatsOptions): Promise<DiffStats>;
  hasAnyChanges(messageId: string): Promise<boolean>;
  canRestore(messageId: string): boolean;
}

/** The sub-agent {@link FileHistory.forSubagent} attributes edits to (Claude Code's `agent_id` / `agent_type`). */
export interface SubagentIdentity {
  /** The sub-agent's id: a non-empty string, unique within the session. */
  agentId: string;
  /** Its type (`general-purpose`, `Explore`, a custom agent's name), when known. */
  agentType?: string;
}

/**
 * A sub-agent's view of the file history (seed 004 §8, issue 14): it reads the main history; its
 * `trackEdit` backs files up into the main conversation's current turn exactly as the main
 * history's does, attributing each change to the sub-agent; `makeSnapshot` does nothing, so
 * snapshots stay one per main-conversation turn.
 */
export interface SubagentFileHistory extends FileHistoryReader {
  /** The sub-agent this handle attributes to. */
  readonly agent: Readonly<SubagentIdentity>;
  /**
   * Back `path` up before the sub-agent writes it and record the sub-agent in the entry's
   * `changedBy` (see `fileHistoryTrackEdit`); errors and `options` as {@link FileHistory.trackEdit}.
   */
  trackEdit(path: string, options?: TrackEditOptions): Promise<void>;
  /** Does nothing; resolves to undefined (a sub-agent's messages are not main turns). */
  makeSnapshot(messageId: string): Promise<undefined>;
  /** {@link FileHistory.beginCommand} before a shell command the sub-agent runs (same errors). */
  beginCommand(options: BeginCommandOptions): Promise<CommandWindow>;
  /**
   * {@link FileHistory.endCommand} after it: the files the command changed go into the main turn's
   * checkpoint, each entry's `changedBy` naming the sub-agent (an `agent` in `options` is ignored).
   */
  endCommand(windowId: string, options: EndCommandOptions): Promise<CommandCapture>;
}

interface FileHistoryParts {
  context: FileHistoryContext;
  enabled: boolean;
  state: FileHistoryState;
  /** True when the state holds only the newest snapshot (`rebuild: 'latest'`). */
  partial: boolean;
  records: RecordQueue | undefined;
  /** Closes the session log this history opened itself (not one given as `options.log`). */
  closeLog: (() => Promise<void>) | undefined;
  lock: SessionLock | undefined;
  resumeResult: ResumeResult | undefined;
  /** The log read at open and written to (undefined: `log: false`). */
  log?: SessionLog | undefined;
  recorder?: SnapshotRecorder | undefined;
  options?: FileHistoryOptions;
}

/** Take the session's lock when the store can lock; undefined otherwise. */
async function acquireLock(store: BackupStore, sessionId: string): Promise<SessionLock | undefined> {
  return store.capabilities.locking && typeof store.lockSession === 'function' ? store.lockSession(sessionId) : undefined;
}

/** Whether tracking is on: the `enabled` option and {@link DISABLE_ENV_VARIABLE}. */
function isEnabled(options: Pick<FileHistoryOptions, 'enabled' | 'env'>): boolean {
  const env = options.env ?? process.env;
  const disabledByEnv = ['1', 'true'].includes((env[DISABLE_ENV_VARIABLE] ?? '').trim().toLowerCase());
  return options.enabled !== false && !disabledByEnv;
}

/** What reading the session log gave: the state to start from (undefined: empty) and how it was read. */
interface LogReading {
  state: FileHistoryState | undefined;
  /** Only the newest snapshots were read (`rebuild: 'latest'`). */
  partial: boolean;
  /** See `RebuildResult.diffBase`. */
  diffBase: number | undefined;
  /** See `RebuildResult.anchorLines`. */
  anchorLines?: AnchorLine[] | undefined;
}

/**
 * Read the session log: with `rebuild: 'latest'`, only its ends when they settle the newest
 * snapshot (`partial`); otherwise all of it, streamed (see {@link readWholeLog}).
 */
async function readSessionLog(log: SessionLog, context: FileHistoryContext, options: FileHistoryOptions): Promise<LogReading> {
  const warn = options.onWarning ?? (() => {});
  if (options.rebuild === 'latest' && options.initialState === undefined) {
    const latest = await readLatestOnly(log, context, warn, options.sessionLock === undefined ? undefined : options.logEnds);
    if (latest !== undefined) return latest;
  }
  return readWholeLog(log, context, options, warn);
}

/**
 * The whole state from the records of a log read whole by `readEnds` (a small log), as
 * `readWholeLog` would rebuild it but without reading the log again; undefined when the log has
 * no `fh-session` record (its first open, which `readWholeLog` completes).
 */
function wholeFromEnds(records: readonly LogRecord[], context: FileHistoryContext, warn: (message: string) => void): LogReading | undefined {
  const recordWarnings: string[] = [];
  const rebuilder = new StateRebuilder({ projectRoot: context.projectRoot, onWarning: (message) => recordWarnings.push(message) });
  for (const record of records) rebuilder.push(record);
  const recordedRoot = rebuilder.sessions.map((session) => session.projectRoot).find((root) => root !== undefined);
  if (rebuilder.sessions.length === 0) return undefined;
  if (recordedRoot !== undefined && recordedRoot !== context.projectRoot) {
    warn(`session ${context.sessionId} was recorded for project ${recordedRoot} and is opened for ${context.projectRoot}`);
  }
  for (const message of recordWarnings) warn(message);
  const { state, diffBase } = rebuilder.finish();
  return { state, partial: false, diffBase };
}

/**
 * The newest snapshots, from the log's ends (see `rebuild: 'latest'`; `given`: ends the caller
 * read under the lock), or undefined when the log cannot read its ends, has no `fh-session`
 * record at its start, or its tail does not settle the newest snapshot. A log small enough to
 * read whole is rebuilt whole from the records read (`wholeFromEnds`, no second read), so its
 * history can do everything. Every tracked file is in the newest snapshot
 * (each snapshot covers them all), so its keys are the tracked files. When the tail starts at an
 * `fh-snapshot` full record, the state also holds the session's snapshot count and retention
 * index (`heldSnapshots`, `superseded`), so `makeSnapshot` can continue from it.
 */
async function readLatestOnly(log: SessionLog, context: FileHistoryContext, warn: (message: string) => void, given: LogEnds | undefined): Promise<LogReading | undefined> {
  const ends = given ?? (await readLogEnds(log));
  if (ends === undefined) return undefined;
  if (ends.whole) return wholeFromEnds(ends.head, context, warn);
  const recordedRoot = ends.head.map((record) => parseFhSessionRecord(record, warn)?.projectRoot).find((root) => root !== undefined);
  if (recordedRoot === undefined) return undefined;
  const tail = latestStateFromTail(ends.tail, { projectRoot: context.projectRoot, onWarning: warn });
  if (tail === undefined || tail.state.snapshots.length === 0) return undefined;
  if (recordedRoot !== context.projectRoot) {
    warn(`session ${context.sessionId} was recorded for project ${recordedRoot} and is opened for ${context.projectRoot}`);
  }
  const latest = tail.state.snapshots.at(-1) as FileHistorySnapshot;
  if (!tail.exact) {
    return { state: { snapshots: [latest], trackedFiles: new Set(Object.keys(latest.trackedFileBackups)), snapshotSequence: 1 }, partial: true, diffBase: undefined };
  }
  return { state: tail.state, partial: true, diffBase: tail.diffBase };
}

/**
 * Read the whole log, streamed (`rebuildStateFromLog`): warn once per kind of skipped line,
 * rebuild the state when `initialState` is not given, and append the `fh-session` record on the
 * session's first open.
 */
async function readWholeLog(log: SessionLog, context: FileHistoryContext, options: FileHistoryOptions, warn: (message: string) => void): Promise<LogReading> {
  const recordWarnings: string[] = [];
  const rebuildOptions = { projectRoot: context.projectRoot, onWarning: (message: string) => recordWarnings.push(message) };
  const rebuilt = (options.initialState === undefined ? await rebuildFromTail(log, rebuildOptions) : undefined) ?? (await rebuildStateFromLog(log, rebuildOptions));
  for (const [reason, { count, firstLine }] of rebuilt.skippedLines) {
    if (firstLine === 0) {
      warn(`session ${context.sessionId}: ${count === 1 ? 'a log line' : `${count} log lines`} near the end of the log skipped (${reason})`);
      continue;
    }
    warn(count === 1 ? `session ${context.sessionId}: log line ${firstLine} skipped (${reason})` : `session ${context.sessionId}: ${count} log lines skipped (${reason}), the first at line ${firstLine}`);
  }
  const recordedRoot = rebuilt.sessions.map((session) => session.projectRoot).find((root) => root !== undefined);
  if (recordedRoot !== undefined && recordedRoot !== context.projectRoot) {
    warn(`session ${context.sessionId} was recorded for project ${recordedRoot} and is opened for ${context.projectRoot}`);
  }
  for (const message of recordWarnings) warn(message);
  if (rebuilt.sessions.length === 0) {
    await log.append([fhSessionRecord({ sessionId: context.sessionId, projectRoot: context.projectRoot, createdAt: new Date() })]);
  }
  if (options.initialState !== undefined) return { state: options.initialState, partial: false, diffBase: undefined };
  if (!rebuilt.hasRecords) return { state: undefined, partial: false, diffBase: undefined };
  return { state: rebuilt.state, partial: false, diffBase: rebuilt.diffBase, anchorLines: rebuilt.anchorLines };
}

/**
 * Most `fh-snapshot` diff records between two full ones: past it the next snapshot is recorded in
 * full, so a rebuild replays at most this many small records after a full one.
 */
export const FULL_SNAPSHOT_RECORD_EVERY = 1000;

/**
 * Records the snapshots of one history in its session log: in fh's compact form (`fh-snapshot`
 * diff records against the previous snapshot, and a full record when the log does not hold the
 * previous one in full, when the entries recorded since the last full record reach the number of
 * tracked files, or after {@link FULL_SNAPSHOT_RECORD_EVERY} diffs), or in Claude Code's own full
 * form for a log Claude Code reads (`SessionLog.recordForm`). Attachments are one `fh-snapshot`
 * attach record per batch (a `file-history-delta` record for a single backup, or when the log does
 * not hold the snapshot exactly); in Claude Code's form, whole updates for small snapshots and
 * deltas past them (see `attachmentRecords`).
 * A diff is written only against a snapshot whose own records were all durable: after a failed
 * append the next snapshot is recorded in full, so a rebuild never applies a diff to the wrong base.
 */
class SnapshotRecorder {
  /** The newest snapshot the log holds exactly, with its sequence. */
  private base: { snapshot: FileHistorySnapshot; sequence: number } | undefined;
  private entriesSinceFull = 0;
  private diffsSinceFull = 0;
  private leading: readonly LogRecord[] | undefined;
  /** Diff lines durable in the log (read at open or appended since), by sequence: a state record's possible anchors. */
  private readonly anchors = new Map<number, AnchorLine>();
  /** Entries the diffs recorded since the last state record held (at least one per diff). */
  private entriesSinceState = 0;

  constructor(
    private readonly queue: RecordQueue,
    private readonly form: 'fh' | 'claude-code',
    private readonly state: () => FileHistoryState,
    private readonly log: SessionLog,
  ) {}

  /**
   * Start from what the log held when it was read (`diffBase`: the newest snapshot's sequence, when
   * exact; `anchorLines`: the diff lines read, see `RebuildResult.anchorLines`).
   */
  startFrom(state: FileHistoryState, diffBase: number | undefined, anchorLines: readonly AnchorLine[] = []): void {
    const newest = state.snapshots.at(-1);
    this.base = newest !== undefined && diffBase !== undefined && diffBase === state.snapshotSequence ? { snapshot: newest, sequence: diffBase } : undefined;
    this.anchors.clear();
    for (const line of anchorLines) this.anchors.set(line.sequence, line);
  }

  /**
   * Records to write in the same append as the next new snapshot's record, before it
   * (`MakeSnapshotOptions.records`); {@link takeLeading} returns them if no snapshot took them.
   */
  lead(records: readonly LogRecord[]): void {
    this.leading = records.length === 0 ? undefined : records;
  }

  /** The records {@link lead} set that no snapshot record took (undefined when taken or none). */
  takeLeading(): readonly LogRecord[] | undefined {
    const left = this.leading;
    this.leading = undefined;
    return left;
  }

  record(snapshot: FileHistorySnapshot, isUpdate: boolean, attachedPaths?: readonly string[]): Promise<void> {
    const leading = isUpdate ? [] : (this.takeLeading() ?? []);
    if (this.form === 'claude-code') {
      const written = isUpdate && attachedPaths !== undefined ? attachmentRecords(snapshot, attachedPaths) : [snapshotRecord(snapshot, isUpdate)];
      if (leading.length > 0) return this.queue.appendAll([...leading, ...(written as unknown as LogRecord[])]);
      return Promise.all(written.map((record) => this.queue.append(record as unknown as LogRecord))).then(() => undefined);
    }
    if (isUpdate) {
      const paths = attachedPaths ?? Object.keys(snapshot.trackedFileBackups);
      const timestamp = new Date();
      this.entriesSinceFull += paths.length;
      const state = this.state();
      if (paths.length > 1 && state.snapshots.at(-1) === snapshot && this.base?.snapshot === snapshot && this.base.sequence === state.snapshotSequence) {
        const entries: Record<string, FileHistoryBackup> = {};
        for (const path of paths) entries[path] = entryOf(snapshot, path) as FileHistoryBackup;
        return this.settle(this.queue.append(attachSnapshotRecord(snapshot.messageId, state.snapshotSequence, entries)), undefined);
      }
      const written = paths.map((path) => this.queue.append(deltaRecord(snapshot.messageId, path, entryOf(snapshot, path) as FileHistoryBackup, timestamp) as unknown as LogRecord));
      return this.settle(Promise.all(written), undefined);
    }
    const state = this.state();
    const sequence = state.snapshotSequence;
    const index = state.snapshots.lastIndexOf(snapshot);
    const previous = index > 0 ? state.snapshots[index - 1] : undefined;
    let record: LogRecord | undefined;
    if (previous !== undefined && this.base?.snapshot === previous && this.base.sequence === sequence - 1 && this.diffsSinceFull < FULL_SNAPSHOT_RECORD_EVERY) {
      const noted = notedDiff(snapshot, previous);
      const entries: Record<string, FileHistoryBackup> = {};
      let changed = 0;
      let removed: string[] = [];
      let tracked: number;
      if (noted !== undefined) {
        // A snapshot makeSnapshot shares with the one before is read where it changed, not built whole.
        for (const path of noted.changed) entries[path] = entryOf(snapshot, path) as FileHistoryBackup;
        changed = noted.changed.length;
        removed = [...noted.removed];
        tracked = noted.size;
      } else {
        const backups = snapshot.trackedFileBackups;
        const before = previous.trackedFileBackups;
        for (const path in backups) {
          const entry = backups[path] as FileHistoryBackup;
          if (before[path] !== entry) {
            entries[path] = entry;
            changed += 1;
          }
        }
        for (const path in before) if (backups[path] === undefined) removed.push(path);
        tracked = Object.keys(backups).length;
      }
      if (this.entriesSinceFull + changed + removed.length < Math.max(tracked, SNAPSHOT_UPDATE_MAX_FILES)) {
        record = diffSnapshotRecord(snapshot.messageId, snapshot.timestamp, sequence, sequence - 1, entries, removed);
        this.entriesSinceFull += changed + removed.length;
        this.diffsSinceFull += 1;
        this.entriesSinceState += Math.max(1, changed + removed.length);
        const anchor: AnchorLine = { sequence, base: sequence - 1, messageId: snapshot.messageId, line: JSON.stringify(record) };
        this.base = undefined;
        return this.settle(leading.length > 0 ? this.queue.appendAll([...leading, record]) : this.queue.append(record), { snapshot, sequence }).then(() => this.noteDurableDiff(anchor, tracked));
      }
    }
    if (record === undefined) {
      record = fullSnapshotRecord(snapshot, sequence, state.superseded);
      this.entriesSinceFull = 0;
      this.diffsSinceFull = 0;
    }
    this.base = undefined;
    return this.settle(leading.length > 0 ? this.queue.appendAll([...leading, record]) : this.queue.append(record), { snapshot, sequence });
  }

  /**
   * A diff line is durable in the log: keep it as a possible anchor, and write the state record
   * beside the log (`state/state-record.ts`) once the entries the diffs held since the last one
   * reach an eighth of the tracked files (so its cost, one full snapshot, is spread over the turns,
   * as the log's full records are), when the kept snapshots are {@link MAX_SNAPSHOTS} and the log
   * line after the oldest of them is a diff this recorder knows durable. Describes only records up
   * to that line, so it is never ahead of the log. A failed write is ignored (the next open reads
   * the log without it).
   */
  private async noteDurableDiff(anchor: AnchorLine, tracked: number): Promise<void> {
    this.anchors.set(anchor.sequence, anchor);
    if (this.entriesSinceState * 8 < tracked) return;
    const state = this.state();
    const { snapshots } = state;
    if (snapshots.length < MAX_SNAPSHOTS || this.log.writeState === undefined) return;
    const oldest = snapshots[snapshots.length - MAX_SNAPSHOTS] as FileHistorySnapshot;
    const next = snapshots[snapshots.length - MAX_SNAPSHOTS + 1] as FileHistorySnapshot;
    const nextSequence = state.snapshotSequence - MAX_SNAPSHOTS + 2;
    for (const sequence of this.anchors.keys()) if (sequence < nextSequence) this.anchors.delete(sequence);
    const line = this.anchors.get(nextSequence);
    if (line === undefined || line.messageId !== next.messageId || line.base !== nextSequence - 1) return;
    this.entriesSinceState = 0;
    const body = JSON.stringify(fullSnapshotRecord(oldest, line.base));
    await this.log.writeState(formatStateRecord(anchorOf(line), body)).catch(() => undefined);
  }

  /** After the write: the log holds `next` exactly (or, for an attachment, still the same base); on failure nothing is trusted. */
  private settle(written: Promise<unknown>, next: { snapshot: FileHistorySnapshot; sequence: number } | undefined): Promise<void> {
    return written.then(
      () => {
        if (next !== undefined) this.base = next;
      },
      (error: unknown) => {
        this.base = undefined;
        throw error;
      },
    );
  }
}

/** One session's file history. Create with {@link FileHistory.open}. */
export class FileHistory implements FileHistoryReader {
  readonly projectRoot: string;
  readonly sessionId: string;
  readonly store: BackupStore;
  readonly fs: WorkspaceFs;
  readonly enabled: boolean;
  /** What {@link FileHistory.resume} carried into this session; undefined for {@link FileHistory.open}. */
  readonly resumeResult: ResumeResult | undefined;

  private current: FileHistoryState;
  private readonly context: FileHistoryContext;
  private readonly records: RecordQueue | undefined;
  private partial: boolean;
  private readonly log: SessionLog | undefined;
  private readonly recorder: SnapshotRecorder | undefined;
  private readonly options: FileHistoryOptions | undefined;
  private readonly closeLog: (() => Promise<void>) | undefined;
  private readonly lock: SessionLock | undefined;
  private readonly listeners = new Set<SnapshotFilesChangedListener>();
  /** trackEdit calls still running; close waits for them. */
  private readonly tracking = new Set<Promise<void>>();
  /** makeSnapshot and rewind run one at a time, in call order. */
  private serial: Promise<unknown> = Promise.resolve();
  /** What the last bare rewind found in the log: no timeline point in its first bytes (`pointFreeLog`). */
  private pointFree: PointFreeLog | undefined;
  private closed = false;
  private readonly updateState: FileHistoryStateUpdater = (update) => {
    this.current = update(this.current);
  };

  private constructor(parts: FileHistoryParts) {
    this.context = parts.context;
    this.projectRoot = parts.context.projectRoot;
    this.sessionId = parts.context.sessionId;
    this.store = parts.context.store;
    this.fs = parts.context.fs;
    this.enabled = parts.enabled;
    this.current = parts.state;
    this.records = parts.records;
    this.partial = parts.partial;
    this.log = parts.log;
    this.recorder = parts.recorder;
    this.options = parts.options;
    this.closeLog = parts.closeLog;
    this.lock = parts.lock;
    this.resumeResult = parts.resumeResult;
  }

  /**
   * Open the file history of `options.sessionId` (issue 3 "Rebuild and resume"):
   * 1. take the session's lock (see {@link FileHistoryOptions.lock}); `LockedError` naming the
   *    session if another process or handle has it open;
   * 2. read the session log and rebuild the state from it with `restoreStateFromLog` (unless
   *    `initialState` is given), so a restart continues where the last process stopped;
   * 3. on the session's first open, append an `fh-session` record naming the project root.
   * Throws `InvalidArgumentError` naming the option for a relative project root, an empty session
   * id or a bad knob (see {@link FileHistoryOptions}), and the store's errors; on any error the
   * lock is released. Does no I/O when tracking is off.
   */
  static async open(options: FileHistoryOptions): Promise<FileHistory> {
    if (typeof options !== 'object' || options === null) {
      throw new InvalidArgumentError(`FileHistory.open takes an options object ({ projectRoot, sessionId, store }), got ${String(options)}`);
    }
    if (options.rebuild !== undefined && options.rebuild !== 'all' && options.rebuild !== 'latest') {
      throw new InvalidArgumentError(`rebuild must be 'all' or 'latest', got ${JSON.stringify(options.rebuild)}`);
    }
    return FileHistory.create(options, options.sessionLock, undefined);
  }

  /**
   * Resume session `fromSessionId` into the new session `sessionId` (seed 000 §8): carry every
   * backup its history references into the new session (hard links where the store can, copies
   * otherwise, see `copyFileHistoryForResume`), record the carried history there, and open it.
   * The old session is only read. The new session's later backups continue the version numbers.
   *
   * Throws `ResumeBackupsMissingError` listing every backup missing from the old session (unless
   * `allowMissingBackups`): the carried history is recorded anyway, with those entries marked
   * unavailable, so `FileHistory.open` of the new session works afterwards. Throws `ConflictError`
   * if the new session already has file history, `InvalidArgumentError` for equal ids or a `log`
   * option (a resumed session's records go to `store.sessionLog(sessionId)`), `LockedError` if the
   * new session is open elsewhere. When tracking is off it opens the new session and carries nothing.
   */
  static async resume(options: FileHistoryResumeOptions): Promise<FileHistory> {
    const { fromSessionId, allowMissingBackups, carryRecords, onProgress, ...openOptions } = options;
    if (!isEnabled(openOptions)) return FileHistory.open(openOptions);
    if (openOptions.log !== undefined) {
      throw new InvalidArgumentError('log cannot be given to FileHistory.resume: the resumed session is recorded in store.sessionLog(sessionId)');
    }
    const context = createFileHistoryContext({ projectRoot: openOptions.projectRoot, sessionId: openOptions.sessionId, store: openOptions.store });
    const lock = openOptions.lock === false ? undefined : await acquireLock(context.store, context.sessionId);
    let result: ResumeResult;
    try {
      result = await copyFileHistoryForResume({
        store: context.store,
        fromSessionId,
        toSessionId: context.sessionId,
        projectRoot: context.projectRoot,
        throwOnMissing: allowMissingBackups !== true,
        ...(openOptions.initialState === undefined ? {} : { state: openOptions.initialState }),
        ...(carryRecords === undefined ? {} : { carryRecords }),
        ...(onProgress === undefined ? {} : { onProgress }),
        ...(openOptions.concurrency === undefined ? {} : { concurrency: openOptions.concurrency }),
        ...(openOptions.onWarning === undefined ? {} : { onWarning: openOptions.onWarning }),
      });
    } catch (error) {
      await lock?.release();
      throw error;
    }
    const { initialState: _carried, ...rest } = openOptions;
    return FileHistory.create(rest, lock, result);
  }

  /** Build a history; `heldLock` is a lock already taken for it (released if opening fails). */
  private static async create(options: FileHistoryOptions, heldLock: SessionLock | undefined, resumeResult: ResumeResult | undefined): Promise<FileHistory> {
    const enabled = isEnabled(options);
    let records: RecordQueue | undefined;
    let recorder: SnapshotRecorder | undefined;
    let history: FileHistory | undefined;
    let context: FileHistoryContext;
    try {
      context = createFileHistoryContext({
        projectRoot: options.projectRoot,
        sessionId: options.sessionId,
        store: options.store,
        ...(options.fs === undefined ? {} : { fs: options.fs }),
        ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
        ...(options.timestampGranularityMs === undefined ? {} : { timestampGranularityMs: options.timestampGranularityMs }),
        ...(options.diffSizeCapBytes === undefined ? {} : { diffSizeCapBytes: options.diffSizeCapBytes }),
        ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
        recordSnapshot: (snapshot: FileHistorySnapshot, isUpdate: boolean, attachedPaths?: readonly string[]) =>
          recorder === undefined ? Promise.resolve() : recorder.record(snapshot, isUpdate, attachedPaths),
      });
    } catch (error) {
      await heldLock?.release();
      throw error;
    }
    if (!enabled) return new FileHistory({ context, enabled, state: emptyFileHistoryState(), partial: false, records: undefined, closeLog: undefined, lock: heldLock, resumeResult });
    const ownLog = options.log === undefined ? context.store.sessionLog(context.sessionId, { holdOpen: true }) : undefined;
    const log = options.log === false ? undefined : (options.log ?? ownLog);
    records = log === undefined ? undefined : new RecordQueue(log, coalesceSnapshotUpdates);
    if (log !== undefined && records !== undefined) recorder = new SnapshotRecorder(records, log.recordForm ?? 'fh', () => history?.current ?? emptyFileHistoryState(), log);
    const closeLog = ownLog?.close === undefined ? undefined : () => ownLog.close?.() ?? Promise.resolve();
    let lock = heldLock;
    try {
      if (lock === undefined && options.lock !== false) lock = await acquireLock(context.store, context.sessionId);
      const read: LogReading = log === undefined ? { state: options.initialState, partial: false, diffBase: undefined } : await readSessionLog(log, context, options);
      const state = read.state ?? emptyFileHistoryState();
      recorder?.startFrom(state, read.diffBase, read.anchorLines);
      history = new FileHistory({ context, enabled, state, partial: read.partial, records, closeLog, lock, resumeResult, log, recorder, options });
      return history;
    } catch (error) {
      await closeLog?.().catch(() => undefined);
      await lock?.release();
      throw error;
    }
  }

  /** True while this history holds its session's lock: opened with `lock` (the default) and not closed. */
  get holdsLock(): boolean {
    return this.lock !== undefined && !this.closed;
  }

  /** The current state (snapshots oldest first, tracked files, sequence); see {@link FileHistoryReader.state}. */
  get state(): Readonly<FileHistoryState> {
    return this.current;
  }

  /**
   * Back `path` up before the main agent writes it (seed 000 §5), recording the main agent in
   * the entry's `changedBy` (issue 14). See `fileHistoryTrackEdit`: resolves once the backup and
   * its record are durable; throws `OutsideRootError` for a path outside the project root. A
   * no-op when tracking is off. Sub-agents use {@link forSubagent}. `options.prepared`: the
   * file's bytes already copied into the store (`prepareTrackEdit`, before the session's lock), used
   * as its backup when one is needed and removed otherwise.
   */
  async trackEdit(path: string, options: TrackEditOptions = {}): Promise<void> {
    return this.trackEditBy(path, MAIN_AGENT, options);
  }

  /** {@link trackEdit} attributed to `agent` (issue 14). */
  private async trackEditBy(path: string, agent: AgentIdentity, options: TrackEditOptions = {}): Promise<void> {
    this.assertOpen();
    if (!this.enabled) {
      await options.prepared?.backup.discard();
      return;
    }
    const tracking = fileHistoryTrackEdit(this.updateState, path, this.context, agent, options);
    this.tracking.add(tracking);
    try {
      await tracking;
    } finally {
      this.tracking.delete(tracking);
    }
  }

  /**
   * Snapshot every tracked file under `messageId` (a user turn). See `fileHistoryMakeSnapshot`.
   * Resolves with the snapshot once it is durable in the log, after `snapshotFilesChanged`
   * listeners ran (a listener's error rejects this call; the snapshot stays made). Undefined when
   * tracking is off. Throws `ConflictError` when the session already has a snapshot for
   * `messageId` (a second one would hide the first from rewinds).
   *
   * `options.records`: log records (the turn's user message, say) written in the same append as
   * the snapshot's record, just before it, so one durable write (one request on S3) holds both.
   * When no snapshot record is written (a no-op updater) they are appended alone; when making the
   * snapshot fails before its record is written, they are not written. Ignored without a log.
   */
  async makeSnapshot(messageId: string, options: MakeSnapshotOptions = {}): Promise<FileHistorySnapshot | undefined> {
    this.assertOpen();
    if (!this.enabled) return undefined;
    return this.runSerially(async () => {
      if (this.partial && this.current.heldSnapshots === undefined) await this.readWholeLog();
      if (findSnapshot(this.current, messageId) !== undefined) {
        throw new ConflictError(`session ${JSON.stringify(this.sessionId)} already has a snapshot for message ${JSON.stringify(messageId)}: each user turn needs its own message id`);
      }
      const records = this.recorder === undefined || options.records === undefined || options.records.length === 0 ? undefined : options.records;
      if (records !== undefined) this.recorder?.lead(records);
      let snapshot: FileHistorySnapshot | undefined;
      try {
        snapshot = await fileHistoryMakeSnapshot(this.updateState, messageId, this.context);
      } catch (error) {
        this.recorder?.takeLeading();
        throw error;
      }
      // No snapshot record took them (the updater recorded nothing): they go out alone.
      const left = records === undefined ? undefined : this.recorder?.takeLeading();
      if (left !== undefined) await this.records?.appendAll(left);
      if (snapshot !== undefined && this.listeners.size > 0) await this.emitFilesChanged(snapshot);
      return snapshot;
    });
  }

  /** What a rewind to `messageId` would change (dry run). See `fileHistoryGetDiffStats`. */
  async getDiffStats(messageId: string, options: DiffStatsOptions = {}): Promise<DiffStats> {
    this.assertOpen();
    this.assertWhole('getDiffStats');
    if (!this.enabled) return { filesChanged: [], insertions: 0, deletions: 0, files: [], skipped: [], failed: [], missing: [] };
    return fileHistoryGetDiffStats(this.current, messageId, this.context, options);
  }

  /** Whether a rewind to `messageId` would change any file. See `fileHistoryHasAnyChanges`. */
  async hasAnyChanges(messageId: string): Promise<boolean> {
    this.assertOpen();
    this.assertWhole('hasAnyChanges');
    if (!this.enabled) return false;
    return fileHistoryHasAnyChanges(this.current, messageId, this.context);
  }

  /** Whether a snapshot exists for `messageId` (false when tracking is off). */
  canRestore(messageId: string): boolean {
    this.assertWhole('canRestore');
    return this.enabled && fileHistoryCanRestore(this.current, messageId);
  }

  /**
   * Put every tracked file (or `options.paths`) back as it was at the snapshot of `messageId`.
   * See `fileHistoryRewind` for the result and the errors (`NotFoundError`, `BackupMissingError`).
   * An empty result when tracking is off.
   *
   * The bare operation: it saves no timeline point, so it cannot be undone (`RewindSession.restore`
   * is the safe path). It does first roll back an operation an interrupted `RewindSession` left
   * pending in this session's log (unless `options.recoverFirst` is false), so it never writes
   * over a half-done rewind or undo; those are listed in the result's `recovered`. Throws
   * `ConflictError` (nothing changed) when one is pending and this history does not hold the lock.
   */
  async rewind(messageId: string, options: RewindOptions = {}): Promise<RewindResult & { recovered?: RecoveryResult[] }> {
    this.assertOpen();
    this.assertWhole('rewind');
    if (!this.enabled) return { messageId, restored: [], deleted: [], skipped: [], failed: [] };
    return this.runSerially(async () => {
      const recovered = options.recoverFirst === false ? [] : await this.recoverInterrupted();
      const result = await fileHistoryRewind(this.updateState, messageId, this.context, { ...options, sessionLocked: options.sessionLocked ?? this.holdsLock });
      return recovered.length === 0 ? result : { ...result, recovered };
    });
  }

  /**
   * Roll back the operations an interrupted rewind, undo or redo left pending in this session's
   * log (issue 10's journal, `recoverPending`), before a bare rewind writes the project. Reads the
   * log once; nothing to do when it has no pending point (or the history has no log). Throws
   * `ConflictError`, writing nothing, when there is one and this history does not hold the
   * session's lock (a recovery must not race another process).
   */
  private async recoverInterrupted(): Promise<RecoveryResult[]> {
    if (this.log === undefined) return [];
    // Most logs hold no point at all: a search of the bytes instead of parsing every record, and
    // after the first one only of the bytes appended since.
    this.pointFree = await pointFreeLog(this.log, this.pointFree);
    if (this.pointFree !== undefined) return [];
    const undo = { store: this.store, sessionId: this.sessionId, log: this.log };
    const { pending } = await readTimeline(undo, this.options?.onWarning === undefined ? {} : { onWarning: this.options.onWarning });
    if (pending.length === 0) return [];
    if (!this.holdsLock) {
      throw new ConflictError(
        `session ${JSON.stringify(this.sessionId)} has an interrupted ${pending[0]?.operation} (timeline point ${pending[0]?.undoId}) to roll back first, and this history does not hold the session's lock: open it with lock (the default) and rewind again; nothing was changed`,
      );
    }
    return recoverPending(this, undo, { sessionLocked: true, deleteOrphans: true });
  }

  /**
   * Begin a command window before a shell command runs (issue 12): keep what is needed to put back
   * every file the command may change. See `beginCommand` (core/src/command) for the pre-images
   * and the errors. Works on a history opened with `rebuild: 'latest'`. Throws
   * `InvalidArgumentError` when tracking is off (there is nothing to attach to).
   */
  async beginCommand(options: BeginCommandOptions): Promise<CommandWindow> {
    this.assertOpen();
    this.assertEnabled('beginCommand');
    return this.whileTracking(beginCommand(this.updateState, this.context, options));
  }

  /**
   * End command window `windowId` after the command ran: attach every file it changed to the
   * newest checkpoint as if `trackEdit` had run before the change. See `endCommand`.
   */
  async endCommand(windowId: string, options: EndCommandOptions): Promise<CommandCapture> {
    this.assertOpen();
    this.assertEnabled('endCommand');
    return this.whileTracking(endCommand(this.updateState, this.context, windowId, options));
  }

  /** End the session's open command windows (all, or those begun before a moment). See `endOpenCommands`. */
  async endOpenCommands(options: EndOpenCommandsOptions): Promise<CommandCapture[]> {
    this.assertOpen();
    this.assertEnabled('endOpenCommands');
    return this.whileTracking(endOpenCommands(this.updateState, this.context, options));
  }

  /**
   * A handle for the sub-agent `agent` (seed 004 §8, issue 14): the same reads; its `trackEdit`
   * backs up into the current main turn and attributes the change to the sub-agent; its
   * `makeSnapshot` does nothing. Throws `InvalidArgumentError` when `agent.agentId` is not a
   * non-empty string or `agent.agentType` is given and is not one.
   */
  forSubagent(agent: SubagentIdentity): SubagentFileHistory {
    if (typeof agent !== 'object' || agent === null || typeof agent.agentId !== 'string' || agent.agentId === '') {
      throw new InvalidArgumentError(`forSubagent takes { agentId, agentType? } with a non-empty agentId, got ${JSON.stringify(agent)}`);
    }
    if (agent.agentType !== undefined && (typeof agent.agentType !== 'string' || agent.agentType === '')) {
      throw new InvalidArgumentError(`forSubagent: agentType must be a non-empty string when given, got ${JSON.stringify(agent.agentType)}`);
    }
    const identity: SubagentIdentity = agent.agentType === undefined ? { agentId: agent.agentId } : { agentId: agent.agentId, agentType: agent.agentType };
    const attributed = agentFromIds(identity.agentId, identity.agentType);
    const history = this;
    return {
      agent: Object.freeze(identity),
      get projectRoot() {
        return history.projectRoot;
      },
      get sessionId() {
        return history.sessionId;
      },
      get store() {
        return history.store;
      },
      get fs() {
        return history.fs;
      },
      get enabled() {
        return history.enabled;
      },
      get state() {
        return history.state;
      },
      trackEdit: (path, options) => history.trackEditBy(path, attributed, options),
      makeSnapshot: async () => undefined,
      beginCommand: (options) => history.beginCommand(options),
      endCommand: (windowId, options) => history.endCommand(windowId, { ...options, agent: attributed }),
      getDiffStats: (messageId, options) => history.getDiffStats(messageId, options),
      hasAnyChanges: (messageId) => history.hasAnyChanges(messageId),
      canRestore: (messageId) => history.canRestore(messageId),
    };
  }

  /**
   * Listen for `snapshotFilesChanged` (seed 004 §11). Contents are read only while someone
   * listens. Returns a function that removes the listener.
   */
  on<Name extends keyof FileHistoryEvents>(event: Name, listener: FileHistoryEvents[Name]): () => void {
    if (event !== 'snapshotFilesChanged') throw new FhError(`unknown FileHistory event ${JSON.stringify(event)}`);
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Wait for running operations and pending records, then release the session lock. Idempotent;
   * other calls made after it throw.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.tracking]);
    await this.serial.catch(() => undefined);
    await this.records?.flush();
    await this.closeLog?.().catch(() => undefined);
    await this.lock?.release();
  }

  private assertEnabled(operation: string): void {
    if (!this.enabled) throw new InvalidArgumentError(`${operation}: file checkpointing is off for session ${JSON.stringify(this.sessionId)}`);
  }

  /** Run `task` as a tracking operation: `close` waits for it. */
  private async whileTracking<T>(task: Promise<T>): Promise<T> {
    const settled = task.then(() => undefined, () => undefined);
    this.tracking.add(settled);
    try {
      return await task;
    } finally {
      this.tracking.delete(settled);
    }
  }

  /**
   * Replace a partial state that cannot make the next snapshot (its tail did not start at an
   * `fh-snapshot` full record, so the snapshot count is unknown) with the whole log's.
   */
  private async readWholeLog(): Promise<void> {
    if (this.log === undefined || this.options === undefined) return;
    const warn = this.options.onWarning ?? (() => {});
    const read = await readWholeLog(this.log, this.context, { ...this.options, initialState: undefined }, warn);
    await this.records?.flush();
    this.current = read.state ?? emptyFileHistoryState();
    this.partial = false;
    this.recorder?.startFrom(this.current, read.diffBase, read.anchorLines);
  }

  private assertWhole(operation: string): void {
    if (this.partial) {
      throw new InvalidArgumentError(`${operation} needs the whole session: this history of session ${JSON.stringify(this.sessionId)} was opened with rebuild: 'latest', for trackEdit and makeSnapshot only`);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new FhError(`the file history of session ${JSON.stringify(this.sessionId)} is closed`);
  }

  private runSerially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.serial.then(task, task);
    this.serial = run.catch(() => undefined);
    return run;
  }

  private async emitFilesChanged(snapshot: FileHistorySnapshot): Promise<void> {
    const snapshots = this.current.snapshots;
    const made = findSnapshot(this.current, snapshot.messageId) ?? snapshot;
    const index = snapshots.lastIndexOf(made);
    const previous = index > 0 ? snapshots[index - 1] : undefined;
    const event = await snapshotFilesChangedEvent(this.context, previous, snapshot);
    if (event === undefined) return;
    for (const listener of [...this.listeners]) await listener(event);
  }
}

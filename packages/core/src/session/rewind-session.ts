/**
 * `RewindSession`: one conversation and its file history together — the restore menu, lossless
 * rewinds, `restore`, undo and fork (seed 000 §2-§4 and §7, issue 4). A harness keeps its
 * messages here (or hands them in with `setMessages` after each turn):
 *
 *   const session = new RewindSession({ history, messages, summarize });
 *   const options = await session.restoreOptions(messageId);      // menu + dry-run stats
 *   const result = await session.restore({ messageId, mode: 'both' });
 *   session.messages;                                               // the rewound conversation
 *   result.conversation?.prompt;                                    // text + images to edit and resend
 *   await session.undo();                                           // put the files back
 *   await session.redo();                                           // and forward again
 *   await session.timeline();                                       // every point, the cursor
 *   await session.checkpoint({ label: 'before the refactor' });     // a checkpoint now
 *
 * This is the safe path: every code restore, undo and redo is journaled as a timeline point
 * before it writes, and any operation interrupted before (killed, disk full, store failure) is
 * rolled back first (see `undo.ts`). `FileHistory.rewind` is the bare operation without either.
 */
import { findSelectableMessageIndex, isLosslessConversationRewind, rewindConversation } from '../conversation/rewind-conversation.js';
import type { ConversationRewind, MessagesRemovedEvent } from '../conversation/rewind-conversation.js';
import { partialCompact, type PartialCompactResult, type SummarizeCallback } from '../conversation/compact.js';
import { isTranscriptMessage, type ConversationRecord, type TranscriptMessage } from '../conversation/messages.js';
import { CURRENT_PROMPT_ID, offeredCheckpointIds, selectableUserMessages, type SelectableMessage } from '../conversation/selectable.js';
import { FhError, InvalidArgumentError, NotFoundError, UnsupportedError } from '../errors.js';
import type { FileHistoryReader } from '../file-history.js';
import type { RewindResult } from '../results.js';
import type { RewindOptions } from '../rewind/rewind.js';
import { conflictSkip, selectAgentChanges, turnAgentChanges, type AgentSelection } from '../attribution/agent-changes.js';
import { forkSession, type ForkResult } from './fork-session.js';
import { emptyDiffStats, RESTORE_MODE_LABELS, subagentOptionLabel, type RestoreMode, type RestoreOption } from './restore-options.js';
import { findSnapshot } from '../state/state-queries.js';
import { resolveMessageReference } from './message-reference.js';
import { rewindPreview, type RewindPreview } from './rewind-preview.js';
import {
  capturePoint,
  abandonPoint,
  completePoint,
  readTimeline,
  recoverPending,
  redoRewind,
  undoRewind,
  type RecoveryResult,
  type UndoOptions,
  type UndoResult,
  type UndoStore,
} from './undo.js';
import type { RewindWrite } from '../rewind/rewind.js';
import type { ProgressCallback } from '../progress.js';
import type { Timeline } from './timeline.js';
import type { TimelinePoint } from './timeline-records.js';
import type { UndoEntry, UndoPoint } from './undo-records.js';
import { takeCheckpoint, type TakeCheckpointOptions, type TakenCheckpoint } from './checkpoint.js';
import type { FileHistorySnapshot } from '../types.js';

/** The file history a {@link RewindSession} drives: a `FileHistory` (not a subagent handle). */
export interface RewindableHistory extends FileHistoryReader {
  rewind(messageId: string, options?: RewindOptions): Promise<RewindResult>;
  /**
   * True while this history holds its session's lock (`FileHistory` opened with the default
   * `lock`). Undo backups left orphaned by a killed save are cleared only then.
   */
  readonly holdsLock?: boolean;
  /** Snapshot the tracked files under a new message id (`FileHistory.makeSnapshot`); needed by {@link RewindSession.checkpoint}. */
  makeSnapshot?(messageId: string): Promise<FileHistorySnapshot | undefined>;
}

/** Options of {@link RewindSession}. */
export interface RewindSessionOptions<R extends ConversationRecord> {
  history: RewindableHistory;
  /** The conversation so far, in the transcript shape. Default: none (code-only use, `fh undo`). */
  messages?: readonly R[];
  /** The host's summariser; without it the summarize options are not offered. */
  summarize?: SummarizeCallback;
  /**
   * Where the timeline (points and their pre-image backups) goes. Default: the history's own
   * store, session and log. `false`: no timeline (rewinds cannot be undone, nothing is journaled).
   * A Claude Code session is read-only: give an fh store here.
   */
  undo?: UndoStore | false;
  /** Makes ids (conversation ids, summary uuids, undo ids). Default `crypto.randomUUID`. */
  generateId?: () => string;
  /** Clock for summaries and undo records. Default `() => new Date()`. */
  now?: () => Date;
  /**
   * The session's files outside the project (issue 13): a history rooted at `/` whose tracking
   * paths are absolute paths without the leading `/` (see `restoreStateWithOutside`), with the same
   * snapshots as `history`. They are previewed with `previewOutside` and rewound only when a
   * request sets `includeOutside`. `undo`: where the undo points of those rewinds go (default: the
   * outside history's own store and session; `false`: none). Default: no files outside.
   */
  outside?: { history: RewindableHistory; undo?: UndoStore | false };
  /**
   * Offer checkpoints whose message is not in `messages` at all (fh checkpoints taken without a
   * recorded prompt). `false` is Claude Code's rule for its transcripts: only snapshots of prompts
   * on the current branch (see `offeredCheckpointIds`). Default true.
   */
  unrecordedCheckpoints?: boolean;
  /**
   * Progress of the long operations, for a front end's bar (see `progress.ts`): `restore`'s code
   * half (`checking`, `saving` the undo point, `writing`), `undo`/`redo` (`checking`, `saving`,
   * `writing`) and `preview` (`checking`, `counting`), in files and bytes. Called synchronously;
   * must be cheap; an exception it throws is ignored. Default: none.
   */
  onProgress?: ProgressCallback;
}

/** What a restore did, or left, outside the project (see {@link RestoreRequest.includeOutside}). */
export interface OutsideRestoreResult {
  /** Absolute paths of the files outside the project the rewind would change but left alone (no `includeOutside`), sorted. */
  left: string[];
  /** With `includeOutside`: the rewind of those files; paths are absolute. */
  code?: RewindResult;
  /** The undo point saved before those files were written; `null` when none was needed or undo is off. */
  undoPoint?: UndoPoint | null;
}

/** A menu choice to carry out. */
export interface RestoreRequest {
  messageId: string;
  mode: RestoreMode;
  /**
   * `code` / `both`: rewind only these tracked files (per-file rewind). Default: all. With
   * `agent`: the conflicting files to rewind anyway.
   */
  paths?: readonly string[];
  /**
   * `code` / `both`: rewind only the files this agent changed after the checkpoint (`main`, a
   * sub-agent id, or a unique prefix of one; issue 14). A file another agent changed too is a
   * conflict: left alone and reported in `code.skipped` and `agent.conflicts`, unless `paths`
   * names it. See `selectAgentChanges` for the errors.
   */
  agent?: string;
  /**
   * Called once the undo point is saved, just before the first file is written (not called when
   * no file needs writing or undo is off). From then on an interrupted restore can be put back
   * with `undoRewind`; a front end can say so if the process is stopped.
   */
  onUndoPointSaved?: (point: UndoPoint) => void;
  /** `summarize` / `summarize_up_to`: extra instructions passed to the summariser. */
  instructions?: string;
  /**
   * `code` / `both`: also rewind the session's files outside the project (see
   * {@link RewindSessionOptions.outside}); never through a symlink (the rewind's own rule, from
   * `/`). Default false: they are left alone and listed in `outside.left`.
   */
  includeOutside?: boolean;
}

/** What {@link RewindSession.restore} did. `codeApplied`/`conversationApplied` say which halves took effect. */
export interface RestoreResult {
  messageId: string;
  mode: RestoreMode;
  /** True when the code half ran and every file it had to change was changed. */
  codeApplied: boolean;
  /** True when the conversation half (rewind or summary) ran. */
  conversationApplied: boolean;
  /** The file rewind, file by file (`failed` lists files that could not be written). */
  code?: RewindResult;
  /** With `agent`: which files the agent's rewind covered and which it left alone as conflicts. */
  agent?: AgentSelection;
  /** The timeline point saved before the files were written; `null` when no file needed writing or undo is off. */
  undoPoint?: TimelinePoint | null;
  /** Interrupted operations rolled back before this restore wrote anything. */
  recovered?: RecoveryResult[];
  /** The conversation rewind (`both`, `conversation`): new id, permission mode, prompt to edit. */
  conversation?: ConversationRewind<ConversationRecord>;
  /** The partial compact (`summarize`, `summarize_up_to`). */
  compact?: PartialCompactResult<ConversationRecord>;
  /** Why the conversation half failed (the summariser rejected); the conversation is unchanged. */
  conversationError?: Error;
  /** Errors thrown by `messagesRemoved` listeners (the change itself stands). */
  listenerErrors: Error[];
  /** The code modes of a session with files outside the project: what was done or left there. */
  outside?: OutsideRestoreResult;
}

/** Events of {@link RewindSession.on}. */
export interface RewindSessionEvents {
  /** Messages left the conversation (rewind or summary): drop caches that refer to them. */
  messagesRemoved: (event: MessagesRemovedEvent) => void;
}

const CONVERSATION_MODES: ReadonlySet<RestoreMode> = new Set(['both', 'conversation', 'summarize', 'summarize_up_to']);

/** A conversation and its file history, with the restore menu, undo and fork. */
export class RewindSession<R extends ConversationRecord = ConversationRecord> {
  readonly history: RewindableHistory;
  private list: Array<R | TranscriptMessage>;
  private currentConversationId: string | undefined;
  private readonly summarize: SummarizeCallback | undefined;
  private readonly undoStore: UndoStore | undefined;
  /** Journaled operations run one at a time, in call order. */
  private serial: Promise<unknown> = Promise.resolve();
  private readonly generateId: (() => string) | undefined;
  private readonly now: (() => Date) | undefined;
  private readonly listeners = new Set<RewindSessionEvents['messagesRemoved']>();
  private readonly outsideHistory: RewindableHistory | undefined;
  private readonly outsideUndo: UndoStore | undefined;
  private readonly unrecordedCheckpoints: boolean;
  private readonly onProgress: ProgressCallback | undefined;

  constructor(options: RewindSessionOptions<R>) {
    this.onProgress = options.onProgress;
    this.unrecordedCheckpoints = options.unrecordedCheckpoints !== false;
    this.outsideHistory = options.outside?.history;
    const outsideUndo = options.outside?.undo;
    this.outsideUndo =
      this.outsideHistory === undefined || outsideUndo === false ? undefined : (outsideUndo ?? { store: this.outsideHistory.store, sessionId: this.outsideHistory.sessionId });
    this.history = options.history;
    this.list = [...(options.messages ?? [])];
    this.summarize = options.summarize;
    this.undoStore = options.undo === false ? undefined : (options.undo ?? { store: options.history.store, sessionId: options.history.sessionId });
    this.generateId = options.generateId;
    this.now = options.now;
  }

  /** The conversation as it is now (after any restore). */
  get messages(): ReadonlyArray<R | TranscriptMessage> {
    return this.list;
  }

  /** The conversation id the last rewind gave; undefined before any rewind. */
  get conversationId(): string | undefined {
    return this.currentConversationId;
  }

  /** Replace the conversation (a host calls this as turns are added). */
  setMessages(messages: ReadonlyArray<R | TranscriptMessage>): void {
    this.list = [...messages];
  }

  /** Listen for an event; returns a function that removes the listener. */
  on<Name extends keyof RewindSessionEvents>(event: Name, listener: RewindSessionEvents[Name]): () => void {
    if (event !== 'messagesRemoved') throw new FhError(`unknown RewindSession event ${JSON.stringify(event)}`);
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** The rewind picker's entries (see `selectableUserMessages`). */
  selectableMessages(): SelectableMessage[] {
    return selectableUserMessages(this.list);
  }

  /**
   * The full message id a person's short reference names (see `resolveMessageReference`): an
   * exact id, a turn number (`3`, `-1` for the newest checkpoint) or a unique prefix of a
   * checkpoint's or typed prompt's id. `listCommand` is what the errors tell the person to run.
   * Throws `InvalidArgumentError` (empty, ambiguous) or `NotFoundError` (names nothing), each
   * naming the session.
   */
  resolveReference(reference: string, options: { listCommand?: string } = {}): string {
    return resolveMessageReference(reference, {
      sessionId: this.history.sessionId,
      checkpointIds: this.checkpointIds(),
      otherIds: this.selectableMessages().filter((entry) => !entry.isCurrentPrompt).map((entry) => entry.messageId),
      ...(options.listCommand === undefined ? {} : { listCommand: options.listCommand }),
    });
  }

  /**
   * The message ids of the checkpoints a person is offered, oldest first, each once: what `fh list`
   * numbers as turns (see `offeredCheckpointIds` and {@link RewindSessionOptions.unrecordedCheckpoints}).
   */
  checkpointIds(): string[] {
    return offeredCheckpointIds(this.list, this.history.state.snapshots.map((snapshot) => snapshot.messageId), { unrecordedMessages: this.unrecordedCheckpoints });
  }

  /** The dry run of a code rewind (see `rewindPreview`; `agent` limits it to one agent's changes). */
  preview(messageId: string, options: { paths?: readonly string[]; agent?: string } = {}): Promise<RewindPreview> {
    return rewindPreview(this.history, messageId, this.onProgress === undefined ? options : { ...options, onPhaseProgress: this.onProgress });
  }

  /**
   * The dry run of rewinding the session's files outside the project to `messageId`, paths
   * absolute; undefined when the session has none or no snapshot for `messageId` there.
   */
  async previewOutside(messageId: string): Promise<RewindPreview | undefined> {
    const outside = this.outsideHistory;
    if (outside === undefined || outside.state.trackedFiles.size === 0 || !outside.canRestore(messageId)) return undefined;
    return absolutePreview(await rewindPreview(outside, messageId));
  }

  /**
   * The restore menu for `messageId` (seed 000 §2): `both` (default), `conversation`, `code` when
   * the file history can restore it — followed, when sub-agents changed files in that turn, by one
   * "only this sub-agent's changes" option each (mode `code` with `agent`, see
   * {@link subagentOptions}) — else `conversation` (default); `summarize` and — when messages
   * precede it — `summarize_up_to` when a summariser was given; `nevermind` last. Each carries
   * its dry-run diff stats. For {@link CURRENT_PROMPT_ID} only `nevermind`.
   * Throws `NotFoundError`/`InvalidArgumentError` when `messageId` is not a typed prompt.
   */
  async restoreOptions(messageId: string): Promise<RestoreOption[]> {
    const option = (mode: RestoreMode, isDefault: boolean, diffStats: RewindPreview = emptyDiffStats()): RestoreOption => ({
      mode,
      label: RESTORE_MODE_LABELS[mode],
      isDefault,
      diffStats,
    });
    if (messageId === CURRENT_PROMPT_ID) return [option('nevermind', true)];
    const index = findSelectableMessageIndex(this.list, messageId);
    const options: RestoreOption[] = [];
    if (this.history.canRestore(messageId)) {
      const stats = await this.preview(messageId);
      options.push(option('both', true, stats), option('conversation', false), option('code', false, stats), ...(await this.subagentOptions(messageId)));
    } else {
      options.push(option('conversation', true));
    }
    if (this.summarize !== undefined) {
      options.push(option('summarize', false));
      if (this.list.slice(0, index).some(isTranscriptMessage)) options.push(option('summarize_up_to', false));
    }
    options.push(option('nevermind', false));
    return options;
  }

  /**
   * The "only this sub-agent's changes" options of the checkpoint `messageId` (issue 14): one per
   * sub-agent that changed files in that turn (its snapshot's `changedBy`), in the order of their
   * first change, each mode `code` with `agent` and, in `diffStats`, the dry run of
   * `restore({ messageId, mode: 'code', agent: agentId })` (the agent's files; in
   * `diffStats.agent` the conflicts it would leave alone). Works for any checkpoint, recorded
   * prompt or not; `[]` when the turn had no sub-agent or there is no snapshot for `messageId`.
   */
  async subagentOptions(messageId: string): Promise<RestoreOption[]> {
    const snapshot = findSnapshot(this.history.state, messageId);
    if (snapshot === undefined) return [];
    const options: RestoreOption[] = [];
    for (const { agent } of turnAgentChanges(snapshot)) {
      if (agent.by !== 'subagent') continue;
      options.push({ mode: 'code', label: subagentOptionLabel(agent), isDefault: false, diffStats: await this.preview(messageId, { agent: agent.agentId }), agent });
    }
    return options;
  }

  /**
   * True when rewinding to `messageId` loses nothing (seed 000 §7): no file would change (or the
   * message has no snapshot) and every message after it is synthetic. A front end then rewinds
   * without asking. Throws like {@link restoreOptions} for a bad id.
   */
  async isLosslessRewind(messageId: string): Promise<boolean> {
    if (!isLosslessConversationRewind(this.list, messageId)) return false;
    if (!this.history.canRestore(messageId)) return true;
    return !(await this.history.hasAnyChanges(messageId));
  }

  /**
   * Carry out a menu choice (seed 000 §2). Validates first and throws, changing nothing, when the
   * message is not a typed prompt of the conversation (conversation modes), has no snapshot (code
   * modes: `NotFoundError`), a needed backup is missing or the wrong size (`BackupMissingError`),
   * a path is not tracked, the undo point cannot be saved, or a summarize mode has no summariser.
   * Then `both` restores code, then the conversation, each on its own: a file that fails to
   * write is reported in `code.failed` and the conversation is still rewound. Before any file is
   * written, the files about to change are saved in an undo point (see {@link undoRewind}).
   */
  async restore(request: RestoreRequest): Promise<RestoreResult> {
    const { messageId, mode } = request;
    const result: RestoreResult = { messageId, mode, codeApplied: false, conversationApplied: false, listenerErrors: [] };
    if (mode === 'nevermind') return result;
    if (!(mode in RESTORE_MODE_LABELS)) throw new InvalidArgumentError(`unknown restore mode ${JSON.stringify(mode)}`);
    if (CONVERSATION_MODES.has(mode)) findSelectableMessageIndex(this.list, messageId);
    if ((mode === 'both' || mode === 'code') && !this.history.canRestore(messageId)) {
      throw new NotFoundError(`no snapshot for message ${messageId}: its code cannot be restored`);
    }
    if ((mode === 'summarize' || mode === 'summarize_up_to') && this.summarize === undefined) {
      throw new InvalidArgumentError(`restore mode ${mode} needs a summarize callback (RewindSessionOptions.summarize)`);
    }
    if (request.paths !== undefined && mode !== 'both' && mode !== 'code') {
      throw new InvalidArgumentError(`paths apply to the code modes only, not to ${mode}`);
    }
    if (request.agent !== undefined && mode !== 'both' && mode !== 'code') {
      throw new InvalidArgumentError(`agent applies to the code modes only, not to ${mode}`);
    }
    const selection =
      request.agent === undefined
        ? undefined
        : selectAgentChanges(this.history.state, messageId, request.agent, {
            projectRoot: this.history.projectRoot,
            ...(request.paths === undefined ? {} : { paths: request.paths }),
          });
    const paths = selection?.paths ?? request.paths;
    if (selection !== undefined) result.agent = selection;

    if (mode === 'both' || mode === 'code') {
      result.undoPoint = null;
      result.code = await this.serially(() => this.journaledRewind(messageId, paths === undefined ? request : { ...request, paths }, result));
      if (selection !== undefined) result.code.skipped.push(...selection.conflicts.map(conflictSkip));
      result.codeApplied = result.code.failed.length === 0;
      // Files outside the project carry no attribution: a rewind of one agent's changes leaves them alone.
      const outside = selection === undefined ? await this.restoreOutside(messageId, request) : undefined;
      if (outside !== undefined) {
        result.outside = outside;
        if (outside.code !== undefined && outside.code.failed.length > 0) result.codeApplied = false;
      }
    }

    const events: MessagesRemovedEvent[] = [];
    const onMessagesRemoved = (event: MessagesRemovedEvent) => events.push(event);
    if (mode === 'both' || mode === 'conversation') {
      const rewind = rewindConversation(this.list, messageId, {
        onMessagesRemoved,
        ...(this.generateId === undefined ? {} : { generateId: this.generateId }),
      });
      this.list = rewind.messages;
      this.currentConversationId = rewind.conversationId;
      result.conversation = rewind as ConversationRewind<ConversationRecord>;
      result.conversationApplied = true;
    } else if (mode === 'summarize' || mode === 'summarize_up_to') {
      try {
        const compact = await partialCompact(this.list, messageId, {
          direction: mode,
          summarize: this.summarize as SummarizeCallback,
          onMessagesRemoved,
          ...(request.instructions === undefined ? {} : { instructions: request.instructions }),
          ...(this.generateId === undefined ? {} : { generateId: this.generateId }),
          ...(this.now === undefined ? {} : { now: this.now }),
        });
        this.list = compact.messages;
        result.compact = compact as PartialCompactResult<ConversationRecord>;
        result.conversationApplied = true;
      } catch (error) {
        result.conversationError = error instanceof Error ? error : new Error(String(error));
      }
    }
    for (const event of events) {
      for (const listener of [...this.listeners]) {
        try {
          listener(event);
        } catch (error) {
          result.listenerErrors.push(error instanceof Error ? error : new Error(String(error)));
        }
      }
    }
    return result;
  }

  /** Every timeline point, oldest first; `[]` when undo is off. */
  async undoPoints(): Promise<TimelinePoint[]> {
    return this.undoStore === undefined ? [] : (await readTimeline(this.undoStore)).points;
  }

  /**
   * The session's timeline: every point (rewinds, undos, redos, recoveries) oldest first with its
   * status, the undo stack and its cursor (see `timeline.ts`). Empty when undo is off.
   */
  async timeline(): Promise<Timeline> {
    if (this.undoStore === undefined) return { points: [], steps: [], cursor: 0, pending: [] };
    return readTimeline(this.undoStore);
  }

  /**
   * Roll back any operation that was interrupted (see `recoverPending` in `undo.ts`); every
   * journaled operation does this first. Call it while holding the session's lock.
   */
  async recover(): Promise<RecoveryResult[]> {
    const undo = this.requireUndo();
    return this.serially(() => recoverPending(this.history, undo, this.undoOptions()));
  }

  /**
   * Go back one point on the timeline (or to just before point `pointId`, an id or a prefix): put
   * back the files exactly as they were, saving the files it overwrites as a new point first (see
   * `undoRewind` in `undo.ts`). After an interrupted rewind, rolling it back is the undo. The
   * conversation is not changed. Throws `UnsupportedError` when undo is off, `NotFoundError` when
   * there is nothing to undo or no such point.
   */
  async undo(pointId?: string): Promise<UndoResult> {
    const undo = this.requireUndo();
    return this.serially(() => undoRewind(this.history, undo, { ...this.undoOptions(), ...(pointId === undefined ? {} : { pointId }) }));
  }

  /**
   * Go back one point on the timeline of the files outside the project (see
   * {@link RewindSessionOptions.outside}; rewinds with `includeOutside` journal there), or to just
   * before `pointId`; paths in the result are absolute. A timeline of its own: {@link undo} never
   * touches these files. Throws `UnsupportedError` when the session has no files outside the
   * project or their undo is off, `NotFoundError` when there is nothing to undo.
   */
  async undoOutside(pointId?: string): Promise<UndoResult> {
    const outside = this.outsideHistory;
    const undo = this.outsideUndo;
    if (outside === undefined || undo === undefined) {
      throw new UnsupportedError('this session has no files outside the project to undo (or their undo is off)');
    }
    const result = await this.serially(() => undoRewind(outside, undo, { ...this.undoOptions(), deleteOrphans: false, ...(pointId === undefined ? {} : { pointId }) }));
    return {
      ...result,
      restored: result.restored.map(absoluteKey),
      deleted: result.deleted.map(absoluteKey),
      skipped: result.skipped.map((entry) => ({ ...entry, path: absoluteKey(entry.path) })),
      failed: result.failed.map((entry) => ({ ...entry, path: absoluteKey(entry.path) })),
    };
  }

  /**
   * Take a checkpoint now (`manual` unless `options.kind` says otherwise): a snapshot of the
   * tracked files under a new message id, then its `fh-checkpoint` mark with `options.label` (see
   * `takeCheckpoint`). It is listed with the turns' checkpoints and can be rewound to like them.
   * Resolves with the checkpoint, or undefined when tracking is off. Throws `UnsupportedError`
   * when the history cannot make snapshots, `InvalidArgumentError` for a bad label (nothing is
   * recorded).
   */
  async checkpoint(options: Omit<TakeCheckpointOptions, 'messageId'> = {}): Promise<TakenCheckpoint | undefined> {
    const history = this.history;
    const makeSnapshot = history.makeSnapshot;
    if (makeSnapshot === undefined) throw new UnsupportedError('this RewindSession\'s history cannot make snapshots (give it a FileHistory)');
    const generateId = this.generateId;
    return this.serially(() =>
      takeCheckpoint(
        { sessionId: history.sessionId, store: history.store, makeSnapshot: (messageId) => makeSnapshot.call(history, messageId) },
        { ...options, ...(generateId === undefined ? {} : { messageId: generateId() }) },
      ),
    );
  }

  /** {@link undo} under its older name. */
  async undoRewind(pointId?: string): Promise<UndoResult> {
    return this.undo(pointId);
  }

  /**
   * Go forward one point: undo the last undo (see `redoRewind` in `undo.ts`). Throws
   * `UnsupportedError` when undo is off, `NotFoundError` when there is nothing to redo.
   */
  async redo(): Promise<UndoResult> {
    const undo = this.requireUndo();
    return this.serially(() => redoRewind(this.history, undo, this.undoOptions()));
  }

  /**
   * Write the conversation, rewound to before `messageId` ({@link CURRENT_PROMPT_ID}: all of it),
   * as a new session of the history's store with the file history of the kept turns, so an agent
   * can resume it (see `forkSession`). The source session is only read. `onProgress` gets
   * `(done, total)` in backups carried. `records`: the whole transcript (abandoned branches,
   * parallel tool-call siblings) when the session's messages are only its current branch, so the
   * fork keeps every record of the branch. Default: the session's messages.
   */
  fork(
    messageId: string,
    options: { sessionId?: string; now?: Date; onProgress?: (done: number, total: number) => void; records?: readonly ConversationRecord[] } = {},
  ): Promise<ForkResult> {
    return forkSession({
      store: this.history.store,
      sessionId: this.history.sessionId,
      projectRoot: this.history.projectRoot,
      messageId,
      records: options.records ?? this.list,
      state: this.history.state,
      ...(options.sessionId === undefined ? {} : { newSessionId: options.sessionId }),
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
  }

  /** The outside half of a code restore: rewound with `includeOutside`, else only listed. */
  private async restoreOutside(messageId: string, request: RestoreRequest): Promise<OutsideRestoreResult | undefined> {
    const preview = await this.previewOutside(messageId);
    const outside = this.outsideHistory;
    if (preview === undefined || outside === undefined) return undefined;
    if (request.includeOutside !== true) return { left: preview.filesChanged };
    const undo = this.outsideUndo;
    const result: OutsideRestoreResult = { left: [], undoPoint: null };
    if (undo !== undefined) await recoverPending(outside, undo, { ...this.undoOptions(), deleteOrphans: false });
    const code = await outside.rewind(messageId, {
      ...(undo === undefined
        ? {}
        : {
            recoverFirst: false,
            beforeWrite: async (paths: readonly string[], plan: readonly RewindWrite[]) => {
              result.undoPoint = await capturePoint(
                outside,
                undo,
                { paths, operation: 'rewind', messageId, plan: plannedEntries(plan), checkpoints: { store: outside.store, sessionId: outside.sessionId } },
                { ...this.undoOptions(), deleteOrphans: false },
              );
            },
          }),
    });
    if (undo !== undefined && result.undoPoint !== null && result.undoPoint !== undefined && code.failed.length === 0) await completePoint(undo, result.undoPoint, this.undoOptions());
    result.code = {
      ...code,
      restored: code.restored.map(absoluteKey),
      deleted: code.deleted.map(absoluteKey),
      skipped: code.skipped.map((entry) => ({ ...entry, path: absoluteKey(entry.path) })),
      failed: code.failed.map((entry) => ({ ...entry, path: absoluteKey(entry.path) })),
    };
    return result;
  }

  /**
   * The code half of a restore: roll back interrupted operations, then rewind, journaling a
   * `rewind` point (pre-images and plan) before the first write and its done record after the
   * last one succeeded. A rewind with failed files stays pending, so the next operation rolls it
   * back and `undo` reaches the state before it.
   */
  private async journaledRewind(messageId: string, request: RestoreRequest, result: RestoreResult): Promise<RewindResult> {
    const undo = this.undoStore;
    const paths = request.paths === undefined ? {} : { paths: request.paths };
    if (undo === undefined) return this.history.rewind(messageId, { ...paths, ...(this.onProgress === undefined ? {} : { onProgress: this.onProgress }) });
    const options = this.undoOptions();
    result.recovered = await recoverPending(this.history, undo, options);
    let point: TimelinePoint | undefined;
    const code = await this.history
      .rewind(messageId, {
      ...paths,
      ...(this.onProgress === undefined ? {} : { onProgress: this.onProgress }),
      recoverFirst: false,
      beforeWrite: async (written, plan) => {
        point = await capturePoint(
          this.history,
          undo,
          { paths: written, operation: 'rewind', messageId, plan: plannedEntries(plan), checkpoints: { store: this.history.store, sessionId: this.history.sessionId } },
          options,
        );
        result.undoPoint = point;
        request.onUndoPointSaved?.(point);
      },
      })
      .catch(async (error: unknown) => {
        // Refused as it copied a damaged backup, before any file changed: the point is no step.
        if (point !== undefined && FhError.hasCode(error, 'FH_BACKUP_MISSING')) {
          await abandonPoint(undo, point, options);
          result.undoPoint = null;
        }
        throw error;
      });
    if (point !== undefined && code.failed.length === 0) await completePoint(undo, point, options);
    return code;
  }

  private requireUndo(): UndoStore {
    if (this.undoStore === undefined) throw new UnsupportedError('undo is off for this RewindSession (options.undo is false)');
    return this.undoStore;
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.serial.then(task, task);
    this.serial = run.catch(() => undefined);
    return run;
  }

  private undoOptions(): UndoOptions {
    return {
      deleteOrphans: this.undoStore !== undefined && this.undoStore.store === this.history.store && this.undoStore.sessionId === this.history.sessionId && this.history.holdsLock === true,
      sessionLocked: this.history.holdsLock === true,
      ...(this.onProgress === undefined ? {} : { onProgress: this.onProgress }),
      ...(this.generateId === undefined ? {} : { generateId: this.generateId }),
      ...(this.now === undefined ? {} : { now: this.now }),
    };
  }
}

/** A rewind's plan as the entries of its timeline point. */
function plannedEntries(plan: readonly RewindWrite[]): UndoEntry[] {
  return plan.map((write): UndoEntry =>
    write.backupFileName === null
      ? { path: write.path, kind: 'missing', backupFileName: null, mode: null }
      : { path: write.path, kind: 'file', backupFileName: write.backupFileName, mode: write.mode, ...(write.size === undefined ? {} : { size: write.size }) },
  );
}

/** A tracking path of the outside history (relative to `/`) as the absolute path it names. */
function absoluteKey(path: string): string {
  return path.startsWith('/') ? path : `/${path}`;
}

/** A preview of the outside history with absolute paths. */
function absolutePreview(preview: RewindPreview): RewindPreview {
  return {
    ...preview,
    filesChanged: preview.filesChanged.map(absoluteKey),
    files: preview.files.map((file) => ({ ...file, path: absoluteKey(file.path) })),
    changedSinceLatestSnapshot: preview.changedSinceLatestSnapshot.map(absoluteKey),
    ...(preview.skipped === undefined ? {} : { skipped: preview.skipped.map((entry) => ({ ...entry, path: absoluteKey(entry.path) })) }),
    ...(preview.failed === undefined ? {} : { failed: preview.failed.map((entry) => ({ ...entry, path: absoluteKey(entry.path) })) }),
    ...(preview.missing === undefined ? {} : { missing: preview.missing.map((entry) => ({ ...entry, path: absoluteKey(entry.path) })) }),
  };
}

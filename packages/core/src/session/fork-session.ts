/**
 * Fork on disk (issue 4, "Rewinding"): write a rewound conversation as a new session that an
 * agent can resume — its transcript (the kept messages with the new session id), its snapshot
 * records, and its backups carried over with the resume mechanism (`copyFileHistoryForResume`:
 * hard links where possible). Works on fh's own sessions and on Claude Code sessions through
 * `ClaudeCodeStore` (`@fh/store-fs`); only the new session is written, the source is only read.
 */
import { ConflictError } from '../errors.js';
import { planFork, type ForkPlan } from '../conversation/fork-records.js';
import type { ConversationRecord } from '../conversation/messages.js';
import { snapshotRecord } from '../state/records.js';
import { restoreStateFromLog } from '../state/restore-state.js';
import { WORKTREE_STATE_RECORD_TYPE } from './worktree-state.js';
import { copyFileHistoryForResume, type ResumeResult } from './resume.js';
import type { BackupStore, LogRecord } from '../store.js';
import type { FileHistoryState } from '../types.js';

/** Options of {@link forkSession}. */
export interface ForkSessionOptions {
  /**
   * The store holding the source session; the fork is written to it too (a `ClaudeCodeStore`
   * writes it as a new Claude Code session and needs its `projectRoot` option for that).
   */
  store: BackupStore;
  /** The source session; read, never written. */
  sessionId: string;
  /** Absolute project root the tracking paths are relative to. */
  projectRoot: string;
  /** Fork before this user message (see `planFork`); `CURRENT_PROMPT_ID` copies the whole branch. */
  messageId: string;
  /** The source's records. Default: `store.sessionLog(sessionId).read()`. */
  records?: readonly ConversationRecord[];
  /**
   * The source's file-history state (for example a live `FileHistory`'s). Default: rebuilt from
   * the source records. Either way only the snapshots of kept messages are carried.
   */
  state?: Readonly<FileHistoryState>;
  /** The new session id. Default: a random UUID. */
  newSessionId?: string;
  /** Time recorded as the new session's creation. Default: now. */
  now?: Date;
  /** Receives warnings about skipped records. */
  onWarning?: (message: string) => void;
  /**
   * Progress in backups carried into the fork: `(0, total)` first, then `(done, total)` as each
   * carry ends (see `copyFileHistoryForResume`). For a progress bar; it must not throw.
   */
  onProgress?: (done: number, total: number) => void;
}

/** What {@link forkSession} wrote. */
export interface ForkResult {
  /** The new session's id. */
  sessionId: string;
  /** The kept messages (as written), file-history records and the rewind the fork is made from. */
  plan: ForkPlan;
  /**
   * The carried file history: its state (entries whose backup was missing carry `error`), which
   * backups were linked, copied or missing, and the records written.
   */
  resume: ResumeResult;
}

/** The snapshots of `state` whose message is kept, as records a state can be rebuilt from. */
function keptSnapshotRecords(state: Readonly<FileHistoryState>, keptMessageIds: readonly string[]): LogRecord[] {
  const kept = new Set(keptMessageIds);
  return state.snapshots
    .filter((snapshot) => kept.has(snapshot.messageId))
    .map((snapshot) => JSON.parse(JSON.stringify(snapshotRecord(snapshot, false))) as LogRecord);
}

/**
 * Write the conversation of session `sessionId`, rewound to before `messageId`, as a new session
 * (see the file comment). The new log gets the kept messages and carried session records (chain
 * intact, new `sessionId`, see `planFork`), then an `fh-session` record and one
 * `file-history-snapshot` record per carried snapshot, then the carried `worktree-state` records; the
 * backups those snapshots reference are carried into the new session. A backup missing from the
 * source does not stop the fork: its entries are marked unavailable (listed in `resume.missing`).
 *
 * Throws like `planFork` for a bad `messageId`, `ConflictError` when the new session already has
 * records or backups, and the store's error when writing fails — after removing what it had
 * written of the new session.
 */
export async function forkSession(options: ForkSessionOptions): Promise<ForkResult> {
  const { store, projectRoot } = options;
  const records = options.records ?? (await store.sessionLog(options.sessionId).read()).records;
  const plan = planFork(records, options.messageId, options.newSessionId === undefined ? {} : { sessionId: options.newSessionId });
  const fileHistoryRecords = options.state === undefined ? plan.fileHistoryRecords : keptSnapshotRecords(options.state, plan.keptMessageIds);
  const state = restoreStateFromLog(fileHistoryRecords, {
    projectRoot,
    ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
  });

  const targetLog = store.sessionLog(plan.sessionId);
  if ((await targetLog.read()).records.length > 0 || (await store.listBackups(plan.sessionId)).length > 0) {
    throw new ConflictError(`cannot fork into session ${plan.sessionId}: it already exists; give a new session id`);
  }
  try {
    // The carried worktree-state records go after the file history: its tracking paths are relative
    // to the project root, and a reader resolves relative keys against the base folder in effect
    // where their record stands (see `baseFolderTracker`).
    const worktreeStates = plan.records.filter((record) => record.type === WORKTREE_STATE_RECORD_TYPE);
    const head = plan.records.filter((record) => record.type !== WORKTREE_STATE_RECORD_TYPE);
    if (head.length > 0) await targetLog.append(head as LogRecord[]);
    const resume = await copyFileHistoryForResume({
      store,
      fromSessionId: options.sessionId,
      toSessionId: plan.sessionId,
      projectRoot,
      state,
      carryRecords: 'none',
      throwOnMissing: false,
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
    if (worktreeStates.length > 0) await targetLog.append(worktreeStates as LogRecord[]);
    return { sessionId: plan.sessionId, plan, resume };
  } catch (error) {
    await store.deleteSession(plan.sessionId).catch(() => undefined);
    throw error;
  }
}

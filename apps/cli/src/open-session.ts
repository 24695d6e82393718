/**
 * Opening the session a command works on: fh's own sessions in the `--store`, or, with
 * `--claude`, a Claude Code session (read-only except for the project files a rewind writes and
 * the new session a fork writes).
 *
 * The session is `--session` / `FH_SESSION_ID`; without one, the most recently changed session of
 * the project is used (and named on stderr). The project root is `--project`, else the root the
 * session recorded, else the current folder.
 */
import { resolve } from 'node:path';
import {
  FH_SESSION_RECORD_TYPE,
  FileHistory,
  NotFoundError,
  parseFhSessionRecord,
  type BackupStore,
  type LogRecord,
} from '@fh/core';
import type { ClaudeCodeStore } from '@fh/store-fs';
import { assertClaudeFolder } from './claude-guard.js';
import { UsageError } from './cli-errors.js';
import type { CommandContext } from './context.js';
import { openFhHistory } from './fh-history.js';
import { describeStoreLocation } from './store-uri.js';

/** A session opened for a command. Call {@link OpenedSession.close} when done. */
export interface OpenedSession {
  history: FileHistory;
  store: BackupStore;
  sessionId: string;
  projectRoot: string;
  /** Every record of the session's log or transcript, in order. */
  records: LogRecord[];
  /** True for a Claude Code session (`--claude`). */
  claude: boolean;
  /** The Claude Code store, for `--claude`. */
  claudeStore: ClaudeCodeStore | undefined;
  close(): Promise<void>;
}

/** Options of {@link openSession}. */
export interface OpenSessionOptions {
  /** Throw `NotFoundError` when the session has no records and no backups (default true). */
  mustExist?: boolean;
  /**
   * Hold the session's lock while open (default true: the command writes project files or
   * records). Read-only commands pass false, so they work while an agent holds the session.
   */
  lock?: boolean;
}

/** How long a command waits for a session another process holds, in ms. */
const LOCK_WAIT_MS = 3000;

/** Open the session named by the global options (see the module comment). */
export async function openSession(context: CommandContext, options: OpenSessionOptions = {}): Promise<OpenedSession> {
  return context.claudeConfigDir !== undefined ? openClaudeSession(context, context.claudeConfigDir) : openFhSession(context, options);
}

async function openFhSession(context: CommandContext, options: OpenSessionOptions): Promise<OpenedSession> {
  const store = await context.store();
  const sessionId = context.sessionIdOption ?? (await latestFhSession(context, store));
  const { records } = await store.sessionLog(sessionId).read();
  if (options.mustExist !== false && records.length === 0 && (await store.listBackups(sessionId)).length === 0) {
    throw new NotFoundError(`session "${sessionId}" not found in ${describeStoreLocation(context.storeLocation)} (fh sessions lists them)`);
  }
  const recorded = records.map((record) => parseFhSessionRecord(record)).find((record) => record !== undefined);
  const projectRoot = context.options.project !== undefined ? context.projectRoot : (recorded?.projectRoot ?? context.projectRoot);
  const history = await openFhHistory(store, sessionId, projectRoot, {
    lock: options.lock !== false,
    waitMs: LOCK_WAIT_MS,
    onWarning: (message) => context.output.warn(message),
  });
  return { history, store, sessionId, projectRoot, records, claude: false, claudeStore: undefined, close: () => history.close() };
}

/** The most recently changed fh session whose recorded project is this project. */
async function latestFhSession(context: CommandContext, store: BackupStore): Promise<string> {
  const projectRoot = context.projectRoot;
  const sessions = [...(await store.listSessions())].sort((a, b) => b.lastModified.getTime() - a.lastModified.getTime());
  for (const session of sessions) {
    const { records } = await store.sessionLog(session.sessionId).read();
    const recorded = records.find((record) => record.type === FH_SESSION_RECORD_TYPE);
    const root = recorded === undefined ? undefined : parseFhSessionRecord(recorded)?.projectRoot;
    if (root !== undefined && resolve(root) === projectRoot) {
      context.output.note(`fh: using session ${session.sessionId}, the latest of ${projectRoot} (pass --session to choose)`);
      return session.sessionId;
    }
  }
  throw new UsageError(`no session given and none found for ${projectRoot}: pass --session <id> or set FH_SESSION_ID (fh sessions lists them)`);
}

async function openClaudeSession(context: CommandContext, configDir: string): Promise<OpenedSession> {
  await assertClaudeFolder(configDir);
  const { ClaudeCodeStore } = await import('@fh/store-fs');
  const claudeStore = new ClaudeCodeStore({ configDir, projectRoot: context.projectRoot });
  let sessionId = context.sessionIdOption;
  if (sessionId === undefined) {
    const projectRoot = context.projectRoot;
    const latest = (await claudeStore.listClaudeSessions()).find((session) => session.projectPath !== undefined && resolve(session.projectPath) === projectRoot);
    if (latest === undefined) {
      throw new UsageError(`no session given and no Claude Code session of ${projectRoot} in ${configDir}: pass --session <id> (fh --claude sessions lists them)`);
    }
    sessionId = latest.sessionId;
    context.output.note(`fh: using Claude Code session ${sessionId}, the latest of ${projectRoot} (pass --session to choose)`);
  }
  const session = await claudeStore.readSession(sessionId, context.options.project === undefined ? {} : { projectRoot: context.projectRoot });
  const history = await FileHistory.open({
    projectRoot: session.projectRoot,
    sessionId,
    store: claudeStore,
    initialState: session.state,
    log: false,
  });
  return {
    history,
    store: claudeStore,
    sessionId,
    projectRoot: session.projectRoot,
    records: session.records,
    claude: true,
    claudeStore,
    close: () => history.close(),
  };
}

/**
 * Opening the session a command works on: fh's own sessions in the `--store`, or, with
 * `--claude`, a Claude Code session (read-only except for the project files a rewind writes and
 * the new session a fork writes).
 *
 * The session is `--session` / `FH_SESSION_ID`; without one, the most recently changed session of
 * the project is used (and named on stderr). The project root is `--project`, else the root the
 * session recorded, else the current folder. Project roots are compared by their real paths too,
 * so a project reached through a symbolic link is the same project.
 *
 * A `--project` folder that does not exist is a usage error (exit 2) for every command. A command
 * that writes refuses a `--project` other than the session's recorded project unless
 * `--other-project` is given, so a mistyped folder never records every tracked file as absent;
 * read-only commands only warn.
 */
import { realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import {
  FH_SESSION_RECORD_TYPE,
  FhError,
  FileHistory,
  NotFoundError,
  PermissionError,
  parseFhSessionRecord,
  POINT_RECORD_TYPE,
  UNDO_POINT_RECORD_TYPE,
  type BackupStore,
  type LogRecord,
} from '@fh/core';
import type { ClaudeCodeSession, ClaudeCodeStore } from '@fh/store-fs';
import { assertClaudeFolder } from './claude-guard.js';
import { UsageError } from './cli-errors.js';
import { fhCommand } from './command-hint.js';
import { displayPath } from './format.js';
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
  /**
   * `--claude`: a history over the session's files outside the project (rooted at `/`, see
   * `ClaudeCodeStore.openOutsideFileHistory`); undefined when it tracked none.
   */
  outsideHistory: FileHistory | undefined;
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
  /**
   * The command writes project files or the session (default: the same as `lock`): it refuses a
   * `--project` other than the recorded one unless `--other-project` is given.
   */
  writes?: boolean;
  /**
   * Open exactly this session for this project root (a session opened before, see
   * {@link reopenWithLock}): no latest-session lookup, no project check, no notes again.
   */
  pinned?: { sessionId: string; projectRoot: string };
  /**
   * Without `--session`: the project's session whose timeline changed last (the one that rewound,
   * undid or redid), not simply the latest session — a later `fh fork` makes a newer one. Falls
   * back to the latest session when none has a timeline point.
   */
  preferTimeline?: boolean;
}

/** How long a command waits for a session another process holds, in ms. */
const LOCK_WAIT_MS = 3000;

/** Open the session named by the global options (see the module comment). */
export async function openSession(context: CommandContext, options: OpenSessionOptions = {}): Promise<OpenedSession> {
  await assertProjectFolder(context);
  return context.claudeConfigDir !== undefined ? openClaudeSession(context, context.claudeConfigDir, options) : openFhSession(context, options);
}

/**
 * Close `session` (opened without the lock, so a person could look at a preview while agents'
 * hooks kept recording) and open it again with the lock, for the same session id and project
 * root. The state and records are rebuilt from the log under the lock, so whatever was recorded
 * meanwhile is included. Errors: as {@link openSession} (`LockedError` when another process holds
 * the session for longer than the wait).
 */
export async function reopenWithLock(context: CommandContext, session: OpenedSession): Promise<OpenedSession> {
  await session.close();
  return openSession(context, { lock: true, pinned: { sessionId: session.sessionId, projectRoot: session.projectRoot } });
}

/** Throw a usage error when `--project` names no folder (every command: nothing is read or recorded). */
export async function assertProjectFolder(context: CommandContext): Promise<void> {
  if (context.options.project === undefined) return;
  const root = context.projectRoot;
  const stats = await stat(root).catch(() => undefined);
  if (stats === undefined) throw new UsageError(`project folder ${displayPath(root)} does not exist (--project); nothing was recorded`);
  if (!stats.isDirectory()) throw new UsageError(`project ${displayPath(root)} is not a folder (--project); nothing was recorded`);
}

/** The real path of `path` (symbolic links resolved), or `path` resolved when it does not exist. */
async function realProjectPath(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

/** True when two project roots are the same folder: equal paths, or equal real paths. */
export async function sameProject(first: string, second: string): Promise<boolean> {
  return resolve(first) === resolve(second) || (await realProjectPath(first)) === (await realProjectPath(second));
}

/** True when `folder` is `root` or inside it (compared as given and by real paths). */
async function insideProject(folder: string, root: string): Promise<boolean> {
  const inside = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
  return inside(resolve(folder), resolve(root)) || inside(await realProjectPath(folder), await realProjectPath(root));
}

/**
 * The project root to open a session with, given the root it recorded: `--project` when given
 * (the recorded spelling when both are the same folder), else the recorded root, else the current
 * folder. A writing command refuses another project than the recorded one without `--other-project`.
 */
async function chooseProjectRoot(context: CommandContext, recorded: string | undefined, sessionId: string, writes: boolean): Promise<string> {
  if (context.options.project === undefined) {
    // A recorded root is a record anyone who can write the log can craft: a writing command goes
    // there only from inside it (issue 10), as a --project elsewhere needs --other-project.
    if (recorded !== undefined && writes && context.options.otherProject !== true && !(await insideProject(context.cwd, recorded))) {
      throw new UsageError(
        `session ${displayPath(sessionId)} was recorded for project ${displayPath(recorded)}, and this command runs in ${displayPath(context.cwd)}, outside it; nothing was changed. ` +
          `Run it inside that project, or pass --project ${displayPath(recorded)} to write there`,
      );
    }
    return recorded ?? context.projectRoot;
  }
  const given = context.projectRoot;
  if (recorded === undefined || (await sameProject(recorded, given))) return recorded ?? given;
  if (writes && context.options.otherProject !== true) {
    throw new UsageError(
      `session ${displayPath(sessionId)} was recorded for project ${displayPath(recorded)}, not ${displayPath(given)} (--project); nothing was changed. ` +
        `Leave out --project, or pass --other-project to use ${displayPath(given)} anyway`,
    );
  }
  return given;
}

async function openFhSession(context: CommandContext, options: OpenSessionOptions): Promise<OpenedSession> {
  try {
    return await openFhSessionOf(context, options);
  } catch (error) {
    throw unusableStore(context, error) ?? error;
  }
}

async function openFhSessionOf(context: CommandContext, options: OpenSessionOptions): Promise<OpenedSession> {
  const store = await context.store();
  const sessionId = options.pinned?.sessionId ?? context.sessionIdOption ?? (await latestFhSession(context, store, options.preferTimeline === true));
  const { records } = await store.sessionLog(sessionId).read();
  if (options.mustExist !== false && records.length === 0 && (await store.listBackups(sessionId)).length === 0) {
    throw new NotFoundError(`session "${sessionId}" not found in ${describeStoreLocation(context.storeLocation)} (fh sessions lists them)`);
  }
  const recorded = records.map((record) => parseFhSessionRecord(record)).find((record) => record !== undefined);
  const projectRoot = options.pinned?.projectRoot ?? (await chooseProjectRoot(context, recorded?.projectRoot, sessionId, options.writes ?? options.lock !== false));
  const history = await openFhHistory(store, sessionId, projectRoot, {
    lock: options.lock !== false,
    waitMs: LOCK_WAIT_MS,
    onWarning: (message) => context.output.warn(message),
  });
  return { history, store, sessionId, projectRoot, records, claude: false, claudeStore: undefined, outsideHistory: undefined, close: () => history.close() };
}

/**
 * Opening a session refused for want of permission on an fs store's own folders (one this user
 * cannot read or write, or a read-only file system: the session's lock, or reading its records),
 * said as what it is: the store folder, that nothing changed, what to do. Undefined for any other
 * error (a project file, an S3 store).
 */
function unusableStore(context: CommandContext, error: unknown): Error | undefined {
  const location = context.storeLocation;
  if (!FhError.hasCode(error, 'FH_PERMISSION') || location.kind !== 'fs') return undefined;
  const message = (error as Error).message;
  const locking = /^lockSession /.test(message);
  if (!locking && !message.includes(location.folder)) return undefined;
  const why = /\bEROFS\b/.test(message)
    ? 'is on a read-only file system'
    : locking
      ? 'is not writable for this user (permission denied)'
      : 'cannot be read by this user (permission denied)';
  const step = locking ? "take the session's lock" : "read the session's records";
  return new PermissionError(
    `the store folder ${displayPath(location.folder)} ${why}, so fh could not ${step}: nothing was changed. Give this user access to it (read and write), or pass --store with a folder it can use`,
    { cause: error },
  );
}

/**
 * The most recently changed fh session whose recorded project is this project; with
 * `preferTimeline`, the one whose newest timeline point is newest (see
 * {@link OpenSessionOptions.preferTimeline}).
 */
async function latestFhSession(context: CommandContext, store: BackupStore, preferTimeline: boolean): Promise<string> {
  const projectRoot = context.projectRoot;
  const realRoot = await realProjectPath(projectRoot);
  const sessions = [...(await store.listSessions())].sort((a, b) => b.lastModified.getTime() - a.lastModified.getTime());
  let latest: string | undefined;
  let rewound: { sessionId: string; at: number } | undefined;
  for (const session of sessions) {
    const { records } = await store.sessionLog(session.sessionId).read();
    const recorded = records.find((record) => record.type === FH_SESSION_RECORD_TYPE);
    const root = recorded === undefined ? undefined : parseFhSessionRecord(recorded)?.projectRoot;
    if (root === undefined || !(resolve(root) === projectRoot || (await realProjectPath(root)) === realRoot)) continue;
    latest ??= session.sessionId;
    if (!preferTimeline) break;
    const newest = newestPointTime(records);
    if (newest !== undefined && (rewound === undefined || newest > rewound.at)) rewound = { sessionId: session.sessionId, at: newest };
  }
  const chosen = rewound?.sessionId ?? latest;
  if (chosen !== undefined) {
    const why = rewound === undefined ? 'the latest' : 'the one that rewound last';
    context.output.note(`fh: using session ${displayPath(chosen)}, ${why} of ${displayPath(projectRoot)} (pass --session to choose)`);
    return chosen;
  }
  throw new UsageError(`no session given and none found for ${displayPath(projectRoot)}: pass --session <id> or set FH_SESSION_ID (${fhCommand(context, ['sessions'])} lists them)`);
}

/** The creation time (ms) of the newest timeline point recorded in `records`, if any. */
function newestPointTime(records: readonly LogRecord[]): number | undefined {
  let newest: number | undefined;
  for (const record of records) {
    if ((record.type !== POINT_RECORD_TYPE && record.type !== UNDO_POINT_RECORD_TYPE) || typeof record.createdAt !== 'string') continue;
    const at = Date.parse(record.createdAt);
    if (!Number.isNaN(at) && (newest === undefined || at > newest)) newest = at;
  }
  return newest;
}

async function openClaudeSession(context: CommandContext, configDir: string, options: OpenSessionOptions): Promise<OpenedSession> {
  await assertClaudeFolder(configDir);
  const { ClaudeCodeStore, claudeProjectSlug } = await import('@fh/store-fs');
  const claudeStore = new ClaudeCodeStore({ configDir, projectRoot: context.projectRoot });
  if (options.pinned !== undefined) return openClaudeHistory(claudeStore, await claudeStore.readSession(options.pinned.sessionId, { projectRoot: options.pinned.projectRoot }));
  let sessionId = context.sessionIdOption;
  if (sessionId === undefined) {
    const projectRoot = context.projectRoot;
    const realRoot = await realProjectPath(projectRoot);
    // A session that records no cwd ran where its transcript's folder name (Claude Code's slug) says.
    const slugs = new Set([claudeProjectSlug(projectRoot), claudeProjectSlug(realRoot)]);
    let latest: { sessionId: string } | undefined;
    for (const session of await claudeStore.listClaudeSessions()) {
      if (session.projectPath === undefined ? session.projectFolder !== undefined && slugs.has(session.projectFolder) : resolve(session.projectPath) === projectRoot || (await realProjectPath(session.projectPath)) === realRoot) {
        latest = session;
        break;
      }
    }
    if (latest === undefined) {
      throw new UsageError(`no session given and no Claude Code session of ${displayPath(projectRoot)} in ${displayPath(configDir)}: pass --session <id> (${fhCommand(context, ['sessions'])} lists them)`);
    }
    sessionId = latest.sessionId;
    context.output.note(`fh: using Claude Code session ${displayPath(sessionId)}, the latest of ${displayPath(projectRoot)} (pass --session to choose)`);
  }
  const writes = options.writes ?? options.lock !== false;
  let session = await claudeStore.readSession(sessionId, { fallbackProjectRoot: context.projectRoot });
  if (session.recordedProjectRoot === undefined) {
    // Nothing says where the session ran: reading is safe anywhere, writing needs the folder named.
    if (writes && context.options.project === undefined) {
      throw new UsageError(
        `Claude Code session ${displayPath(sessionId)} records no working folder (no cwd in its transcript), so fh cannot tell which project to write; nothing was changed. ` +
          `Pass --project <folder> naming the folder it ran in`,
      );
    }
    if (context.options.project === undefined) {
      context.output.note(`fh: Claude Code session ${displayPath(sessionId)} records no working folder; reading it against ${displayPath(session.projectRoot)} (pass --project to choose the folder it ran in)`);
    }
  } else if (context.options.project !== undefined) {
    const projectRoot = await chooseProjectRoot(context, session.projectRoot, sessionId, writes);
    if (projectRoot !== session.projectRoot) {
      context.output.warn(`Claude Code session ${displayPath(sessionId)} was recorded for project ${displayPath(session.projectRoot)} and is opened for ${displayPath(projectRoot)}`);
      session = await claudeStore.readSession(sessionId, { projectRoot });
    }
  }
  return openClaudeHistory(claudeStore, session);
}

/**
 * A lock-free, log-free history over a Claude Code session read by `readStore`. The session's
 * store writes the sessions it creates (forks) under `projects/{slug of the session's working
 * folder}/`, where `claude --resume` in that folder finds them, wherever fh runs.
 */
async function openClaudeHistory(readStore: ClaudeCodeStore, session: ClaudeCodeSession): Promise<OpenedSession> {
  const sessionId = session.sessionId;
  const { ClaudeCodeStore } = await import('@fh/store-fs');
  const claudeStore = new ClaudeCodeStore({ configDir: readStore.configDir, projectRoot: session.projectRoot });
  const outsideHistory = await claudeStore.openOutsideFileHistory(session);
  // Who changed what: the main transcript's and the sub-agent transcripts' edits (issue 14).
  const { attributeClaudeSession } = await import('@fh/store-fs');
  const { state } = await attributeClaudeSession(session);
  const history = await FileHistory.open({
    projectRoot: session.projectRoot,
    sessionId,
    store: claudeStore,
    initialState: state,
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
    outsideHistory,
    close: async () => {
      await history.close();
      await outsideHistory?.close();
    },
  };
}

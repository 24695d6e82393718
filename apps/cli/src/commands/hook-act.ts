/**
 * The part of `fh hook` that acts on an event (see `hook.ts` for what each event does), loaded
 * only for events fh acts on: it opens the store and the session's history.
 *
 * Reads: the session log's newest records (`readNewestRecords`: its ends as bytes, parsed only
 * from the newest full snapshot record on, with the `fh-session` record; `readLogEnds` where the
 * store cannot read bytes) are read once per event, under the session's lock, and handed to
 * `FileHistory.open` (`logEnds`), which does not read them again; a small log is parsed whole
 * only when a prompt must look further back for its previous prompt. An edit event first reads
 * them without the lock: a file the newest snapshot already tracks is settled there, and nothing
 * else is done; only an edit that must back a file up takes the lock, and reads the log again
 * under it (records appended meanwhile count; a log read whole that is byte for byte unchanged is
 * not parsed again).
 *
 * The session's lock is held as briefly as the work allows (issue 10: hundreds of hooks at once
 * share it): an edit that must back a file up copies the file's bytes into the store first
 * (`prepareTrackEdit`, a durable temp no record references), then takes the lock only to decide
 * (the file may be tracked meanwhile: the copy is removed) and to name the copy and append its
 * record. The lock is waited for up to the end of the hook's budget (`HookOptions.deadline`,
 * less {@link RECORD_MARGIN_MS} to record).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  agentFromIds,
  entryChangedBy,
  FhError,
  latestSnapshotFromLog,
  latestSnapshotFromTail,
  newBackupFailures,
  parseFhSessionRecord,
  prepareTrackEdit,
  readLogEnds,
  readNewestRecords,
  realPathOrNearest,
  tailMayTrack,
  takeCheckpoint,
  toTrackingPath,
  trackNewFileFromNewest,
  userMessageRecord,
  type BackupStore,
  type LogEnds,
  type LogRecord,
  type NewestRecords,
  type PreparedEdit,
  type SessionLog,
  type SessionLock,
  worktreeStateRecord,
  WORKTREE_STATE_RECORD_TYPE,
} from '@fh/core';
import { commandFolder, endStaleWindows, insideStore, openCommandTools, ownFolder } from '../command-window.js';
import { openFhHistory } from '../fh-history.js';
import { defaultStoreUri, openStore, parseStoreUri } from '../store-uri.js';
import { plainError } from '../plain-errors.js';
import { probeWorktree } from '../worktree-probe.js';
import { warningCollector } from '../warnings.js';
import { commandPhase, handleCommandEvent, reportCaptures } from './hook-command.js';
import type { HookAction, HookEvent, HookOptions } from './hook.js';

/**
 * How long to wait for a session held by another process when the hook has no deadline, in ms:
 * longer than the fs store's default stale time (10 s), so a lock left by a process that was
 * killed is taken over rather than given up on.
 */
const LOCK_WAIT_MS = 15_000;

/** Time kept at the end of the hook's budget for the work under the lock, in ms. */
const RECORD_MARGIN_MS = 1_000;

/** First pause between attempts to lock a held session, in ms; it doubles (with jitter) up to {@link LOCK_RETRY_MAX_MS}. */
const LOCK_RETRY_MS = 25;

/** Longest pause between attempts, in ms: hundreds of waiting hooks must not spend the CPU the holder needs. */
const LOCK_RETRY_MAX_MS = 1_000;

/** The checked fields of an event fh acts on (see `hook-input.ts`). */
export interface HookEventFields {
  sessionId: string;
  /** The agent's working folder (absolute). */
  cwd: string;
  /** A prompt's text (`''` for other events). */
  prompt: string;
}

/**
 * Act on `event` as `action` says (see `hook.ts`), with its checked `fields`. Throws on failure; the
 * session's lock is released on every path.
 */
export async function actOnHookEvent(event: HookEvent, action: HookAction, fields: HookEventFields, options: HookOptions): Promise<void> {
  const { sessionId, cwd } = fields;
  const environment = options.environment ?? process.env;
  const home = environment.HOME !== undefined && environment.HOME !== '' ? environment.HOME : homedir();
  const location = parseStoreUri(options.store ?? defaultStoreUri(environment), { cwd, home });
  // An edit waits on its backup, a command on its window's before-images: a store that cannot be
  // opened or read blocks it (storeStep).
  const guarded = action.kind === 'edit' || (action.kind === 'command' && event.hook_event_name === 'PreToolUse');
  const step = guarded ? storeStep : <T>(run: () => Promise<T>): Promise<T> => run();
  const store = await step(() => openStore(location));
  const log = store.sessionLog(sessionId);
  // An edit of a tracked file is settled without the lock; every other action writes, so it
  // takes the lock first and reads the log's ends once, under it: unless the project folder fh
  // would fall back to is missing, when the log is read first to find the one the session
  // recorded (so a missing project touches no store).
  const fallback = options.project !== undefined ? resolve(cwd, options.project) : environment.CLAUDE_PROJECT_DIR ? resolve(cwd, environment.CLAUDE_PROJECT_DIR) : cwd;
  const lockFirst = action.kind !== 'edit' && (await isFolder(fallback));
  const lockUntil = options.deadline === undefined ? Date.now() + LOCK_WAIT_MS : Math.max(Date.now(), options.deadline - RECORD_MARGIN_MS);
  let lock = lockFirst ? await step(() => lockSession(store, sessionId, lockUntil)) : undefined;
  let prepared: PreparedEdit | undefined;
  try {
    let reading = await step(() => readLog(log));
    let { ends } = reading;
    // A turn's end in a session with no records yet (no prompt, no edit seen): nothing to mark.
    if (action.kind === 'stop' && ends?.whole === true && ends.head.length === 0) return;
    const allRecords = (): Promise<LogRecord[]> => reading.allRecords();
    const project = await projectOf(sessionId, cwd, options, environment, ends, allRecords);
    const projectRoot = project.root;
    if (!(await isFolder(projectRoot))) throw new Error(`project folder ${projectRoot} (${project.source}) does not exist; nothing recorded`);
    const agent = agentFromIds(event.agent_id, event.agent_type);
    let absolutePath: string | undefined;
    let key: string | undefined;
    if (action.kind === 'edit') {
      if (!isAbsolute(action.path) && !(await isFolder(cwd))) throw new Error(`the event's cwd ${cwd} does not exist; nothing recorded`);
      absolutePath = isAbsolute(action.path) ? action.path : resolve(cwd, action.path);
      const storeFolder = ownFolder(location, environment, home);
      if (insideStore(storeFolder, absolutePath)) {
        // fh's own files (a store inside the project) are never backed up or rewound.
        process.stderr.write(`fh hook: warning: ${absolutePath} is inside fh's store folder ${storeFolder}: not backed up (fh never tracks or rewinds its own files); nothing recorded\n`);
        return;
      }
      try {
        key = toTrackingPath(projectRoot, absolutePath);
      } catch {
        // Outside the root as written: trackEdit decides a path inside the root's real location;
        // one outside it too is refused here, before anything (a session, its first checkpoint) is recorded.
        if (outsideRealRoot(projectRoot, absolutePath)) throw new Error(`${absolutePath} is outside the project root ${projectRoot}; nothing recorded`);
      }
      // From the newest full record on (the tail, or the whole log when it was read whole). A file
      // no record from there on names (a new file) is not tracked: no snapshot is rebuilt to see it.
      const newest = ends === undefined ? undefined : ends.whole ? ends.head : ends.tail;
      const named = key === undefined || newest === undefined ? undefined : tailMayTrack(newest, projectRoot, key);
      const latest = key === undefined || named === false ? undefined : ((newest === undefined ? undefined : latestSnapshotFromTail(newest, { projectRoot })) ?? latestSnapshotFromLog(await allRecords(), { projectRoot }));
      // Only a path with no symlink on the way is settled here: through a link, the file the edit
      // writes is another one, which trackEdit resolves and may not have backed up yet.
      const entry = key === undefined ? undefined : latest?.trackedFileBackups[key];
      if (entry !== undefined && entryChangedBy(entry, agent) && !throughSymlink(projectRoot, absolutePath)) return;
      // The bytes before the lock (the file itself only: through a link, trackEdit resolves it).
      if (lock === undefined && entry === undefined && key !== undefined && !throughSymlink(projectRoot, absolutePath)) prepared = await prepareTrackEdit(store, sessionId, absolutePath);
    }
    if (lock === undefined) {
      // A backup to make (or a record to write): under the lock, from the log as it is now.
      lock = await lockSession(store, sessionId, lockUntil);
      reading = await readLog(log, reading);
      ({ ends } = reading);
    }
    // A new file (the newest snapshot, as read under the lock, does not track it): its prepared
    // copy is named and attached from the newest records alone, no snapshot rebuilt.
    if (prepared !== undefined && key !== undefined && absolutePath !== undefined && reading.newest !== undefined) {
      if (await trackNewFileFromNewest({ log, newest: reading.newest, projectRoot, trackingPath: key, absolutePath, prepared, agent })) return;
    }
    const warnings = warningCollector((line) => process.stderr.write(`fh hook: warning: ${line}\n`));
    const onWarning = (message: string): void => warnings.warn(message);
    // Every event needs only the newest snapshot: trackEdit and the command windows attach to it,
    // and a prompt's makeSnapshot continues from it (the full record carries what retention needs),
    // so no event rebuilds the session's older snapshots.
    const held = lock;
    lock = undefined;
    const history = await openFhHistory(store, sessionId, projectRoot, {
      lock: true,
      waitMs: LOCK_WAIT_MS,
      onWarning,
      rebuild: 'latest',
      ...(held === undefined ? {} : { sessionLock: held }),
      ...(ends === undefined ? {} : { logEnds: ends }),
    });
    try {
      if (!history.enabled) return;
      if (action.kind === 'command') {
        const command = commandPhase(event);
        if (command !== undefined) await handleCommandEvent(history, command, event, { location, environment, home, sessionId, ...(options.deadline === undefined ? {} : { deadline: options.deadline }) });
        return;
      }
      if (absolutePath !== undefined) {
        // No snapshot yet (no prompt seen, e.g. hooks installed mid-session): take a session-start
        // checkpoint first, so this edit has a turn to attach its backup to.
        if (history.state.snapshots.length === 0) await history.makeSnapshot(randomUUID());
        const trackOptions = prepared === undefined ? {} : { prepared };
        await (agent.by === 'subagent' ? history.forSubagent(agent).trackEdit(absolutePath, trackOptions) : history.trackEdit(absolutePath, trackOptions));
        return;
      }
      if (action.kind === 'stop' && history.state.snapshots.length === 0) return;
      // Commands still open ran in the turn that is ending: attach what they changed to its
      // checkpoint before the new one is taken. A session with no window folder has none open,
      // so the command probe is not even loaded.
      if (existsSync(commandFolder(location, environment, home, sessionId))) {
        reportCaptures(await endStaleWindows(history, await openCommandTools(location, environment, home, sessionId, options.deadline), 0));
      }
      if (action.kind === 'stop') {
        // The snapshot first, then its mark: a mark never names a snapshot that is not durable.
        const before = history.state.snapshots.at(-1);
        const taken = await takeCheckpoint(history, { kind: 'end-of-turn', log });
        if (taken !== undefined) warnBackupFailures(newBackupFailures(taken.snapshot, before), 'the end-of-turn checkpoint');
        return;
      }
      const { prompt } = fields;
      const messageId = randomUUID();
      // The records were read under the lock: only this session's own UserPromptSubmit events add
      // user records, so the newest one is the previous prompt.
      const isPrompt = (record: LogRecord) => record.type === 'user' && typeof record.uuid === 'string';
      const previous = await reading.newestOf('user', isPrompt);
      const worktree = worktreeStateChange(sessionId, cwd, await reading.newestOf(WORKTREE_STATE_RECORD_TYPE, undefined, { recentOnly: true }));
      // The prompt's records and its snapshot go out in one append (one request on S3).
      const records = [
        ...(worktree === undefined ? [] : [worktree]),
        userMessageRecord({
          uuid: messageId,
          parentUuid: previous === undefined ? null : (previous.uuid as string),
          sessionId,
          text: prompt,
          timestamp: new Date(),
          cwd,
        }),
      ];
      const before = history.state.snapshots.at(-1);
      const snapshot = await history.makeSnapshot(messageId, { records });
      if (snapshot !== undefined) warnBackupFailures(newBackupFailures(snapshot, before), "this turn's checkpoint");
    } finally {
      await history.close();
      warnings.flush();
    }
  } finally {
    await prepared?.backup.discard();
    await lock?.release();
  }
}

/**
 * One stderr line per file whose backup failed for a checkpoint the hook took (`what`): the turn
 * goes on (a prompt is never blocked), but a rewind to it cannot restore that file.
 */
function warnBackupFailures(failures: ReadonlyArray<{ path: string; error: string }>, what: string): void {
  for (const { path, error } of failures) {
    process.stderr.write(`fh hook: warning: ${what} could not back up ${path}, so a rewind to it cannot restore that file: ${plainError(error)}; fix that (space on the store's disk, the file's permissions) and run fh checkpoint\n`);
  }
}

/** The session log as one event reads it (see {@link readLog}). */
interface LogReading {
  /** Its ends: the newest records (`readNewestRecords`), else `readLogEnds`'s; undefined when the log cannot read its ends. */
  ends: LogEnds | undefined;
  /** The newest records read, when the log gave them. */
  newest: NewestRecords | undefined;
  /** Every record of the log (read, or parsed from the bytes read, on the first call). */
  allRecords(): Promise<LogRecord[]>;
  /**
   * The newest record of `type` that `accept` takes (default: any): from the bytes read
   * (`NewestRecords.newestOf`), else the records read; past them, from the whole log, unless
   * `recentOnly` (then only what was read counts).
   */
  newestOf(type: string, accept?: (record: LogRecord) => boolean, options?: { recentOnly?: boolean }): Promise<LogRecord | undefined>;
}

/**
 * Run a step that opens, locks or reads the store for an edit or a Bash `PreToolUse`. Any failure of it (the store folder is a
 * file, an S3 bucket that does not exist, …) means the backup cannot be made: it is rethrown as an
 * `FhError` (code `FH_ERROR`), which `runHookFromStdin` turns into a blocked call. Errors that
 * already carry a code are rethrown as they are.
 */
async function storeStep<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (FhError.isInstance(error) && error.code !== 'FH_INVALID_ARGUMENT' && error.code !== 'FH_NOT_FOUND' && error.code !== 'FH_UNSUPPORTED') throw error;
    throw new FhError(`the store cannot be used: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/**
 * Read the session log's newest records: from its newest full snapshot record on
 * (`readNewestRecords`), else its ends (`readLogEnds`). With `previous` (read before the lock
 * was taken), a log read whole that has not changed since is not parsed again.
 */
async function readLog(log: SessionLog, previous?: LogReading): Promise<LogReading> {
  const newest = await readNewestRecords(log, previous?.newest);
  if (newest !== undefined && newest === previous?.newest) return previous;
  const ends = newest?.ends ?? (await readLogEnds(log));
  let everything: LogRecord[] | undefined = newest === undefined && ends?.whole === true ? ends.head : undefined;
  const allRecords = async () => (everything ??= newest?.allRecords?.() ?? (await log.read()).records);
  return {
    ends,
    newest,
    allRecords,
    newestOf: async (type, accept = () => true, options = {}) => {
      const test = (record: LogRecord) => record.type === type && accept(record);
      const recent = newest !== undefined ? newest.newestOf(type, accept) : (ends?.whole === true ? ends.head : ends?.tail)?.findLast(test);
      // A whole log was searched whole: there is nothing past it.
      const searchedWhole = newest !== undefined ? newest.wholeBytes !== undefined : ends?.whole === true;
      if (recent !== undefined || searchedWhole || options.recentOnly === true) return recent;
      return (await allRecords()).findLast(test);
    },
  };
}

/**
 * The session's lock, waiting until `until` (ms since the epoch) for another holder; undefined
 * for a store that cannot lock. Throws the last `LockedError` past the wait, and the store's errors.
 */
async function lockSession(store: BackupStore, sessionId: string, until: number): Promise<SessionLock | undefined> {
  if (!store.capabilities.locking || typeof store.lockSession !== 'function') return undefined;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await store.lockSession(sessionId);
    } catch (error) {
      if (!FhError.hasCode(error, 'FH_LOCKED') || Date.now() >= until) throw error;
      const pause = Math.min(LOCK_RETRY_MAX_MS, LOCK_RETRY_MS * 2 ** attempt) * (0.5 + Math.random());
      await new Promise((wake) => setTimeout(wake, Math.max(0, Math.min(pause, until - Date.now()))));
    }
  }
}

/**
 * The project folder (see `hook.ts`): `--project`, else the one the session's `fh-session`
 * record names (in the log's head, or anywhere in it), else `$CLAUDE_PROJECT_DIR`, else `cwd`.
 */
async function projectOf(
  sessionId: string,
  cwd: string,
  options: HookOptions,
  environment: NodeJS.ProcessEnv,
  ends: LogEnds | undefined,
  allRecords: () => Promise<LogRecord[]>,
): Promise<{ root: string; source: string }> {
  if (options.project !== undefined) return { root: resolve(cwd, options.project), source: '--project' };
  const findRecorded = (records: readonly LogRecord[]) => records.map((record) => parseFhSessionRecord(record)).find((record) => record !== undefined);
  const recorded = (ends !== undefined && !ends.whole ? findRecorded(ends.head) : undefined) ?? findRecorded(await allRecords());
  if (recorded !== undefined) return { root: resolve(recorded.projectRoot), source: `the project session ${sessionId} recorded` };
  const projectDirectory = environment.CLAUDE_PROJECT_DIR;
  if (projectDirectory !== undefined && projectDirectory !== '') return { root: resolve(cwd, projectDirectory), source: 'CLAUDE_PROJECT_DIR' };
  return { root: cwd, source: "the event's cwd" };
}

/**
 * The `worktree-state` record to append with a prompt, or undefined: the event's `cwd` is in a
 * linked git worktree (see `probeWorktree`) and `last`, the newest `worktree-state` record read
 * (in the log's last bytes, or all of it), does not name that worktree, or it is not in one and
 * that record names a worktree (then `worktreeSession: null`, the session left it). Each prompt
 * in a worktree without such a record in what was read records it again, so the log's tail
 * always settles it.
 */
function worktreeStateChange(sessionId: string, cwd: string, last: LogRecord | undefined): LogRecord | undefined {
  const worktree = probeWorktree(cwd);
  const lastPath = (last?.worktreeSession as { worktreePath?: unknown } | null | undefined)?.worktreePath;
  if (worktree !== undefined) return lastPath === worktree.worktreePath ? undefined : worktreeStateRecord(sessionId, worktree);
  return typeof lastPath === 'string' ? worktreeStateRecord(sessionId, null) : undefined;
}

/**
 * True when `absolutePath` (inside `projectRoot`) is a symlink or lies under one, below the root:
 * its real path (of its nearest existing part) differs from the path joined to the root's real
 * path. Errors other than a missing path count as true, so the caller takes the careful way.
 */
function throughSymlink(projectRoot: string, absolutePath: string): boolean {
  try {
    if (lstatSync(absolutePath, { throwIfNoEntry: false })?.isSymbolicLink() === true) return true;
    const { realRoot, real } = realLocations(projectRoot, absolutePath);
    return real !== join(realRoot, relative(projectRoot, absolutePath));
  } catch {
    return true;
  }
}

/**
 * True when `absolutePath` is outside the real location of `projectRoot` too: the real path of its
 * nearest existing part is not the root's real path or below it. False when either cannot be
 * resolved (trackEdit then decides).
 */
function outsideRealRoot(projectRoot: string, absolutePath: string): boolean {
  let locations: { realRoot: string; real: string | undefined };
  try {
    locations = realLocations(projectRoot, absolutePath);
  } catch {
    return false;
  }
  if (locations.real === undefined || locations.real === locations.realRoot) return false;
  try {
    toTrackingPath(locations.realRoot, locations.real);
    return false;
  } catch {
    return true;
  }
}

/** The real path of `projectRoot` and of `absolutePath`'s nearest existing part. Throws the file system's error. */
function realLocations(projectRoot: string, absolutePath: string): { realRoot: string; real: string | undefined } {
  return { realRoot: realpathSync.native(projectRoot), real: realPathOrNearest(absolutePath, (path) => realpathSync.native(path)) };
}

/** True when `path` is an existing folder (following links). */
async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

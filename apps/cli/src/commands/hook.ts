/**
 * `fh hook`: one agent hook event as JSON on stdin, in Claude Code's shape
 * (`session_id`, `transcript_path`, `cwd`, `hook_event_name`, `tool_name`, `tool_input`, `prompt`).
 *
 * - `PreToolUse` of Write, Edit, MultiEdit or NotebookEdit: `trackEdit(tool_input.file_path ??
 *   tool_input.notebook_path)` before the tool writes. Edits made inside sub-agents are tracked
 *   too (they attach to the main turn's snapshot), so no edit goes unbacked. A file the latest
 *   snapshot already tracks needs nothing (trackEdit would not touch it), so that case is decided
 *   from the one read of the session log, without taking the session lock: a snapshot made
 *   meanwhile tracks it too. With no snapshot
 *   in the session yet, a session-start checkpoint (a new message id, no prompt) is taken first.
 * - `PreToolUse` / `PostToolUse` of Bash: begin / end a command window keyed by the event's
 *   `tool_use_id` (`command-window.ts`): what the command changes is attached to the turn's
 *   checkpoint. Windows whose PostToolUse never came are ended at the next Bash event once older
 *   than `FH_COMMAND_WINDOW_MAX_MS`, and all of them at the next prompt.
 * - `UserPromptSubmit`: open command windows are ended first (into the turn they ran in); then a
 *   new message id; the prompt is recorded as a user record in the session log, then the turn's
 *   snapshot is taken under that id.
 * - `Stop` (the agent finished its turn): open command windows are ended, then an end-of-turn
 *   checkpoint is taken: a snapshot under a new message id (backups of the tracked files that
 *   changed since the turn's snapshot), marked by an `fh-checkpoint` record of kind
 *   `end-of-turn`, so the turn's own work can be rewound to. A session with no snapshot yet
 *   tracks nothing, so nothing is recorded.
 * - Anything else is ignored, and so is everything while `FH_DISABLE_FILE_CHECKPOINTING` is set.
 *
 * stdin is read once, linearly, up to the end of the event's JSON object (`hook-input.ts`). An
 * event over `MAX_PARSED_EVENT_BYTES` (8 MiB: a Write of a big file carries the whole content) is
 * not held or parsed whole; its scalar fields (`session_id`, `cwd`, `hook_event_name`, `tool_name`,
 * `tool_use_id`, `tool_input.file_path`, ...) are still honoured, so the file is backed up.
 *
 * The session is the event's `session_id`; the project is `--project`, else the project the session
 * recorded (its `fh-session` record), else `$CLAUDE_PROJECT_DIR`, else the event's `cwd`. A project
 * folder that does not exist is an error (nothing is recorded). The event's `session_id` must be a
 * non-empty string and its `cwd` an absolute path; a `UserPromptSubmit`'s `prompt` a string (an
 * array of text blocks gives its text parts): otherwise the message says which field was wrong and
 * nothing is recorded (`hook-input.ts`). It prints nothing on stdout (an agent may add hook output to the model's
 * context) and never blocks the agent: any error is logged to stderr and the exit code stays 0.
 */
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { checkpointingDisabled } from '../checkpointing.js';
import { describeError } from '../cli-errors.js';
import type { CommandContext } from '../context.js';
import type { LogRecord } from '@fh/core';
import { TRACKED_TOOLS } from '../hook-tools.js';
import { eventCwd, eventPromptText, eventSessionId, MAX_PARSED_EVENT_BYTES, readHookEvent } from '../hook-input.js';
import { commandPhase, handleCommandEvent, reportCaptures } from './hook-command.js';
import { endStaleWindows, openCommandTools } from '../command-window.js';

/** The fields of a hook event fh reads; others are ignored. */
export interface HookEvent {
  session_id?: unknown;
  transcript_path?: unknown;
  cwd?: unknown;
  hook_event_name?: unknown;
  tool_name?: unknown;
  tool_input?: unknown;
  tool_use_id?: unknown;
  prompt?: unknown;
  /**
   * Set by Claude Code (2.1.69 and later) on events fired inside a sub-agent: its id. Absent for
   * the main agent (also when it runs as a named agent with `--agent`, which sets `agent_type` only).
   */
  agent_id?: unknown;
  /** The sub-agent's type (`general-purpose`, `Explore`, a custom agent's name). */
  agent_type?: unknown;
  /** `Stop`: true when the agent is already continuing because of a Stop hook (fh blocks nothing, so it is only read as given). */
  stop_hook_active?: unknown;
}

/** Where the hook keeps its data: `--store` and `--project` as given (both optional). */
export interface HookOptions {
  store?: string;
  project?: string;
  environment?: NodeJS.ProcessEnv;
}

/**
 * How long to wait for a session held by another process, in ms: longer than the fs store's
 * default stale time (10 s), so a lock left by a process that was killed is taken over rather
 * than given up on.
 */
const LOCK_WAIT_MS = 15_000;

/** The hook's whole budget per event, in ms, unless `FH_HOOK_TIMEOUT_MS` says otherwise. */
const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

/**
 * Read one hook event from stdin (once, linearly: see `hook-input.ts`; an event over 8 MiB keeps
 * only its scalar fields, `tool_input.file_path` among them) and act on it; always resolves (errors go to stderr). The agent
 * is never held longer than the hook's budget (`FH_HOOK_TIMEOUT_MS`, default 30 s; a store that
 * does not answer, say): past it the hook says so on stderr and the process exits 0.
 */
export async function runHookFromStdin(options: HookOptions = {}): Promise<void> {
  const budgetMs = hookTimeoutMs(options.environment ?? process.env);
  const deadline = setTimeout(() => {
    process.stderr.write(`fh hook: gave up after ${budgetMs / 1000} s (FH_HOOK_TIMEOUT_MS); this event was not recorded\n`);
    process.exit(0);
  }, budgetMs);
  deadline.unref();
  try {
    if (process.stdin.isTTY === true) throw new Error('expects one hook event as JSON on stdin (see fh hook install)');
    const input = await readHookEvent(process.stdin);
    const { event } = input;
    if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new Error('the hook event is not a JSON object');
    if (input.reduced && (event as HookEvent).hook_event_name === 'UserPromptSubmit' && input.dropped.includes('prompt')) {
      process.stderr.write(`fh hook: warning: the prompt is ${input.bytes} bytes, over the ${MAX_PARSED_EVENT_BYTES} bytes fh reads whole; its turn is recorded without the prompt's text\n`);
    }
    await handleHookEvent(event as HookEvent, options);
  } catch (error) {
    process.stderr.write(`fh hook: ${describeError(error).message}\n`);
  } finally {
    clearTimeout(deadline);
  }
}

/** `FH_HOOK_TIMEOUT_MS` when it is a positive number of ms, else the default. */
function hookTimeoutMs(environment: NodeJS.ProcessEnv): number {
  const value = Number(environment.FH_HOOK_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_HOOK_TIMEOUT_MS;
}

/** Act on one parsed hook event (see the module comment). Throws on failure. */
export async function handleHookEvent(event: HookEvent, options: HookOptions = {}): Promise<void> {
  const environment = options.environment ?? process.env;
  const eventName = event.hook_event_name;
  let path: string | undefined;
  const command = commandPhase(event);
  if (command !== undefined) {
    // A Bash command: handled below, once the session is open.
  } else if (eventName === 'PreToolUse') {
    if (!(TRACKED_TOOLS as readonly unknown[]).includes(event.tool_name)) return;
    const input = (typeof event.tool_input === 'object' && event.tool_input !== null ? event.tool_input : {}) as Record<string, unknown>;
    const candidate = input.file_path ?? input.notebook_path;
    if (typeof candidate !== 'string' || candidate === '') throw new Error(`${String(event.tool_name)} event has no tool_input.file_path`);
    path = candidate;
  } else if (eventName !== 'UserPromptSubmit' && eventName !== 'Stop') {
    return;
  }
  const sessionId = eventSessionId(event.session_id);
  if (checkpointingDisabled(environment)) return;
  const cwd = eventCwd(event.cwd);
  const prompt = eventName === 'UserPromptSubmit' ? eventPromptText(event.prompt) : '';
  // Loaded only for an event fh acts on (as are @fh/core and the store's package below), so an
  // ignored event loads nothing but this file.
  const { defaultStoreUri, openStore, parseStoreUri } = await import('../store-uri.js');
  const location = parseStoreUri(options.store ?? defaultStoreUri(environment), {
    cwd,
    home: environment.HOME !== undefined && environment.HOME !== '' ? environment.HOME : homedir(),
  });
  const [{ toTrackingPath, userMessageRecord, takeCheckpoint, parseFhSessionRecord, latestSnapshotFromLog, latestSnapshotFromTail, readLogEnds, realPathOrNearest, agentFromIds, entryChangedBy }, { openFhHistory }, store] =
    await Promise.all([
    import('@fh/core'),
    import('../fh-history.js'),
    openStore(location),
  ]);
  const projectDirectory = environment.CLAUDE_PROJECT_DIR;
  // Read the log's two ends only, where the store can: the fh-session record is at the start and
  // the current turn at the end, so a long session costs no more than a short one. The whole log
  // is read (once) only when the ends do not settle a question.
  const log = store.sessionLog(sessionId);
  const ends = await readLogEnds(log);
  let everything: LogRecord[] | undefined = ends?.whole === true ? ends.head : undefined;
  const allRecords = async (): Promise<LogRecord[]> => (everything ??= (await log.read()).records);
  const partial = ends !== undefined && !ends.whole;
  let projectRoot: string;
  let projectSource: string;
  if (options.project !== undefined) {
    projectRoot = resolve(cwd, options.project);
    projectSource = '--project';
  } else {
    const findRecorded = (records: readonly LogRecord[]) => records.map((record) => parseFhSessionRecord(record)).find((record) => record !== undefined);
    const recorded = (partial ? findRecorded(ends.head) : undefined) ?? findRecorded(await allRecords());
    if (recorded !== undefined) {
      projectRoot = resolve(recorded.projectRoot);
      projectSource = `the project session ${sessionId} recorded`;
    } else if (projectDirectory !== undefined && projectDirectory !== '') {
      projectRoot = resolve(cwd, projectDirectory);
      projectSource = 'CLAUDE_PROJECT_DIR';
    } else {
      projectRoot = cwd;
      projectSource = "the event's cwd";
    }
  }
  if (!(await isFolder(projectRoot))) throw new Error(`project folder ${projectRoot} (${projectSource}) does not exist; nothing recorded`);
  if (path !== undefined && !isAbsolute(path) && !(await isFolder(cwd))) throw new Error(`the event's cwd ${cwd} does not exist; nothing recorded`);
  const onWarning = (message: string): void => {
    process.stderr.write(`fh hook: warning: ${message}\n`);
  };
  const absolutePath = path === undefined ? undefined : isAbsolute(path) ? path : resolve(cwd, path);
  const agent = agentFromIds(event.agent_id, event.agent_type);
  if (absolutePath !== undefined) {
    const latest = (partial ? latestSnapshotFromTail(ends.tail, { projectRoot }) : undefined) ?? latestSnapshotFromLog(await allRecords(), { projectRoot });
    let key: string | undefined;
    try {
      key = toTrackingPath(projectRoot, absolutePath);
    } catch {
      // Outside the root as written (perhaps inside its real location): trackEdit decides.
    }
    // Only a path with no symlink on the way is settled here: through a link, the file the edit
    // writes is another one, which trackEdit resolves and may not have backed up yet.
    const entry = key === undefined ? undefined : latest?.trackedFileBackups[key];
    if (entry !== undefined && entryChangedBy(entry, agent) && !throughSymlink(projectRoot, absolutePath, realPathOrNearest)) return;
  }
  // Every event needs only the newest snapshot: trackEdit and the command windows attach to it,
  // and a prompt's makeSnapshot continues from it (the full record carries what retention needs),
  // so no event rebuilds the session's older snapshots.
  const history = await openFhHistory(store, sessionId, projectRoot, { lock: true, waitMs: LOCK_WAIT_MS, onWarning, rebuild: 'latest' });
  try {
    if (!history.enabled) return;
    if (command !== undefined) {
      await handleCommandEvent(history, command, event, { location, environment, home: environment.HOME !== undefined && environment.HOME !== '' ? environment.HOME : homedir(), sessionId });
      return;
    }
    if (absolutePath !== undefined) {
      // No snapshot yet (no prompt seen, e.g. hooks installed mid-session): take a session-start
      // checkpoint first, so this edit has a turn to attach its backup to.
      if (history.state.snapshots.length === 0) await history.makeSnapshot(randomUUID());
      await (agent.by === 'subagent' ? history.forSubagent(agent).trackEdit(absolutePath) : history.trackEdit(absolutePath));
      return;
    }
    // Commands still open ran in the turn that is ending: attach what they changed to its
    // checkpoint before the new one is taken.
    const home = environment.HOME !== undefined && environment.HOME !== '' ? environment.HOME : homedir();
    if (eventName === 'Stop' && history.state.snapshots.length === 0) return;
    reportCaptures(await endStaleWindows(history, await openCommandTools(location, environment, home, sessionId), 0));
    if (eventName === 'Stop') {
      // The snapshot first, then its mark: a mark never names a snapshot that is not durable.
      await takeCheckpoint(history, { kind: 'end-of-turn', log });
      return;
    }
    const messageId = randomUUID();
    // The records read before the lock hold the previous prompt: only this session's own
    // UserPromptSubmit events add user records, and a user sends one prompt at a time.
    const isPrompt = (record: LogRecord) => record.type === 'user' && typeof record.uuid === 'string';
    const previous = (partial ? ends.tail.findLast(isPrompt) : undefined) ?? (await allRecords()).findLast(isPrompt);
    const worktree = await worktreeStateChange(sessionId, cwd, partial ? ends.tail : await allRecords());
    await store.sessionLog(sessionId).append([
      ...(worktree === undefined ? [] : [worktree]),
      userMessageRecord({
        uuid: messageId,
        parentUuid: previous === undefined ? null : (previous.uuid as string),
        sessionId,
        text: prompt,
        timestamp: new Date(),
        cwd,
      }),
    ]);
    await history.makeSnapshot(messageId);
  } finally {
    await history.close();
  }
}

/**
 * The `worktree-state` record to append with a prompt, or undefined: the event's `cwd` is in a
 * linked git worktree (see `probeWorktree`) and the newest `worktree-state` among `recent` (the
 * log's tail, or all of it) does not name that worktree, or it is not in one and that record
 * names a worktree (then `worktreeSession: null`, the session left it). Each prompt in a worktree
 * without such a record in `recent` records it again, so the log's tail always settles it.
 */
async function worktreeStateChange(sessionId: string, cwd: string, recent: readonly LogRecord[]): Promise<LogRecord | undefined> {
  const [{ probeWorktree }, { worktreeStateRecord, WORKTREE_STATE_RECORD_TYPE }] = await Promise.all([import('../worktree-probe.js'), import('@fh/core')]);
  const worktree = probeWorktree(cwd);
  const last = recent.findLast((record) => record.type === WORKTREE_STATE_RECORD_TYPE);
  const lastPath = (last?.worktreeSession as { worktreePath?: unknown } | null | undefined)?.worktreePath;
  if (worktree !== undefined) return lastPath === worktree.worktreePath ? undefined : worktreeStateRecord(sessionId, worktree);
  return typeof lastPath === 'string' ? worktreeStateRecord(sessionId, null) : undefined;
}

/**
 * True when `absolutePath` (inside `projectRoot`) is a symlink or lies under one, below the root:
 * its real path (of its nearest existing part) differs from the path joined to the root's real
 * path. Errors other than a missing path count as true, so the caller takes the careful way.
 */
function throughSymlink(projectRoot: string, absolutePath: string, realPathOrNearest: (path: string, realpath: (path: string) => string) => string | undefined): boolean {
  try {
    if (lstatSync(absolutePath, { throwIfNoEntry: false })?.isSymbolicLink() === true) return true;
    const realRoot = realpathSync.native(projectRoot);
    const real = realPathOrNearest(absolutePath, (path) => realpathSync.native(path));
    return real !== join(realRoot, relative(projectRoot, absolutePath));
  } catch {
    return true;
  }
}

/** True when `path` is an existing folder (following links). */
async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** `fh hook` through the command table (when given options the short path does not read). */
export async function run(context: CommandContext): Promise<void> {
  await runHookFromStdin({ store: context.options.store, project: context.options.project, environment: context.environment });
}

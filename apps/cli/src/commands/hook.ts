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
 * Loading: this module (bundled into the `cli.js` entry, CommonJS) holds only reading and filtering the event,
 * with no import of @fh/core, a store or the SDK, so an event fh ignores costs `node` start-up
 * and this file. An event fh acts on loads `hook-act.cjs` (`hook-act.ts` bundled with core and
 * the stores into one file) with V8's code cache (`code-cache.ts`).
 *
 * The session is the event's `session_id`; the project is `--project`, else the project the session
 * recorded (its `fh-session` record), else `$CLAUDE_PROJECT_DIR`, else the event's `cwd`. A project
 * folder that does not exist is an error (nothing is recorded). The event's `session_id` must be a
 * non-empty string and its `cwd` an absolute path; a `UserPromptSubmit`'s `prompt` a string (an
 * array of text blocks gives its text parts): otherwise the message says which field was wrong and
 * nothing is recorded (`hook-input.ts`). It prints nothing on stdout (an agent may add hook output to the model's
 * context) and blocks the agent only to keep an edit from going ahead without its backup: a
 * `PreToolUse` edit whose backup could not be made (the session's lock stayed held or the store
 * did not answer within the hook's budget, the file could not be read, the store refused or failed:
 * `BACKUP_FAILURE_CODES`) exits 2, which makes Claude Code block the tool call and show the model
 * the stderr message (nothing was changed; retry the edit). A `PreToolUse` of Bash whose window
 * could not begin for the same reasons (the store cannot be opened or read, the lock stayed held)
 * is blocked alike: the command would run without the backups of what it may change. Any other
 * error (a bad event, a file fh does not track) is logged to stderr and the exit code stays 0.
 */
import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkpointingDisabled } from '../checkpointing.js';
import { describeError } from '../cli-errors.js';
import { plainError } from '../plain-errors.js';
import { requireWithCodeCache } from '../code-cache.js';
import type { CommandContext } from '../context.js';
import { COMMAND_TOOL, TRACKED_TOOLS } from '../hook-tools.js';
import { eventCwd, eventPromptText, eventSessionId, MAX_PARSED_EVENT_BYTES, readHookEvent, stdinChunks, stdinIsDevice } from '../hook-input.js';

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
  /**
   * When the hook's budget ends (ms since the epoch): waiting for the session's lock stops before
   * it, and so does a command window's scan, which blocks the event loop (so the give-up timer
   * cannot fire during it).
   */
  deadline?: number;
}

/** The hook's whole budget per event, in ms, unless `FH_HOOK_TIMEOUT_MS` says otherwise. */
const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

/** Exit code of a `PreToolUse` hook that blocks the tool call (Claude Code shows stderr to the model). */
const BLOCK_EXIT_CODE = 2;

/**
 * Codes of the errors that mean a backup could not be made (the session stayed locked, the file or
 * the store refused or failed): an edit meeting one is blocked. Errors without a code (a bad
 * event), bad arguments and paths fh does not track let the edit go on.
 */
const BACKUP_FAILURE_CODES: ReadonlySet<string> = new Set(['FH_LOCKED', 'FH_PERMISSION', 'FH_UNAVAILABLE', 'FH_CORRUPT', 'FH_CONFLICT', 'FH_ERROR']);

/**
 * Read one hook event from stdin (once, linearly: see `hook-input.ts`; an event over 8 MiB keeps
 * only its scalar fields, `tool_input.file_path` among them) and act on it; resolves with the exit
 * code (errors go to stderr). The agent is never held longer than the hook's budget
 * (`FH_HOOK_TIMEOUT_MS`, default 30 s): past it the hook says so on stderr and the process exits,
 * 0, or 2 for an edit whose backup was not made (the edit is blocked, see the module comment),
 * as it does when the session's lock stays held up to the end of the budget and when backing the
 * file up fails (the file or the store refused).
 */
export async function runHookFromStdin(options: HookOptions = {}): Promise<number> {
  const budgetMs = hookTimeoutMs(options.environment ?? process.env);
  let edit: { path?: string; tool: string } | undefined;
  const blocked = (reason: string, inTime = true): number => {
    const subject = edit?.path === undefined ? `record the project's files before the ${edit?.tool} call` : `back up ${edit.path} before the ${edit.tool} call`;
    const what = inTime ? `could not ${subject} within the hook's ${budgetMs / 1000} s (FH_HOOK_TIMEOUT_MS): ${reason}` : `could not ${subject}: ${reason}`;
    const calls = edit?.path === undefined ? 'commands' : 'edits';
    const next = inTime ? 'retry it' : `fix what is named above and retry it, or set FH_DISABLE_FILE_CHECKPOINTING=1 to let ${calls} go ahead without backups`;
    const why = edit?.path === undefined ? 'no command runs without the backups of what it may change' : 'no edit goes ahead without its backup';
    process.stderr.write(`fh hook: ${what}. The ${edit?.tool} call was blocked so that ${why}: nothing was changed; ${next}.\n`);
    return BLOCK_EXIT_CODE;
  };
  const deadline = setTimeout(() => {
    if (edit !== undefined) process.exit(blocked('the hook ran out of time'));
    process.stderr.write(`fh hook: gave up after ${budgetMs / 1000} s (FH_HOOK_TIMEOUT_MS); this event was not recorded\n`);
    process.exit(0);
  }, budgetMs);
  deadline.unref();
  const hookOptions: HookOptions = { ...options, deadline: Date.now() + budgetMs };
  try {
    if (stdinIsDevice()) throw new Error('expects one hook event as JSON on stdin (see fh hook install)');
    const input = await readHookEvent(stdinChunks());
    const { event } = input;
    if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new Error('the hook event is not a JSON object');
    if (input.reduced && (event as HookEvent).hook_event_name === 'UserPromptSubmit' && input.dropped.includes('prompt')) {
      process.stderr.write(`fh hook: warning: the prompt is ${input.bytes} bytes, over the ${MAX_PARSED_EVENT_BYTES} bytes fh reads whole; its turn is recorded without the prompt's text\n`);
    }
    edit = editOf(event as HookEvent);
    await handleHookEvent(event as HookEvent, hookOptions);
  } catch (error) {
    const message = plainError(describeError(error).message);
    // An edit fh could not back up (the lock stayed held, the file or the store failed): block it.
    // A bad event or a file fh does not track (outside the project) lets the edit go on.
    const code = (error as { code?: unknown }).code;
    if (edit !== undefined && typeof code === 'string' && BACKUP_FAILURE_CODES.has(code)) return blocked(plainBackupFailure(message), code === 'FH_LOCKED');
    process.stderr.write(`fh hook: ${message}\n`);
  } finally {
    clearTimeout(deadline);
  }
  return 0;
}

/**
 * A store's backup failure in a person's words, for a message `plainError` has already rewritten
 * (it turns `back up "<file>" as …` into `cannot read <file> to back it up: …`): `prepare a
 * backup of "<file>" (session "s"): EACCES (permission denied)` → `cannot read it: permission
 * denied`, or `the store refused the copy: …` when this process can read the file;
 * `lockSession "s": EACCES (…)` (also after `the store cannot be used: `) → `the store cannot be
 * written: permission denied`; anything else
 * as it is.
 */
function plainBackupFailure(message: string): string {
  const source = /^prepare a backup of "([^"]*)" \(session "[^"]*"\): [A-Z]+ \((.+)\)$/.exec(message);
  if (source !== null) return `${readable(source[1] ?? '') ? 'the store refused the copy' : 'cannot read it'}: ${source[2]}`;
  const lock = /^(?:the store cannot be used: )?lockSession "[^"]*": [A-Z]+ \((.+)\)$/.exec(message);
  if (lock !== null) return `the store cannot be written: ${lock[1]}`;
  return message;
}

/** Whether this process can read `path`. */
function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The tool call a failure blocks: the file and tool of an edit event (`PreToolUse` of an edit
 * tool), the tool alone of a `PreToolUse` of Bash (its window holds the before-images of what the
 * command may change); else undefined.
 */
function editOf(event: HookEvent): { path?: string; tool: string } | undefined {
  try {
    const action = hookAction(event);
    if (action?.kind === 'command' && event.hook_event_name === 'PreToolUse') return { tool: String(event.tool_name) };
    return action?.kind === 'edit' ? { path: action.path, tool: String(event.tool_name) } : undefined;
  } catch {
    return undefined;
  }
}

/** The longest timer Node keeps (2^31 − 1 ms, about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `FH_HOOK_TIMEOUT_MS` when it is a positive number of ms (capped at {@link MAX_TIMER_MS}); unset,
 * the default; anything else: a warning on stderr naming the value, and the default.
 */
function hookTimeoutMs(environment: NodeJS.ProcessEnv): number {
  const raw = environment.FH_HOOK_TIMEOUT_MS;
  if (raw === undefined) return DEFAULT_HOOK_TIMEOUT_MS;
  const value = Number(raw);
  if (raw.trim() !== '' && Number.isFinite(value) && value > 0) return Math.min(value, MAX_TIMER_MS);
  process.stderr.write(`fh hook: warning: FH_HOOK_TIMEOUT_MS=${JSON.stringify(raw)} is not a positive number of milliseconds; using ${DEFAULT_HOOK_TIMEOUT_MS}\n`);
  return DEFAULT_HOOK_TIMEOUT_MS;
}

/**
 * What fh does for an event it acts on, decided from the event alone: back up `path` before an
 * edit tool writes it (`edit`), begin or end a Bash command window (`command`), take a turn's
 * snapshot (`prompt`) or an end-of-turn checkpoint (`stop`).
 */
export type HookAction = { kind: 'edit'; path: string } | { kind: 'command' } | { kind: 'prompt' } | { kind: 'stop' };

/**
 * The action for `event`, or undefined for an event fh ignores. Throws for an edit event without
 * `tool_input.file_path` (or `notebook_path`).
 */
export function hookAction(event: HookEvent): HookAction | undefined {
  const eventName = event.hook_event_name;
  if (event.tool_name === COMMAND_TOOL && (eventName === 'PreToolUse' || eventName === 'PostToolUse')) return { kind: 'command' };
  if (eventName === 'PreToolUse') {
    if (!(TRACKED_TOOLS as readonly unknown[]).includes(event.tool_name)) return undefined;
    const input = (typeof event.tool_input === 'object' && event.tool_input !== null ? event.tool_input : {}) as Record<string, unknown>;
    const candidate = input.file_path ?? input.notebook_path;
    if (typeof candidate !== 'string' || candidate === '') throw new Error(`${String(event.tool_name)} event has no tool_input.file_path`);
    return { kind: 'edit', path: candidate };
  }
  if (eventName === 'UserPromptSubmit') return { kind: 'prompt' };
  if (eventName === 'Stop') return { kind: 'stop' };
  return undefined;
}

/**
 * Act on one parsed hook event (see the module comment): filter it here, then load `hook-act.ts`
 * only for an event fh acts on. Throws on failure.
 */
export async function handleHookEvent(event: HookEvent, options: HookOptions = {}): Promise<void> {
  const action = hookAction(event);
  if (action === undefined) return;
  const sessionId = eventSessionId(event.session_id);
  if (checkpointingDisabled(options.environment ?? process.env)) return;
  const cwd = eventCwd(event.cwd);
  const prompt = action.kind === 'prompt' ? eventPromptText(event.prompt) : '';
  const environment = options.environment ?? process.env;
  const act = loadHookAct(environment, `${action.kind}-${options.store?.startsWith('s3://') === true ? 's3' : 'fs'}`);
  try {
    await act.actOnHookEvent(event, action, { sessionId, cwd, prompt }, options);
  } finally {
    act.saveCache();
  }
}

/**
 * `hook-act.ts` as one bundled file (the built `hook-act.cjs` beside this file, in `dist/`) with
 * its code cache for `variant` (the event kind and the store's scheme, see `code-cache.ts`):
 * `actOnHookEvent`, and `saveCache` to call once the event is done.
 */
function loadHookAct(environment: NodeJS.ProcessEnv, variant: string): { actOnHookEvent: typeof import('./hook-act.js').actOnHookEvent; saveCache: () => void } {
  const loaded = requireWithCodeCache(fileURLToPath(new URL('./hook-act.cjs', import.meta.url)), environment, variant);
  return { actOnHookEvent: (loaded.exports as typeof import('./hook-act.js')).actOnHookEvent, saveCache: loaded.saveCache };
}

/** `fh hook` through the command table (when given options the short path does not read). */
export async function run(context: CommandContext): Promise<number> {
  return runHookFromStdin({ store: context.options.store, project: context.options.project, environment: context.environment });
}

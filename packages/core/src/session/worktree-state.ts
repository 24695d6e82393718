/**
 * Worktree sessions (seed 000 §8: `restoreWorktreeForResume` / `exitRestoredWorktree`): a session
 * that ran in a git worktree records where, so the worktree can be brought back after it was
 * cleaned up and the agent's uncommitted work rewound into it from the session's backups.
 *
 * Claude Code writes the record into its transcript whenever a session enters or leaves a worktree:
 *   {"type":"worktree-state","sessionId":…,"worktreeSession":{"originalCwd":…,"worktreePath":…,
 *    "worktreeName":…,"worktreeBranch":…,"originalBranch"?:…,"originalHeadCommit"?:…}}
 * with `worktreeSession: null` once the session left the worktree. The last record wins.
 *
 * Everything here is pure: the caller gathers the facts (what is on disk, what git knows) and runs
 * the actions; these functions parse, validate and decide.
 */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { InvalidArgumentError, NotFoundError } from '../errors.js';
import type { LogRecord } from '../store.js';
import { FH_SNAPSHOT_RECORD_TYPE } from '../state/snapshot-records.js';
import type { FileHistoryState } from '../types.js';

/** Record type of {@link WorktreeStateRecord}. */
export const WORKTREE_STATE_RECORD_TYPE = 'worktree-state';

/** Where a session's worktree was and what it was made from (Claude Code's `WorktreeSession`). */
export interface WorktreeSession {
  /** Absolute folder the session started in (in the main checkout). */
  originalCwd: string;
  /** Absolute folder of the worktree. */
  worktreePath: string;
  /** The worktree's short name (e.g. `feature-x` for `.claude/worktrees/feature-x`). */
  worktreeName: string;
  /** The branch checked out in the worktree (without `refs/heads/`). */
  worktreeBranch: string;
  /** The branch the main checkout was on when the worktree was made, if recorded. */
  originalBranch?: string;
  /** The commit (hex object id) the worktree was made from, if recorded. */
  originalHeadCommit?: string;
  /** True when a WorktreeCreate hook made the worktree (it may not be a git worktree). */
  hookBased?: boolean;
}

/** A parsed `worktree-state` record: the session's worktree, or null once it left it. */
export interface WorktreeStateRecord {
  type: typeof WORKTREE_STATE_RECORD_TYPE;
  /** The session that wrote the record, if recorded. */
  sessionId: string | undefined;
  worktreeSession: WorktreeSession | null;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Build the `worktree-state` log record a host appends when a session enters (or, with null, leaves) a worktree. */
export function worktreeStateRecord(sessionId: string, worktreeSession: WorktreeSession | null): LogRecord {
  return { type: WORKTREE_STATE_RECORD_TYPE, sessionId, worktreeSession: worktreeSession === null ? null : { ...worktreeSession } };
}

/**
 * An absolute path with no `.`/`..` segments, doubled or trailing separators and no NUL byte.
 * Returns it; throws `InvalidArgumentError` naming `field` otherwise.
 */
function normalisedAbsolutePath(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw new InvalidArgumentError(`${field} must be a non-empty string, got ${JSON.stringify(value) ?? 'undefined'}`);
  if (value.includes('\0')) throw new InvalidArgumentError(`${field} must not contain a NUL byte: ${JSON.stringify(value)}`);
  if (!isAbsolute(value)) throw new InvalidArgumentError(`${field} must be an absolute path, got ${JSON.stringify(value)}`);
  if (resolve(value) !== value) throw new InvalidArgumentError(`${field} must be a normalised absolute path (no ".", "..", doubled or trailing separators), got ${JSON.stringify(value)}`);
  return value;
}

/** Characters git forbids anywhere in a ref name (`git check-ref-format`). */
const FORBIDDEN_REF_CHARACTERS = /[\u0000-\u0020\u007f~^:?*[\\]/;

/**
 * Whether `name` is a branch name git accepts (`git check-ref-format --branch` rules): no control
 * characters, spaces or `~^:?*[\`; no `..`, `@{`, `//`; no component starting with `.` or ending
 * with `.lock`; not starting with `-` or `/`, not ending with `/` or `.`; not `@` or `HEAD`.
 */
export function isValidBranchName(name: string): boolean {
  if (name === '' || name === '@' || name === 'HEAD' || name.startsWith('-')) return false;
  if (FORBIDDEN_REF_CHARACTERS.test(name) || name.includes('..') || name.includes('@{')) return false;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.includes('//')) return false;
  return name.split('/').every((component) => !component.startsWith('.') && !component.endsWith('.lock'));
}

function branchName(value: unknown, field: string): string {
  if (typeof value !== 'string' || !isValidBranchName(value)) {
    throw new InvalidArgumentError(`${field} must be a valid git branch name, got ${JSON.stringify(value) ?? 'undefined'}`);
  }
  return value;
}

/** A worktree name: `/`-separated segments of letters, digits, `.`, `_`, `-` (not `.`/`..`, not starting with `-`). */
const WORKTREE_NAME_SEGMENT = /^[A-Za-z0-9._-]+$/;

function worktreeName(value: unknown, field: string): string {
  const valid =
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= 255 &&
    !value.startsWith('-') &&
    value.split('/').every((segment) => WORKTREE_NAME_SEGMENT.test(segment) && segment !== '.' && segment !== '..');
  if (!valid) {
    throw new InvalidArgumentError(`${field} must be a name of letters, digits, ".", "_", "-" (segments separated by "/"), got ${JSON.stringify(value) ?? 'undefined'}`);
  }
  return value;
}

/** A full SHA-1 (40) or SHA-256 (64) object id in lower-case hex. */
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * Validate one `worktreeSession` object (see {@link WorktreeSession}) and return a clean copy.
 * Unknown fields are ignored; optional fields may be absent or null. Throws
 * `InvalidArgumentError` naming the field (prefixed with `field`) for a missing or odd value: a
 * relative or non-normalised path, a worktree path equal to the original folder, a name or branch
 * git would not accept, a commit that is not a full hex object id.
 */
export function parseWorktreeSession(value: unknown, field = 'worktreeSession'): WorktreeSession {
  if (!isObject(value)) throw new InvalidArgumentError(`${field} must be an object, got ${JSON.stringify(value) ?? 'undefined'}`);
  const originalCwd = normalisedAbsolutePath(value.originalCwd, `${field}.originalCwd`);
  const worktreePath = normalisedAbsolutePath(value.worktreePath, `${field}.worktreePath`);
  if (worktreePath === originalCwd) {
    throw new InvalidArgumentError(`${field}.worktreePath must differ from originalCwd, both are ${JSON.stringify(worktreePath)}`);
  }
  const session: WorktreeSession = {
    originalCwd,
    worktreePath,
    worktreeName: worktreeName(value.worktreeName, `${field}.worktreeName`),
    worktreeBranch: branchName(value.worktreeBranch, `${field}.worktreeBranch`),
  };
  if (value.originalBranch !== undefined && value.originalBranch !== null) {
    session.originalBranch = branchName(value.originalBranch, `${field}.originalBranch`);
  }
  if (value.originalHeadCommit !== undefined && value.originalHeadCommit !== null) {
    if (typeof value.originalHeadCommit !== 'string' || !OBJECT_ID.test(value.originalHeadCommit)) {
      throw new InvalidArgumentError(
        `${field}.originalHeadCommit must be a full lower-case hex commit id, got ${JSON.stringify(value.originalHeadCommit)}`,
      );
    }
    session.originalHeadCommit = value.originalHeadCommit;
  }
  if (value.hookBased !== undefined && value.hookBased !== null) {
    if (typeof value.hookBased !== 'boolean') throw new InvalidArgumentError(`${field}.hookBased must be a boolean, got ${JSON.stringify(value.hookBased)}`);
    if (value.hookBased) session.hookBased = true;
  }
  return session;
}

/**
 * The session's worktree state from its records (any order of any record types): the last
 * `worktree-state` record wins. Returns undefined when there is none, a record whose
 * `worktreeSession` is null when the session left its worktree. Only the winning record is
 * validated; throws `InvalidArgumentError` naming the field when it is malformed (see
 * {@link parseWorktreeSession}).
 */
export function findWorktreeState(records: Iterable<unknown>): WorktreeStateRecord | undefined {
  let last: JsonObject | undefined;
  for (const record of records) {
    if (isObject(record) && record.type === WORKTREE_STATE_RECORD_TYPE) last = record;
  }
  if (last === undefined) return undefined;
  const field = 'the last worktree-state record: worktreeSession';
  if (last.sessionId !== undefined && typeof last.sessionId !== 'string') {
    throw new InvalidArgumentError(`the last worktree-state record: sessionId must be a string, got ${JSON.stringify(last.sessionId)}`);
  }
  if (!('worktreeSession' in last)) throw new InvalidArgumentError(`${field} is missing (it must be an object or null)`);
  const sessionId = last.sessionId as string | undefined;
  if (last.worktreeSession === null) return { type: WORKTREE_STATE_RECORD_TYPE, sessionId, worktreeSession: null };
  return { type: WORKTREE_STATE_RECORD_TYPE, sessionId, worktreeSession: parseWorktreeSession(last.worktreeSession, field) };
}

/** True when `path` lies strictly inside `folder` (both absolute and normalised). */
function isInside(folder: string, path: string): boolean {
  const between = relative(folder, path);
  return between !== '' && between !== '..' && !between.startsWith(`..${sep}`) && !isAbsolute(between);
}

/**
 * Check that the worktree sits where a worktree of this repository may: strictly inside
 * `repositoryRoot` (but not inside its `.git` folder) or next to it (same parent folder).
 * `repositoryRoot` defaults to `originalCwd`; pass git's top-level folder when originalCwd is a
 * subfolder. Throws `InvalidArgumentError` naming `worktreeSession.worktreePath` otherwise.
 */
export function assertWorktreePlacement(session: WorktreeSession, repositoryRoot: string = session.originalCwd): void {
  const root = normalisedAbsolutePath(repositoryRoot, 'repositoryRoot');
  const path = session.worktreePath;
  const inside = isInside(root, path) && relative(root, path).split(sep)[0] !== '.git';
  const sibling = path !== root && dirname(path) === dirname(root) && dirname(root) !== root;
  if (!inside && !sibling) {
    throw new InvalidArgumentError(
      `worktreeSession.worktreePath ${JSON.stringify(path)} is neither inside the repository ${JSON.stringify(root)} nor next to it`,
    );
  }
}

/** git's registration of a worktree at the session's path (`git worktree list`). */
export interface WorktreeRegistration {
  /** Branch checked out there (without `refs/heads/`), or null for a detached HEAD. */
  branch: string | null;
  /** True when git would prune it (its folder or `.git` file is gone). */
  prunable: boolean;
  /** True when it is locked (`git worktree lock`); prune leaves it alone. */
  locked: boolean;
}

/** What is at the worktree's path on disk. */
export type WorktreeFolderState = 'missing' | 'empty' | 'present';

/** The facts {@link planWorktreeRestore} decides on; the caller gathers them from disk and git. */
export interface WorktreeFacts {
  /** Git's top-level folder of the repository `originalCwd` is in. Default: originalCwd. */
  repositoryRoot?: string;
  /** `missing`, an `empty` folder, or a folder/file with something in it (`present`). */
  dir: WorktreeFolderState;
  /** git's registration of a worktree at worktreePath, or null when git names none there. */
  registered: WorktreeRegistration | null;
  /** Whether `refs/heads/{worktreeBranch}` exists. */
  branchExists: boolean;
  /** Another registered worktree that has the branch checked out (and whether it is stale), or null. */
  branchCheckedOutAt?: { path: string; prunable: boolean } | null;
  /** Whether `originalHeadCommit` names a commit in the repository (asked only when the branch is gone). */
  commitExists?: boolean;
}

/** One git step of a restore, run in order. */
export type WorktreeAction =
  /** `git worktree prune`: drop registrations whose folders are gone. */
  | { type: 'prune' }
  /**
   * `git worktree add <worktreePath> <branch>`; with `newBranchAt`,
   * `git worktree add -b <branch> <worktreePath> <newBranchAt>`.
   */
  | { type: 'add'; worktreePath: string; branch: string; newBranchAt?: string };

/** What {@link planWorktreeRestore} decided. `actions` are empty unless the worktree is recreated. */
export type WorktreeRestorePlan =
  /** The worktree is there, registered, on its branch: use it as it is. */
  | { kind: 'reuse'; worktreePath: string; branch: string; actions: [] }
  /** Recreate it on its existing branch. */
  | { kind: 'recreate'; worktreePath: string; branch: string; actions: WorktreeAction[] }
  /** The branch is gone: recreate it as a new branch at `originalHeadCommit`. */
  | { kind: 'recreate-from-commit'; worktreePath: string; branch: string; commit: string; actions: WorktreeAction[] }
  /** Do nothing; `reason` says why (one sentence naming the path, branch or commit). */
  | { kind: 'refuse'; worktreePath: string; branch: string; reason: string; actions: [] };

/** Input of {@link planWorktreeRestore}. */
export interface PlanWorktreeRestoreInput {
  /** The session's worktree (from {@link findWorktreeState}). */
  worktreeState: WorktreeSession;
  /** What is on disk and in git now. */
  exists: WorktreeFacts;
}

function describeBranch(branch: string | null): string {
  return branch === null ? 'a detached HEAD' : `branch ${branch}`;
}

/**
 * Decide how to bring a session's worktree back (seed 000 §8 `restoreWorktreeForResume`):
 * - registered there, folder present, on its branch → `reuse`;
 * - registered there but on another branch, a locked stale registration, a non-empty folder git
 *   does not know as this worktree, the branch checked out in another live worktree, or the branch
 *   gone with no usable `originalHeadCommit`, or a hook-made worktree → `refuse` (nothing changes);
 * - folder missing or empty → `recreate` on the branch, or `recreate-from-commit` (a new branch of
 *   the same name at `originalHeadCommit`) when the branch is gone; a stale registration of the
 *   path or of the branch is pruned first.
 * Throws `InvalidArgumentError` when the worktree path is not inside or next to the repository
 * (see {@link assertWorktreePlacement}).
 */
export function planWorktreeRestore(input: PlanWorktreeRestoreInput): WorktreeRestorePlan {
  const session = input.worktreeState;
  const facts = input.exists;
  assertWorktreePlacement(session, facts.repositoryRoot);
  const worktreePath = session.worktreePath;
  const branch = session.worktreeBranch;
  const refuse = (reason: string): WorktreeRestorePlan => ({ kind: 'refuse', worktreePath, branch, reason, actions: [] });

  if (session.hookBased === true) {
    return refuse(`the worktree ${worktreePath} was made by a WorktreeCreate hook, not by git worktree; recreate it with that hook`);
  }
  const registered = facts.registered;
  if (registered !== null && !registered.prunable && facts.dir === 'present') {
    if (registered.branch === branch) return { kind: 'reuse', worktreePath, branch, actions: [] };
    return refuse(`${worktreePath} is a worktree on ${describeBranch(registered.branch)}, not on branch ${branch}`);
  }
  if (facts.dir === 'present') {
    return refuse(`${worktreePath} is occupied by something that is not the session's worktree; move it away first`);
  }
  if (registered !== null && registered.locked) {
    return refuse(`git keeps a locked registration of the missing worktree ${worktreePath}; run git worktree unlock ${worktreePath} first`);
  }
  const holder = facts.branchCheckedOutAt ?? null;
  if (facts.branchExists && holder !== null && !holder.prunable) {
    return refuse(`branch ${branch} is checked out in another worktree at ${holder.path}`);
  }
  const actions: WorktreeAction[] = registered !== null || holder !== null ? [{ type: 'prune' }] : [];
  if (facts.branchExists) {
    actions.push({ type: 'add', worktreePath, branch });
    return { kind: 'recreate', worktreePath, branch, actions };
  }
  const commit = session.originalHeadCommit;
  if (commit === undefined) {
    return refuse(`branch ${branch} is gone and the session recorded no originalHeadCommit to recreate it from`);
  }
  if (facts.commitExists === false) {
    return refuse(`branch ${branch} is gone and its originalHeadCommit ${commit} is not in the repository`);
  }
  actions.push({ type: 'add', worktreePath, branch, newBranchAt: commit });
  return { kind: 'recreate-from-commit', worktreePath, branch, commit, actions };
}

/** Input of {@link planWorktreeExit}. */
export interface PlanWorktreeExitInput {
  /** The session's worktree (from {@link findWorktreeState}). */
  worktreeState: WorktreeSession;
  exists: {
    /** Git's top-level folder of the repository `originalCwd` is in. Default: originalCwd. */
    repositoryRoot?: string;
    dir: WorktreeFolderState;
    registered: WorktreeRegistration | null;
    /** Paths `git status --porcelain` lists in the worktree (changed, staged, untracked); empty when clean. */
    changedFiles: readonly string[];
  };
}

/** What {@link planWorktreeExit} decided. */
export type WorktreeExitPlan =
  /** `git worktree remove <worktreePath>` (without --force); the branch is kept. */
  | { kind: 'remove'; worktreePath: string; branch: string }
  /** Nothing is there to remove. */
  | { kind: 'absent'; worktreePath: string; branch: string }
  /** Do nothing; `reason` says why; `changedFiles` lists uncommitted changes when those are the reason. */
  | { kind: 'refuse'; worktreePath: string; branch: string; reason: string; changedFiles: string[] };

/**
 * Decide whether a restored worktree may be removed (seed 000 §8 `exitRestoredWorktree`): only a
 * live worktree git knows at that path, on the session's branch, unlocked, with no uncommitted
 * changes (`git status --porcelain` empty). A folder git does not know as a worktree is never
 * removed. The branch is never deleted. Throws `InvalidArgumentError` for a misplaced worktree path
 * (see {@link assertWorktreePlacement}).
 */
export function planWorktreeExit(input: PlanWorktreeExitInput): WorktreeExitPlan {
  const session = input.worktreeState;
  assertWorktreePlacement(session, input.exists.repositoryRoot);
  const { dir, registered, changedFiles } = input.exists;
  const worktreePath = session.worktreePath;
  const branch = session.worktreeBranch;
  const refuse = (reason: string, changed: readonly string[] = []): WorktreeExitPlan => ({
    kind: 'refuse',
    worktreePath,
    branch,
    reason,
    changedFiles: [...changed],
  });
  if (dir === 'missing' && (registered === null || registered.prunable)) return { kind: 'absent', worktreePath, branch };
  if (registered === null || registered.prunable) {
    return refuse(`${worktreePath} is not a worktree git knows; it is left alone`);
  }
  if (dir !== 'present') {
    return refuse(`git registers the worktree ${worktreePath} but its folder is ${dir}; run git worktree prune to clear the registration`);
  }
  if (registered.branch !== branch) {
    return refuse(`${worktreePath} is a worktree on ${describeBranch(registered.branch)}, not on branch ${branch}; it is left alone`);
  }
  if (registered.locked) return refuse(`the worktree ${worktreePath} is locked; run git worktree unlock ${worktreePath} first`);
  if (changedFiles.length > 0) {
    const count = changedFiles.length;
    return refuse(
      `the worktree ${worktreePath} has ${count} uncommitted change${count === 1 ? '' : 's'}: ${changedFiles.join(', ')}; commit or discard ${count === 1 ? 'it' : 'them'} first`,
      changedFiles,
    );
  }
  return { kind: 'remove', worktreePath, branch };
}

/** Input of {@link planWorktreeRewind}. */
export interface PlanWorktreeRewindInput {
  /** The session's worktree. */
  worktreeState: WorktreeSession;
  /** The session's rebuilt file-history state (tracking paths relative to `projectRoot`). */
  state: Readonly<FileHistoryState>;
  /** The absolute root the state's tracking paths are relative to (the session's project root). */
  projectRoot: string;
  /** The snapshot to rewind to. Default: the latest snapshot (of `eligibleMessageIds`, when given). */
  messageId?: string;
  /**
   * Messages whose snapshots were taken while the session was in the worktree (see
   * {@link worktreeSnapshotMessageIds}); others are refused. Default: every snapshot.
   */
  eligibleMessageIds?: ReadonlySet<string>;
}

/** What {@link planWorktreeRewind} decided. */
export interface WorktreeRewindPlan {
  /** The snapshot to rewind to, or undefined when the session has no snapshots (nothing to rewind). */
  messageId: string | undefined;
  /** Tracking paths (relative to `projectRoot`) inside the worktree to rewind, sorted. */
  paths: string[];
  /** Tracked paths outside the worktree, left alone, sorted. */
  outside: string[];
  /** The worktree's path relative to `projectRoot` (`''` when they are the same folder). */
  worktreePrefix: string;
}

/**
 * Choose what a worktree restore rewinds: the session's tracked files that lie inside the
 * worktree, to the snapshot of `messageId` (default: the latest eligible one). The session's project
 * root may be the worktree itself or a folder around it (tracked paths outside the worktree are
 * left alone and listed). Throws `NotFoundError` naming the message when no snapshot has it, and
 * `InvalidArgumentError` when it is not eligible or `projectRoot` is not absolute.
 */
export function planWorktreeRewind(input: PlanWorktreeRewindInput): WorktreeRewindPlan {
  const projectRoot = normalisedAbsolutePath(input.projectRoot, 'projectRoot');
  const worktreePath = input.worktreeState.worktreePath;
  const snapshots = input.state.snapshots;
  const eligible = input.eligibleMessageIds;
  let messageId: string | undefined;
  if (input.messageId !== undefined) {
    if (!snapshots.some((snapshot) => snapshot.messageId === input.messageId)) {
      throw new NotFoundError(`no snapshot for message ${JSON.stringify(input.messageId)} in the session`);
    }
    if (eligible !== undefined && !eligible.has(input.messageId)) {
      throw new InvalidArgumentError(
        `the snapshot of message ${JSON.stringify(input.messageId)} was taken before the session entered the worktree ${worktreePath}; its paths belong to another folder`,
      );
    }
    messageId = input.messageId;
  } else {
    messageId = snapshots.findLast((snapshot) => eligible === undefined || eligible.has(snapshot.messageId))?.messageId;
  }
  const worktreePrefix = projectRoot === worktreePath ? '' : relative(projectRoot, worktreePath).split(sep).join('/');
  const rootIsAround = worktreePrefix === '' || isInside(projectRoot, worktreePath);
  const target = messageId === undefined ? undefined : snapshots.findLast((snapshot) => snapshot.messageId === messageId);
  const tracked = new Set([...input.state.trackedFiles, ...Object.keys(target?.trackedFileBackups ?? {})]);
  const paths: string[] = [];
  const outside: string[] = [];
  for (const path of [...tracked].sort()) {
    const inWorktree = rootIsAround && (worktreePrefix === '' || path.startsWith(`${worktreePrefix}/`));
    (inWorktree ? paths : outside).push(path);
  }
  return { messageId, paths: messageId === undefined ? [] : paths, outside, worktreePrefix };
}

/**
 * The messages whose snapshots a session took while it was in the worktree at `worktreePath`.
 * Claude Code re-roots a session's file history when it enters a worktree (its tracking paths then
 * resolve against the worktree), so only these snapshots can be rewound into the worktree.
 *
 * Records are read in order: the session counts as inside from its first record when its first
 * `cwd` is the worktree (or a folder in it), and from each `worktree-state` record naming the
 * worktree until one names something else (or null). A `file-history-snapshot` record that is not
 * an update adds its message when inside and removes it when outside. Malformed records are
 * ignored. Never throws.
 */
export function worktreeSnapshotMessageIds(records: Iterable<unknown>, worktreePath: string): Set<string> {
  const list = [...records];
  const inWorktree = (path: unknown): boolean => typeof path === 'string' && (path === worktreePath || isInside(worktreePath, path));
  const firstCwd = list.find((record) => isObject(record) && typeof record.cwd === 'string' && record.cwd !== '') as JsonObject | undefined;
  let inside = firstCwd !== undefined && inWorktree(firstCwd.cwd);
  const messageIds = new Set<string>();
  for (const record of list) {
    if (!isObject(record)) continue;
    if (record.type === WORKTREE_STATE_RECORD_TYPE) {
      const session = record.worktreeSession;
      inside = isObject(session) && session.worktreePath === worktreePath;
    } else if ((record.type === 'file-history-snapshot' && record.isSnapshotUpdate !== true) || record.type === FH_SNAPSHOT_RECORD_TYPE) {
      const snapshot = record.snapshot;
      const messageId = isObject(snapshot) && typeof snapshot.messageId === 'string' ? snapshot.messageId : record.messageId;
      if (typeof messageId !== 'string' || messageId === '') continue;
      if (inside) messageIds.add(messageId);
      else messageIds.delete(messageId);
    }
  }
  return messageIds;
}

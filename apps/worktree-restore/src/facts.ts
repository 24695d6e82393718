/**
 * Gathering the facts the core's worktree plans decide on: what is on disk at the worktree's path
 * and what git knows about it. Paths are compared by their real location (symlinked temp folders,
 * `/tmp` → `/private/tmp`), since git records real paths.
 */
import { lstat, readdir, realpath } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import {
  NotFoundError,
  errnoCode,
  type WorktreeFacts,
  type WorktreeFolderState,
  type WorktreeRegistration,
  type WorktreeSession,
} from '@fh/core';
import { GitError } from './errors.js';
import { branchExists, changedFiles, commitExists, listWorktrees, topLevel, type WorktreeEntry } from './git.js';

/** The real path of `path`: the real path of its deepest existing ancestor, plus the rest. */
export async function canonicalPath(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    const parent = dirname(path);
    if (parent === path || errnoCode(error) !== 'ENOENT') return resolve(path);
    return join(await canonicalPath(parent), basename(path));
  }
}

/** `missing`, an `empty` folder, or `present` (anything else, a symlink included). */
export async function folderState(path: string): Promise<WorktreeFolderState> {
  let stats;
  try {
    stats = await lstat(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return 'missing';
    throw error;
  }
  if (stats.isDirectory() && (await readdir(path)).length === 0) return 'empty';
  return 'present';
}

/** The repository the session's worktree belongs to, in the session's own path spelling. */
export interface Repository {
  /** The folder git commands run in: the session's originalCwd. */
  cwd: string;
  /** The top-level folder of originalCwd's work tree, spelled like originalCwd (for placement checks). */
  root: string;
  /** Every registered worktree. */
  worktrees: WorktreeEntry[];
  /** The registered worktree at the session's worktree path, if any. */
  entry: WorktreeEntry | undefined;
}

/**
 * Find the repository of `session.originalCwd` and git's registration of the worktree. Throws
 * `NotFoundError` when originalCwd is gone or not in a git repository.
 */
export async function openRepository(session: WorktreeSession): Promise<Repository> {
  const cwd = session.originalCwd;
  if ((await folderState(cwd)) === 'missing') {
    throw new NotFoundError(`the session's original folder ${cwd} does not exist; its repository is needed to restore the worktree`);
  }
  let top: string;
  try {
    top = await topLevel(cwd);
  } catch (error) {
    if (error instanceof GitError) throw new NotFoundError(`the session's original folder ${cwd} is not in a git repository`, { cause: error });
    throw error;
  }
  const root = resolve(cwd, relative(await canonicalPath(cwd), top));
  const worktrees = await listWorktrees(cwd);
  const target = await canonicalPath(session.worktreePath);
  let entry: WorktreeEntry | undefined;
  for (const worktree of worktrees) {
    if ((await canonicalPath(worktree.path)) === target) entry = worktree;
  }
  return { cwd, root, worktrees, entry };
}

function registration(entry: WorktreeEntry | undefined): WorktreeRegistration | null {
  return entry === undefined ? null : { branch: entry.branch, prunable: entry.prunable, locked: entry.locked };
}

/** The facts `planWorktreeRestore` needs. */
export async function restoreFacts(session: WorktreeSession, repository: Repository): Promise<WorktreeFacts> {
  const branch = session.worktreeBranch;
  const exists = await branchExists(repository.cwd, branch);
  const holder = repository.worktrees.find((worktree) => worktree !== repository.entry && worktree.branch === branch);
  const facts: WorktreeFacts = {
    repositoryRoot: repository.root,
    dir: await folderState(session.worktreePath),
    registered: registration(repository.entry),
    branchExists: exists,
    branchCheckedOutAt: holder === undefined ? null : { path: holder.path, prunable: holder.prunable },
  };
  if (!exists && session.originalHeadCommit !== undefined) facts.commitExists = await commitExists(repository.cwd, session.originalHeadCommit);
  return facts;
}

/**
 * The facts `planWorktreeExit` needs. The status is read only from a live, registered worktree
 * whose own top-level folder is the worktree path: git run in a folder that is not a work tree of
 * its own would report the enclosing checkout instead, so such a folder counts as not a live
 * worktree (and is never removed).
 */
export async function exitFacts(session: WorktreeSession, repository: Repository) {
  const dir = await folderState(session.worktreePath);
  let registered = registration(repository.entry);
  let changed: string[] = [];
  if (registered !== null && !registered.prunable && dir === 'present') {
    const ownTop = await topLevel(session.worktreePath).catch(() => undefined);
    if (ownTop !== undefined && ownTop === (await canonicalPath(session.worktreePath))) changed = await changedFiles(session.worktreePath);
    else registered = { ...registered, prunable: true };
  }
  return { repositoryRoot: repository.root, dir, registered, changedFiles: changed };
}

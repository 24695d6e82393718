/**
 * The git plumbing: every git command this tool runs, and the parsing of git's machine-readable
 * output (`worktree list --porcelain -z`, `status --porcelain -z`). git runs without a terminal
 * prompt, in the C locale, with GIT_DIR / GIT_WORK_TREE / GIT_INDEX_FILE from the caller's
 * environment removed (a hook environment must not redirect it to another repository).
 */
import { execFile } from 'node:child_process';
import { GitError } from './errors.js';

/** What one git run gave. */
export interface GitResult {
  stdout: string;
  exitStatus: number;
}

const INHERITED_REDIRECTS = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY'];

function gitEnvironment(): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };
  for (const name of INHERITED_REDIRECTS) delete environment[name];
  return environment;
}

/**
 * Run `git -C <cwd> <args>`. Resolves when git exits with 0 or one of `allowedExitStatuses`;
 * otherwise rejects with {@link GitError} naming the command and git's first error line.
 */
export function runGit(cwd: string, args: readonly string[], allowedExitStatuses: readonly number[] = []): Promise<GitResult> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      'git',
      ['-C', cwd, ...args],
      { env: gitEnvironment(), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const exitStatus = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        if (exitStatus === 0 || allowedExitStatuses.includes(exitStatus)) {
          resolvePromise({ stdout, exitStatus });
          return;
        }
        const firstLine = stderr.split('\n').find((line) => line.trim() !== '')?.replace(/^(fatal|error): /, '') ?? error?.message ?? 'failed';
        reject(new GitError(`git ${args.slice(0, 2).join(' ')} failed in ${cwd}: ${firstLine}`, exitStatus, stderr));
      },
    );
  });
}

/** One entry of `git worktree list --porcelain -z`. */
export interface WorktreeEntry {
  /** Absolute path as git records it. */
  path: string;
  /** Checked-out commit, or null (bare). */
  head: string | null;
  /** Checked-out branch without `refs/heads/`, or null (detached or bare). */
  branch: string | null;
  bare: boolean;
  locked: boolean;
  /** git would prune it: its folder or `.git` file is gone. */
  prunable: boolean;
}

/**
 * Parse `git worktree list --porcelain -z`: attribute lines end in NUL, and an empty line (a
 * second NUL) ends each worktree.
 */
export function parseWorktreeList(output: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | undefined;
  for (const line of output.split('\0')) {
    if (line === '') {
      if (current !== undefined) entries.push(current);
      current = undefined;
      continue;
    }
    const space = line.indexOf(' ');
    const label = space === -1 ? line : line.slice(0, space);
    const value = space === -1 ? '' : line.slice(space + 1);
    if (label === 'worktree') {
      if (current !== undefined) entries.push(current);
      current = { path: value, head: null, branch: null, bare: false, locked: false, prunable: false };
    } else if (current !== undefined) {
      if (label === 'HEAD') current.head = value;
      else if (label === 'branch') current.branch = value.startsWith('refs/heads/') ? value.slice('refs/heads/'.length) : value;
      else if (label === 'bare') current.bare = true;
      else if (label === 'locked') current.locked = true;
      else if (label === 'prunable') current.prunable = true;
    }
  }
  if (current !== undefined) entries.push(current);
  return entries;
}

/**
 * Parse `git status --porcelain=v1 -z`: `XY path` entries; a rename or copy is followed by its
 * source path as a separate entry. Returns the paths (renames: the new path), in git's order.
 */
export function parseStatus(output: string): string[] {
  const paths: string[] = [];
  const fields = output.split('\0');
  for (let index = 0; index < fields.length; index += 1) {
    const field = fields[index] as string;
    if (field.length < 4) continue;
    const status = field.slice(0, 2);
    paths.push(field.slice(3));
    if (status.includes('R') || status.includes('C')) index += 1;
  }
  return paths;
}

/** The top-level folder of the work tree `cwd` is in (`git rev-parse --show-toplevel`). */
export async function topLevel(cwd: string): Promise<string> {
  return (await runGit(cwd, ['rev-parse', '--show-toplevel'])).stdout.replace(/\n$/, '');
}

/** Every worktree of the repository `cwd` is in. */
export async function listWorktrees(cwd: string): Promise<WorktreeEntry[]> {
  return parseWorktreeList((await runGit(cwd, ['worktree', 'list', '--porcelain', '-z'])).stdout);
}

/** Whether `refs/heads/<branch>` exists. */
export async function branchExists(cwd: string, branch: string): Promise<boolean> {
  return (await runGit(cwd, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], [1])).exitStatus === 0;
}

/** Whether `commit` names a commit object in the repository. */
export async function commitExists(cwd: string, commit: string): Promise<boolean> {
  return (await runGit(cwd, ['cat-file', '-e', `${commit}^{commit}`], [1, 128])).exitStatus === 0;
}

/** `git worktree prune`: drop registrations whose folders are gone (locked ones stay). */
export async function pruneWorktrees(cwd: string): Promise<void> {
  await runGit(cwd, ['worktree', 'prune']);
}

/**
 * `git worktree add <path> <branch>`, or with `newBranchAt`, `git worktree add -b <branch> <path>
 * <newBranchAt>`. The branch name is validated by the caller (it never starts with `-`).
 */
export async function addWorktree(cwd: string, path: string, branch: string, newBranchAt?: string): Promise<void> {
  const args = newBranchAt === undefined ? ['worktree', 'add', '--', path, branch] : ['worktree', 'add', '-b', branch, '--', path, newBranchAt];
  await runGit(cwd, args);
}

/** Paths with uncommitted changes in the worktree: modified, staged, deleted, untracked (every file). */
export async function changedFiles(worktreePath: string): Promise<string[]> {
  const result = await runGit(worktreePath, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none']);
  return parseStatus(result.stdout);
}

/** `git worktree remove <path>` without --force: git itself refuses an unclean or locked worktree. */
export async function removeWorktree(cwd: string, path: string): Promise<void> {
  await runGit(cwd, ['worktree', 'remove', '--', path]);
}

/**
 * Whether a folder is inside a linked git worktree, read from the files git keeps (no `git`
 * process on the hook's path): the worktree's `.git` is a file `gitdir: <main>/.git/worktrees/<name>`,
 * that folder's `HEAD` names the branch, and its `commondir` leads to the main checkout's `.git`.
 * `fh hook` records the result as a `worktree-state` record (Claude Code's shape), so
 * `fh-worktree-restore` and key resolution work for fh's own sessions too (issue 13). Its
 * `originalHeadCommit` is the commit the worktree's branch pointed to when fh recorded it (a loose
 * ref under `refs/heads/`, else `packed-refs`), so a restore can recreate a deleted branch.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isValidBranchName, type WorktreeSession } from '@fh/core';

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The worktree `cwd` is in (the folder holding the `.git` file, the main checkout as
 * `originalCwd`, name and branch), or undefined when it is in the main checkout, in no repository,
 * on a detached HEAD, or the files do not read as a linked worktree. Never throws.
 */
export function probeWorktree(cwd: string): WorktreeSession | undefined {
  for (let folder = resolve(cwd); ; folder = dirname(folder)) {
    const dotGit = join(folder, '.git');
    const stats = statSync(dotGit, { throwIfNoEntry: false });
    if (stats?.isDirectory() === true) return undefined;
    if (stats?.isFile() === true) return linkedWorktree(folder, dotGit);
    if (dirname(folder) === folder) return undefined;
  }
}

function linkedWorktree(worktreePath: string, dotGit: string): WorktreeSession | undefined {
  const pointer = /^gitdir: (.+)$/m.exec(readText(dotGit) ?? '')?.[1]?.trim();
  if (pointer === undefined) return undefined;
  const gitDir = isAbsolute(pointer) ? pointer : resolve(worktreePath, pointer);
  const common = readText(join(gitDir, 'commondir'))?.trim();
  if (common === undefined) return undefined;
  const commonDir = isAbsolute(common) ? common : resolve(gitDir, common);
  const branch = /^ref: refs\/heads\/(.+)$/m.exec(readText(join(gitDir, 'HEAD')) ?? '')?.[1]?.trim();
  if (branch === undefined || !isValidBranchName(branch)) return undefined;
  const name = gitDir.split('/').at(-1) ?? '';
  if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('-') || name === '.' || name === '..') return undefined;
  const originalCwd = dirname(commonDir);
  if (originalCwd === worktreePath) return undefined;
  const session: WorktreeSession = { originalCwd, worktreePath, worktreeName: name, worktreeBranch: branch };
  const commit = branchCommit(commonDir, branch);
  if (commit !== undefined) session.originalHeadCommit = commit;
  return session;
}

const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** The full commit id `refs/heads/<branch>` names in the repository at `commonDir`, or undefined. */
function branchCommit(commonDir: string, branch: string): string | undefined {
  const loose = readText(join(commonDir, 'refs', 'heads', ...branch.split('/')))?.trim();
  if (loose !== undefined) return COMMIT_ID.test(loose) ? loose : undefined;
  const ref = `refs/heads/${branch}`;
  for (const line of (readText(join(commonDir, 'packed-refs')) ?? '').split('\n')) {
    const [id, name] = line.trim().split(' ');
    if (name === ref && id !== undefined && COMMIT_ID.test(id)) return id;
  }
  return undefined;
}

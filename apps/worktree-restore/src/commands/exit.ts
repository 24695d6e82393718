/**
 * `fh-worktree-restore exit --session <id> [--store fs:<dir> | --claude [configDir]]` (seed 000 §8
 * `exitRestoredWorktree`): remove the session's worktree when it holds no uncommitted work, and
 * print the folder to go back to (the session's originalCwd).
 *
 * Removes only a live worktree git knows at that path, on the session's branch, unlocked, whose
 * `git status --porcelain` is empty (`git worktree remove`, never --force); otherwise refuses and
 * names the changed files. The branch is never deleted. A worktree already gone is not an error.
 *
 * Human output: the original folder alone on stdout. JSON: `{ "sessionId", "worktreePath",
 * "branch", "removed", "cd" }`.
 */
import { planWorktreeExit } from '@fh/core';
import { RefusalError } from '../errors.js';
import { exitFacts, openRepository } from '../facts.js';
import { removeWorktree } from '../git.js';
import type { Output } from '../output.js';
import { openSource, type SourceOptions } from '../session-source.js';
import { sessionWorktree } from './restore.js';

/** Run `exit`. */
export async function run(options: SourceOptions, output: Output): Promise<void> {
  const source = await openSource(options);
  const worktree = sessionWorktree(source);
  const repository = await openRepository(worktree);
  const plan = planWorktreeExit({ worktreeState: worktree, exists: await exitFacts(worktree, repository) });
  if (plan.kind === 'refuse') throw new RefusalError(`not removing the worktree of session "${source.sessionId}": ${plan.reason}`, plan.changedFiles);
  if (plan.kind === 'remove') await removeWorktree(repository.cwd, worktree.worktreePath);
  output.result(
    { sessionId: source.sessionId, worktreePath: worktree.worktreePath, branch: worktree.worktreeBranch, removed: plan.kind === 'remove', cd: worktree.originalCwd },
    [worktree.originalCwd],
  );
  output.note(
    plan.kind === 'remove'
      ? `removed the worktree ${worktree.worktreePath}; branch ${worktree.worktreeBranch} is kept`
      : `the worktree ${worktree.worktreePath} is already gone; nothing to remove`,
  );
}

/**
 * `fh-worktree-restore restore --session <id> [--store fs:<dir> | --claude [configDir]] [--message <id>]`
 * (seed 000 §8 `restoreWorktreeForResume`): bring back the git worktree a session last worked in
 * and rewind the agent's uncommitted work into it.
 *
 * 1. Find the session's worktree (its last `worktree-state` record).
 * 2. Look at the path and at git, and plan (`planWorktreeRestore`): reuse a live worktree on its
 *    branch; recreate a missing one on its branch, or from `originalHeadCommit` on a new branch of
 *    the same name when the branch is gone (stale registrations pruned first); refuse when the
 *    path is occupied by something else. The message id is checked before anything changes.
 * 3. Recreated: rewind the session's tracked files inside the worktree to the snapshot of
 *    `--message` (default: the latest). Reused: rewind only when `--message` is given, so newer
 *    work in a live worktree is never overwritten unasked, and (fh sessions) save what it
 *    overwrites in an undo point first.
 *
 * Human output: the worktree's path alone on stdout (`cd "$(fh-worktree-restore restore …)"`),
 * what was done on stderr. JSON: `{ "sessionId", "source", "worktreePath", "worktreeName",
 * "branch", "originalCwd", "action": "reused"|"recreated"|"recreated-from-commit", "commit",
 * "pruned", "messageId", "restored", "deleted", "skipped": [{ "path", "reason" }],
 * "failed": [{ "path", "error" }], "outside", "undoId", "cd" }`; paths are relative to the worktree,
 * except `outside` (relative to the session's project root). `undoId` names the undo point saved
 * before rewinding a live worktree of an fh session (`fh undo` puts those files back), else null.
 * Exit 3 when some files could not be rewound.
 */
import {
  FhError,
  FileHistory,
  findWorktreeState,
  NotFoundError,
  planWorktreeRestore,
  planWorktreeRewind,
  RewindSession,
  type BackupMissingError,
  type RewindResult,
  type UndoPoint,
  type WorktreeRewindPlan,
  type WorktreeSession,
} from '@fh/core';
import { PartialFailureError, RefusalError } from '../errors.js';
import { openRepository, restoreFacts } from '../facts.js';
import { addWorktree, pruneWorktrees } from '../git.js';
import type { Output } from '../output.js';
import { openSource, type SessionSource, type SourceOptions } from '../session-source.js';

/** Options of `restore`. */
export interface RestoreOptions extends SourceOptions {
  message?: string;
}

/** The session's worktree, or `NotFoundError` when it never ran in one or has left it. */
export function sessionWorktree(source: SessionSource): WorktreeSession {
  const record = findWorktreeState(source.records);
  if (record === undefined) {
    throw new NotFoundError(`session "${source.sessionId}" in ${source.location} recorded no worktree-state: it did not run in a worktree`);
  }
  if (record.worktreeSession === null) {
    throw new NotFoundError(`session "${source.sessionId}" left its worktree (its last worktree-state is null): there is no worktree to restore`);
  }
  return record.worktreeSession;
}

/** What {@link rewindInto} did. */
interface WorktreeRewind {
  result: RewindResult;
  /** The undo point saved before files were overwritten, or null. */
  undoPoint: UndoPoint | null;
}

/**
 * Rewind `plan.paths` (as a code-only restore of a {@link RewindSession}, with an undo point when
 * `undo` is on). Backups missing from the store are reported as failed and the rest restored.
 */
async function rewindInto(
  source: SessionSource,
  history: FileHistory,
  plan: WorktreeRewindPlan & { messageId: string },
  undo: boolean,
): Promise<WorktreeRewind> {
  const session = new RewindSession({ history, ...(undo ? {} : { undo: false as const }) });
  const restore = async (paths: readonly string[]): Promise<WorktreeRewind> => {
    const restored = await session.restore({ messageId: plan.messageId, mode: 'code', paths });
    return { result: restored.code ?? { messageId: plan.messageId, restored: [], deleted: [], skipped: [], failed: [] }, undoPoint: restored.undoPoint ?? null };
  };
  try {
    return await restore(plan.paths);
  } catch (error) {
    if (!FhError.hasCode(error, 'FH_BACKUP_MISSING')) throw error;
    const missing = (error as BackupMissingError).missing;
    const missingPaths = new Set(missing.map((entry) => entry.path));
    const rest = plan.paths.filter((path) => !missingPaths.has(path));
    const done: WorktreeRewind =
      rest.length === 0 ? { result: { messageId: plan.messageId, restored: [], deleted: [], skipped: [], failed: [] }, undoPoint: null } : await restore(rest);
    for (const entry of missing) {
      done.result.failed.push({
        path: entry.path,
        error: new NotFoundError(`backup ${entry.backupFileName} ${entry.reason} (session ${source.sessionId} in ${source.location})`),
      });
    }
    done.result.failed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return done;
  }
}

/** Run `restore`. */
export async function run(options: RestoreOptions, output: Output): Promise<void> {
  const source = await openSource(options);
  const worktree = sessionWorktree(source);
  const repository = await openRepository(worktree);
  const plan = planWorktreeRestore({ worktreeState: worktree, exists: await restoreFacts(worktree, repository) });
  if (plan.kind === 'refuse') throw new RefusalError(`not restoring the worktree of session "${source.sessionId}": ${plan.reason}`);

  const rewind = plan.kind !== 'reuse' || options.message !== undefined;
  const history = rewind ? await source.history(worktree) : undefined;
  const rewindPlan =
    history === undefined
      ? undefined
      : planWorktreeRewind({
          worktreeState: worktree,
          state: history.state,
          projectRoot: history.projectRoot,
          ...(options.message === undefined ? {} : { messageId: options.message }),
          ...(history.eligibleMessageIds === undefined ? {} : { eligibleMessageIds: history.eligibleMessageIds }),
        });

  for (const action of plan.actions) {
    if (action.type === 'prune') await pruneWorktrees(repository.cwd);
    else await addWorktree(repository.cwd, action.worktreePath, action.branch, action.newBranchAt);
  }

  let result: RewindResult | undefined;
  let undoPoint: UndoPoint | null = null;
  if (history !== undefined && rewindPlan?.messageId !== undefined && rewindPlan.paths.length > 0) {
    const fileHistory = await FileHistory.open({
      projectRoot: history.projectRoot,
      sessionId: source.sessionId,
      store: source.store,
      initialState: history.state,
      log: false,
    });
    try {
      // A recreated worktree holds only git's checkout; a live one may hold work worth an undo point.
      const undo = plan.kind === 'reuse' && source.kind === 'fs';
      ({ result, undoPoint } = await rewindInto(source, fileHistory, { ...rewindPlan, messageId: rewindPlan.messageId }, undo));
    } finally {
      await fileHistory.close();
    }
  }

  const prefix = rewindPlan === undefined || rewindPlan.worktreePrefix === '' ? '' : `${rewindPlan.worktreePrefix}/`;
  const inWorktree = (path: string): string => (prefix !== '' && path.startsWith(prefix) ? path.slice(prefix.length) : path);
  const failed = (result?.failed ?? []).map((failure) => ({ path: inWorktree(failure.path), error: failure.error.message }));
  const action = plan.kind === 'reuse' ? 'reused' : plan.kind === 'recreate' ? 'recreated' : 'recreated-from-commit';
  output.result(
    {
      sessionId: source.sessionId,
      source: source.kind,
      worktreePath: worktree.worktreePath,
      worktreeName: worktree.worktreeName,
      branch: worktree.worktreeBranch,
      originalCwd: worktree.originalCwd,
      action,
      commit: plan.kind === 'recreate-from-commit' ? plan.commit : null,
      pruned: plan.actions.some((step) => step.type === 'prune'),
      messageId: result === undefined ? null : result.messageId,
      restored: (result?.restored ?? []).map(inWorktree),
      deleted: (result?.deleted ?? []).map(inWorktree),
      skipped: (result?.skipped ?? []).map((skip) => ({ path: inWorktree(skip.path), reason: skip.reason })),
      failed,
      outside: rewindPlan?.outside ?? [],
      undoId: undoPoint?.undoId ?? null,
      cd: worktree.worktreePath,
    },
    [worktree.worktreePath],
  );
  const how =
    plan.kind === 'reuse'
      ? 'is there'
      : plan.kind === 'recreate'
        ? 'recreated'
        : `recreated from ${worktree.originalHeadCommit?.slice(0, 12)} (its branch was gone)`;
  output.note(`worktree ${worktree.worktreeName} ${how} at ${worktree.worktreePath} on branch ${worktree.worktreeBranch}`);
  if (result !== undefined) {
    output.note(`rewound to ${result.messageId}: ${result.restored.length} restored, ${result.deleted.length} deleted, ${failed.length} failed`);
    if (undoPoint !== null) output.note(`the files it overwrote are saved: fh undo --session ${source.sessionId} puts them back`);
  } else if (rewindPlan?.messageId === undefined && rewind) {
    output.note('the session has no snapshot to rewind the worktree to');
  }
  if (failed.length > 0) {
    throw new PartialFailureError(`the worktree is back, but ${failed.length} file${failed.length === 1 ? '' : 's'} could not be rewound`, failed);
  }
}

/**
 * The base folder a transcript record's relative tracking keys resolve against (issue 13). Claude
 * Code keys a tracked file relative to its "original cwd" when the file is inside it, else by its
 * absolute path; entering a worktree (the `EnterWorktree` tool, a `worktree-state` record naming
 * it) makes the worktree that folder, leaving it (`worktreeSession: null`) makes the folder the
 * session started in the base again. So a key is resolved against the base folder in effect when
 * its record was written, not against the session's first folder.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { WORKTREE_STATE_RECORD_TYPE } from '../session/worktree-state.js';

/** Options of {@link baseFolderTracker}. */
export interface BaseFolderTrackerOptions {
  /** The folder the session recorded as its first working folder (its first `cwd`). */
  recordedRoot: string;
  /**
   * The project root the session is opened for (`--project`); paths inside `recordedRoot` are
   * mapped into it, so a session opened for a copy of its project rewinds the copy. Default: `recordedRoot`.
   */
  projectRoot?: string;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `folder` is `root` or inside it (both absolute). */
function isInside(root: string, folder: string): boolean {
  const inside = relative(root, folder);
  return inside === '' || (inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside));
}

/**
 * A function for `RestoreStateOptions.baseFolder`: called with every record in file order, it
 * returns the absolute folder relative keys of that record resolve against.
 *
 * - It starts at `recordedRoot`.
 * - A `worktree-state` record with a `worktreeSession` whose `worktreePath` is absolute makes that
 *   worktree the base; one with `worktreeSession: null` makes `recordedRoot` the base again.
 * - A record whose `cwd` is a worktree path seen in an earlier `worktree-state` record, or
 *   `recordedRoot` itself, makes that folder the base (a session resumed inside or outside its
 *   worktree); other `cwd` values (the agent ran `cd`) leave it alone, since Claude Code keys by
 *   its original folder, not its shell's folder.
 *
 * Folders inside `recordedRoot` are mapped into `projectRoot`, except folders already inside
 * `projectRoot` (a worktree opened as the project itself). Pure apart from its own state.
 */
export function baseFolderTracker(options: BaseFolderTrackerOptions): (record: unknown) => string {
  const recordedRoot = resolve(options.recordedRoot);
  const projectRoot = resolve(options.projectRoot ?? options.recordedRoot);
  const mapped = (folder: string): string => {
    if (folder === recordedRoot) return projectRoot;
    // A folder already inside the opened project (its worktree opened as the project) is where it is.
    if (isInside(projectRoot, folder)) return folder;
    const inside = relative(recordedRoot, folder);
    if (inside !== '' && !inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside)) return resolve(projectRoot, inside);
    return folder;
  };
  const worktrees = new Set<string>();
  let base = projectRoot;
  return (record: unknown): string => {
    if (!isObject(record)) return base;
    if (record.type === WORKTREE_STATE_RECORD_TYPE) {
      const session = record.worktreeSession;
      if (session === null) {
        base = projectRoot;
      } else if (isObject(session) && typeof session.worktreePath === 'string' && isAbsolute(session.worktreePath)) {
        const worktree = resolve(session.worktreePath);
        worktrees.add(worktree);
        base = mapped(worktree);
      }
      return base;
    }
    const cwd = record.cwd;
    if (typeof cwd === 'string' && isAbsolute(cwd)) {
      const folder = resolve(cwd);
      if (folder === recordedRoot) base = projectRoot;
      else if (worktrees.has(folder)) base = mapped(folder);
    }
    return base;
  };
}

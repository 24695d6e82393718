/**
 * Is it safe to write into a folder of the project? A rewind never writes through a symbolic
 * link: a file whose parent folder (or any folder between it and the project root) is a symlink
 * is skipped, so nothing is ever written outside the project root (issue 2 rule 4). The project
 * root itself may be a symlink; it is the user's choice of root.
 */
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { errnoCode } from '../errors.js';
import type { FsStats, WorkspaceFs } from '../store.js';

/** What lies on the way from the project root to a folder. */
export type FolderState =
  /** Every folder exists and none is a symlink. */
  | { kind: 'ok' }
  /** Some folder (and so every folder below it) is missing; none above it is a symlink. */
  | { kind: 'missing' }
  /** `at` (an absolute path) is a symbolic link. */
  | { kind: 'symlink'; at: string }
  /** `at` exists but is not a folder. */
  | { kind: 'not-a-folder'; at: string }
  /** The folder is not inside the project root. */
  | { kind: 'outside'; at: string };

/**
 * A checker for folders inside `projectRoot`, caching each folder's state (one `lstat` per folder
 * per checker, shared by every file in it; a known answer is returned synchronously, and so is a
 * new one when `fs.lstatNow` stats synchronously). The root itself is `ok`; a folder outside the root is
 * reported as `outside`.
 */
export function createFolderChecker(
  fs: Pick<WorkspaceFs, 'lstat'> & { lstatNow?: (path: string) => FsStats | undefined },
  projectRoot: string,
): (folder: string) => FolderState | Promise<FolderState> {
  const pending = new Map<string, Promise<FolderState>>();
  const known = new Map<string, FolderState>();
  const check = (folder: string): FolderState | Promise<FolderState> => {
    const state = known.get(folder);
    if (state !== undefined) return state;
    const now = pending.has(folder) ? undefined : inspectNow(folder);
    if (now !== undefined) {
      known.set(folder, now);
      return now;
    }
    let inspecting = pending.get(folder);
    if (inspecting === undefined) {
      inspecting = inspect(folder).then((result) => {
        known.set(folder, result);
        return result;
      });
      pending.set(folder, inspecting);
    }
    return inspecting;
  };
  // The same answer as `inspect`, synchronously, where the file system stats synchronously
  // (`lstatNow`); undefined to leave the folder to `inspect` (no sync call, or an error to report).
  const inspectNow = (folder: string): FolderState | undefined => {
    if (fs.lstatNow === undefined) return undefined;
    const rest = relative(projectRoot, folder);
    if (rest === '') return { kind: 'ok' };
    if (rest === '..' || rest.startsWith(`..${sep}`) || isAbsolute(rest)) return { kind: 'outside', at: folder };
    const above = check(dirname(folder));
    if (above instanceof Promise) return undefined;
    if (above.kind !== 'ok') return above;
    let stats: FsStats | undefined;
    try {
      stats = fs.lstatNow(folder);
    } catch (error) {
      return errnoCode(error) === 'ENOENT' ? { kind: 'missing' } : undefined;
    }
    if (stats === undefined) return undefined;
    if (stats.isSymbolicLink()) return { kind: 'symlink', at: folder };
    if (!stats.isDirectory()) return { kind: 'not-a-folder', at: folder };
    return { kind: 'ok' };
  };
  const inspect = async (folder: string): Promise<FolderState> => {
    const rest = relative(projectRoot, folder);
    if (rest === '') return { kind: 'ok' };
    if (rest === '..' || rest.startsWith(`..${sep}`) || isAbsolute(rest)) return { kind: 'outside', at: folder };
    const above = await check(dirname(folder));
    if (above.kind !== 'ok') return above;
    try {
      const stats = await fs.lstat(folder);
      if (stats.isSymbolicLink()) return { kind: 'symlink', at: folder };
      if (!stats.isDirectory()) return { kind: 'not-a-folder', at: folder };
      return { kind: 'ok' };
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return { kind: 'missing' };
      throw error;
    }
  };
  return check;
}

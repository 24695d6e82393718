/**
 * Folders left empty by a rewind or an undo (issue 12): when the operation deletes files that were
 * created after the state it goes back to (by a command window or the agent), the folders on their
 * way that were created after that state too and are now empty are removed, deepest first. A
 * folder is "created after" when the file system's creation time (`birthtimeMs`, Linux statx) is
 * later than the state's time; a folder that existed before, one that still holds anything, and
 * any folder where the file system records no creation time are left as they are. An undo that
 * puts those files back recreates the folders as parents of the files it writes.
 */
import { splitTrackingPath, type ProjectWriter } from './project-writer.js';

/**
 * Remove the empty folders (tracking paths) above `deletedPaths` that were created after
 * `createdAfter` (see the top of this file). Returns the folders removed, deepest first. Never
 * throws for a folder it cannot remove (not empty, gone, a link on the way): it leaves it.
 */
export async function removeFoldersLeftEmpty(writer: ProjectWriter, deletedPaths: Iterable<string>, createdAfter: Date): Promise<string[]> {
  const since = createdAfter.getTime();
  const folders = new Set<string>();
  for (const path of deletedPaths) {
    for (let folder = splitTrackingPath(path).folder; folder !== '' && !folders.has(folder); folder = splitTrackingPath(folder).folder) folders.add(folder);
  }
  const depth = (path: string): number => path.split('/').length;
  const ordered = [...folders].sort((a, b) => depth(b) - depth(a) || (a < b ? -1 : a > b ? 1 : 0));
  const removed: string[] = [];
  for (const folder of ordered) {
    const { folder: parentPath, name } = splitTrackingPath(folder);
    try {
      const parent = await writer.folder(parentPath);
      const stats = await parent.lstat(name);
      if (stats === undefined || !stats.isDirectory() || !((stats.birthtimeMs ?? 0) > since)) continue;
      await parent.rmdir(name);
      removed.push(folder);
    } catch {
      // Not empty (ENOTEMPTY), gone, or a link or a file on the way: the folder stays.
    }
  }
  return removed;
}

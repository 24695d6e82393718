/**
 * The temp files a rewind or an undo writes next to a file before renaming them over it:
 * `.{name}.fh-{12 hex}.tmp`. A process killed between the copy and the rename leaves one behind;
 * the next rewind or undo that writes into that folder removes it.
 */
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { WorkspaceFs } from '../store.js';

/** Names of fh's temp files. */
const TEMPORARY_NAME = /^\..+\.fh-[0-9a-f]{12}\.tmp$/;

/**
 * A temp file left alone for this long (ms) belongs to nobody: a running copy keeps moving its
 * mtime, so a file this old is left over from a process that died.
 */
export const STALE_TEMPORARY_MS = 60_000;

/** A fresh temp name for a file named `name` (a single component), in the same folder. */
export function temporaryNameFor(name: string): string {
  return `.${name.slice(0, 100)}.fh-${randomBytes(6).toString('hex')}.tmp`;
}

/** Whether `name` is one of fh's project temp names (see {@link temporaryNameFor}). */
export function isTemporaryName(name: string): boolean {
  return TEMPORARY_NAME.test(name);
}

/** A fresh temp path next to `absolutePath`, in the same folder (so the rename stays on one file system). */
export function temporaryPathFor(absolutePath: string): string {
  return join(dirname(absolutePath), temporaryNameFor(basename(absolutePath)));
}

/**
 * Remove fh temp files (see {@link temporaryPathFor}) from each of `folders` whose mtime is older
 * than {@link STALE_TEMPORARY_MS} before `now` (ms since the epoch). Only regular files with
 * fh's temp name are touched; a folder that cannot be listed, or a file that cannot be removed, is
 * left as it is (this is tidying, never a reason to fail). Returns the paths removed.
 */
export async function removeStaleTemporaryFiles(fs: WorkspaceFs, folders: Iterable<string>, now: number): Promise<string[]> {
  const removed = await Promise.all([...new Set(folders)].map((folder) => removeFromFolder(fs, folder, now)));
  return removed.flat();
}

async function removeFromFolder(fs: WorkspaceFs, folder: string, now: number): Promise<string[]> {
  let names: string[];
  try {
    names = (await fs.readdir(folder)).map(String);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!TEMPORARY_NAME.test(name)) continue;
    const path = join(folder, name);
    try {
      const stats = await fs.lstat(path);
      if (!stats.isFile() || now - Number(stats.mtimeMs) < STALE_TEMPORARY_MS) continue;
      await fs.unlink(path);
      removed.push(path);
    } catch {
      // Gone already, or not ours to remove: tidying never fails a rewind.
    }
  }
  return removed;
}

/**
 * What the command window remembers about one path: the fields of `lstat` that change whenever the
 * file's bytes, mode or identity do (size, mode, mtime, ctime, inode). Two equal facts mean the
 * file was not touched in between: ctime cannot be set back by a user, and a rename or a new file
 * gets another inode (issue 12 "Pre-images without copying the tree").
 */
import type { FsStats } from '../store.js';

/** One path's `lstat`, reduced to what change detection needs. Times in ms since the epoch. */
export interface EntryFacts {
  /**
   * What is at the path (symbolic links are not followed); `missing`: nothing (a file git tracks
   * that was deleted from the work tree before the command), all numbers 0.
   */
  type: 'file' | 'symlink' | 'folder' | 'other' | 'missing';
  /** Size in bytes (of the link itself for a symlink). */
  size: number;
  /** `st_mode`: file type and permission bits. */
  mode: number;
  /** Last content change, ms since the epoch. */
  mtimeMs: number;
  /** Last status change, ms since the epoch. */
  ctimeMs: number;
  /** Inode number (as a JS number; inodes above 2^53 lose precision, which only costs a copy). */
  ino: number;
}

/** The facts of `stats` (from `lstat`). */
export function factsOf(stats: FsStats): EntryFacts {
  const type = stats.isSymbolicLink() ? 'symlink' : stats.isFile() ? 'file' : stats.isDirectory() ? 'folder' : 'other';
  return { type, size: stats.size, mode: stats.mode, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: Number(stats.ino) };
}

/** The facts of a path where nothing is. */
export const MISSING_FACTS: EntryFacts = Object.freeze({ type: 'missing', size: 0, mode: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 });

/** True when both describe the same, untouched file (every field equal). */
export function sameFacts(a: EntryFacts, b: EntryFacts): boolean {
  return a.type === b.type && a.size === b.size && a.mode === b.mode && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/** Permission bits of a mode (`mode & 0o7777`), as backups record them. */
export function permissionBits(mode: number): number {
  return mode & 0o7777;
}

import type * as fsPromises from 'node:fs/promises';

/** The `node:fs/promises` API the fs store works through (and uses as the workspace file system). */
export type FsBackupStoreFileSystem = typeof fsPromises;

/** Options of `FsBackupStore`. */
export interface FsBackupStoreOptions {
  /**
   * The store folder, for example `~/.fh` (no `~` expansion: pass an expanded path). Required.
   * A relative path is resolved against the current folder once, at construction. Created on
   * first write.
   */
  root: string;
  /**
   * Milliseconds after which a session lock that its holder stopped refreshing (the process
   * died) counts as stale and may be taken over. Minimum 2000. Default: `10_000`.
   */
  lockStaleMs?: number;
  /**
   * The file system to work through. Default: `node:fs/promises`. Tests pass a wrapper that
   * injects faults (`EXDEV` from `link`, ...).
   */
  fileSystem?: FsBackupStoreFileSystem;
}

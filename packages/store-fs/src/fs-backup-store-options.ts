import type * as nodeFs from 'node:fs';
import type * as fsPromises from 'node:fs/promises';

/**
 * The synchronous metadata calls of `node:fs` the fs store makes directly: each is one system call
 * that takes microseconds on a local disk, while its `fs/promises` twin pays a thread-pool round
 * trip (40–60 µs) and a promise. File data (copies, reads, writes, fsync) always goes through the
 * async API.
 */
export type FsMetadataSync = Pick<typeof nodeFs, 'statSync' | 'lstatSync' | 'linkSync' | 'unlinkSync' | 'renameSync'> & {
  /** `realpath(3)` of a path (node's `realpathSync.native`); `trackEdit` resolves symlinks with it. */
  realpathSync(path: string): string;
};

/**
 * The file system the fs store works through (and offers as the workspace file system): the
 * `node:fs/promises` API plus the synchronous metadata calls of {@link FsMetadataSync}.
 */
export type FsBackupStoreFileSystem = typeof fsPromises & FsMetadataSync & {
  /** Optional `readFileSync`: small fresh backups are hashed with one synchronous read. */
  readFileSync?: (path: string) => Uint8Array;
} & Partial<FsReadSync>;

/**
 * The synchronous calls `FsBackupStore.readBackupSync` reads a small backup with (one open never
 * following a link, fstat, reads, close); without all four it returns undefined and callers
 * stream the backup instead.
 */
export type FsReadSync = Pick<typeof nodeFs, 'openSync' | 'fstatSync' | 'readSync' | 'closeSync'>;

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
   * The file system to work through. Default: `node:fs/promises` with `statSync`, `lstatSync`,
   * `linkSync`, `unlinkSync`, `renameSync` and `realpathSync.native` of `node:fs`. Tests pass a wrapper that injects
   * faults (`EXDEV` from `linkSync`, ...).
   */
  fileSystem?: FsBackupStoreFileSystem;
}

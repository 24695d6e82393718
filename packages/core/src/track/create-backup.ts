/**
 * Making one backup (seed 000 §5, seed 004 §5): copy a workspace file into the store under
 * `{sha256(path)[:16]}@v{version}` and describe it as a {@link FileHistoryBackup}.
 *
 * Two calls that want the same backup object at once (two `trackEdit`s of one file racing, seed
 * 000 §5) share one `putBackup`, so there is exactly one object and no orphan. A name already
 * taken in the store by an object no state refers to (left by a crash between the copy and the
 * log append) is skipped by moving to the next version.
 */
import { errnoCode, FhError, InvalidArgumentError } from '../errors.js';
import type { FileHistoryContext } from '../file-history-context.js';
import { createMetadataReader } from '../metadata.js';
import { backupFileName } from '../paths.js';
import type { BackupInfo, BackupStore } from '../store.js';
import type { FileHistoryBackup } from '../types.js';
import type { PreparedEdit } from './prepare-edit.js';

/** Versions tried past a taken name before giving up with the store's `ConflictError`. */
const MAX_TAKEN_NAMES_SKIPPED = 16;

interface InFlightPut {
  /** When the first caller started the copy: the earliest moment its bytes may come from. */
  startedAt: Date;
  result: Promise<BackupInfo>;
}

/** Copies running now, per store, keyed `{sessionId}\0{backupFileName}`. */
const inFlightPuts = new WeakMap<BackupStore, Map<string, InFlightPut>>();

/**
 * Back up the workspace file at `absolutePath` as version `version` (or the next free version).
 * Returns the entry: with `backupFileName`, `size` and `mode` when the file exists, with
 * `backupFileName: null` when neither the store nor the workspace file system finds anything at
 * the path. `backupTime` is taken before the copy starts, so a
 * write racing the copy is never mistaken for an older one (see change detection).
 * Throws what `putBackup` throws otherwise (`InvalidArgumentError` for a directory, permission
 * and availability errors), and `InvalidArgumentError` for a symlink leading nowhere or a file
 * only the workspace file system sees.
 */
export async function createBackup(context: FileHistoryContext, absolutePath: string, version: number): Promise<FileHistoryBackup> {
  for (let skipped = 0; ; skipped += 1) {
    const name = backupFileName(absolutePath, version + skipped);
    const put = sharedPut(context, name, absolutePath);
    try {
      const info = await put.result;
      return { backupFileName: name, version: version + skipped, backupTime: put.startedAt, size: info.size, mode: info.mode, ...(info.sha256 === undefined ? {} : { sha256: info.sha256 }) };
    } catch (error) {
      if (FhError.hasCode(error, 'FH_NOT_FOUND')) {
        await assertAbsent(context, absolutePath, error);
        return { backupFileName: null, version: version + skipped, backupTime: put.startedAt };
      }
      if (!FhError.hasCode(error, 'FH_CONFLICT') || skipped >= MAX_TAKEN_NAMES_SKIPPED) throw error;
    }
  }
}

/**
 * Give the bytes `prepared` copied of `absolutePath` (`prepareTrackEdit`) the backup name of
 * `version`, or of the next free version when a name is taken (as {@link createBackup}); the
 * entry's `backupTime` is when that copy started. Throws the store's errors.
 */
export async function commitPrepared(prepared: PreparedEdit, absolutePath: string, version: number): Promise<FileHistoryBackup> {
  const { info } = prepared.backup;
  for (let skipped = 0; ; skipped += 1) {
    const name = backupFileName(absolutePath, version + skipped);
    try {
      await prepared.backup.commit(name);
      return { backupFileName: name, version: version + skipped, backupTime: prepared.startedAt, size: info.size, mode: info.mode, ...(info.sha256 === undefined ? {} : { sha256: info.sha256 }) };
    } catch (error) {
      if (!FhError.hasCode(error, 'FH_CONFLICT') || skipped >= MAX_TAKEN_NAMES_SKIPPED) throw error;
    }
  }
}

/**
 * The store found no file at `absolutePath`; check that the workspace agrees before recording
 * "did not exist" (which makes a rewind delete the file). Throws `InvalidArgumentError` when
 * something is there after all: a symlink leading nowhere (nothing to back up, and it must not be
 * deleted), or a file the store cannot see (the history's `fs` is not the file system the store
 * reads its sources from).
 */
async function assertAbsent(context: FileHistoryContext, absolutePath: string, notFound: unknown): Promise<void> {
  let stats;
  try {
    stats = await createMetadataReader(context.fs).lstat(absolutePath);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw error;
  }
  if (stats.isSymbolicLink()) {
    throw new InvalidArgumentError(`${absolutePath} is a symbolic link that leads nowhere (its target does not exist), so it has no content to back up`, { cause: notFound });
  }
  throw new InvalidArgumentError(
    `${absolutePath} exists in the workspace file system but the store cannot read it: the history's fs must be the file system the store reads (store.workspaceFs)`,
    { cause: notFound },
  );
}

function sharedPut(context: FileHistoryContext, name: string, absolutePath: string): InFlightPut {
  let puts = inFlightPuts.get(context.store);
  if (puts === undefined) {
    puts = new Map();
    inFlightPuts.set(context.store, puts);
  }
  const key = `${context.sessionId}\0${name}`;
  const running = puts.get(key);
  if (running !== undefined) return running;
  const startedAt = new Date();
  const table = puts;
  const result = context.store.putBackup(context.sessionId, name, absolutePath).finally(() => table.delete(key));
  const put = { startedAt, result };
  table.set(key, put);
  return put;
}

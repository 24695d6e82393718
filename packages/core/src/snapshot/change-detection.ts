/**
 * Has a workspace file changed since a backup of it? (seed 004 §4, made safe — issue 2 rule 3)
 *
 * In order: a different size → changed; different permission bits → changed; both `ctime` and
 * `mtime` older than the backup time minus the timestamp granularity → unchanged; otherwise the
 * bytes are compared by streaming both sides (or, when the store records a sha256, by hashing the
 * workspace file). `ctime` cannot be set back by users, so a same-size write whose mtime was
 * restored (`cp -p`, `touch -r`, tar) is still caught; a write in the same clock tick as the backup
 * falls inside the granularity margin and gets a byte comparison. Bytes are never decoded, so two
 * different invalid-UTF-8 files never compare equal, and no file is read whole into memory.
 */
import { createHash } from 'node:crypto';
import { errnoCode, FhError } from '../errors.js';
import type { FileHistoryContext } from '../file-history-context.js';
import type { BackupInfo, FsStats, WorkspaceFs } from '../store.js';
import type { FileHistoryBackup } from '../types.js';

/** Bytes read from the workspace per step when hashing. */
const HASH_CHUNK_BYTES = 1024 * 1024;

/** Why a file counts as changed. */
export type ChangeReason = 'size' | 'mode' | 'content' | 'backup-missing';

/** Outcome of {@link checkFileChanged}. */
export type ChangeCheck =
  | { changed: true; reason: ChangeReason }
  /** Unchanged, proven by timestamps alone (no bytes read). */
  | { changed: false; by: 'timestamps' }
  /**
   * Unchanged, proven by comparing bytes that were read after `verifiedAt`: the file equalled the
   * backup at that moment, so `verifiedAt` can serve as a new backup time (git's racy-clean idea).
   */
  | { changed: false; by: 'content'; verifiedAt: Date };

/** A backup entry that names a backup object. */
export type StoredBackup = FileHistoryBackup & { backupFileName: string };

/**
 * Decide whether the regular file at `absolutePath`, whose current `stats` the caller took (after
 * following symlinks), still has the bytes and permission bits of `backup`. `info` is the store's
 * `statBackup` result when the caller already has it; it is fetched only when the entry lacks
 * `size`/`mode` (Claude Code data) or the store offers checksums. A backup the store no longer has
 * gives `{ changed: true, reason: 'backup-missing' }`; other store and fs errors are thrown.
 */
export async function checkFileChanged(
  context: FileHistoryContext,
  absolutePath: string,
  stats: FsStats,
  backup: StoredBackup,
  info?: BackupInfo | null,
): Promise<ChangeCheck> {
  let backupInfo = info;
  if (backup.size === undefined || backup.mode === undefined) {
    backupInfo ??= await context.store.statBackup(context.sessionId, backup.backupFileName);
    if (backupInfo === null) return { changed: true, reason: 'backup-missing' };
  }
  const size = backup.size ?? (backupInfo as BackupInfo).size;
  const mode = backup.mode ?? (backupInfo as BackupInfo).mode;
  const quick = compareMetadata(stats, size, mode, backupTimeMs(backup), context.timestampGranularityMs);
  if (quick !== undefined) return quick;

  const verifiedAt = new Date();
  if (context.store.capabilities.sha256) {
    backupInfo ??= await context.store.statBackup(context.sessionId, backup.backupFileName);
    if (backupInfo === null) return { changed: true, reason: 'backup-missing' };
    if (backupInfo.sha256 !== undefined) {
      const digest = await hashWorkspaceFile(context.fs, absolutePath);
      return digest === backupInfo.sha256.toLowerCase() ? { changed: false, by: 'content', verifiedAt } : { changed: true, reason: 'content' };
    }
  }
  try {
    const equal = await workspaceFileEquals(context.fs, absolutePath, () =>
      context.store.openBackup(context.sessionId, backup.backupFileName),
    );
    return equal ? { changed: false, by: 'content', verifiedAt } : { changed: true, reason: 'content' };
  } catch (error) {
    if (FhError.hasCode(error, 'FH_NOT_FOUND')) return { changed: true, reason: 'backup-missing' };
    throw error;
  }
}

/**
 * The checks that need no bytes, in order: size, permission bits, then timestamps against the
 * backup time (`backupTimeMs`) minus `granularityMs`. Returns the answer, or undefined when only a
 * byte comparison can tell.
 */
export function compareMetadata(stats: FsStats, size: number, mode: number, backupTimeMs: number, granularityMs: number): ChangeCheck | undefined {
  if (Number(stats.size) !== size) return CHANGED_SIZE;
  if ((Number(stats.mode) & 0o7777) !== (mode & 0o7777)) return CHANGED_MODE;
  if (Math.max(Number(stats.ctimeMs), Number(stats.mtimeMs)) < backupTimeMs - granularityMs) return UNCHANGED_BY_TIMESTAMPS;
  return undefined;
}

// One frozen answer each, shared: a snapshot compares every tracked file, so no object per file.
const CHANGED_SIZE: ChangeCheck = Object.freeze({ changed: true, reason: 'size' });
const CHANGED_MODE: ChangeCheck = Object.freeze({ changed: true, reason: 'mode' });
const UNCHANGED_BY_TIMESTAMPS: ChangeCheck = Object.freeze({ changed: false, by: 'timestamps' });

/** The backup time of an entry in ms since the epoch (accepts a Date or an ISO string); NaN if unreadable. */
export function backupTimeMs(backup: FileHistoryBackup): number {
  const value: unknown = backup.backupTime;
  if (value instanceof Date) return value.getTime();
  return typeof value === 'string' || typeof value === 'number' ? new Date(value).getTime() : Number.NaN;
}

/**
 * True when the workspace file at `absolutePath` holds exactly the bytes of the stream
 * `openChunks` opens, compared chunk by chunk (memory stays at one chunk). The workspace file is
 * opened first, so the stream is only opened when it will be read; both are closed at the first
 * difference. A file that vanished meanwhile compares unequal. Errors of `openChunks` propagate.
 */
export async function workspaceFileEquals(
  fs: WorkspaceFs,
  absolutePath: string,
  openChunks: () => Promise<AsyncIterable<Uint8Array>>,
): Promise<boolean> {
  let handle;
  try {
    handle = await fs.open(absolutePath, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  }
  try {
    const chunks = await openChunks();
    let buffer = Buffer.allocUnsafe(64 * 1024);
    let position = 0;
    for await (const chunk of chunks) {
      if (chunk.length === 0) continue;
      if (buffer.length < chunk.length) buffer = Buffer.allocUnsafe(chunk.length);
      const bytesRead = await readFully(handle, buffer, chunk.length, position);
      if (bytesRead !== chunk.length) return false;
      if (Buffer.compare(buffer.subarray(0, bytesRead), chunk) !== 0) return false;
      position += bytesRead;
    }
    const { bytesRead } = await handle.read(buffer, 0, 1, position);
    return bytesRead === 0;
  } finally {
    await handle.close();
  }
}

/**
 * Lower-case hex sha256 of a workspace file, read in 1 MiB steps (or one step of `expectedSize`
 * bytes plus one, when the caller knows about how big the file is, so small files allocate little).
 */
export async function hashWorkspaceFile(fs: WorkspaceFs, absolutePath: string, expectedSize?: number): Promise<string> {
  const handle = await fs.open(absolutePath, 'r');
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(expectedSize === undefined ? HASH_CHUNK_BYTES : Math.min(HASH_CHUNK_BYTES, expectedSize + 1));
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

async function readFully(
  handle: { read(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<{ bytesRead: number }> },
  buffer: Uint8Array,
  length: number,
  position: number,
): Promise<number> {
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/**
 * Undo of a rewind (issue 4, "Safer than the seed"). Before a rewind writes anything, every file
 * it will touch is saved as it is — bytes and mode of a regular file, the target of a symlink, the
 * fact that a folder was there, or the fact that nothing was there — into an undo point: backups
 * in the undo store plus one `fh-undo-point` record in its session log (see `undo-records.ts`).
 * `undoRewind` puts those files back exactly. The newest {@link DEFAULT_UNDO_LIMIT} points are kept; older ones are
 * evicted with their backups.
 *
 * An undo saves the files it is about to overwrite as a new point first (operation `undo`), so
 * undoing twice redoes, and edits made after the rewind are never lost to an undo either.
 */
import { createHash, randomUUID } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { BackupMissingError, CorruptError, errnoCode, FhError, NotFoundError, UnsupportedError } from '../errors.js';
import { openProjectWriter, splitTrackingPath, symlinkTargetInside, type ProjectFolder, type ProjectWriter } from '../rewind/project-writer.js';
import { removeLeftoverTemporaryFiles } from '../rewind/rewind.js';
import { restoredMode } from '../rewind/restored-mode.js';
import { toAbsolutePath } from '../paths.js';
import type { RecordWarningHandler } from '../state/records.js';
import type { BackupInfo, BackupStore, FsStats, SessionLog, WorkspaceFs } from '../store.js';
import {
  liveUndoPoints,
  UNDO_POINT_RECORD_TYPE,
  undoPointRecord,
  undoPointRemovedRecord,
  type UndoEntry,
  type UndoPoint,
} from './undo-records.js';

/** Undo points kept per session. */
export const DEFAULT_UNDO_LIMIT = 10;

/** Where undo points live: backups in `store` under `sessionId`, records in `log`. */
export interface UndoStore {
  store: BackupStore;
  sessionId: string;
  /** Default `store.sessionLog(sessionId)`. */
  log?: SessionLog;
}

/**
 * The workspace an undo point covers: a `FileHistory` fits. `fs` may offer `readlink`/`symlink`
 * (real `fs/promises` and memfs do); without them a symlink cannot be saved and the operation is
 * refused with `UnsupportedError`.
 */
export interface UndoWorkspace {
  projectRoot: string;
  fs: WorkspaceFs;
}

/** Options shared by the undo functions. */
export interface UndoOptions {
  /** Points kept; the oldest beyond it are evicted. Default {@link DEFAULT_UNDO_LIMIT}. */
  limit?: number;
  /** File operations at once. Default 16. */
  concurrency?: number;
  /** Makes undo ids; default `crypto.randomUUID`. */
  generateId?: () => string;
  /** Clock for record times. Default `() => new Date()`. */
  now?: () => Date;
  /** Receives warnings about malformed undo records. */
  onWarning?: RecordWarningHandler;
  /**
   * After saving a point, delete the undo session's `…@undo-…` backups no live point refers to
   * (left by a process killed while saving). Only safe while this process holds the undo
   * session's lock, so no other process is saving a point there. Default false.
   */
  deleteOrphans?: boolean;
  /**
   * The caller holds the session's lock: every fh temp file in a folder the undo writes is a
   * leftover of a killed process and is removed first (default false: only those older than 60 s).
   */
  sessionLocked?: boolean;
}

/** What {@link captureUndoPoint} saves. */
export interface CaptureUndoPointInput {
  /** Tracking paths of the files about to be changed. */
  paths: readonly string[];
  operation: UndoPoint['operation'];
  messageId: string | null;
  /** Undo points never evicted by this capture (the one an undo is about to apply). */
  protect?: readonly string[];
}

/** Outcome of {@link undoRewind}, file by file (like a `RewindResult`). */
export interface UndoResult {
  /** The point that was applied. */
  undoId: string;
  /** The point saved just before (undo it to redo); `null` when nothing needed saving. */
  redoUndoId: string | null;
  /** Tracking paths written back (a file's bytes and mode, a symlink, or a folder). */
  restored: string[];
  /** Tracking paths removed because nothing was there at the undo point. */
  deleted: string[];
  /** Tracking paths left alone on purpose, with why; a saved file or link among them keeps the point live. */
  skipped: Array<{ path: string; reason: string }>;
  /** Tracking paths that could not be put back, with the error; the point then stays live. */
  failed: Array<{ path: string; error: Error }>;
}

type LinkFs = WorkspaceFs & {
  readlink?: (path: string) => Promise<string>;
  symlink?: (target: string, path: string) => Promise<void>;
};

function logOf(undo: UndoStore): SessionLog {
  return undo.log ?? undo.store.sessionLog(undo.sessionId);
}

/** Backup name of one file in one undo point: `{sha256(absolutePath)[:16]}@undo-{12 hex of the id}`. */
export function undoBackupFileName(absolutePath: string, undoId: string): string {
  const hash = createHash('sha256').update(absolutePath).digest('hex').slice(0, 16);
  const suffix = createHash('sha256').update(undoId).digest('hex').slice(0, 12);
  return `${hash}@undo-${suffix}`;
}

/** The live undo points of the undo store, oldest first (see `liveUndoPoints`). */
export async function listUndoPoints(undo: UndoStore, options: Pick<UndoOptions, 'onWarning'> = {}): Promise<UndoPoint[]> {
  const { records } = await logOf(undo).read();
  return liveUndoPoints(records, options.onWarning);
}

async function lstatOrUndefined(fs: WorkspaceFs, path: string): Promise<FsStats | undefined> {
  try {
    return await fs.lstat(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Save `input.paths` as they are now into a new undo point, record it, and evict the oldest
 * points beyond the limit (deleting their backups). A folder at a path is saved as a `folder`
 * entry, without its contents (a rewind replaces a folder by a file only when it is empty).
 * Throws — after deleting the backups it made, recording nothing — if a file cannot be saved;
 * `UnsupportedError` when a symlink must be saved and `fs` has no `readlink`, when the store
 * refuses backups (a read-only Claude Code session), or when its log drops `fh-undo-point`
 * records (a Claude Code transcript): give an fh store as the undo store.
 */
export async function captureUndoPoint(
  workspace: UndoWorkspace,
  undo: UndoStore,
  input: CaptureUndoPointInput,
  options: UndoOptions = {},
): Promise<UndoPoint> {
  const fs = workspace.fs as LinkFs;
  const undoId = (options.generateId ?? randomUUID)();
  const limit = pLimit(options.concurrency ?? 16);
  const made: string[] = [];
  let appending = false;
  const paths = [...new Set(input.paths)].sort();
  try {
    const settled = await Promise.allSettled(
      paths.map((path) =>
        limit(async (): Promise<UndoEntry> => {
          const absolutePath = toAbsolutePath(workspace.projectRoot, path);
          const stats = await lstatOrUndefined(fs, absolutePath);
          if (stats === undefined) return { path, kind: 'missing', backupFileName: null, mode: null };
          if (stats.isDirectory()) return { path, kind: 'folder', backupFileName: null, mode: null };
          if (stats.isSymbolicLink()) {
            if (typeof fs.readlink !== 'function') {
              throw new UnsupportedError(`saving the symbolic link ${path} for undo needs a workspace fs with readlink`);
            }
            return { path, kind: 'symlink', backupFileName: null, mode: null, symlinkTarget: await fs.readlink(absolutePath) };
          }
          const backupFileName = undoBackupFileName(absolutePath, undoId);
          const info = await putUndoBackup(undo, backupFileName, absolutePath);
          made.push(backupFileName);
          return { path, kind: 'file', backupFileName, mode: info.mode & 0o7777, size: info.size };
        }),
      ),
    );
    const failure = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
    const entries = settled.map((outcome) => (outcome as PromiseFulfilledResult<UndoEntry>).value);
    const point: UndoPoint = {
      undoId,
      sessionId: undo.sessionId,
      createdAt: (options.now ?? (() => new Date()))(),
      operation: input.operation,
      messageId: input.messageId,
      entries,
    };
    appending = true;
    await logOf(undo).append([undoPointRecord(point)]);
    const points = await listUndoPoints(undo, options);
    if (!points.some((candidate) => candidate.undoId === undoId)) {
      throw new UnsupportedError(
        `the log of session ${undo.sessionId} in the ${undo.store.kind} store does not keep ${UNDO_POINT_RECORD_TYPE} records; give an fh store as the undo store, or turn undo off`,
      );
    }
    const evicted = await evictUndoPoints(undo, { ...options, protect: [...(input.protect ?? []), undoId] }, points);
    if (options.deleteOrphans === true) await deleteOrphanUndoBackups(undo, points.filter((candidate) => !evicted.includes(candidate.undoId)));
    return point;
  } catch (error) {
    // Once the point's record may be in the log (an append that failed in its fsync may still have
    // written it), its backups stay unless a cancel record lands first: a record must never name
    // deleted backups. Unreferenced leftovers are removed by a later save (`deleteOrphans`).
    const cancelled = !appending || (await logOf(undo).append([undoPointRemovedRecord(undoId, 'cancelled', (options.now ?? (() => new Date()))())]).then(() => true, () => false));
    if (cancelled) await Promise.all(made.map((name) => undo.store.deleteBackup(undo.sessionId, name).catch(() => undefined)));
    throw error;
  }
}

/** `putBackup`, with a store's refusal (a read-only Claude Code session) explained. */
async function putUndoBackup(undo: UndoStore, backupFileName: string, absolutePath: string): Promise<BackupInfo> {
  try {
    return await undo.store.putBackup(undo.sessionId, backupFileName, absolutePath);
  } catch (error) {
    if (!FhError.hasCode(error, 'FH_UNSUPPORTED')) throw error;
    throw new UnsupportedError(
      `cannot save files for undo in session ${undo.sessionId} of the ${undo.store.kind} store (${error.message}); give an fh store as the undo store, or turn undo off`,
      { cause: error },
    );
  }
}

/**
 * Evict the oldest live points beyond `options.limit` (default 10), except `options.protect`:
 * delete their backups, then record each as evicted. `livePoints` saves reading the log again
 * when the caller just read it. Returns the evicted ids.
 */
export async function evictUndoPoints(
  undo: UndoStore,
  options: UndoOptions & { protect?: readonly string[] } = {},
  livePoints?: readonly UndoPoint[],
): Promise<string[]> {
  const limit = options.limit ?? DEFAULT_UNDO_LIMIT;
  const points = livePoints ?? (await listUndoPoints(undo, options));
  const protect = new Set(options.protect ?? []);
  const excess = points.length - limit;
  if (excess <= 0) return [];
  const evicted = points.filter((point) => !protect.has(point.undoId)).slice(0, excess);
  for (const point of evicted) await deletePointBackups(undo, point);
  const now = (options.now ?? (() => new Date()))();
  if (evicted.length > 0) await logOf(undo).append(evicted.map((point) => undoPointRemovedRecord(point.undoId, 'evicted', now)));
  return evicted.map((point) => point.undoId);
}

/**
 * Delete the session's undo backups (`…@undo-…`) that no live point refers to: left by a process
 * killed while it saved an undo point, before the point was recorded (see
 * `UndoOptions.deleteOrphans`). Tidying only: a failed listing or delete is ignored (the backups
 * stay, and the next save tries again).
 */
async function deleteOrphanUndoBackups(undo: UndoStore, livePoints: readonly UndoPoint[]): Promise<void> {
  const referenced = new Set(livePoints.flatMap((point) => point.entries.map((entry) => entry.backupFileName)));
  let names: string[];
  try {
    names = await undo.store.listBackups(undo.sessionId);
  } catch {
    return;
  }
  const orphans = names.filter((name) => name.includes('@undo-') && !referenced.has(name));
  await Promise.all(orphans.map((name) => undo.store.deleteBackup(undo.sessionId, name).catch(() => undefined)));
}

/**
 * Check an undo point's record before acting on it (issue 10): it must belong to the undo
 * session, each `file` entry must name an undo backup (`…@undo-…`, never a checkpoint backup,
 * which an undo would then delete), and each `symlink` entry must lead inside the project.
 * Throws `CorruptError` naming every bad entry; nothing is changed.
 */
export function checkUndoPoint(workspace: UndoWorkspace, undo: UndoStore, point: UndoPoint): void {
  const problems: string[] = [];
  if (point.sessionId !== undo.sessionId) problems.push(`it names session ${point.sessionId}, not ${undo.sessionId}`);
  for (const entry of point.entries) {
    if (entry.kind === 'file' && (entry.backupFileName === null || !isUndoBackupName(entry.backupFileName))) {
      problems.push(`${entry.path} names ${String(entry.backupFileName)}, which is not an undo backup`);
    }
    if (entry.kind === 'symlink' && !symlinkTargetInside(workspace.projectRoot, entry.path, entry.symlinkTarget ?? '')) {
      problems.push(`${entry.path} would be a link to ${JSON.stringify(entry.symlinkTarget)}, outside the project`);
    }
  }
  if (problems.length === 0) return;
  throw new CorruptError(`undo refused, nothing was changed: the record of undo point ${point.undoId} cannot be trusted: ${problems.join('; ')}`);
}

/** Whether a backup name is an undo backup's (`{16 hex}@undo-{12 hex}`). */
export function isUndoBackupName(name: string): boolean {
  return /^[0-9a-f]{16}@undo-[0-9a-f]{12}$/.test(name);
}

/** Delete a point's backups: only undo backups of the undo session (a crafted record names others). */
async function deletePointBackups(undo: UndoStore, point: UndoPoint): Promise<void> {
  if (point.sessionId !== undo.sessionId) return;
  for (const entry of point.entries) {
    if (entry.backupFileName !== null && isUndoBackupName(entry.backupFileName)) await undo.store.deleteBackup(point.sessionId, entry.backupFileName);
  }
}

/** Check every backup of `point` exists with its recorded size; throw BackupMissingError otherwise. */
async function validatePoint(workspace: UndoWorkspace, undo: UndoStore, point: UndoPoint): Promise<void> {
  checkUndoPoint(workspace, undo, point);
  const missing: Array<{ path: string; backupFileName: string; reason: string }> = [];
  for (const entry of point.entries) {
    if (entry.backupFileName === null) continue;
    const info = await undo.store.statBackup(point.sessionId, entry.backupFileName);
    if (info === null) missing.push({ path: entry.path, backupFileName: entry.backupFileName, reason: 'the backup does not exist in the store' });
    else if (entry.size !== undefined && info.size !== entry.size) {
      missing.push({ path: entry.path, backupFileName: entry.backupFileName, reason: `the backup has ${info.size} bytes, the undo point recorded ${entry.size}` });
    }
  }
  if (missing.length === 0) return;
  const list = missing.map((entry) => `${entry.path} (${entry.backupFileName}: ${entry.reason})`).join('; ');
  const count = missing.length === 1 ? '1 backup' : `${missing.length} backups`;
  throw new BackupMissingError(`undo refused, nothing was changed: ${count} of undo point ${point.undoId} missing or damaged: ${list}`, missing);
}

type EntryOutcome = 'restored' | 'deleted' | 'none' | { skipped: string };

/**
 * The folder an entry's file lives in, opened for writing (see `project-writer.ts`), or why the
 * entry is skipped: a link or a non-folder on the way (an entry path climbing out of the project
 * is refused the same way). `undefined` folder: it does not exist yet.
 */
async function entryFolder(writer: ProjectWriter, entry: UndoEntry): Promise<{ folder: ProjectFolder | undefined } | { skipped: string }> {
  const { folder } = splitTrackingPath(entry.path);
  try {
    return { folder: await writer.folder(folder) };
  } catch (error) {
    if (FhError.hasCode(error, 'FH_NOT_FOUND')) return { folder: undefined };
    if (FhError.hasCode(error, 'FH_OUTSIDE_ROOT') || FhError.hasCode(error, 'FH_CONFLICT')) return { skipped: error.message };
    throw error;
  }
}

async function applyEntry(
  workspace: UndoWorkspace,
  undo: UndoStore,
  point: UndoPoint,
  entry: UndoEntry,
  writer: ProjectWriter,
): Promise<EntryOutcome> {
  const { name } = splitTrackingPath(entry.path);
  const opened = await entryFolder(writer, entry);
  if ('skipped' in opened) return opened;
  const current = opened.folder === undefined ? undefined : await opened.folder.lstat(name);

  if (entry.kind === 'folder') {
    if (current?.isDirectory()) return 'none';
    const folder = opened.folder ?? (await writer.folder(splitTrackingPath(entry.path).folder, { create: true }));
    // A file or link here was saved in the redo point just made, so removing it loses nothing.
    if (current !== undefined) await folder.unlink(name);
    await folder.mkdir(name);
    return 'restored';
  }
  if (entry.kind === 'missing') {
    if (current === undefined || opened.folder === undefined) return 'none';
    if (current.isDirectory()) return { skipped: 'a folder is at this path' };
    await opened.folder.unlink(name);
    return 'deleted';
  }
  const folder = opened.folder ?? (await writer.folder(splitTrackingPath(entry.path).folder, { create: true }));
  if (current?.isDirectory()) {
    try {
      await folder.rmdir(name);
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOTEMPTY' || code === 'EEXIST') {
        throw new FhError(`${entry.path}: a folder that is not empty is at this path; move its files away and undo again`, { cause: error });
      }
      if (code !== 'ENOENT') throw error;
    }
  }
  if (entry.kind === 'symlink') {
    await folder.replaceWithSymlink(name, entry.symlinkTarget as string);
  } else {
    const stored = await undo.store.statBackup(point.sessionId, entry.backupFileName as string);
    await folder.replaceFile(
      name,
      (destination) => undo.store.restoreBackup(point.sessionId, entry.backupFileName as string, destination),
      restoredMode(entry.mode as number, stored?.mode),
    );
  }
  return 'restored';
}

/**
 * Put back the files of an undo point exactly as they were (bytes, mode, symlink target, or
 * absent): the newest live point, or `options.undoId`. Validates first: every backup must exist
 * with its recorded size, else `BackupMissingError` and nothing changes. Then saves the files it
 * will overwrite as a new `undo` point (so undoing again redoes); removes what was absent, puts
 * folders back, then writes each file through a temp file renamed over it (creating missing
 * folders; never through a symlinked folder; an empty folder in its place is removed with rmdir,
 * a non-empty one fails it); and — when no file failed and no saved file or link was skipped —
 * records the point as undone and deletes its backups. Any other point stays live so the undo can
 * be retried and no saved byte is lost.
 *
 * Throws `NotFoundError` when there is no live undo point (or none with `options.undoId`).
 */
export async function undoRewind(
  workspace: UndoWorkspace,
  undo: UndoStore,
  options: UndoOptions & { undoId?: string } = {},
): Promise<UndoResult> {
  const points = await listUndoPoints(undo, options);
  const point = options.undoId === undefined ? points.at(-1) : points.find((candidate) => candidate.undoId === options.undoId);
  if (point === undefined) {
    throw new NotFoundError(
      options.undoId === undefined
        ? `session ${undo.sessionId} has no rewind to undo`
        : `session ${undo.sessionId} has no live undo point ${options.undoId}`,
    );
  }
  await validatePoint(workspace, undo, point);
  const redo = point.entries.length === 0
    ? null
    : await captureUndoPoint(workspace, undo, { paths: point.entries.map((entry) => entry.path), operation: 'undo', messageId: null, protect: [point.undoId] }, options);

  const result: UndoResult = { undoId: point.undoId, redoUndoId: redo?.undoId ?? null, restored: [], deleted: [], skipped: [], failed: [] };
  const limit = pLimit(options.concurrency ?? 16);
  const apply = (entry: UndoEntry, writer: ProjectWriter) =>
    applyEntry(workspace, undo, point, entry, writer).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
  const outcomes = new Map<UndoEntry, EntryOutcome | Error>();
  // Removals first, then folders one by one (parents first, as the entries are sorted), then files,
  // all through folders opened without following links (`project-writer.ts`).
  const removals = point.entries.filter((entry) => entry.kind === 'missing');
  const files = point.entries.filter((entry) => entry.kind === 'file' || entry.kind === 'symlink');
  const writer = await openProjectWriter(workspace.fs, workspace.projectRoot);
  try {
    const removed = await Promise.all(removals.map((entry) => limit(() => apply(entry, writer))));
    removals.forEach((entry, index) => outcomes.set(entry, removed[index] as EntryOutcome | Error));
    for (const entry of point.entries.filter((candidate) => candidate.kind === 'folder')) outcomes.set(entry, await apply(entry, writer));
    await removeLeftoverTemporaryFiles(writer, files.map((entry) => splitTrackingPath(entry.path).folder), options.sessionLocked === true);
    const written = await Promise.all(files.map((entry) => limit(() => apply(entry, writer))));
    files.forEach((entry, index) => outcomes.set(entry, written[index] as EntryOutcome | Error));
  } finally {
    await writer.close();
  }
  let keepsSavedContent = false;
  for (const entry of point.entries) {
    const outcome = outcomes.get(entry);
    if (outcome instanceof Error) result.failed.push({ path: entry.path, error: outcome });
    else if (outcome === 'restored') result.restored.push(entry.path);
    else if (outcome === 'deleted') result.deleted.push(entry.path);
    else if (typeof outcome === 'object') {
      result.skipped.push({ path: entry.path, reason: outcome.skipped });
      if (entry.kind === 'file' || entry.kind === 'symlink') keepsSavedContent = true;
    }
  }
  if (result.failed.length === 0 && !keepsSavedContent) {
    await deletePointBackups(undo, point);
    await logOf(undo).append([undoPointRemovedRecord(point.undoId, 'undone', (options.now ?? (() => new Date()))())]);
    await evictUndoPoints(undo, options);
  }
  return result;
}

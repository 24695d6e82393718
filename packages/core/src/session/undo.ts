/**
 * The operation journal and the rewind timeline's operations (issues 10 and 11).
 *
 * Every operation that writes the project through fh — a rewind, an undo, a redo, an `undo-to`,
 * a recovery — is journaled as a point (`timeline-records.ts`) before it writes:
 * 1. the pre-image of each file it will change is saved as an `…@undo-…` backup (the store makes
 *    it durable: data and directory entry) — or recorded as missing, a symlink, a folder;
 * 2. the point record, with the pre-images and the plan, is appended (durable on return);
 * 3. the project is written;
 * 4. a `fh-point-done` record is appended once every write succeeded.
 * A point without its done record is pending: the process was killed, the disk filled, a write
 * failed, the store failed. {@link recoverPending}, run first by every operation here (callers
 * hold the session lock), rolls each pending point back to its pre-images — restoring only files
 * whose current state differs, itself journaled as a `recover` point so nothing it overwrites is
 * lost — and closes it as `rolled-back`. So `undo` after an interrupted rewind reaches exactly the
 * state before it, and an interrupted undo never turns into a redo.
 *
 * Points are never evicted; {@link prunePoints} removes old ones on request.
 */
import { createHash, randomUUID } from 'node:crypto';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import pLimit from 'p-limit';
import { BackupMissingError, CorruptError, errnoCode, FhError, NotFoundError, UnsupportedError } from '../errors.js';
import { removeFoldersLeftEmpty } from '../rewind/empty-folders.js';
import { openProjectWriter, splitTrackingPath, symlinkTargetInside, type ProjectFolder, type ProjectWriter } from '../rewind/project-writer.js';
import { removeLeftoverTemporaryFiles } from '../rewind/rewind.js';
import { restoredMode } from '../rewind/restored-mode.js';
import { toAbsolutePath } from '../paths.js';
import type { RecordWarningHandler } from '../state/records.js';
import type { BackupInfo, BackupStore, FsStats, SessionLog, WorkspaceFs } from '../store.js';
import { buildTimeline, findPoint, redoStep, stateBefore, undoStep, type Timeline } from './timeline.js';
import {
  pointDoneRecord,
  pointRecord,
  pointsPrunedRecord,
  POINT_RECORD_TYPE,
  readTimelinePoints,
  type PointOperation,
  type TimelinePoint,
} from './timeline-records.js';
import { UNDO_POINT_RECORD_TYPE, type UndoEntry } from './undo-records.js';
import { startPhase, type ProgressCallback } from '../progress.js';
import { checkBackupBytes, describeDamage, isDamaged, type BackupCheck } from '../verify/backup-check.js';
import { summarizePoint, type PlanSource } from './point-summary.js';

/** Where the timeline lives: pre-image backups in `store` under `sessionId`, records in `log`. */
export interface UndoStore {
  store: BackupStore;
  sessionId: string;
  /** Default `store.sessionLog(sessionId)`. */
  log?: SessionLog;
}

/**
 * The workspace the timeline covers: a `FileHistory` fits. `fs` may offer `readlink`/`symlink`
 * (real `fs/promises` and memfs do); without them a symlink cannot be saved and the operation is
 * refused with `UnsupportedError`.
 */
export interface UndoWorkspace {
  projectRoot: string;
  fs: WorkspaceFs;
}

/** Options shared by the timeline operations. */
export interface UndoOptions {
  /** File operations at once. Default 16. */
  concurrency?: number;
  /** Makes point ids; default `crypto.randomUUID`. */
  generateId?: () => string;
  /** Clock for record times. Default `() => new Date()`. */
  now?: () => Date;
  /** Receives warnings about malformed records. */
  onWarning?: RecordWarningHandler;
  /**
   * After saving a point, delete the session's `…@undo-…` backups no point refers to (left by a
   * process killed while saving). Only safe while this process holds the session's lock.
   * Default false.
   */
  deleteOrphans?: boolean;
  /**
   * The caller holds the session's lock: every fh temp file in a folder the operation writes is
   * a leftover of a killed process and is removed first (default false: only those older than 60 s).
   */
  sessionLocked?: boolean;
  /**
   * Progress for a bar (see `progress.ts`): `checking` while an undo or redo compares each file
   * with its entry, `saving` while the point's pre-images are saved (files and bytes), `writing`
   * while the files are put back (files and bytes). Must not throw.
   */
  onProgress?: ProgressCallback;
}

/** What {@link capturePoint} saves. */
export interface CapturePointInput {
  /** Tracking paths of the files about to be changed. */
  paths: readonly string[];
  operation: PointOperation;
  messageId: string | null;
  target?: string | null;
  /** What the operation will write at each path (see `TimelinePoint.plan`). */
  plan?: readonly UndoEntry[];
  /**
   * Where plan entries that are not `…@undo-…` backups live (a rewind's checkpoint backups), so
   * the point's summary counts their lines; without it they are `uncounted` (see `point-summary.ts`).
   */
  checkpoints?: PlanSource;
}

/** One interrupted operation rolled back by {@link recoverPending}. */
export interface RecoveryResult {
  /** The pending point that was rolled back (or abandoned, for a pending `recover` point). */
  pointId: string;
  operation: PointOperation;
  outcome: 'rolled-back' | 'abandoned';
  /** The `recover` point saved before the rollback wrote; `null` when nothing differed. */
  recoverPointId: string | null;
  restored: string[];
  deleted: string[];
}

/** Outcome of an undo, redo, undo-to or rollback, file by file (like a `RewindResult`). */
export interface UndoResult {
  /** What ran: `recover` when the command was satisfied by rolling back an interrupted operation. */
  operation: 'undo' | 'redo' | 'undo-to' | 'recover';
  /** The point whose before-state was reached (`undo`, `undo-to`, `recover`) or the step redone (`redo`). */
  target: string;
  /** The point saved for this operation (`null` for a `recover` result that changed nothing). */
  pointId: string | null;
  /** Tracking paths written (a file's bytes and mode, a symlink, or a folder); only files it changed. */
  restored: string[];
  /** Tracking paths removed because nothing was there. */
  deleted: string[];
  /** Tracking paths left alone on purpose, with why. */
  skipped: Array<{ path: string; reason: string }>;
  /** Tracking paths that could not be put back, with the error; the point then stays pending. */
  failed: Array<{ path: string; error: Error }>;
  /** Interrupted operations rolled back first, oldest last. */
  recovered: RecoveryResult[];
}

/** Size of a session's timeline (see {@link timelineSize}). */
export interface TimelineSize {
  points: number;
  /** Pre-image backups referenced by the points, and their bytes. */
  backups: number;
  bytes: number;
}

type LinkFs = WorkspaceFs & {
  readlink?: (path: string) => Promise<string>;
  symlink?: (target: string, path: string) => Promise<void>;
};

const UNDO_BACKUP_NAME = /^[0-9a-f]{16}@undo-[0-9a-f]{12}$/;

/** Whether a backup name is an undo backup's (`{16 hex}@undo-{12 hex}`). */
export function isUndoBackupName(name: string): boolean {
  return UNDO_BACKUP_NAME.test(name);
}

function logOf(undo: UndoStore): SessionLog {
  return undo.log ?? undo.store.sessionLog(undo.sessionId);
}

function nowOf(options: UndoOptions): Date {
  return (options.now ?? (() => new Date()))();
}

/** Backup name of one file in one point: `{sha256(absolutePath)[:16]}@undo-{sha256(pointId)[:12]}`. */
export function undoBackupFileName(absolutePath: string, undoId: string): string {
  const hash = createHash('sha256').update(absolutePath).digest('hex').slice(0, 16);
  const suffix = createHash('sha256').update(undoId).digest('hex').slice(0, 12);
  return `${hash}@undo-${suffix}`;
}

/** Bytes every timeline point record holds (its type), current and legacy. */
const POINT_MARKS = [Buffer.from(POINT_RECORD_TYPE), Buffer.from(UNDO_POINT_RECORD_TYPE)];

/**
 * What {@link pointFreeLog} found: the log's first `bytes` bytes, which end with a newline (or are
 * none), hold no timeline point record, and `edge` is their last bytes (up to
 * {@link POINT_FREE_EDGE_BYTES}), by which a later check knows it reads the same log grown (a
 * session log only grows, but for a torn last line the next append cuts off: that line lies after
 * `bytes`) rather than another log in its place.
 */
export interface PointFreeLog {
  readonly bytes: number;
  readonly edge: Buffer;
}

/** Bytes of a point-free log's end that {@link PointFreeLog} keeps. */
export const POINT_FREE_EDGE_BYTES = 64;

/**
 * Most bytes a log may have grown by since the last check for {@link pointFreeLog} to read only
 * them (one `readTail` of the log's end); a log grown more is scanned again from its start.
 */
export const POINT_FREE_TAIL_BYTES = 256 * 1024;

/** The bytes at most {@link POINT_FREE_EDGE_BYTES} long ending at `end` of `bytes`, copied. */
function edgeAt(bytes: Buffer, end: number): Buffer {
  return Buffer.from(bytes.subarray(Math.max(0, end - POINT_FREE_EDGE_BYTES), end));
}

/**
 * Whether `log` holds no timeline point at all, so there is nothing pending to recover: the log's
 * bytes are searched for the point record types (no parsing). Returns what it found when it finds
 * no point, else undefined (the log may hold one: read its timeline). With `known`, what an
 * earlier call found on the same log, only the bytes after `known.bytes` are read and searched
 * (one `readTail`), once the bytes before them are recognised as `known.edge`; a log that shrank
 * below them, does not end them with that edge, or grew by more than
 * {@link POINT_FREE_TAIL_BYTES} is scanned whole (`readStream`). Undefined when the log can stream
 * neither. Throws the log's read errors.
 */
export async function pointFreeLog(log: SessionLog, known?: PointFreeLog): Promise<PointFreeLog | undefined> {
  if (known !== undefined && typeof log.readTail === 'function') {
    const { tail, size } = await log.readTail(0, POINT_FREE_TAIL_BYTES);
    if (size !== undefined) {
      const bytes = Buffer.from(tail.buffer, tail.byteOffset, tail.byteLength);
      const start = size - bytes.length;
      // Where the known bytes end, and their edge starts, in `bytes`.
      const end = known.bytes - start;
      const edgeStart = end - known.edge.length;
      if (known.bytes <= size && edgeStart >= 0 && bytes.subarray(edgeStart, end).equals(known.edge)) {
        if (POINT_MARKS.some((mark) => bytes.includes(mark, end))) return undefined;
        const lineEnd = bytes.lastIndexOf(0x0a) + 1;
        return lineEnd <= end ? known : { bytes: start + lineEnd, edge: edgeAt(bytes, lineEnd) };
      }
    }
  }
  if (typeof log.readStream !== 'function') return undefined;
  const keep = Math.max(...POINT_MARKS.map((mark) => mark.length)) - 1;
  let carry = Buffer.alloc(0);
  /** Offset in the log of `carry`'s first byte. */
  let carryStart = 0;
  let found: PointFreeLog = { bytes: 0, edge: Buffer.alloc(0) };
  for await (const chunk of log.readStream()) {
    const bytes = carry.length === 0 ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([carry, chunk]);
    if (POINT_MARKS.some((mark) => bytes.includes(mark))) return undefined;
    const lineEnd = bytes.lastIndexOf(0x0a) + 1;
    if (lineEnd > 0 && carryStart + lineEnd > found.bytes) found = { bytes: carryStart + lineEnd, edge: edgeAt(bytes, lineEnd) };
    const cut = Math.max(0, bytes.length - Math.max(keep, POINT_FREE_EDGE_BYTES));
    carry = Buffer.from(bytes.subarray(cut));
    carryStart += cut;
  }
  return found;
}

/** The session's timeline, rebuilt from its log (see `timeline.ts`). */
export async function readTimeline(undo: UndoStore, options: Pick<UndoOptions, 'onWarning'> = {}): Promise<Timeline> {
  const { records } = await logOf(undo).read();
  return buildTimeline(readTimelinePoints(records, options.onWarning));
}

/** Every point of the timeline, oldest first (see {@link readTimeline}). */
export async function listUndoPoints(undo: UndoStore, options: Pick<UndoOptions, 'onWarning'> = {}): Promise<TimelinePoint[]> {
  return (await readTimeline(undo, options)).points;
}

/** Points, pre-image backups and their bytes of the session's timeline. */
export async function timelineSize(undo: UndoStore, options: Pick<UndoOptions, 'onWarning'> = {}): Promise<TimelineSize> {
  const points = await listUndoPoints(undo, options);
  const sizes = new Map<string, number>();
  for (const point of points) for (const entry of point.entries) if (entry.backupFileName !== null) sizes.set(entry.backupFileName, entry.size ?? 0);
  return { points: points.length, backups: sizes.size, bytes: [...sizes.values()].reduce((sum, size) => sum + size, 0) };
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
 * Save `input.paths` as they are now into a new point and record it (pending until
 * {@link completePoint}). Backups first, then the record: a point never names a backup that is
 * not durable. A folder is saved as a `folder` entry without its contents. Throws — after deleting
 * the backups it made, recording nothing — if a file cannot be saved; `UnsupportedError` when a
 * symlink must be saved and `fs` has no `readlink`, when the store refuses backups (a read-only
 * Claude Code session), or when its log drops `fh-point` records: give an fh store as the undo store.
 */
export async function capturePoint(workspace: UndoWorkspace, undo: UndoStore, input: CapturePointInput, options: UndoOptions = {}): Promise<TimelinePoint> {
  const fs = workspace.fs as LinkFs;
  const undoId = (options.generateId ?? randomUUID)();
  const limit = pLimit(options.concurrency ?? 16);
  const made: string[] = [];
  let appending = false;
  const paths = [...new Set(input.paths)].sort();
  const progress = startPhase(options.onProgress, 'saving', paths.length);
  // Pre-images are read through folders opened without following links (as the rewind writes
  // them), so a folder swapped for a link meanwhile is never read through: its files fail the point.
  const reader = await openProjectWriter(workspace.fs, workspace.projectRoot);
  const savePreImage = async (path: string): Promise<UndoEntry> => {
    const absolutePath = toAbsolutePath(workspace.projectRoot, path);
    const { folder: folderPath, name } = splitTrackingPath(path);
    let folder: ProjectFolder;
    try {
      folder = await reader.folder(folderPath);
    } catch (error) {
      // A missing folder, or a file where a folder would be: nothing is at the path.
      if (FhError.hasCode(error, 'FH_NOT_FOUND') || FhError.hasCode(error, 'FH_CONFLICT')) return { path, kind: 'missing', backupFileName: null, mode: null };
      throw error;
    }
    const stats = await folder.lstat(name);
    if (stats === undefined) return { path, kind: 'missing', backupFileName: null, mode: null };
    if (stats.isDirectory()) return { path, kind: 'folder', backupFileName: null, mode: null };
    const source = await folder.sourcePath(name);
    if (stats.isSymbolicLink()) {
      if (typeof fs.readlink !== 'function') {
        throw new UnsupportedError(`saving the symbolic link ${path} for undo needs a workspace fs with readlink`);
      }
      return { path, kind: 'symlink', backupFileName: null, mode: null, symlinkTarget: await fs.readlink(source) };
    }
    const backupFileName = undoBackupFileName(absolutePath, undoId);
    const info = await putUndoBackup(undo, backupFileName, source).catch((error: unknown) => {
      // The store names the path it was given (`/proc/self/fd/N/name`): name the file instead.
      if (error instanceof Error && source !== absolutePath) error.message = error.message.split(source).join(absolutePath);
      throw error;
    });
    made.push(backupFileName);
    return { path, kind: 'file', backupFileName, mode: info.mode & 0o7777, size: info.size, ...(info.sha256 === undefined ? {} : { sha256: info.sha256 }) };
  };
  try {
    const settled = await Promise.allSettled(
      paths.map((path) =>
        limit(async (): Promise<UndoEntry> => {
          const entry = await savePreImage(path);
          progress.file(entry.size ?? 0);
          return entry;
        }),
      ),
    );
    const failure = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
    const entries = settled.map((outcome) => (outcome as PromiseFulfilledResult<UndoEntry>).value);
    const planned = new Map((input.plan ?? []).map((entry) => [entry.path, entry]));
    const plan = paths.flatMap((path) => {
      const entry = planned.get(path);
      return entry === undefined ? [] : [entry];
    });
    const summary = await summarizePoint({
      projectRoot: workspace.projectRoot,
      fs,
      entries,
      plan,
      undo: { store: undo.store, sessionId: undo.sessionId },
      ...(input.checkpoints === undefined ? {} : { checkpoints: input.checkpoints }),
      limit,
      isUndoBackup: isUndoBackupName,
    });
    const point: TimelinePoint = {
      undoId,
      sessionId: undo.sessionId,
      createdAt: nowOf(options),
      operation: input.operation,
      messageId: input.messageId,
      target: input.target ?? null,
      entries,
      plan,
      status: 'pending',
      summary,
    };
    appending = true;
    await logOf(undo).append([pointRecord(point)]);
    const { records } = await logOf(undo).read();
    if (!records.some((record) => record.type === POINT_RECORD_TYPE && record.pointId === undoId)) {
      throw new UnsupportedError(
        `the log of session ${undo.sessionId} in the ${undo.store.kind} store does not keep ${POINT_RECORD_TYPE} records; give an fh store as the undo store, or turn undo off`,
      );
    }
    if (options.deleteOrphans === true) await deleteOrphanUndoBackups(undo, readTimelinePoints(records));
    return point;
  } catch (error) {
    // Once the point's record may be in the log (an append that failed in its fsync may still have
    // written it), its backups stay unless a record closing it lands first: a record must never
    // name deleted backups. Unreferenced leftovers are removed by a later save (`deleteOrphans`).
    const closed = !appending || (await logOf(undo).append([pointDoneRecord(undoId, 'abandoned', nowOf(options))]).then(() => true, () => false));
    if (closed) await Promise.all(made.map((name) => undo.store.deleteBackup(undo.sessionId, name).catch(() => undefined)));
    throw error;
  } finally {
    await reader.close().catch(() => undefined);
  }
}

/** Append the done record of `point`: every write of its operation succeeded. */
export async function completePoint(undo: UndoStore, point: Pick<TimelinePoint, 'undoId'>, options: UndoOptions = {}): Promise<void> {
  await logOf(undo).append([pointDoneRecord(point.undoId, 'done', nowOf(options))]);
}

/**
 * Close `point` as abandoned: its operation was refused before its first write (a rewind that
 * found a damaged backup as it copied, `BackupMissingError`), so it is no step of the timeline.
 * Its own pre-image backups are deleted once the closing record is durable. Throws the log's errors.
 */
export async function abandonPoint(undo: UndoStore, point: Pick<TimelinePoint, 'undoId' | 'entries'>, options: UndoOptions = {}): Promise<void> {
  await logOf(undo).append([pointDoneRecord(point.undoId, 'abandoned', nowOf(options))]);
  const suffix = `@undo-${createHash('sha256').update(point.undoId).digest('hex').slice(0, 12)}`;
  const own = point.entries.flatMap((entry) => (entry.backupFileName !== null && entry.backupFileName.endsWith(suffix) ? [entry.backupFileName] : []));
  await Promise.all(own.map((name) => undo.store.deleteBackup(undo.sessionId, name).catch(() => undefined)));
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
 * Delete the session's undo backups (`…@undo-…`) that no point refers to: left by a process
 * killed while it saved a point, before the point was recorded, or by a prune killed before it
 * deleted them. Tidying only: a failed listing or delete is ignored.
 */
async function deleteOrphanUndoBackups(undo: UndoStore, points: readonly TimelinePoint[]): Promise<void> {
  const referenced = new Set(points.flatMap((point) => point.entries.map((entry) => entry.backupFileName)));
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
 * Check the entries an undo is about to write before anything changes: a `file` entry must name
 * an `…@undo-…` backup of the undo session that exists with its recorded size and, when the entry
 * has a sha256, bytes that hash to it (else `BackupMissingError` listing each one); a path must
 * stay inside the project (else `CorruptError`). A symlink entry leading outside the project is
 * not refused here: `applyEntry` skips it, so the other files still come back.
 * Returns each file entry's `statBackup`.
 */
async function validateEntries(workspace: UndoWorkspace, undo: UndoStore, entries: readonly UndoEntry[], what: string): Promise<Map<string, BackupInfo>> {
  const infos = new Map<string, BackupInfo>();
  const missing: Array<{ path: string; backupFileName: string; reason: string }> = [];
  const root = resolve(workspace.projectRoot);
  const inside = (path: string) => {
    const rel = relative(root, path);
    return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  };
  for (const entry of entries) {
    const absolutePath = resolve(root, entry.path);
    if (!inside(absolutePath)) throw new CorruptError(`${what} refused, nothing was changed: its entry ${JSON.stringify(entry.path)} is outside the project root`);
    if (entry.kind !== 'file') continue;
    const name = entry.backupFileName as string;
    if (!UNDO_BACKUP_NAME.test(name)) {
      throw new CorruptError(`${what} refused, nothing was changed: its entry ${entry.path} names ${name}, which is not an undo backup (…@undo-…)`);
    }
    const info = await undo.store.statBackup(undo.sessionId, name);
    if (info === null) missing.push({ path: entry.path, backupFileName: name, reason: 'the backup does not exist in the store' });
    else if (entry.size !== undefined && info.size !== entry.size) {
      missing.push({ path: entry.path, backupFileName: name, reason: `the backup has ${info.size} bytes, the point recorded ${entry.size}` });
    } else infos.set(name, info);
  }
  if (missing.length > 0) {
    const list = missing.map((entry) => `${entry.path} (${entry.backupFileName}: ${entry.reason})`).join('; ');
    const count = missing.length === 1 ? '1 backup' : `${missing.length} backups`;
    throw new BackupMissingError(`${what} refused, nothing was changed: ${count} missing or damaged: ${list}`, missing);
  }
  return infos;
}

/**
 * Refuse, before anything is written, when a file entry the operation will write names a backup
 * whose bytes no longer hash to the sha256 recorded when the pre-image was saved
 * (`BackupMissingError` listing each one, with what to do). The backups are read and hashed, 8 at
 * a time; entries without a hash (older records) cannot be checked and pass.
 */
async function refuseDamagedPreImages(undo: UndoStore, writes: readonly UndoEntry[], infos: ReadonlyMap<string, BackupInfo>, what: string): Promise<void> {
  const limit = pLimit(8);
  const hashed = writes.filter((entry) => entry.kind === 'file' && entry.sha256 !== undefined && infos.has(entry.backupFileName as string));
  const checks = await Promise.all(
    hashed.map((entry) =>
      limit(() => checkBackupBytes(undo.store, undo.sessionId, entry.backupFileName as string, entry.sha256 as string, (infos.get(entry.backupFileName as string) as BackupInfo).size)),
    ),
  );
  const damaged = hashed.flatMap((entry, index) => {
    const check = checks[index] as BackupCheck;
    return isDamaged(check) ? [{ path: entry.path, backupFileName: entry.backupFileName as string, reason: describeDamage(check) }] : [];
  });
  if (damaged.length === 0) return;
  const list = damaged.map((entry) => `${entry.path} (${entry.backupFileName}: ${entry.reason})`).join('; ');
  const count = damaged.length === 1 ? '1 backup is' : `${damaged.length} backups are`;
  throw new BackupMissingError(
    `${what} refused, nothing was changed: ${count} damaged: ${list}. Run fh verify to see which undo points the damage breaks`,
    damaged,
  );
}

/** True when the bytes of `absolutePath` equal those of backup `backupFileName` (sizes already equal). */
async function sameBytes(fs: WorkspaceFs, absolutePath: string, undo: UndoStore, backupFileName: string): Promise<boolean> {
  const handle = await fs.open(absolutePath, 'r');
  try {
    let position = 0;
    for await (const chunk of await undo.store.openBackup(undo.sessionId, backupFileName)) {
      const buffer = new Uint8Array(chunk.length);
      let filled = 0;
      while (filled < chunk.length) {
        const { bytesRead } = await handle.read(buffer, filled, chunk.length - filled, position + filled);
        if (bytesRead === 0) return false;
        filled += bytesRead;
      }
      if (Buffer.compare(buffer, chunk) !== 0) return false;
      position += chunk.length;
    }
    const probe = new Uint8Array(1);
    return (await handle.read(probe, 0, 1, position)).bytesRead === 0;
  } finally {
    await handle.close();
  }
}

/** True when the path already is as `entry` says (bytes, mode, link target, folder or absence). */
async function alreadyAs(workspace: UndoWorkspace, undo: UndoStore, entry: UndoEntry, info: BackupInfo | undefined): Promise<boolean> {
  const fs = workspace.fs as LinkFs;
  const absolutePath = toAbsolutePath(workspace.projectRoot, entry.path);
  const current = await lstatOrUndefined(fs, absolutePath).catch(() => undefined);
  if (entry.kind === 'missing') return current === undefined;
  if (entry.kind === 'folder') return current?.isDirectory() === true;
  if (entry.kind === 'symlink') {
    if (current?.isSymbolicLink() !== true || typeof fs.readlink !== 'function') return false;
    return (await fs.readlink(absolutePath).catch(() => undefined)) === entry.symlinkTarget;
  }
  if (current?.isFile() !== true || info === undefined) return false;
  if (current.size !== info.size || (current.mode & 0o7777) !== restoredMode(entry.mode as number, info.mode)) return false;
  return sameBytes(fs, absolutePath, undo, entry.backupFileName as string).catch(() => false);
}

type EntryOutcome = 'restored' | 'deleted' | 'none' | { skipped: string };

/**
 * The folder an entry's file lives in, opened for writing (see `project-writer.ts`), or why the
 * entry is skipped: a link or a non-folder on the way. `undefined` folder: it does not exist yet.
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

/**
 * Bring one path to its entry, through folders opened without following links. A symlink entry
 * whose target leads outside the project is skipped with how to recreate it by hand: fh never
 * creates such a link (a hostile record could plant one), and skipping it keeps the rest of the
 * undo possible.
 */
async function applyEntry(undo: UndoStore, entry: UndoEntry, info: BackupInfo | undefined, writer: ProjectWriter, projectRoot: string): Promise<EntryOutcome> {
  if (entry.kind === 'symlink' && !symlinkTargetInside(projectRoot, entry.path, entry.symlinkTarget ?? '')) {
    const target = entry.symlinkTarget ?? '';
    return {
      skipped: `it was a symbolic link to ${target}, outside the project: fh does not create links that lead outside the project; if you trust it, recreate it with: ln -sfn ${JSON.stringify(target)} ${JSON.stringify(entry.path)}`,
    };
  }
  const { folder: folderPath, name } = splitTrackingPath(entry.path);
  const opened = await entryFolder(writer, entry);
  if ('skipped' in opened) return opened;
  const current = opened.folder === undefined ? undefined : await opened.folder.lstat(name);

  if (entry.kind === 'folder') {
    if (current?.isDirectory()) return 'none';
    const folder = opened.folder ?? (await writer.folder(folderPath, { create: true }));
    // A file or link here was saved in the point just made, so removing it loses nothing.
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
  const folder = opened.folder ?? (await writer.folder(folderPath, { create: true }));
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
    await folder.replaceFile(
      name,
      (destination) => undo.store.restoreBackup(undo.sessionId, entry.backupFileName as string, destination),
      restoredMode(entry.mode as number, info?.mode),
    );
  }
  return 'restored';
}

interface ApplyRequest {
  operation: Exclude<PointOperation, 'rewind'>;
  target: string;
  /** Always record a point, even when no file differs (so an undo or redo moves the cursor). */
  alwaysRecord: boolean;
  /** For messages: "undo", "redo", "rollback of …". */
  what: string;
  /**
   * When the state being put back was current (the point it goes back to was saved): folders the
   * removals leave empty that were created after it are removed (`empty-folders.ts`).
   */
  stateTime: Date;
}

/**
 * Bring the files of `desired` to their entries: validate, find the paths that differ, journal
 * them as a point (pre-images, plan), write them (removals, then folders parents first, then
 * files through a temp file renamed over the path), and complete the point when nothing failed.
 */
async function applyState(
  workspace: UndoWorkspace,
  undo: UndoStore,
  desired: ReadonlyMap<string, UndoEntry>,
  request: ApplyRequest,
  options: UndoOptions,
): Promise<Omit<UndoResult, 'recovered'>> {
  const entries = [...desired.values()];
  const infos = await validateEntries(workspace, undo, entries, request.what);
  const info = (entry: UndoEntry) => (entry.backupFileName === null ? undefined : infos.get(entry.backupFileName));
  const limit = pLimit(options.concurrency ?? 16);
  const checking = startPhase(options.onProgress, 'checking', entries.length);
  const same = await Promise.all(entries.map((entry) => limit(() => alreadyAs(workspace, undo, entry, info(entry)).finally(() => checking.file()))));
  const changes = entries.filter((_, index) => same[index] !== true);
  await refuseDamagedPreImages(undo, changes, infos, request.what);
  const result: Omit<UndoResult, 'recovered'> = { operation: request.operation, target: request.target, pointId: null, restored: [], deleted: [], skipped: [], failed: [] };
  if (changes.length === 0 && !request.alwaysRecord) return result;
  const point = await capturePoint(
    workspace,
    undo,
    { paths: changes.map((entry) => entry.path), operation: request.operation, messageId: null, target: request.target, plan: changes },
    options,
  );
  result.pointId = point.undoId;

  const size = (entry: UndoEntry) => info(entry)?.size ?? 0;
  const writing = startPhase(options.onProgress, 'writing', changes.length, changes.reduce((sum, entry) => sum + size(entry), 0));
  const apply = (entry: UndoEntry, writer: ProjectWriter) =>
    applyEntry(undo, entry, info(entry), writer, workspace.projectRoot)
      .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))
      .finally(() => writing.file(size(entry)));
  const outcomes = new Map<UndoEntry, EntryOutcome | Error>();
  // Removals first, then folders one by one (parents first, as the entries are sorted), then files,
  // all through folders opened without following links (`project-writer.ts`).
  const removals = changes.filter((entry) => entry.kind === 'missing');
  const files = changes.filter((entry) => entry.kind === 'file' || entry.kind === 'symlink');
  const writer = await openProjectWriter(workspace.fs, workspace.projectRoot);
  try {
    const removed = await Promise.all(removals.map((entry) => limit(() => apply(entry, writer))));
    removals.forEach((entry, index) => outcomes.set(entry, removed[index] as EntryOutcome | Error));
    for (const entry of changes.filter((candidate) => candidate.kind === 'folder')) outcomes.set(entry, await apply(entry, writer));
    await removeLeftoverTemporaryFiles(writer, files.map((entry) => splitTrackingPath(entry.path).folder), options.sessionLocked === true);
    const written = await Promise.all(files.map((entry) => limit(() => apply(entry, writer))));
    files.forEach((entry, index) => outcomes.set(entry, written[index] as EntryOutcome | Error));
    const deleted = removals.filter((entry) => outcomes.get(entry) === 'deleted').map((entry) => entry.path);
    if (deleted.length > 0) await removeFoldersLeftEmpty(writer, deleted, request.stateTime);
    await writer.flush();
  } finally {
    await writer.close();
  }
  for (const entry of changes) {
    const outcome = outcomes.get(entry);
    if (outcome instanceof Error) result.failed.push({ path: entry.path, error: outcome });
    else if (outcome === 'restored') result.restored.push(entry.path);
    else if (outcome === 'deleted') result.deleted.push(entry.path);
    else if (typeof outcome === 'object') result.skipped.push({ path: entry.path, reason: outcome.skipped });
  }
  if (result.failed.length === 0) await completePoint(undo, point, options);
  return result;
}

/**
 * Roll back every pending point (an interrupted or partly failed operation), newest first, to
 * its pre-images: only paths whose current state differs are written, journaled first as a
 * `recover` point; then the point is closed as `rolled-back`. A pending `recover` point is closed
 * as `abandoned` (the rollback it was doing is done again from its target; its own pre-images
 * stay reachable by id). The caller holds the session lock. Throws `FhError` naming the files
 * when a rollback cannot write some of them (the point stays pending; fix and run again), and
 * `BackupMissingError`/`CorruptError` (writing nothing) when a pre-image is missing or unsafe.
 */
export async function recoverPending(workspace: UndoWorkspace, undo: UndoStore, options: UndoOptions = {}): Promise<RecoveryResult[]> {
  const timeline = await readTimeline(undo, options);
  const results: RecoveryResult[] = [];
  for (const point of [...timeline.pending].reverse()) {
    if (point.operation === 'recover') {
      await logOf(undo).append([pointDoneRecord(point.undoId, 'abandoned', nowOf(options))]);
      results.push({ pointId: point.undoId, operation: point.operation, outcome: 'abandoned', recoverPointId: null, restored: [], deleted: [] });
      continue;
    }
    const desired = new Map(point.entries.map((entry) => [entry.path, entry]));
    const what = `rolling back the interrupted ${point.operation} ${point.undoId}`;
    const applied = await applyState(workspace, undo, desired, { operation: 'recover', target: point.undoId, alwaysRecord: false, what, stateTime: point.createdAt }, options);
    if (applied.failed.length > 0) {
      throw new FhError(
        `${what} failed for ${applied.failed.map((failure) => `${failure.path} (${failure.error.message})`).join('; ')}; nothing else was changed by this command. Fix that and run it again`,
      );
    }
    // The interrupted operation's temp files stay in folders the rollback had no need to write.
    const writer = await openProjectWriter(workspace.fs, workspace.projectRoot);
    try {
      await removeLeftoverTemporaryFiles(writer, point.entries.map((entry) => splitTrackingPath(entry.path).folder), options.sessionLocked === true);
    } finally {
      await writer.close();
    }
    await logOf(undo).append([pointDoneRecord(point.undoId, 'rolled-back', nowOf(options), applied.pointId)]);
    results.push({ pointId: point.undoId, operation: point.operation, outcome: 'rolled-back', recoverPointId: applied.pointId, restored: applied.restored, deleted: applied.deleted });
  }
  return results;
}

/**
 * Undo: first {@link recoverPending}; if that rolled back an interrupted rewind, redo or undo-to,
 * the undo is done (its state before is reached; the result's `operation` is `recover`). Otherwise
 * move the cursor back over the step under it: put back the files as they were just before that
 * step (see `stateBefore`), saved as an `undo` point first. With `options.pointId` (an id or a
 * prefix of one): go back to just before that point (`undo-to`, a new step; a plain undo when it
 * is the step under the cursor). Only files whose state differs are written and reported.
 *
 * Throws `NotFoundError` when there is nothing to undo, no such point or an abandoned one (it
 * changed no file), `InvalidArgumentError` for an ambiguous prefix, `BackupMissingError` (nothing changed) when a pre-image is missing.
 */
export async function undoRewind(workspace: UndoWorkspace, undo: UndoStore, options: UndoOptions & { pointId?: string } = {}): Promise<UndoResult> {
  const recovered = await recoverPending(workspace, undo, options);
  const rolledBack = recovered.find((recovery) => recovery.outcome === 'rolled-back');
  if (options.pointId === undefined && rolledBack !== undefined && rolledBack.operation !== 'undo') {
    return { operation: 'recover', target: rolledBack.pointId, pointId: rolledBack.recoverPointId, restored: rolledBack.restored, deleted: rolledBack.deleted, skipped: [], failed: [], recovered };
  }
  const timeline = await readTimeline(undo, options);
  const step = undoStep(timeline);
  const chosen = options.pointId === undefined ? step : findPoint(timeline, options.pointId, undo.sessionId);
  if (chosen === undefined) throw new NotFoundError(`session ${undo.sessionId} has no rewind to undo`);
  refuseAbandoned(chosen);
  const plain = chosen.undoId === step?.undoId;
  const applied = await applyState(
    workspace,
    undo,
    stateBefore(timeline, chosen.undoId),
    { operation: plain ? 'undo' : 'undo-to', target: chosen.undoId, alwaysRecord: true, what: plain ? 'undo' : `undo to ${chosen.undoId}`, stateTime: chosen.createdAt },
    options,
  );
  return { ...applied, recovered };
}

/** Throw `NotFoundError` for an abandoned `point`: it changed no file, so there is nothing to undo. */
function refuseAbandoned(point: TimelinePoint): void {
  if (point.status !== 'abandoned') return;
  const why =
    point.operation === 'recover'
      ? `its rollback of ${point.target ?? 'an interrupted operation'} was interrupted and done again by a later recover point`
      : `its ${point.operation} was refused before any file changed`;
  throw new NotFoundError(`timeline point ${point.undoId} of session ${point.sessionId} was abandoned: ${why}, so there is nothing to undo (fh undo --list shows the points)`);
}

/**
 * Redo: first {@link recoverPending}; then move the cursor forward over the next step: put back
 * the files as they were just before the undo that moved the cursor over it, saved as a `redo`
 * point first. Throws `NotFoundError` when there is nothing to redo (no undo, or a rewind since).
 */
export async function redoRewind(workspace: UndoWorkspace, undo: UndoStore, options: UndoOptions = {}): Promise<UndoResult> {
  const recovered = await recoverPending(workspace, undo, options);
  const timeline = await readTimeline(undo, options);
  const next = redoStep(timeline);
  if (next === undefined) throw new NotFoundError(`session ${undo.sessionId} has nothing to redo`);
  const applied = await applyState(workspace, undo, stateBefore(timeline, next.undo.undoId), { operation: 'redo', target: next.step.undoId, alwaysRecord: true, what: 'redo', stateTime: next.undo.createdAt }, options);
  return { ...applied, recovered };
}

/**
 * What {@link undoRewind} with `pointId` would write, without writing: the entries of the state
 * just before that point whose paths differ from it now (reporting `checking` to
 * `options.onProgress`). Throws like {@link undoRewind}.
 */
export async function previewUndo(workspace: UndoWorkspace, undo: UndoStore, pointId: string, options: UndoOptions = {}): Promise<UndoEntry[]> {
  const timeline = await readTimeline(undo, options);
  const point = findPoint(timeline, pointId, undo.sessionId);
  refuseAbandoned(point);
  const entries = [...stateBefore(timeline, point.undoId).values()];
  const infos = await validateEntries(workspace, undo, entries, `undo to ${point.undoId}`);
  const checking = startPhase(options.onProgress, 'checking', entries.length);
  const same = await Promise.all(
    entries.map((entry) => alreadyAs(workspace, undo, entry, entry.backupFileName === null ? undefined : infos.get(entry.backupFileName)).finally(() => checking.file())),
  );
  return entries.filter((_, index) => same[index] !== true);
}

/**
 * Remove the points created before `olderThan` that are no longer pending: record the prune, then
 * delete their pre-image backups (a backup another remaining point names is kept). Returns the
 * ids removed. Afterwards the state just before a removed point can no longer be reached.
 */
export async function prunePoints(undo: UndoStore, olderThan: Date, options: UndoOptions = {}): Promise<string[]> {
  const points = await listUndoPoints(undo, options);
  const removed = points.filter((point) => point.status !== 'pending' && point.createdAt.getTime() < olderThan.getTime());
  if (removed.length === 0) return [];
  await logOf(undo).append([pointsPrunedRecord(removed.map((point) => point.undoId), nowOf(options))]);
  const kept = new Set(points.filter((point) => !removed.includes(point)).flatMap((point) => point.entries.map((entry) => entry.backupFileName)));
  for (const point of removed) {
    for (const entry of point.entries) {
      if (entry.backupFileName !== null && !kept.has(entry.backupFileName)) await undo.store.deleteBackup(undo.sessionId, entry.backupFileName);
    }
  }
  return removed.map((point) => point.undoId);
}

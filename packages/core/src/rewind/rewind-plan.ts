/**
 * What a rewind to a snapshot would do to each tracked file (seed 000 §4 `applySnapshot`, issue 2
 * rule 4). Shared by `rewind` (which then does it), `getDiffStats` (which counts lines) and
 * `hasAnyChanges` (which stops at the first difference). Planning only reads.
 *
 * Which backup stands for each file at the snapshot is `snapshotFileBackups` (snapshot-targets.ts,
 * as the list `snapshotFileTargets`).
 *
 * A file that became a folder, or a folder that became a file, is planned across the change (a
 * rewind deletes first, then restores): a folder standing where the snapshot has a file is
 * replaced only when the rewind's own deletions leave it empty, and a regular file standing where
 * the snapshot needs a folder only when that file is itself tracked and deleted by the same rewind.
 */
import { dirname, join } from 'node:path';
import { startPhase, type ProgressCallback } from '../progress.js';
import { backupTimeMs, checkFileChanged, compareMetadata, type StoredBackup } from '../snapshot/change-detection.js';
import { errnoCode, FhError, InvalidArgumentError, NotFoundError } from '../errors.js';
import type { FileHistoryContext } from '../file-history-context.js';
import { createFolderChecker, type FolderState } from './parent-folders.js';
import { toAbsolutePath, toTrackingPath } from '../paths.js';
import { snapshotFileTargets } from './snapshot-targets.js';
import { createMetadataReader, type MetadataReader } from '../metadata.js';
import { mapWithWorkers } from '../worker-pool.js';
import type { BackupInfo, FsStats } from '../store.js';
import { MAX_SNAPSHOTS, type FileHistoryBackup, type FileHistoryState } from '../types.js';

/** One tracked file and its entry at the snapshot (undefined: no entry at or after it). */
export interface RewindTarget {
  /** Tracking path. */
  path: string;
  backup: FileHistoryBackup | undefined;
  /** Its absolute path, when known already (else planning resolves it, and skips a path outside the root). */
  absolutePath?: string;
}

/** What a rewind would do to one file. */
export type FilePlan =
  /** Already as at the snapshot: nothing to do. */
  | { kind: 'same'; path: string }
  /**
   * Write the backup's bytes and mode. `current` says what is at the path now: `folder` is a
   * folder the rewind's deletions leave empty, removed (rmdir) before the file is written.
   */
  | {
      kind: 'restore';
      path: string;
      absolutePath: string;
      backup: StoredBackup;
      /** The store's `statBackup` of the backup (it exists and has its recorded size). */
      info: BackupInfo;
      current: 'missing' | 'file' | 'symlink' | 'folder';
      /** Stats of what is at the path now (through a symlink), when it is a regular file. */
      currentStats: FsStats | undefined;
      /** Parent folders must be created first (after the rewind's deletions). */
      createParents: boolean;
      /**
       * Size, mode and timestamps could not tell whether the file differs from the backup, and the
       * caller asked to compare the bytes itself (`deferContent`): equal bytes mean `same`.
       */
      contentUnchecked?: true;
    }
  /** Unlink what is at the path: the file did not exist at the snapshot. */
  | { kind: 'delete'; path: string; absolutePath: string; current: 'file' | 'symlink'; currentStats: FsStats }
  /** Left alone on purpose (a folder, a symlinked parent, ...). */
  | { kind: 'skip'; path: string; reason: string }
  /** Cannot be rewound: the backup at the snapshot failed. */
  | { kind: 'fail'; path: string; error: Error }
  /** The backup the rewind needs is gone, or its size is not the recorded one. */
  | { kind: 'missing'; path: string; backupFileName: string; reason: string };

/**
 * The tracked files a rewind to `messageId` covers, sorted by path, each with its entry at the
 * snapshot. `paths` (absolute or relative to the project root) narrows them. Throws
 * `NotFoundError` naming the message when no snapshot has it, and `InvalidArgumentError` naming a
 * path in `paths` that is not tracked (or `OutsideRootError` if it lies outside the root).
 */
export function rewindTargets(
  state: FileHistoryState,
  messageId: string,
  context: FileHistoryContext,
  paths?: readonly string[],
): RewindTarget[] {
  const targets = snapshotFileTargets(state, messageId, context.projectRoot);
  if (targets === undefined) {
    const dropped = state.snapshots.length >= MAX_SNAPSHOTS ? ` (a session keeps its newest ${MAX_SNAPSHOTS} snapshots; older ones are dropped)` : '';
    throw new NotFoundError(`no snapshot for message ${JSON.stringify(messageId)}${dropped}`);
  }
  if (paths === undefined) return targets;
  const backups = new Map(targets.map((target) => [target.path, target.backup]));
  if (!Array.isArray(paths)) throw new InvalidArgumentError(`paths must be an array of paths, got ${JSON.stringify(paths)}`);
  const selected = new Set<string>();
  for (const path of paths) {
    const trackingPath = toTrackingPath(context.projectRoot, path);
    if (!backups.has(trackingPath)) throw new InvalidArgumentError(`${path} is not a tracked file`);
    selected.add(trackingPath);
  }
  return [...selected].sort().map((path) => ({ path, backup: backups.get(path) }));
}

/** Options of {@link planRewind}. */
export interface PlanRewindOptions {
  /**
   * Once one plan satisfies it (`hasAnyChanges`), the remaining files return `undefined`
   * unplanned.
   */
  stopWhen?: (plan: FilePlan) => boolean;
  /**
   * A file whose size, mode and timestamps cannot settle whether it changed is planned as a
   * `restore` marked `contentUnchecked` instead of being compared here: for a caller that reads
   * both sides anyway (diff stats), so each side is read once. Files over the diff size cap are
   * compared here all the same (the caller does not read them).
   */
  deferContent?: boolean;
  /** Progress for a bar: a `checking` phase, one step per file planned (see `progress.ts`). */
  onProgress?: ProgressCallback;
}

/**
 * Plan every target, in target order (see {@link PlanRewindOptions}): first, synchronously where
 * the file system allows, the files whose metadata proves them unchanged ({@link unchangedNow});
 * then the others with bounded concurrency (the wide metadata limit for `lstat`s, the normal one
 * for reading bytes and asking the store).
 */
export async function planRewind(
  context: FileHistoryContext,
  targets: readonly RewindTarget[],
  options: PlanRewindOptions = {},
): Promise<Array<FilePlan | undefined>> {
  const { stopWhen, deferContent = false } = options;
  const progress = startPhase(options.onProgress, 'checking', targets.length);
  const metadata = createMetadataReader(context.fs);
  const folderState = createFolderChecker(metadata, context.projectRoot);
  // Only a file ↔ folder change asks which paths this rewind deletes: the map is built then.
  let entries: Map<string, FileHistoryBackup | undefined> | undefined;
  const deletedByThisRewind = (path: string) => isDeletion((entries ??= new Map(targets.map((target) => [target.path, target.backup]))).get(path));
  const plans = new Array<FilePlan | undefined>(targets.length);
  const rest: number[] = [];
  // Targets are sorted, so the files of one folder come together: its safe state is looked up once.
  const okFolder: OkFolder = { trackingFolder: undefined };
  for (let index = 0; index < targets.length; index += 1) {
    const pause = metadata.pause();
    if (pause !== undefined) await pause;
    const target = targets[index] as RewindTarget;
    if (unchangedNow(context, metadata, target, folderState, okFolder)) {
      plans[index] = { kind: 'same', path: target.path };
      progress.file();
    } else {
      rest.push(index);
    }
  }
  const planned = await mapWithWorkers(
    context.metadataLimit,
    rest,
    context.concurrency,
    (index) => {
      const target = targets[index] as RewindTarget;
      return planFile(context, metadata, target, folderState, deletedByThisRewind, deferContent)
        .catch((error: unknown): FilePlan => ({ kind: 'fail', path: target.path, error: asError(error) }))
        .finally(() => progress.file());
    },
    stopWhen,
  );
  rest.forEach((index, at) => {
    plans[index] = planned[at];
  });
  return plans;
}

/**
 * The first pass of planning, without a promise per file (as makeSnapshot's): true when a
 * synchronous `lstat` finds a regular file, in a folder known to be safe, that size, mode and
 * timestamps prove equal to its backup at the snapshot, so its plan is `same` (what
 * {@link planFile} would find). Every other file, and any error, is left to `planFile`, which checks
 * it again and reports it.
 */
function unchangedNow(
  context: FileHistoryContext,
  metadata: MetadataReader,
  target: RewindTarget,
  folderState: (folder: string) => FolderState | Promise<FolderState>,
  okFolder: OkFolder,
): boolean {
  const { backup } = target;
  if (backup === undefined || backup.error !== undefined || backup.backupFileName === null || backup.size === undefined || backup.mode === undefined) return false;
  let absolutePath: string;
  try {
    absolutePath = target.absolutePath ?? toAbsolutePath(context.projectRoot, target.path);
  } catch {
    return false;
  }
  try {
    const trackingFolder = target.path.slice(0, Math.max(0, target.path.lastIndexOf('/')));
    if (trackingFolder !== okFolder.trackingFolder) {
      const folder = folderState(dirname(absolutePath));
      if (folder instanceof Promise || folder.kind !== 'ok') return false;
      okFolder.trackingFolder = trackingFolder;
    }
    const stats = metadata.lstatInScan(absolutePath);
    if (stats === undefined || !stats.isFile()) return false;
    return compareMetadata(stats, backup.size, backup.mode, backupTimeMs(backup), context.timestampGranularityMs)?.changed === false;
  } catch {
    return false;
  }
}

/** The tracking folder the first pass last found safe (`ok`), shared by the files after it in it. */
interface OkFolder {
  trackingFolder: string | undefined;
}

async function planFile(
  context: FileHistoryContext,
  metadata: MetadataReader,
  target: RewindTarget,
  folderState: (folder: string) => FolderState | Promise<FolderState>,
  deletedByThisRewind: (path: string) => boolean,
  deferContent: boolean,
): Promise<FilePlan> {
  const { path, backup } = target;
  if (backup === undefined) return { kind: 'skip', path, reason: 'no backup of this file at or after the snapshot' };
  let absolutePath: string;
  try {
    absolutePath = target.absolutePath ?? toAbsolutePath(context.projectRoot, path);
  } catch (error) {
    return { kind: 'skip', path, reason: (error as Error).message };
  }
  if (backup.error !== undefined) {
    return { kind: 'fail', path, error: new FhError(`${path}: its backup at this snapshot failed: ${backup.error}`) };
  }
  const stored: StoredBackup | undefined = backup.backupFileName === null ? undefined : { ...backup, backupFileName: backup.backupFileName };

  const known = folderState(dirname(absolutePath));
  const folder = known instanceof Promise ? await known : known;
  if (folder.kind === 'symlink') return { kind: 'skip', path, reason: `reached through the symbolic link ${folder.at}` };
  if (folder.kind === 'not-a-folder') {
    if (stored === undefined) return { kind: 'same', path };
    if (await isDeletedRegularFile(context, folder.at, deletedByThisRewind)) return restorePlan(context, path, absolutePath, stored, 'missing', undefined, true);
    return { kind: 'skip', path, reason: `${folder.at} is not a folder` };
  }
  if (folder.kind === 'outside') return { kind: 'skip', path, reason: `${folder.at} is outside the project root` };
  if (folder.kind === 'missing') {
    if (stored === undefined) return { kind: 'same', path };
    return restorePlan(context, path, absolutePath, stored, 'missing', undefined, true);
  }

  let stats: FsStats;
  try {
    stats = await metadata.lstat(absolutePath);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
    if (stored === undefined) return { kind: 'same', path };
    return restorePlan(context, path, absolutePath, stored, 'missing', undefined, false);
  }
  if (stats.isDirectory()) {
    if (stored === undefined) return { kind: 'skip', path, reason: 'a folder is at this path' };
    const kept = await entriesKept(context, path, absolutePath, deletedByThisRewind);
    if (kept.length > 0) return { kind: 'skip', path, reason: `a folder is at this path and holds what this rewind does not delete: ${listNames(kept)}` };
    return restorePlan(context, path, absolutePath, stored, 'folder', undefined, false);
  }
  if (stats.isSymbolicLink()) {
    if (stored === undefined) return { kind: 'delete', path, absolutePath, current: 'symlink', currentStats: stats };
    const followed = await statOrUndefined(context, absolutePath);
    if (followed === undefined || !followed.isFile()) return restorePlan(context, path, absolutePath, stored, 'symlink', undefined, false);
    return compareAndPlan(context, path, absolutePath, stored, followed, 'symlink', deferContent);
  }
  if (!stats.isFile()) return { kind: 'skip', path, reason: 'not a regular file (a device, socket or pipe)' };
  if (stored === undefined) return { kind: 'delete', path, absolutePath, current: 'file', currentStats: stats };
  return compareAndPlan(context, path, absolutePath, stored, stats, 'file', deferContent);
}

async function compareAndPlan(
  context: FileHistoryContext,
  path: string,
  absolutePath: string,
  backup: StoredBackup,
  stats: FsStats,
  current: 'file' | 'symlink',
  deferContent: boolean,
): Promise<FilePlan> {
  const quick =
    backup.size !== undefined && backup.mode !== undefined
      ? compareMetadata(stats, backup.size, backup.mode, backupTimeMs(backup), context.timestampGranularityMs)
      : undefined;
  // Deferred only where the caller can compare (diff stats read files up to their size cap): a
  // file over it is compared here, as a rewind compares it, so it is never reported changed unread.
  const comparable = backup.size !== undefined && backup.size <= context.diffSizeCapBytes && Number(stats.size) <= context.diffSizeCapBytes;
  if (quick === undefined && deferContent && comparable && backup.mode !== undefined) {
    const plan = await restorePlan(context, path, absolutePath, backup, current, stats, false);
    return plan.kind === 'restore' ? { ...plan, contentUnchecked: true } : plan;
  }
  let check: Awaited<ReturnType<typeof checkFileChanged>>;
  try {
    check = quick ?? (await context.limit(() => checkFileChanged(context, absolutePath, stats, backup)));
  } catch (error) {
    const damaged = damagedBackupPlan(path, backup, error);
    if (damaged !== undefined) return damaged;
    throw error;
  }
  if (!check.changed) return { kind: 'same', path };
  if (check.reason === 'backup-missing') {
    return { kind: 'missing', path, backupFileName: backup.backupFileName, reason: 'the backup does not exist in the store' };
  }
  return restorePlan(context, path, absolutePath, backup, current, stats, false);
}

/**
 * A restore plan, after checking the backup it needs: it must exist in the store and have its
 * recorded size, or the plan is `missing` (and `rewind` refuses before writing anything).
 */
async function restorePlan(
  context: FileHistoryContext,
  path: string,
  absolutePath: string,
  backup: StoredBackup,
  current: 'missing' | 'file' | 'symlink' | 'folder',
  currentStats: FsStats | undefined,
  createParents: boolean,
): Promise<FilePlan> {
  let info: BackupInfo | null;
  try {
    info = await context.limit(() => context.store.statBackup(context.sessionId, backup.backupFileName));
  } catch (error) {
    const damaged = damagedBackupPlan(path, backup, error);
    if (damaged !== undefined) return damaged;
    throw error;
  }
  if (info === null) return { kind: 'missing', path, backupFileName: backup.backupFileName, reason: 'the backup does not exist in the store' };
  if (backup.size !== undefined && info.size !== backup.size) {
    return { kind: 'missing', path, backupFileName: backup.backupFileName, reason: `the backup has ${info.size} bytes, the snapshot recorded ${backup.size}` };
  }
  return { kind: 'restore', path, absolutePath, backup, info, current, currentStats, createParents };
}

/**
 * A `missing` plan when the store refused the backup object as not what it wrote (`CorruptError`:
 * a symbolic link in an fs store, say): damaged store data, so the rewind is refused as for a
 * missing backup. Undefined for any other error.
 */
function damagedBackupPlan(path: string, backup: StoredBackup, error: unknown): FilePlan | undefined {
  if (!FhError.hasCode(error, 'FH_CORRUPT')) return undefined;
  return { kind: 'missing', path, backupFileName: backup.backupFileName, reason: (error as Error).message };
}

async function statOrUndefined(context: FileHistoryContext, absolutePath: string): Promise<FsStats | undefined> {
  try {
    return await context.fs.stat(absolutePath);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** Whether a rewind target's entry makes the rewind delete the file (`null`, no error). */
function isDeletion(backup: FileHistoryBackup | undefined): boolean {
  return backup !== undefined && backup.error === undefined && backup.backupFileName === null;
}

/**
 * Whether `absolutePath` (a path that is not a folder, standing where a file needs its parent
 * folder) is a regular file this rewind deletes: a tracked path whose target is `null`.
 */
async function isDeletedRegularFile(context: FileHistoryContext, absolutePath: string, deletedByThisRewind: (path: string) => boolean): Promise<boolean> {
  let trackingPath: string;
  try {
    trackingPath = toTrackingPath(context.projectRoot, absolutePath);
  } catch {
    return false;
  }
  if (!deletedByThisRewind(trackingPath)) return false;
  const stats = await lstatOrUndefined(context, absolutePath);
  return stats?.isFile() === true;
}

/**
 * The names in the folder at `absolutePath` (tracking path `path`) that the rewind's deletions
 * leave in place, sorted: anything but a regular file or symlink that is a tracked path deleted by
 * this rewind (untracked files, subfolders, ...). Empty when the folder can be removed with rmdir.
 */
async function entriesKept(
  context: FileHistoryContext,
  path: string,
  absolutePath: string,
  deletedByThisRewind: (path: string) => boolean,
): Promise<string[]> {
  const names = (await context.fs.readdir(absolutePath)).map(String).sort();
  const kept: string[] = [];
  for (const name of names) {
    if (deletedByThisRewind(`${path}/${name}`)) {
      const stats = await lstatOrUndefined(context, join(absolutePath, name));
      if (stats === undefined || stats.isFile() || stats.isSymbolicLink()) continue;
    }
    kept.push(name);
  }
  return kept;
}

/** `a, b, c` or `a, b, c and 4 more`. */
function listNames(names: readonly string[]): string {
  const shown = names.slice(0, 3).join(', ');
  return names.length > 3 ? `${shown} and ${names.length - 3} more` : shown;
}

async function lstatOrUndefined(context: FileHistoryContext, absolutePath: string): Promise<FsStats | undefined> {
  try {
    return await context.fs.lstat(absolutePath);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

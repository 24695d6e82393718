/**
 * The dry run of `fh undo <id>` (issue 11): which files going back to just before a timeline
 * point would change, and by how many lines — `fh diff --undo <id>`. Nothing is written. Lines are
 * counted here, when asked, from each file as it is now to its pre-image (jsdiff, as a rewind's
 * `getDiffStats`), so `insertions` are lines the undo adds back. A listing of the timeline never
 * does this (it reads the summaries recorded with the points, `point-summary.ts`).
 */
import { errnoCode } from '../errors.js';
import { DEFAULT_DIFF_SIZE_CAP_BYTES } from '../file-history-context.js';
import { toAbsolutePath } from '../paths.js';
import { countLineChanges, DIFF_BUDGET_MS, DIFF_TIMEOUT_MS, MIN_DIFF_TIMEOUT_MS } from '../rewind/diff-stats.js';
import { readStoreBackup } from '../rewind/backup-content.js';
import { startPhase, type ProgressCallback } from '../progress.js';
import type { DiffStats, FileDiffStat } from '../results.js';
import type { FsStats } from '../store.js';
import { previewUndo, readTimeline, type UndoOptions, type UndoStore, type UndoWorkspace } from './undo.js';
import { findPoint } from './timeline.js';
import type { TimelinePoint } from './timeline-records.js';
import type { UndoEntry } from './undo-records.js';
import { checkBackupBytes, describeDamage, isDamaged, type BackupCheck } from '../verify/backup-check.js';
import pLimit from 'p-limit';

/** What {@link undoDiffStats} found. */
export interface UndoPreview {
  /** The point the undo would go back to just before. */
  point: TimelinePoint;
  /** The entries the undo would write (state just before the point, where it differs now), sorted by path. */
  entries: UndoEntry[];
  /**
   * Per file, from now to the pre-image: `created` exists now and the undo deletes it, `deleted`
   * the undo brings it back; a folder or symbolic link entry counts as changed with no lines.
   */
  stats: DiffStats;
}

/** Options of {@link undoDiffStats}. */
export interface UndoDiffStatsOptions extends Pick<UndoOptions, 'onWarning'> {
  /** Files larger than this (either side) are `tooLarge`, not line-counted. Default 8 MiB. */
  diffSizeCapBytes?: number;
  /** Progress for a bar: `checking` (each file against the state before the point), then `counting` (lines of the changed files). */
  onProgress?: ProgressCallback;
}

async function lstatOrUndefined(workspace: UndoWorkspace, path: string): Promise<FsStats | undefined> {
  try {
    return await workspace.fs.lstat(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * The bytes of a pre-image entry of `undo`'s session (`kind: "file"`), or null for `missing`.
 * Throws the store's errors (`NotFoundError` when the backup is gone).
 */
export async function undoEntryBytes(undo: UndoStore, entry: UndoEntry): Promise<Uint8Array | null> {
  if (entry.kind !== 'file') return null;
  return readStoreBackup(undo.store, undo.sessionId, entry.backupFileName as string);
}

/**
 * What `undoRewind(workspace, undo, { pointId })` would change (see the module comment). The
 * entries are checked as the undo checks them, so this throws what it would throw before writing:
 * `NotFoundError` (no such point), `InvalidArgumentError` (ambiguous prefix), `BackupMissingError`,
 * `CorruptError`.
 */
export async function undoDiffStats(workspace: UndoWorkspace, undo: UndoStore, pointId: string, options: UndoDiffStatsOptions = {}): Promise<UndoPreview> {
  const warnings = options.onWarning === undefined ? {} : { onWarning: options.onWarning };
  const timeline = await readTimeline(undo, warnings);
  const point = findPoint(timeline, pointId, undo.sessionId);
  const entries = await previewUndo(workspace, undo, point.undoId, { ...warnings, ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }) });
  const cap = options.diffSizeCapBytes ?? DEFAULT_DIFF_SIZE_CAP_BYTES;
  const deadline = Date.now() + DIFF_BUDGET_MS;
  const files: FileDiffStat[] = [];
  // As the undo checks them before writing: a pre-image whose bytes fail their recorded sha256
  // makes the undo refuse, so it is listed as damaged (as a rewind's dry run lists a checkpoint backup).
  const damaged = await damagedPreImages(undo, entries);
  const counting = startPhase(options.onProgress, 'counting', entries.length);
  for (const entry of entries) {
    if (damaged.has(entry.path)) {
      counting.file();
      continue;
    }
    const absolutePath = toAbsolutePath(workspace.projectRoot, entry.path);
    const current = await lstatOrUndefined(workspace, absolutePath);
    const status: FileDiffStat['status'] = entry.kind === 'missing' ? 'created' : current === undefined ? 'deleted' : 'modified';
    const stat: FileDiffStat = { path: entry.path, status, insertions: 0, deletions: 0, binary: false };
    const currentIsFile = current?.isFile() === true;
    if (entry.kind === 'file' || (entry.kind === 'missing' && currentIsFile)) {
      const tooLarge = (entry.size ?? 0) > cap || (currentIsFile && Number(current?.size ?? 0) > cap);
      if (tooLarge) stat.tooLarge = true;
      else {
        const before = currentIsFile ? await workspace.fs.readFile(absolutePath) : null;
        const after = await undoEntryBytes(undo, entry);
        const sameBytes = before !== null && after !== null && Buffer.compare(Buffer.from(before), Buffer.from(after)) === 0;
        // The undo would change this file (previewUndo compared bytes and mode): same bytes, so only its mode.
        if (sameBytes) stat.modeOnly = true;
        else {
          const timeoutMs = Math.max(MIN_DIFF_TIMEOUT_MS, Math.min(DIFF_TIMEOUT_MS, deadline - Date.now()));
          const lines = countLineChanges(before, after, timeoutMs);
          if (lines === undefined) stat.tooManyChanges = true;
          else if (lines.binary) stat.binary = true;
          else {
            stat.insertions = lines.insertions;
            stat.deletions = lines.deletions;
          }
        }
      }
    }
    files.push(stat);
    counting.file();
  }
  const stats: DiffStats = {
    filesChanged: files.map((file) => file.path),
    insertions: files.reduce((sum, file) => sum + file.insertions, 0),
    deletions: files.reduce((sum, file) => sum + file.deletions, 0),
    files,
    skipped: [],
    failed: [...damaged.values()].map((entry) => ({ path: entry.path, reason: `backup ${entry.backupFileName} damaged: ${entry.reason}` })),
    missing: [...damaged.values()],
  };
  return { point, entries, stats };
}

/** The file entries of `entries` whose pre-image fails its recorded sha256, by path (8 checked at a time; entries recorded without a hash pass). */
async function damagedPreImages(undo: UndoStore, entries: readonly UndoEntry[]): Promise<Map<string, { path: string; backupFileName: string; reason: string }>> {
  const limit = pLimit(8);
  const hashed = entries.filter((entry) => entry.kind === 'file' && entry.sha256 !== undefined && entry.size !== undefined);
  const checks = await Promise.all(
    hashed.map((entry) => limit(() => checkBackupBytes(undo.store, undo.sessionId, entry.backupFileName as string, entry.sha256 as string, entry.size as number))),
  );
  const damaged = new Map<string, { path: string; backupFileName: string; reason: string }>();
  hashed.forEach((entry, index) => {
    const check = checks[index] as BackupCheck;
    if (isDamaged(check)) damaged.set(entry.path, { path: entry.path, backupFileName: entry.backupFileName as string, reason: describeDamage(check) });
  });
  return damaged;
}

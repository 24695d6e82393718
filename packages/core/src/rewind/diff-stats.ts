/**
 * The dry run of a rewind (seed 000 §7, issue 2 rule 6): which files a rewind to a snapshot would
 * change and by how many lines (`fileHistoryGetDiffStats`), or just whether it would change any
 * (`fileHistoryHasAnyChanges`). Nothing is written.
 *
 * Lines are counted with jsdiff's `diffLines` from the file as it is now to the file as it was at
 * the snapshot, so `insertions` are lines the rewind adds back. Bytes are decoded as UTF-8 only to
 * count lines; whether a file changed is always decided on bytes. A file with a NUL byte in its
 * first 8 KiB (either side) is `binary`, and a file larger than the size cap is `tooLarge`: both
 * count as changed with no line counts.
 */
import { createHash } from 'node:crypto';
import { diffLines } from 'diff';
import { readBackupBytes } from './backup-content.js';
import { FhError } from '../errors.js';
import type { FileHistoryContext } from '../file-history-context.js';
import { planRewind, rewindTargets, type FilePlan } from './rewind-plan.js';
import type { DiffStats, FileDiffStat } from '../results.js';
import type { FileHistoryState } from '../types.js';
import { startPhase, yieldToEventLoop, type ProgressCallback } from '../progress.js';

/** Why a backup whose bytes fail the sha256 recorded when it was made cannot be rewound to. */
const DAMAGED_REASON = 'its bytes do not match the content hash recorded when it was made; run fh verify';

/** Bytes scanned for a NUL byte to call a file binary. */
const BINARY_SNIFF_BYTES = 8 * 1024;

/** Options of {@link fileHistoryGetDiffStats}. */
export interface DiffStatsOptions {
  /** Only these tracked files (absolute, or relative to the project root). Default: all. */
  paths?: readonly string[];
  /**
   * Progress in files compared, for a progress bar: `(done, total)` once the rewind is planned,
   * then as each file's lines are counted. It must not throw.
   */
  onProgress?: (done: number, total: number) => void;
  /**
   * Progress in phases, for a bar (see `progress.ts`): `checking` while each file is compared
   * with the snapshot, then `counting` while the changed files' lines are counted (with the bytes
   * of both sides). Must not throw.
   */
  onPhaseProgress?: ProgressCallback;
}

/**
 * What a rewind to `messageId` would change (seed: `fileHistoryGetDiffStats`). Throws
 * `NotFoundError` when no snapshot has `messageId` and `InvalidArgumentError` for an untracked
 * path in `options.paths`. Files whose backup is missing are listed in `failed`, not thrown.
 */
export async function fileHistoryGetDiffStats(
  state: FileHistoryState,
  messageId: string,
  context: FileHistoryContext,
  options: DiffStatsOptions = {},
): Promise<DiffStats> {
  const plans = await planRewind(context, rewindTargets(state, messageId, context, options.paths), {
    deferContent: true,
    ...(options.onPhaseProgress === undefined ? {} : { onProgress: options.onPhaseProgress }),
  });
  const stats: DiffStats = { filesChanged: [], insertions: 0, deletions: 0, files: [], skipped: [], failed: [], missing: [] };
  const missing = (path: string, backupFileName: string, reason: string) => {
    stats.failed?.push({ path, reason: `backup ${backupFileName} ${/does not exist/.test(reason) ? 'missing' : 'damaged'}: ${reason}` });
    stats.missing?.push({ path, backupFileName, reason });
  };
  const deadline = Date.now() + DIFF_BUDGET_MS;
  const timeoutMs = () => Math.max(MIN_DIFF_TIMEOUT_MS, Math.min(DIFF_TIMEOUT_MS, deadline - Date.now()));
  const total = plans.length;
  let done = plans.filter((plan) => plan?.kind !== 'restore' && plan?.kind !== 'delete').length;
  options.onProgress?.(done, total);
  const counting = startPhase(options.onPhaseProgress, 'counting', total - done);
  const counted = await Promise.all(
    plans.map((plan) =>
      plan?.kind === 'restore' || plan?.kind === 'delete'
        ? context.limit(() =>
            // Backups read synchronously make this loop synchronous: it lets the event loop turn now and then.
            yieldToEventLoop()
              .then(() => countPlan(context, plan, timeoutMs))
              .catch((error: unknown) => (error instanceof Error ? error.message : String(error)))
              .finally(() => {
                options.onProgress?.((done += 1), total);
                counting.file((plan.kind === 'restore' ? plan.info.size : 0) + Number(plan.currentStats?.size ?? 0));
              }),
          )
        : undefined,
    ),
  );
  plans.forEach((plan, index) => {
    if (plan === undefined) return;
    if (plan.kind === 'skip') stats.skipped?.push({ path: plan.path, reason: plan.reason });
    else if (plan.kind === 'fail') stats.failed?.push({ path: plan.path, reason: plan.error.message });
    else if (plan.kind === 'missing') missing(plan.path, plan.backupFileName, plan.reason);
    const file = counted[index];
    if (file === undefined) return;
    if (typeof file === 'string') {
      stats.failed?.push({ path: plan.path, reason: file });
      return;
    }
    if ('same' in file) return;
    if ('missingBackup' in file) {
      missing(plan.path, file.missingBackup, file.reason);
      return;
    }
    stats.files.push(file);
    stats.filesChanged.push(file.path);
    stats.insertions += file.insertions;
    stats.deletions += file.deletions;
  });
  return stats;
}

/**
 * True when a rewind to `messageId` would change at least one file (seed:
 * `fileHistoryHasAnyChanges`). Stops at the first difference and counts no lines. A missing
 * backup counts as a change (the rewind would not be a no-op: it would refuse). Throws
 * `NotFoundError` when no snapshot has `messageId`.
 */
export async function fileHistoryHasAnyChanges(state: FileHistoryState, messageId: string, context: FileHistoryContext): Promise<boolean> {
  const isChange = (plan: FilePlan) => plan.kind === 'restore' || plan.kind === 'delete' || plan.kind === 'missing';
  const plans = await planRewind(context, rewindTargets(state, messageId, context), { stopWhen: isChange });
  return plans.some((plan) => plan !== undefined && isChange(plan));
}

/** Line counts for one file a rewind would write; a string says why it cannot be counted. */
async function countPlan(
  context: FileHistoryContext,
  plan: Extract<FilePlan, { kind: 'restore' | 'delete' }>,
  timeoutMs: () => number,
): Promise<FileDiffStat | { missingBackup: string; reason: string } | { same: true } | string> {
  const cap = context.diffSizeCapBytes;
  const stat: FileDiffStat = {
    path: plan.path,
    status: plan.kind === 'delete' ? 'created' : plan.current === 'missing' || plan.current === 'folder' ? 'deleted' : 'modified',
    insertions: 0,
    deletions: 0,
    binary: false,
  };
  let currentBytes: Uint8Array | null = null;
  let backupBytes: Uint8Array | null = null;

  if (plan.kind === 'restore') {
    const size = plan.info.size;
    const currentSize = plan.currentStats?.size;
    if (size > cap || (currentSize !== undefined && Number(currentSize) > cap)) return { ...stat, tooLarge: true };
    // Both sides are read at once: each read is a few round trips to the thread pool (or the store).
    const current = plan.currentStats === undefined ? Promise.resolve(null) : readCurrent(context, plan.absolutePath, Number(plan.currentStats.size));
    current.catch(() => undefined);
    try {
      backupBytes = await readBackupBytes(context, plan.backup.backupFileName);
    } catch (error) {
      if (FhError.hasCode(error, 'FH_NOT_FOUND')) return { missingBackup: plan.backup.backupFileName, reason: 'the backup does not exist in the store' };
      // A store that checks the hash as it reads (S3) refuses the damaged bytes itself.
      if (FhError.hasCode(error, 'FH_CORRUPT')) return { missingBackup: plan.backup.backupFileName, reason: DAMAGED_REASON };
      throw error;
    }
    // The bytes are in memory anyway: a backup that no longer hashes to the sha256 recorded when it
    // was made is reported as the rewind will treat it (refused), not counted as what it would write.
    const recorded = plan.backup.sha256;
    if (recorded !== undefined) {
      const digest = createHash('sha256').update(backupBytes).digest('hex');
      if (digest !== recorded.toLowerCase()) return { missingBackup: plan.backup.backupFileName, reason: DAMAGED_REASON };
    }
    currentBytes = await current;
  } else {
    if (plan.current === 'symlink') return stat;
    if (Number(plan.currentStats.size) > cap) return { ...stat, tooLarge: true };
    currentBytes = await readCurrent(context, plan.absolutePath, Number(plan.currentStats.size));
  }

  if (currentBytes !== null && backupBytes !== null && Buffer.compare(currentBytes, backupBytes) === 0) {
    // Planned without a byte comparison: size and mode already matched, so equal bytes mean no change.
    if (plan.kind === 'restore' && plan.contentUnchecked === true) return { same: true };
    return { ...stat, modeOnly: true };
  }
  const lines = countLineChanges(currentBytes, backupBytes, timeoutMs());
  return lines === undefined ? { ...stat, tooManyChanges: true } : { ...stat, ...lines };
}

/** Files up to this size (bytes) are read with one synchronous read where the file system has it. */
export const SYNC_READ_LIMIT_BYTES = 256 * 1024;

/**
 * The bytes of the project file at `absolutePath` (`size`: its size when planned): one
 * synchronous read when the file system offers `readFileSync` and the file is small
 * ({@link SYNC_READ_LIMIT_BYTES}), else the async read. Errors are the file system's.
 */
async function readCurrent(context: FileHistoryContext, absolutePath: string, size: number): Promise<Uint8Array> {
  const readFileSync = context.fs.readFileSync;
  if (typeof readFileSync === 'function' && size <= SYNC_READ_LIMIT_BYTES) return readFileSync.call(context.fs, absolutePath);
  return context.fs.readFile(absolutePath);
}

/**
 * Milliseconds one file's line diff may take before it gives up (jsdiff's `timeout`). A diff is
 * quadratic in the lines that changed: 20,000 changed lines take about a minute, so a file whose
 * every line changed (a formatter run, CRLF conversion) would stall a preview without it.
 */
export const DIFF_TIMEOUT_MS = 1000;

/**
 * Milliseconds all line diffs of one `getDiffStats` call may take together: past it, each further
 * file gets {@link MIN_DIFF_TIMEOUT_MS}, so a dozen reformatted files cost seconds, not a dozen.
 */
export const DIFF_BUDGET_MS = 3000;

/** The least time a file's line diff gets once the call's budget is spent, in ms. */
export const MIN_DIFF_TIMEOUT_MS = 50;

/** Line counts between two versions of a file, from {@link countLineChanges}. */
export interface LineChanges {
  /** Lines in `target` that are not in `current` (jsdiff `diffLines` additions). */
  insertions: number;
  /** Lines in `current` that are not in `target`. */
  deletions: number;
  /** Either side has a NUL byte in its first 8 KiB: no line counts. */
  binary: boolean;
}

/**
 * Count the lines a change from `current` to `target` adds and removes (`null`: the file does not
 * exist, counted as empty). Bytes are decoded as UTF-8 only to count lines; a NUL byte in the first
 * 8 KiB of either side makes the result `binary` with no counts. Undefined when the diff takes
 * longer than `timeoutMs` (default {@link DIFF_TIMEOUT_MS}).
 */
export function countLineChanges(current: Uint8Array | null, target: Uint8Array | null, timeoutMs = DIFF_TIMEOUT_MS): LineChanges | undefined {
  if (hasNulByte(current) || hasNulByte(target)) return { insertions: 0, deletions: 0, binary: true };
  const decoder = new TextDecoder('utf-8');
  const changes = diffLines(current === null ? '' : decoder.decode(current), target === null ? '' : decoder.decode(target), { timeout: timeoutMs });
  if (changes === undefined) return undefined;
  let insertions = 0;
  let deletions = 0;
  for (const change of changes) {
    if (change.added) insertions += change.count;
    else if (change.removed) deletions += change.count;
  }
  return { insertions, deletions, binary: false };
}

function hasNulByte(bytes: Uint8Array | null): boolean {
  return bytes !== null && bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

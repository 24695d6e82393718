/**
 * `fileHistoryRewind` (seed 000 §4, seed 004 §3.3, issue 2 rule 4): put every tracked file back
 * exactly as it was at a snapshot. The rewind writes only files; the state is not changed.
 *
 * 1. Plan each file (see `rewind-plan.ts`): only files whose bytes or mode differ are touched.
 * 2. Validate before touching anything: every backup the rewind needs must exist in the store and
 *    have its recorded size (planning checks each one), and its bytes must hash to the sha256
 *    recorded when it was made (entries without a hash are not checked); otherwise
 *    `BackupMissingError` lists each one and no file changes (a missing backup is never read as
 *    "the file did not exist"). Each backup is read once: after `beforeWrite` (the caller's
 *    timeline point), every restore is copied beside its target and the copy hashed
 *    (`stageRestores`) before any file changes, and a damaged one removes every copy and refuses.
 *    Only a restore whose folder must change first (created after the deletions, or a folder at
 *    the path) is read and hashed before `beforeWrite` instead, and its copy checked as it is made.
 * 3. Apply, with bounded concurrency: every deletion first, then every restore. A restore copies
 *    (or has copied, step 2) the backup into a temp file in the target's folder (`.<name>.fh-<random>.tmp`), sets its
 *    mode (skipped when a sync `stat`, where the file system has one, shows the copy has it
 *    already), and renames it over the target: no half-written file is ever visible, and a hard
 *    link or symlink at the path is replaced, never written through. Missing parent folders are
 *    created. A `null` entry unlinks the file (or the symlink itself). Paths reached through a
 *    symlinked folder are skipped and reported; nothing is written outside the project root:
 *    every write goes through a folder opened without following links (`project-writer.ts`), so
 *    a folder swapped for a link while the rewind runs makes its files fail, never written
 *    elsewhere. Each restored file is fsynced before its rename, each folder changed after.
 *    Modes are masked (`restored-mode.ts`). Temp files a killed rewind or undo left in the folders
 *    written to are removed first (all of them under the session lock, see `sessionLocked`).
 *
 * Across a file ↔ folder change nothing but the rewind's own files is removed: a folder standing
 * where the snapshot has a file is removed with rmdir (never recursively) once the deletions have
 * emptied it, else it is skipped with why (it holds untracked files, say); a regular file standing
 * where the snapshot needs a folder is removed only when it is itself tracked and deleted by the
 * same rewind. `beforeWrite` receives those paths too, so the undo point can put them back.
 * Folders the deletions leave empty that were created after the snapshot are removed
 * (`empty-folders.ts`); an undo recreates them with the files it puts back.
 */
import { createHash } from 'node:crypto';
import { BackupMissingError, CorruptError, errnoCode, FhError } from '../errors.js';
import { hashWorkspaceFile, type StoredBackup } from '../snapshot/change-detection.js';
import { captureState, type FileHistoryContext, type FileHistoryStateUpdater } from '../file-history-context.js';
import { planRewind, rewindTargets, type FilePlan } from './rewind-plan.js';
import { findSnapshot } from '../state/state-queries.js';
import { STALE_TEMPORARY_MS } from './temporary-files.js';
import { openProjectWriter, splitTrackingPath, type ProjectWriter, type StagedFile } from './project-writer.js';
import { restoredMode } from './restored-mode.js';
import { checkBackupBytes, describeDamage, isDamaged, type BackupCheck } from '../verify/backup-check.js';
import { removeFoldersLeftEmpty } from './empty-folders.js';
import type { RewindResult } from '../results.js';
import { startPhase, type ProgressCallback } from '../progress.js';
import type { FileHistoryState } from '../types.js';

/**
 * What a rewind writes at one path (the `plan` given to `beforeWrite`): a checkpoint backup with
 * the mode the file gets, or `null` (the file is deleted).
 */
export interface RewindWrite {
  path: string;
  backupFileName: string | null;
  /** Mode the file gets (see `restored-mode.ts`); `null` for a deletion. */
  mode: number | null;
  size?: number;
}

/** Options of {@link fileHistoryRewind}. */
export interface RewindOptions {
  /** Rewind only these tracked files (absolute, or relative to the project root). Default: all. */
  paths?: readonly string[];
  /**
   * Called once after validation and before the first write, with the tracking paths the rewind
   * is about to write or delete, a folder it replaces by a file included (sorted; not called when
   * there are none). If it rejects, the rewind rejects with that error and nothing is written.
   * `plan` says what the rewind will write at each of them. `RewindSession` journals its timeline
   * point here.
   */
  beforeWrite?: (paths: readonly string[], plan: readonly RewindWrite[]) => Promise<void>;
  /**
   * The caller holds the session's lock, so every fh temp file (`.name.fh-<hex>.tmp`) in a folder
   * the rewind writes is a leftover of a killed process and is removed first. Default false: only
   * temps older than 60 s are removed. `FileHistory.rewind` sets it while it holds the lock.
   */
  sessionLocked?: boolean;
  /**
   * Progress for a bar (see `progress.ts`): `checking` while each file is compared with the
   * snapshot, then `writing` (files and bytes restored or deleted). Must not throw.
   */
  onProgress?: ProgressCallback;
  /**
   * `FileHistory.rewind` only: first roll back an interrupted rewind, undo or redo recorded in the
   * session's log (a pending timeline point, see `recoverPending`). Default true; `RewindSession`
   * passes false, having recovered on its own undo store already.
   */
  recoverFirst?: boolean;
}

/**
 * Rewind every tracked file (or `options.paths`) to the snapshot of `messageId`. Returns what was
 * restored, deleted, skipped (with why) and failed (with the error); files already as at the
 * snapshot are not listed. Throws `NotFoundError` when no snapshot has `messageId`,
 * `BackupMissingError` (changing nothing) when a needed backup is missing, the wrong size or fails its content hash, and
 * `InvalidArgumentError` for a path in `options.paths` that is not tracked. A no-op updater
 * (subagent) rewinds nothing and returns an empty result.
 */
export async function fileHistoryRewind(
  updateState: FileHistoryStateUpdater,
  messageId: string,
  context: FileHistoryContext,
  options: RewindOptions = {},
): Promise<RewindResult> {
  const result: RewindResult = { messageId, restored: [], deleted: [], skipped: [], failed: [] };
  const state = captureState(updateState);
  if (state === undefined) return result;
  const plans = await planRewind(context, rewindTargets(state, messageId, context, options.paths), options.onProgress === undefined ? {} : { onProgress: options.onProgress });

  const writes: Array<Extract<FilePlan, { kind: 'restore' | 'delete' }>> = [];
  for (const plan of plans) {
    if (plan === undefined) continue;
    if (plan.kind === 'skip') result.skipped.push({ path: plan.path, reason: plan.reason });
    else if (plan.kind === 'fail') result.failed.push({ path: plan.path, error: plan.error });
    else if (plan.kind === 'restore' || plan.kind === 'delete') writes.push(plan);
  }
  // A restore whose folder must change first (created, or a folder at the path removed) is only
  // copied after the deletions, so its backup is read and hashed now; every other one is checked
  // as it is copied, before any file is changed (below).
  const late = (plan: Extract<FilePlan, { kind: 'restore' | 'delete' }>): boolean => plan.kind === 'restore' && (plan.createParents || plan.current === 'folder');
  refuseIfBackupsMissing(plans, await damagedBackups(context, writes.filter(late)));
  if (writes.length > 0) {
    await options.beforeWrite?.(
      writes.map((plan) => plan.path),
      writes.map((plan): RewindWrite =>
        plan.kind === 'delete'
          ? { path: plan.path, backupFileName: null, mode: null }
          : { path: plan.path, backupFileName: plan.backup.backupFileName, mode: restoredMode(plan.backup.mode ?? plan.info.mode, plan.info.mode), size: plan.info.size },
      ),
    );
  }

  const deletions = writes.filter((plan) => plan.kind === 'delete');
  const restores = writes.filter((plan) => plan.kind === 'restore');
  const size = (plan: Extract<FilePlan, { kind: 'restore' | 'delete' }>) => (plan.kind === 'restore' ? plan.info.size : 0);
  const progress = startPhase(options.onProgress, 'writing', writes.length, restores.reduce((sum, plan) => sum + size(plan), 0));
  const writer = await openProjectWriter(context.fs, context.projectRoot);
  try {
    await removeLeftoverTemporaryFiles(writer, restores.map((plan) => splitTrackingPath(plan.path).folder), options.sessionLocked === true);
    const early = restores.filter((plan) => !late(plan));
    const staged = await stageRestores(context, writer, early);
    const stagedOutcome = new Map(early.map((plan, index) => [plan, staged[index]]));
    const apply = (plan: Extract<FilePlan, { kind: 'restore' | 'delete' }>): Promise<Outcome> => {
      const stage = stagedOutcome.get(plan as Extract<FilePlan, { kind: 'restore' }>);
      if (stage === undefined) return applyPlan(context, writer, plan);
      if (stage instanceof Error) return Promise.resolve(stage);
      return stage.commit().then(
        (): Outcome => 'restored',
        (error: unknown): Outcome => (error instanceof Error ? error : new Error(String(error))),
      );
    };
    for (const phase of [deletions, restores]) {
      const outcomes = await Promise.all(phase.map((plan) => context.limit(() => apply(plan).finally(() => progress.file(size(plan))))));
      phase.forEach((plan, index) => {
        const outcome = outcomes[index];
        if (outcome instanceof Error) result.failed.push({ path: plan.path, error: outcome });
        else if (outcome === 'restored') result.restored.push(plan.path);
        else if (outcome === 'deleted') result.deleted.push(plan.path);
        else if (typeof outcome === 'object') result.skipped.push({ path: plan.path, reason: outcome.skipped });
      });
    }
    const snapshot = findSnapshot(state, messageId);
    if (snapshot !== undefined && result.deleted.length > 0) await removeFoldersLeftEmpty(writer, result.deleted, new Date(snapshot.timestamp));
  } finally {
    await writer.close();
  }
  result.skipped.sort((a, b) => compare(a.path, b.path));
  result.failed.sort((a, b) => compare(a.path, b.path));
  return result;
}

/**
 * Whether a rewind to `messageId` is possible: the state has a snapshot for it (seed:
 * `fileHistoryCanRestore`).
 */
export function fileHistoryCanRestore(state: FileHistoryState, messageId: string): boolean {
  return findSnapshot(state, messageId) !== undefined;
}

/** How writing one file ended. */
type Outcome = 'restored' | 'deleted' | 'none' | { skipped: string } | Error;

/**
 * Copy the backup of each restore in `plans` beside its target (a temp file, given its mode and
 * fsynced; `ProjectFolder.stageFile`), checking the copy against the content hash its entry
 * recorded: each backup is read once. Returns per plan the staged file or the error that made
 * that file fail. When any backup is missing or damaged, every staged copy is removed and
 * `BackupMissingError` lists them: no file was changed.
 */
async function stageRestores(context: FileHistoryContext, writer: ProjectWriter, plans: ReadonlyArray<Extract<FilePlan, { kind: 'restore' }>>): Promise<Array<StagedFile | Error>> {
  const staged = await Promise.all(
    plans.map((plan) =>
      context.limit(async (): Promise<StagedFile | Error> => {
        try {
          const { folder: relativeFolder, name } = splitTrackingPath(plan.path);
          const folder = await writer.folder(relativeFolder);
          const mode = restoredMode(plan.backup.mode ?? plan.info.mode, plan.info.mode);
          return await folder.stageFile(name, (destination) => restoreChecked(context, plan.path, plan.backup, destination), mode);
        } catch (error) {
          return error instanceof Error ? error : new Error(String(error));
        }
      }),
    ),
  );
  // A copy refused as damaged or missing: the backup is read again (only then) to say how, in
  // the words `fh verify` uses.
  const refused = plans.filter((_, index) => {
    const outcome = staged[index];
    return outcome instanceof Error && (FhError.hasCode(outcome, 'FH_CORRUPT') || FhError.hasCode(outcome, 'FH_NOT_FOUND'));
  });
  const damaged = (await damagedBackups(context, refused)).concat(
    refused.filter((plan) => plan.backup.sha256 === undefined).map((plan) => ({ path: plan.path, backupFileName: plan.backup.backupFileName, reason: (staged[plans.indexOf(plan)] as Error).message })),
  );
  if (damaged.length > 0) {
    await Promise.all(staged.map((outcome) => (outcome instanceof Error ? undefined : outcome.discard())));
    refuseIfBackupsMissing([], damaged);
  }
  return staged;
}

/** A backup that failed a check: tracked path, backup file name and why. */
type Refused = { path: string; backupFileName: string; reason: string };

/**
 * The restores whose backup's bytes no longer hash to the sha256 recorded when it was made, read
 * and hashed from the store before anything is written (bounded by `context.limit`). Backups whose
 * entry has no hash (older records, Claude Code's) cannot be checked and pass.
 */
async function damagedBackups(context: FileHistoryContext, writes: ReadonlyArray<Extract<FilePlan, { kind: 'restore' | 'delete' }>>): Promise<Refused[]> {
  const restores = writes.filter((plan): plan is Extract<FilePlan, { kind: 'restore' }> => plan.kind === 'restore' && plan.backup.sha256 !== undefined);
  const checks = await Promise.all(
    restores.map((plan) => context.limit(() => checkBackupBytes(context.store, context.sessionId, plan.backup.backupFileName, plan.backup.sha256 as string, plan.info.size))),
  );
  return restores.flatMap((plan, index) => {
    const check = checks[index] as BackupCheck;
    return isDamaged(check) ? [{ path: plan.path, backupFileName: plan.backup.backupFileName, reason: describeDamage(check) }] : [];
  });
}

/**
 * Throw BackupMissingError listing every backup planning found missing or the wrong size, and
 * every one whose bytes failed their content hash (`damaged`), before anything is written.
 */
function refuseIfBackupsMissing(plans: ReadonlyArray<FilePlan | undefined>, damaged: readonly Refused[]): void {
  const missing: Refused[] = [];
  for (const plan of plans) {
    if (plan?.kind === 'missing') missing.push({ path: plan.path, backupFileName: plan.backupFileName, reason: plan.reason });
  }
  missing.push(...damaged);
  if (missing.length === 0) return;
  missing.sort((a, b) => compare(a.path, b.path));
  const list = missing.map((entry) => `${entry.path} (${entry.backupFileName}: ${entry.reason})`).join('; ');
  const count = missing.length === 1 ? '1 backup is' : `${missing.length} backups are`;
  const advice = damaged.length === 0 ? '' : '. Rewind the other files by naming them (the paths option, fh rewind --paths), and run fh verify to see which checkpoints and undo points the damage breaks';
  throw new BackupMissingError(`rewind refused, nothing was changed: ${count} missing or damaged: ${list}${advice}`, missing);
}

/**
 * Remove fh's project temp files from `folders` (tracking paths) before writing there: every one
 * when the caller holds the session's lock (then any temp is a leftover of a killed process of
 * this session: only one process writes the project at a time), otherwise only those older than
 * {@link STALE_TEMPORARY_MS}. A folder that cannot be opened is left alone.
 */
export async function removeLeftoverTemporaryFiles(writer: ProjectWriter, folders: Iterable<string>, sessionLocked: boolean): Promise<void> {
  const olderThan = sessionLocked ? undefined : Date.now() - STALE_TEMPORARY_MS;
  await Promise.all(
    [...new Set(folders)].map(async (relativeFolder) => {
      const folder = await writer.folder(relativeFolder).catch(() => undefined);
      await folder?.removeTemporaryFiles(olderThan);
    }),
  );
}

async function applyPlan(
  context: FileHistoryContext,
  writer: ProjectWriter,
  plan: Extract<FilePlan, { kind: 'restore' | 'delete' }>,
): Promise<Outcome> {
  try {
    const { folder: relativeFolder, name } = splitTrackingPath(plan.path);
    if (plan.kind === 'delete') {
      const folder = await writer.folder(relativeFolder);
      try {
        await folder.unlink(name);
        return 'deleted';
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return 'none';
        throw error;
      }
    }
    const folder = await writer.folder(relativeFolder, { create: plan.createParents });
    if (plan.current === 'folder') {
      try {
        await folder.rmdir(name);
      } catch (error) {
        const code = errnoCode(error);
        if (code === 'ENOTEMPTY' || code === 'EEXIST') return { skipped: 'a folder is at this path and is not empty' };
        if (code !== 'ENOENT') throw error;
      }
    }
    const mode = restoredMode(plan.backup.mode ?? plan.info.mode, plan.info.mode);
    await folder.replaceFile(name, (destination) => restoreChecked(context, plan.path, plan.backup, destination), mode);
    return 'restored';
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * Copy the backup into `destination` and, when its entry recorded a content hash, check the copy
 * against it: a backup whose bytes changed since it was made (damaged or replaced in the store) is
 * refused with `CorruptError` and the file is left as it is (the caller removes the temp copy).
 */
async function restoreChecked(context: FileHistoryContext, path: string, backup: StoredBackup, destination: string): Promise<void> {
  await context.store.restoreBackup(context.sessionId, backup.backupFileName, destination);
  if (backup.sha256 === undefined) return;
  const digest = await hashCopy(context, destination, backup.size);
  if (digest !== backup.sha256) {
    throw new CorruptError(
      `${path}: backup ${backup.backupFileName} does not match the content hash recorded when it was made (sha256 ${backup.sha256.slice(0, 12)}…, now ${digest.slice(0, 12)}…), so the file was left as it is; run fh verify to list damaged backups`,
    );
  }
}

/** Copies up to this size (bytes) are hashed with one synchronous read where the file system has it. */
const SYNC_HASH_LIMIT_BYTES = 256 * 1024;

/**
 * Lower-case hex sha256 of the fresh copy at `destination` (`size`: the backup's recorded size):
 * one synchronous read when it is small and the file system offers `readFileSync` (a read of a
 * file just written, in the page cache), else read in steps (`hashWorkspaceFile`).
 */
async function hashCopy(context: FileHistoryContext, destination: string, size: number | undefined): Promise<string> {
  const readFileSync = context.fs.readFileSync;
  if (typeof readFileSync === 'function' && size !== undefined && size <= SYNC_HASH_LIMIT_BYTES) {
    return createHash('sha256').update(readFileSync.call(context.fs, destination)).digest('hex');
  }
  return hashWorkspaceFile(context.fs, destination, size);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

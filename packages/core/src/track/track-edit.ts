/**
 * `fileHistoryTrackEdit` (seed 000 §5, seed 004 §3.1): back a file up before an agent edits it.
 *
 * Three phases, so speculative or concurrent calls never overwrite a file's v1:
 * 1. Capture the state. If the most recent snapshot already tracks the file, return: its backup
 *    there is the file as it was before this turn's first edit.
 * 2. Outside any state update, copy the file into the store (or note `null` when it does not exist
 *    yet, so a rewind deletes a file the agent created). The copy runs under the context's
 *    concurrency limit, so thousands of concurrent calls never exhaust file descriptors.
 * 3. Commit with a re-check: attach the backup to the most recent snapshot, unless another
 *    `trackEdit` won meanwhile; then the now unused backup object is deleted (no orphan).
 *    Commits finishing together are applied in one batch (see `attach-backups.ts`).
 *
 * A path that is a symlink, or lies under a symlinked folder, is tracked as the file the links
 * lead to when that file is inside the project (see `resolve-links.ts`), so the link stays a link
 * and the file the agent really changes is the one backed up and rewound.
 *
 * With no snapshot yet there is no turn to attach the backup to. The seed returns without doing
 * anything (it logs "Missing most recent snapshot"), so the edit goes without a backup; fh throws
 * `NotFoundError` instead, so a host that skipped `makeSnapshot` learns of it before the agent
 * writes. A no-op updater (one that captures no state, seed 004 §8) still does nothing.
 *
 * Attribution (issue 14): the entry of the turn records who changed the file (`changedBy`):
 * `agent` (default the main agent) is added the first time it changes the file in the turn — on
 * the new backup, or, when the turn already tracks the file, on its entry alone (one record, no
 * copy). An agent already listed costs nothing.
 *
 * Prepared bytes (issue 10): a process that must not hold the session's lock while it copies (a
 * hook among hundreds) copies the file first (`prepareTrackEdit`, `BackupStore.prepareBackup`)
 * and passes the copy in `options.prepared`: phase 2 then only gives it its backup name. The copy
 * is removed when it is not needed (the turn tracks the file already, the links lead elsewhere)
 * and on any error.
 */
import { resolve } from 'node:path';
import { attachBackup } from './attach-backups.js';
import { FhError, NotFoundError, OutsideRootError } from '../errors.js';
import { commitPrepared, createBackup } from './create-backup.js';
import type { PreparedEdit } from './prepare-edit.js';
import { captureState, type FileHistoryContext, type FileHistoryStateUpdater } from '../file-history-context.js';
import { toAbsolutePath, toTrackingPath } from '../paths.js';
import { realTrackingPath, resolveLinks } from './resolve-links.js';
import { isBackupReferenced, nextVersion } from '../state/state-queries.js';
import { entryOf } from '../state/snapshot-chain.js';
import { attributionFor, entryChangedBy, MAIN_AGENT, type AgentIdentity } from '../attribution/agents.js';

/** Options of {@link fileHistoryTrackEdit}. */
export interface TrackEditOptions {
  /** The file's bytes copied into the store before (see `prepareTrackEdit`); consumed either way. */
  prepared?: PreparedEdit;
}

/**
 * Call before `agent` (default: the main agent) writes `path` (absolute, or relative to the project root). Resolves once the
 * backup exists and, when the context records snapshots, once the updated snapshot is durable in
 * the session log. Throws `OutsideRootError` naming the path if it lies outside the project root or
 * inside the store's own storage, `NotFoundError` if the session has no snapshot yet,
 * `InvalidArgumentError` if it is a directory, and the store's or log's errors; on any error the
 * state is unchanged and no backup object is left behind.
 */
export async function fileHistoryTrackEdit(
  updateState: FileHistoryStateUpdater,
  path: string,
  context: FileHistoryContext,
  agent: AgentIdentity = MAIN_AGENT,
  options: TrackEditOptions = {},
): Promise<void> {
  const { prepared } = options;
  try {
    await trackEdit(updateState, path, context, agent, prepared);
  } finally {
    await prepared?.backup.discard();
  }
}

async function trackEdit(updateState: FileHistoryStateUpdater, path: string, context: FileHistoryContext, agent: AgentIdentity, prepared: PreparedEdit | undefined): Promise<void> {
  const givenTrackingPath = await trackingPathOf(context, path);
  const givenAbsolutePath = toAbsolutePath(context.projectRoot, givenTrackingPath);
  if (context.store.containsPath(givenAbsolutePath)) {
    throw new OutsideRootError(`${path} is inside fh's own storage and is never tracked`);
  }

  const captured = captureState(updateState);
  if (captured === undefined) return;
  const mostRecent = captured.snapshots.at(-1);
  if (mostRecent === undefined) {
    throw new NotFoundError(
      `session "${context.sessionId}" has no snapshot yet, so ${givenTrackingPath} cannot be backed up: make the turn's snapshot (makeSnapshot) before tracking edits`,
    );
  }
  const { trackingPath, absolutePath } = await resolveLinks(context, { trackingPath: givenTrackingPath, absolutePath: givenAbsolutePath });
  if (absolutePath !== givenAbsolutePath && context.store.containsPath(absolutePath)) {
    throw new OutsideRootError(`${path} leads to ${absolutePath}, inside fh's own storage, which is never tracked`);
  }
  const attribution = attributionFor(agent, new Date());
  const tracked = entryOf(mostRecent, trackingPath);
  if (tracked !== undefined) {
    if (entryChangedBy(tracked, agent)) return;
    const outcome = await attachBackup(updateState, context, trackingPath, undefined, attribution);
    await outcome.recorded;
    return;
  }

  const version = nextVersion(captured, trackingPath);
  const backup = prepared !== undefined && prepared.backup.sourcePath === absolutePath ? await commitPrepared(prepared, absolutePath, version) : await context.limit(() => createBackup(context, absolutePath, version));

  const outcome = await attachBackup(updateState, context, trackingPath, backup, attribution);
  if (outcome.attached) {
    await outcome.recorded;
    return;
  }
  await outcome.recorded;
  if (backup.backupFileName !== null && (outcome.state === undefined || !isBackupReferenced(outcome.state, backup.backupFileName, trackingPath))) {
    await context.store.deleteBackup(context.sessionId, backup.backupFileName);
  }
}

/**
 * The tracking path of `path` (absolute, or relative to the root). A path outside the root as
 * written but inside its real location (the root opened through a symlink, the path given by its
 * real name, as hooks on macOS do with `/tmp` and `/private/tmp`) is mapped into the project;
 * anything else outside throws the `OutsideRootError` naming it.
 */
async function trackingPathOf(context: FileHistoryContext, path: string): Promise<string> {
  try {
    return toTrackingPath(context.projectRoot, path);
  } catch (error) {
    if (!FhError.hasCode(error, 'FH_OUTSIDE_ROOT')) throw error;
    const mapped = await realTrackingPath(context, resolve(context.projectRoot, path));
    if (mapped === undefined) throw error;
    return mapped;
  }
}

/**
 * `fh checkpoint [--label <text>]`: record the current state on demand (issue 11) — a snapshot of
 * the session's tracked files under a new message id (backups of those changed since the turn's
 * snapshot) marked by an `fh-checkpoint` record of kind `manual` with the label, the same record
 * the `Stop` hook writes at the end of a turn (`takeCheckpoint` in `@fh/core`). `fh list` shows it
 * with its label; `fh rewind <id>` goes back to it. Command windows still open (an `fh run` that
 * was killed) are ended first, as a new turn's snapshot ends them.
 *
 * A label that is empty, over 200 characters or holds a control character is a usage error
 * (exit 2); nothing is recorded. The printed follow-up commands carry `--session`.
 *
 * JSON: `{ "sessionId", "projectRoot", "messageId", "kind": "manual", "label" (null when none),
 * "timestamp", "files": [trackingPath…], "backedUp": [trackingPath…] }` (`files`: every file the
 * checkpoint holds; `backedUp`: those backed up for it, the rest were unchanged since the last
 * checkpoint), `"failed": [{ "path", "error" }]` (files whose backup failed: the command exits 3
 * naming them after the checkpoint was recorded).
 */
import { checkCheckpointLabel, FhError, newBackupFailures } from '@fh/core';
import { backupFailureMessage, PartialFailureError, UsageError } from '../cli-errors.js';
import { plainError } from '../plain-errors.js';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import { assertWritable } from '../claude-guard.js';
import { fhCommand } from '../command-hint.js';
import type { CommandContext } from '../context.js';
import { displayId, escapeControl, plural } from '../format.js';
import { openSession } from '../open-session.js';
import { describeMissed, endStaleWindows, openCommandTools } from '../command-window.js';
import { rewindSessionFor } from '../rewind-session.js';

/** Options of `fh checkpoint`. */
export interface CheckpointOptions {
  label?: string;
}

/** Run `fh checkpoint`. */
export async function run(context: CommandContext, options: CheckpointOptions): Promise<void> {
  assertWritable(context, 'checkpoint');
  assertCheckpointingEnabled(context, 'no checkpoint is recorded while it is set');
  if (options.label !== undefined) {
    try {
      checkCheckpointLabel(options.label);
    } catch (error) {
      throw new UsageError(FhError.isInstance(error) ? error.message : String(error));
    }
  }
  const session = await openSession(context);
  try {
    if (session.history.state.snapshots.length > 0) {
      const tools = await openCommandTools(context.storeLocation, context.environment, context.home, session.sessionId);
      for (const capture of await endStaleWindows(session.history, tools, 0)) for (const line of describeMissed(capture)) context.output.warn(line);
    }
    const previous = session.history.state.snapshots.at(-1);
    const rewinder = await rewindSessionFor(context, session);
    const taken = await rewinder.checkpoint(options.label === undefined ? {} : { label: options.label });
    if (taken === undefined) throw new Error('file checkpointing is off for this session; nothing was recorded');
    const files = Object.keys(taken.snapshot.trackedFileBackups).sort();
    const failed = newBackupFailures(taken.snapshot, previous).map(({ path, error }) => ({ path, error: plainError(error) }));
    const failedPaths = new Set(failed.map((failure) => failure.path));
    const backedUp = files.filter((path) => !failedPaths.has(path) && taken.snapshot.trackedFileBackups[path]?.backupFileName !== previous?.trackedFileBackups[path]?.backupFileName);
    const again = (words: string[]) => fhCommand(context, words, { session: session.sessionId });
    context.output.result(
      {
        sessionId: session.sessionId,
        projectRoot: session.projectRoot,
        messageId: taken.messageId,
        kind: taken.mark.kind,
        label: taken.mark.label ?? null,
        timestamp: taken.snapshot.timestamp,
        files,
        backedUp,
        failed,
      },
      () => [
        `checkpoint ${displayId(taken.messageId)}${taken.mark.label === undefined ? '' : ` "${escapeControl(taken.mark.label)}"`}: ${plural(files.length, 'tracked file')}, ${backedUp.length} backed up now`,
        `Rewind to it with: ${again(['rewind', taken.messageId])}`,
        `Every checkpoint: ${again(['list'])}`,
      ],
    );
    if (failed.length > 0) throw new PartialFailureError(backupFailureMessage(`checkpoint ${displayId(taken.messageId)}`, failed.length), failed);
  } finally {
    await session.close();
  }
}

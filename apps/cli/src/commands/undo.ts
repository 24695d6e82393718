/**
 * `fh undo`: put back the files the last rewind changed, exactly as they were before it (from the
 * undo point saved before the rewind wrote anything). Undoing again redoes. The conversation is
 * not changed.
 *
 * JSON: `{ "sessionId", "projectRoot", "undoId", "redoUndoId", "restored", "deleted",
 * "skipped": [{ "path", "reason" }], "failed": [{ "path", "error" }] }`. Exit 3 when some files
 * could not be put back or were skipped (each is named; the undo point stays, so it can be tried again).
 */
import { partialMessage, PartialFailureError } from '../cli-errors.js';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import type { CommandContext } from '../context.js';
import { fhCommand } from '../command-hint.js';
import { displayPath } from '../format.js';
import { reasonText } from '../render-stats.js';
import { openSession } from '../open-session.js';
import { rewindSessionFor } from '../rewind-session.js';

/** Run `fh undo`. */
export async function run(context: CommandContext): Promise<void> {
  assertCheckpointingEnabled(context, 'undo writes no file while it is set');
  const session = await openSession(context);
  try {
    const rewinder = await rewindSessionFor(context, session);
    const result = await rewinder.undoRewind();
    const failed = result.failed.map((failure) => ({ path: failure.path, error: failure.error.message }));
    context.output.result(
      {
        sessionId: session.sessionId,
        projectRoot: session.projectRoot,
        undoId: result.undoId,
        redoUndoId: result.redoUndoId,
        restored: result.restored,
        deleted: result.deleted,
        skipped: result.skipped,
        failed,
      },
      () => [
        `Undid the last rewind: ${result.restored.length} restored, ${result.deleted.length} deleted`,
        ...result.restored.map((path) => `  restored  ${displayPath(path)}`),
        ...result.deleted.map((path) => `  deleted   ${displayPath(path)}`),
        ...result.skipped.map((entry) => `  skipped   ${displayPath(entry.path)}: ${reasonText(entry.path, entry.reason)}`),
        ...(result.redoUndoId === null ? [] : [`Run ${fhCommand(context, ['undo'])} again to redo the rewind.`]),
      ],
    );
    if (failed.length > 0 || result.skipped.length > 0) {
      throw new PartialFailureError(partialMessage(failed.length, result.skipped.length, 'put back'), [
        ...failed,
        ...result.skipped.map((entry) => ({ path: entry.path, error: `skipped: ${entry.reason}` })),
      ]);
    }
  } finally {
    await session.close();
  }
}

/**
 * `fh track <path…>`: back files up before an agent edits them (`trackEdit`). Paths are relative
 * to the current folder or absolute, and must lie inside the project.
 *
 * JSON: `{ "sessionId", "projectRoot", "tracked": [trackingPath…], "failed": [{ "path", "error" }] }`.
 * Exit 3 when some paths failed and others were tracked; 1 when all failed, when the session has
 * no checkpoint yet (run `fh snapshot` first), or while FH_DISABLE_FILE_CHECKPOINTING is set.
 */
import { resolve } from 'node:path';
import { toTrackingPath } from '@fh/core';
import { PartialFailureError, UsageError } from '../cli-errors.js';
import type { CommandContext } from '../context.js';
import { displayPath } from '../format.js';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import { assertWritable } from '../claude-guard.js';
import { openSession } from '../open-session.js';

/** Run `fh track`. */
export async function run(context: CommandContext, paths: string[]): Promise<number> {
  assertWritable(context, 'track');
  assertCheckpointingEnabled(context);
  const session = await openSession(context, { mustExist: false });
  try {
    if (session.history.state.snapshots.length === 0) {
      throw new Error(`session ${session.sessionId} has no checkpoint yet: run fh snapshot <messageId> first`);
    }
    const tracked: string[] = [];
    const failed: Array<{ path: string; error: string }> = [];
    let firstError: unknown;
    for (const path of paths) {
      const absolute = resolve(context.cwd, path);
      try {
        if (path === '') throw new UsageError('an empty path is not a file to track');
        if (absolute === session.projectRoot) throw new UsageError(`${displayPath(path)} is the project root itself, not a file to track`);
        await session.history.trackEdit(absolute);
        tracked.push(toTrackingPath(session.projectRoot, absolute));
      } catch (error) {
        firstError ??= error;
        failed.push({ path, error: error instanceof Error ? error.message : String(error) });
      }
    }
    if (tracked.length === 0 && firstError !== undefined) throw firstError;
    context.output.result({ sessionId: session.sessionId, projectRoot: session.projectRoot, tracked, failed }, () =>
      tracked.map((path) => `tracked ${displayPath(path)}`),
    );
    if (failed.length > 0) throw new PartialFailureError(`${failed.length} of ${paths.length} paths were not tracked`, failed);
    return 0;
  } finally {
    await session.close();
  }
}

/**
 * `fh snapshot <messageId> [--prompt <text>]`: take the turn's snapshot (`makeSnapshot`). With
 * `--prompt`, the prompt is first recorded in the session log as a user record whose uuid is the
 * message id, so `fh list` and conversation rewinds show it.
 *
 * JSON: `{ "sessionId", "projectRoot", "messageId", "timestamp", "files": [trackingPath…],
 * "snapshotSequence", "promptRecorded" }`.
 */
import { userMessageRecord } from '@fh/core';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import { assertWritable } from '../claude-guard.js';
import type { CommandContext } from '../context.js';
import { openSession } from '../open-session.js';

/** Options of `fh snapshot`. */
export interface SnapshotOptions {
  prompt?: string;
}

/** Run `fh snapshot`. */
export async function run(context: CommandContext, messageId: string, options: SnapshotOptions): Promise<void> {
  assertWritable(context, 'snapshot');
  assertCheckpointingEnabled(context);
  const session = await openSession(context, { mustExist: false });
  try {
    if (options.prompt !== undefined) {
      const previous = session.records.findLast((record) => record.type === 'user' && typeof record.uuid === 'string');
      await session.store.sessionLog(session.sessionId).append([
        userMessageRecord({
          uuid: messageId,
          parentUuid: previous === undefined ? null : (previous.uuid as string),
          sessionId: session.sessionId,
          text: options.prompt,
          timestamp: new Date(),
          cwd: context.cwd,
        }),
      ]);
    }
    const snapshot = await session.history.makeSnapshot(messageId);
    const files = Object.keys(snapshot?.trackedFileBackups ?? {}).sort();
    context.output.result(
      {
        sessionId: session.sessionId,
        projectRoot: session.projectRoot,
        messageId,
        timestamp: snapshot?.timestamp ?? null,
        files,
        snapshotSequence: session.history.state.snapshotSequence,
        promptRecorded: options.prompt !== undefined,
      },
      () => `snapshot ${messageId}: ${files.length} tracked file${files.length === 1 ? '' : 's'}`,
    );
  } finally {
    await session.close();
  }
}

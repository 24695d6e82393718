/**
 * `fh snapshot <messageId> [--prompt <text>]`: take the turn's snapshot (`makeSnapshot`). With
 * `--prompt`, the prompt is first recorded in the session log as a user record whose uuid is the
 * message id, so `fh list` and conversation rewinds show it.
 *
 * A message id the session already has a checkpoint for, or one holding a control character (an
 * escape sequence would reach every terminal that lists it), is a usage error (exit 2); nothing is
 * recorded.
 *
 * JSON: `{ "sessionId", "projectRoot", "messageId", "timestamp", "files": [trackingPath…],
 * "snapshotSequence", "promptRecorded", "failed": [{ "path", "error" }] }`. A file whose backup
 * failed (the store's disk full, the file unreadable) is in `failed`, and the command exits 3 naming
 * it after the snapshot was recorded: a rewind to it cannot restore that file.
 */
import { isTurnNumber, newBackupFailures, userMessageRecord } from '@fh/core';
import { backupFailureMessage, PartialFailureError, UsageError } from '../cli-errors.js';
import { plainError } from '../plain-errors.js';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import { assertWritable } from '../claude-guard.js';
import type { CommandContext } from '../context.js';
import { displayId, hasControlCharacter } from '../format.js';
import { openSession } from '../open-session.js';
import { describeMissed, endStaleWindows, openCommandTools } from '../command-window.js';

/** Options of `fh snapshot`. */
export interface SnapshotOptions {
  prompt?: string;
}

/** Run `fh snapshot`. */
export async function run(context: CommandContext, messageId: string, options: SnapshotOptions): Promise<void> {
  assertWritable(context, 'snapshot');
  assertCheckpointingEnabled(context);
  if (hasControlCharacter(messageId)) {
    throw new UsageError(`message id ${JSON.stringify(messageId)} holds a control character; use printable characters only`);
  }
  if (isTurnNumber(messageId)) {
    throw new UsageError(`message id ${JSON.stringify(messageId)} is a number, which fh diff, rewind and show read as a turn number; use an id that is not a number (m${messageId.replace('-', '')}, say); nothing recorded`);
  }
  const session = await openSession(context, { mustExist: false });
  try {
    const taken =
      session.history.state.snapshots.some((snapshot) => snapshot.messageId === messageId) ||
      session.records.some((record) => (record.type === 'file-history-snapshot' || record.type === 'fh-snapshot') && record.messageId === messageId);
    if (taken) {
      throw new UsageError(`session ${session.sessionId} already has a checkpoint with message id ${JSON.stringify(messageId)}: each turn needs a new id`);
    }
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
    // Command windows still open (an `fh run` that was killed) belong to the turn that ends here.
    if (session.history.state.snapshots.length > 0) {
      const tools = await openCommandTools(context.storeLocation, context.environment, context.home, session.sessionId);
      for (const capture of await endStaleWindows(session.history, tools, 0)) for (const line of describeMissed(capture)) context.output.warn(line);
    }
    const previous = session.history.state.snapshots.at(-1);
    const snapshot = await session.history.makeSnapshot(messageId);
    const files = Object.keys(snapshot?.trackedFileBackups ?? {}).sort();
    const failed = snapshot === undefined ? [] : newBackupFailures(snapshot, previous).map(({ path, error }) => ({ path, error: plainError(error) }));
    context.output.result(
      {
        sessionId: session.sessionId,
        projectRoot: session.projectRoot,
        messageId,
        timestamp: snapshot?.timestamp ?? null,
        files,
        snapshotSequence: session.history.state.snapshotSequence,
        promptRecorded: options.prompt !== undefined,
        failed,
      },
      () => `snapshot ${displayId(messageId)}: ${files.length} tracked file${files.length === 1 ? '' : 's'}`,
    );
    if (failed.length > 0) throw new PartialFailureError(backupFailureMessage(`snapshot ${displayId(messageId)}`, failed.length), failed);
  } finally {
    await session.close();
  }
}

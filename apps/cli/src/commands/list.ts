/**
 * `fh list`: the session's checkpoints, oldest first: message id, time, the prompt (excerpt) and
 * what rewinding there would change now (files, +/-).
 *
 * JSON: `{ "sessionId", "projectRoot", "checkpoints": [{ "messageId", "timestamp", "prompt" (null
 * when not recorded), "filesChanged", "insertions", "deletions", "failed": [{ "path", "reason" }] }] }`.
 */
import { isTranscriptMessage, promptForResubmit } from '@fh/core';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import type { CommandContext } from '../context.js';
import { displayId, displayPath, excerpt, formatTime } from '../format.js';
import { openSession } from '../open-session.js';
import { renderTable } from '../output.js';
import { formatLineCounts } from '../render-stats.js';

/** One checkpoint as `fh list` shows it. */
export interface CheckpointRow {
  messageId: string;
  timestamp: Date;
  prompt: string | null;
  filesChanged: string[];
  insertions: number;
  deletions: number;
  failed: Array<{ path: string; reason: string }>;
}

/** Run `fh list`. */
export async function run(context: CommandContext): Promise<void> {
  assertCheckpointingEnabled(context);
  const session = await openSession(context, { lock: false });
  try {
    const prompts = new Map<string, string>();
    for (const record of session.records) {
      if (record.type === 'user' && isTranscriptMessage(record)) prompts.set(record.uuid, promptForResubmit(record).text);
    }
    const snapshots = session.history.state.snapshots;
    const progress = context.output.progress('computing diff stats', snapshots.length);
    const checkpoints: CheckpointRow[] = [];
    for (const snapshot of snapshots) {
      const stats = await session.history.getDiffStats(snapshot.messageId);
      checkpoints.push({
        messageId: snapshot.messageId,
        timestamp: snapshot.timestamp,
        prompt: prompts.get(snapshot.messageId) ?? null,
        filesChanged: stats.filesChanged,
        insertions: stats.insertions,
        deletions: stats.deletions,
        failed: stats.failed ?? [],
      });
      progress.tick();
    }
    progress.stop();
    const colors = context.output.colors;
    context.output.result({ sessionId: session.sessionId, projectRoot: session.projectRoot, checkpoints }, () =>
      checkpoints.length === 0
        ? [`session ${displayId(session.sessionId)} has no checkpoints yet`]
        : [
            `session ${displayId(session.sessionId)} (${displayPath(session.projectRoot)})`,
            ...renderTable<CheckpointRow>(
              checkpoints,
              [
                { header: 'message id', value: (row) => displayId(row.messageId) },
                { header: 'time', value: (row) => formatTime(row.timestamp) },
                { header: 'prompt', value: (row) => (row.prompt === null ? colors.dim('(not recorded)') : excerpt(row.prompt, 50)) },
                { header: 'files', value: (row) => String(row.filesChanged.length) + (row.failed.length > 0 ? colors.red(` (${row.failed.length} unavailable)`) : ''), right: true },
                { header: '+/-', value: (row) => formatLineCounts(row.insertions, row.deletions, colors), right: true },
              ],
              colors,
            ),
          ],
    );
  } finally {
    await session.close();
  }
}

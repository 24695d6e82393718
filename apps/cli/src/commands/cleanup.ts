/**
 * `fh cleanup [--older-than <days>] [--dry-run]`: remove sessions not changed for more than that
 * many days (default 30). Open sessions (locked by a running agent) are never removed.
 *
 * JSON: `{ "olderThanDays", "dryRun", "removed": [{ "sessionId", "lastModified", "bytes",
 * "backups" }], "kept": [{ "sessionId", "reason": "recent" | "locked" }] }`.
 */
import { cleanup } from '@fh/core';
import { assertWritable } from '../claude-guard.js';
import type { CommandContext } from '../context.js';
import { formatBytes } from '../format.js';

/** Options of `fh cleanup`. */
export interface CleanupCommandOptions {
  olderThan: number;
  dryRun?: boolean;
}

/** Run `fh cleanup`. */
export async function run(context: CommandContext, options: CleanupCommandOptions): Promise<void> {
  assertWritable(context, 'cleanup');
  const store = await context.store();
  const result = await context.output.withProgress('examining sessions', (onProgress) =>
    cleanup({ store, olderThanDays: options.olderThan, dryRun: options.dryRun === true, onProgress }),
  );
  const bytes = result.removed.reduce((sum, session) => sum + session.bytes, 0);
  const verb = options.dryRun === true ? 'would remove' : 'removed';
  context.output.result(
    {
      olderThanDays: options.olderThan,
      dryRun: options.dryRun === true,
      removed: result.removed,
      kept: result.kept.map((entry) => ({ sessionId: entry.session.sessionId, reason: entry.reason })),
    },
    () => [
      `${verb} ${result.removed.length} session${result.removed.length === 1 ? '' : 's'} (${formatBytes(bytes)}) not changed for ${options.olderThan} days`,
      ...result.removed.map((session) => `  ${session.sessionId}`),
      ...result.kept.filter((entry) => entry.reason === 'locked').map((entry) => `  kept ${entry.session.sessionId}: open in another process`),
    ],
  );
}

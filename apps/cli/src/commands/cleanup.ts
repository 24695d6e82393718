/**
 * `fh cleanup [--older-than <days>] [--dry-run] [--yes]`: remove sessions not changed for more
 * than that many days (default 30), with their backups and undo points. Open sessions (locked by
 * a running agent) are never removed. Before removing any session it asks on a terminal; without
 * one it needs `--yes` (exit 2 otherwise, nothing removed).
 *
 * JSON: `{ "olderThanDays", "dryRun", "removed": [{ "sessionId", "lastModified", "bytes",
 * "backups" }], "kept": [{ "sessionId", "reason": "recent" | "locked" }] }`.
 */
import { cleanup } from '@fh/core';
import { UsageError } from '../cli-errors.js';
import { assertWritable } from '../claude-guard.js';
import { confirm, isInteractive } from '../confirm.js';
import type { CommandContext } from '../context.js';
import { formatBytes, plural } from '../format.js';

/** Options of `fh cleanup`. */
export interface CleanupCommandOptions {
  olderThan: number;
  dryRun?: boolean;
  yes?: boolean;
}

/** Run `fh cleanup`. */
export async function run(context: CommandContext, options: CleanupCommandOptions): Promise<void> {
  assertWritable(context, 'cleanup');
  const store = await context.store();
  // One "now" for the list the person confirms and the removal: a session that turns old while
  // the question waits is not removed unasked (one changed meanwhile is kept as recent).
  const now = new Date();
  if (options.dryRun !== true && options.yes !== true) {
    const planned = await cleanup({ store, olderThanDays: options.olderThan, dryRun: true, now });
    const count = planned.removed.length;
    if (count > 0) {
      const what = `${plural(count, 'session')} (${formatBytes(planned.removed.reduce((sum, session) => sum + session.bytes, 0))}, backups and undo points included) not changed for ${options.olderThan} days`;
      if (!isInteractive(context)) {
        throw new UsageError(`refusing to remove ${what} without confirmation: there is no terminal to ask on; pass --yes (or --dry-run to list them)`);
      }
      for (const session of planned.removed) context.output.line(`  ${session.sessionId}`);
      if (!(await confirm(`Remove ${what}? [y/N] `))) {
        context.output.line('Nothing removed.');
        return;
      }
    }
  }
  const result = await context.output.withProgress('examining sessions', (onProgress) =>
    cleanup({ store, olderThanDays: options.olderThan, dryRun: options.dryRun === true, now, onProgress }),
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
      `${verb} ${plural(result.removed.length, 'session')} (${formatBytes(bytes)}) not changed for ${options.olderThan} days`,
      ...result.removed.map((session) => `  ${session.sessionId}`),
      ...result.kept.filter((entry) => entry.reason === 'locked').map((entry) => `  kept ${entry.session.sessionId}: open in another process`),
    ],
  );
}

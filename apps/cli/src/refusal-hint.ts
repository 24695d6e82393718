/**
 * The workaround printed when a rewind is (or would be) refused because a backup is missing or
 * damaged: the core changes nothing then (issue 2 rule 4), but the other files can still be
 * rewound by naming them with `--paths`.
 */
import { join, relative } from 'node:path';
import type { DiffStats } from '@fh/core';
import { fhCommand } from './command-hint.js';
import type { CommandContext } from './context.js';
import { refusingPaths, type StatsWithRefusals } from './render-stats.js';

/** Most files a printed `--paths` command names; more are left to `fh diff`. */
const MAX_HINT_PATHS = 20;

/**
 * The hint line: the `fh rewind <id> … --paths <other files>` command (paths relative to the
 * current folder, shell-quoted, with `--session`), or what to do when no other file would change.
 * `words` go between the message id and `--paths` (`--mode code`, `--yes`); `refused` adds tracking
 * paths the rewind refused that the preview cannot know of (a backup whose bytes failed their
 * content hash).
 */
export function otherFilesHint(
  context: CommandContext,
  { projectRoot, sessionId }: { projectRoot: string; sessionId: string },
  messageId: string,
  stats: DiffStats,
  words: readonly string[] = [],
  refused: readonly string[] = [],
): string {
  const session = { session: sessionId };
  const refusing = new Set([...refusingPaths(stats), ...refused]);
  const others = stats.filesChanged.filter((path) => !refusing.has(path));
  if (others.length === 0) {
    const kinds = new Set([...((stats as StatsWithRefusals).refusals?.map((refusal) => refusal.kind) ?? ['backup-missing']), ...(refused.length > 0 ? ['backup-missing'] : [])]);
    const why =
      kinds.size > 1
        ? 'needs a missing or damaged backup or a file that cannot be read'
        : kinds.has('unreadable')
          ? 'is to a file that cannot be read (make it readable, then rewind again)'
          : 'needs a missing or damaged backup';
    return `No other file would change: every change this rewind makes ${why}.`;
  }
  if (others.length > MAX_HINT_PATHS) {
    return `To rewind the other ${others.length} files, name them with --paths (${fhCommand(context, ['diff', messageId], session)} lists them).`;
  }
  const paths = others.map((path) => relative(context.cwd, join(projectRoot, path)) || '.');
  return `To rewind the other files, name them: ${fhCommand(context, ['rewind', messageId, ...words, '--paths', ...paths], session)}`;
}

/** Human rendering of diff stats (what a rewind would change), shared by diff, list, rewind and the menu. */
import type { DiffStats, FileDiffStat } from '@fh/core';
import { displayPath } from './format.js';
import type { Colors } from './output.js';

/** `+12 -3`, coloured. */
export function formatLineCounts(insertions: number, deletions: number, colors: Colors): string {
  return `${colors.green(`+${insertions}`)} ${colors.red(`-${deletions}`)}`;
}

/** What a rewind does to a file of each status: `created` files (new since) are deleted, and so on. */
export const REWIND_ACTION: Readonly<Record<FileDiffStat['status'], string>> = {
  modified: 'modify',
  created: 'delete',
  deleted: 'restore',
};

/** One line per changed file: what the rewind does, path, +/- (or binary / too large / mode only). */
export function renderFileLines(stats: DiffStats, colors: Colors): string[] {
  const width = Math.max(0, ...stats.files.map((file) => REWIND_ACTION[file.status].length));
  return stats.files.map((file) => {
    const counts = file.binary
      ? 'binary'
      : file.tooLarge === true
        ? 'too large to count'
        : file.modeOnly === true
          ? 'mode only'
          : formatLineCounts(file.insertions, file.deletions, colors);
    return `  ${REWIND_ACTION[file.status].padEnd(width)}  ${displayPath(file.path)}  ${counts}`;
  });
}

/** A summary line (`<what> would change N files (+a -d)`) followed by the file lines and problems. */
export function renderDiffStats(stats: DiffStats, colors: Colors, what: string): string[] {
  const count = stats.files.length;
  const lines = [
    count === 0
      ? `${what} would change no files`
      : `${what} would change ${count} file${count === 1 ? '' : 's'} (${formatLineCounts(stats.insertions, stats.deletions, colors)})`,
    ...renderFileLines(stats, colors),
  ];
  for (const skipped of stats.skipped ?? []) lines.push(`  ${colors.yellow('skipped')}  ${displayPath(skipped.path)}: ${skipped.reason}`);
  for (const failed of stats.failed ?? []) lines.push(`  ${colors.red('cannot restore')}  ${displayPath(failed.path)}: ${failed.reason}`);
  return lines;
}

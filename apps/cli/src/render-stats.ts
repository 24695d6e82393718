/** Human rendering of diff stats (what a rewind would change), shared by diff, list, rewind and the menu. */
import type { DiffStats, FileDiffStat, RewindRefusal } from '@fh/core';
import { displayPath, escapeControl } from './format.js';
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
        : file.tooManyChanges === true
          ? 'too many changes to count'
        : file.modeOnly === true
          ? 'mode only'
          : formatLineCounts(file.insertions, file.deletions, colors);
    return `  ${REWIND_ACTION[file.status].padEnd(width)}  ${displayPath(file.path)}  ${counts}`;
  });
}

/** A reason for human output, without the path again when it starts with it (`a.txt: a.txt: …`). */
export function reasonText(path: string, reason: string): string {
  return escapeControl(reason.startsWith(`${path}: `) ? reason.slice(path.length + 2) : reason);
}

/** Diff stats, with the core's `refusals` when they were worked out (a `RewindPreview`, or `rewindRefusals`). */
export type StatsWithRefusals = DiffStats & { refusals?: RewindRefusal[] };

/**
 * The tracked files because of which a rewind to that checkpoint is refused as a whole and changes
 * nothing: `refusals` when given (a backup missing or damaged, issue 2 rule 4; a file that cannot
 * be read to be saved in the undo point first), else the files whose backup is missing. Files
 * whose backup failed when it was taken (a Claude Code backup already pruned) are only reported.
 */
export function refusingPaths(stats: StatsWithRefusals): string[] {
  return (stats.refusals ?? (stats.missing ?? []).map((entry) => ({ path: entry.path }))).map((entry) => entry.path);
}

/**
 * Why a rewind will be refused, as the end of a sentence (`the rewind will be refused …`), or
 * undefined when it will not be.
 */
export function refusalText(stats: StatsWithRefusals, operation = 'rewind'): string | undefined {
  const refusals = stats.refusals ?? (stats.missing ?? []).map((entry) => ({ path: entry.path, kind: 'backup-missing' as const, reason: entry.reason }));
  if (refusals.length === 0) return undefined;
  const missing = refusals.filter((refusal) => refusal.kind === 'backup-missing').length;
  const unreadable = refusals.filter((refusal) => refusal.kind === 'unreadable').map((refusal) => displayPath(refusal.path));
  const parts = [
    ...(missing === 0 ? [] : [`${missing} backup${missing === 1 ? ' is' : 's are'} missing or damaged`]),
    ...(unreadable.length === 0
      ? []
      : [`${unreadable.length === 1 ? `${unreadable[0]} cannot` : `${unreadable.length} files cannot`} be read, so ${unreadable.length === 1 ? 'it' : 'they'} cannot be saved in the undo point first (make ${unreadable.length === 1 ? 'it' : 'them'} readable, or leave ${unreadable.length === 1 ? 'it' : 'them'} out with --paths)`]),
  ];
  return `the ${operation} will be refused and change nothing: ${parts.join('; ')}`;
}

/** Options of {@link renderDiffStats}. */
export interface RenderDiffStatsOptions {
  /** The hint printed when a rewind would be refused (see {@link refusingPaths}), e.g. the `--paths` command. */
  refusalHint?: string;
  /** What would be refused, for the summary (`the undo will be refused …`). Default `rewind`. */
  operation?: string;
}

/**
 * A summary line (`<what> would change N files (+a -d)`, saying when a rewind will be refused)
 * followed by the file lines, the problems and the refusal hint.
 */
export function renderDiffStats(stats: StatsWithRefusals, colors: Colors, what: string, options: RenderDiffStatsOptions = {}): string[] {
  const count = stats.files.length;
  const refusing = refusingPaths(stats).length;
  const refusedBecause = refusalText(stats, options.operation);
  const summary =
    count === 0
      ? `${what} would change no files`
      : `${what} would change ${count} file${count === 1 ? '' : 's'} (${formatLineCounts(stats.insertions, stats.deletions, colors)}${uncountedNote(stats)})`;
  const refusal = refusedBecause === undefined ? '' : colors.red(`, but ${refusedBecause}`);
  const lines = [summary + refusal, ...renderFileLines(stats, colors)];
  for (const skipped of stats.skipped ?? []) lines.push(`  ${colors.yellow('skipped')}  ${displayPath(skipped.path)}: ${reasonText(skipped.path, skipped.reason)}`);
  for (const failed of stats.failed ?? []) lines.push(`  ${colors.red('cannot restore')}  ${displayPath(failed.path)}: ${reasonText(failed.path, failed.reason)}`);
  if (refusing > 0 && options.refusalHint !== undefined) lines.push(options.refusalHint);
  return lines;
}

/** `, lines of N files not counted` when some changed files have no line counts (binary, too large, too many changes). */
function uncountedNote(stats: DiffStats): string {
  const uncounted = stats.files.filter((file) => file.binary || file.tooLarge === true || file.tooManyChanges === true).length;
  return uncounted === 0 ? '' : `; lines of ${uncounted} file${uncounted === 1 ? '' : 's'} not counted`;
}

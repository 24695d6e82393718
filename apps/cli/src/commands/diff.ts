/**
 * `fh diff <id> [--patch | --stat | --name-only] [--paths <p…>] [-- <paths…>]`: the dry run of a
 * rewind — which tracked files it would change and by how many lines, and whether the rewind
 * would be refused (and why); nothing is written. `<id>` is a message id, a unique prefix of one
 * or a turn number (see message-ref.ts). `--patch` adds a git-style patch (`diff --git` headers,
 * mode lines, binary files as `GIT binary patch`) from each file as it is now to the file at the
 * checkpoint, so `fh diff <id> --patch | git apply` makes the rewind's changes; on a terminal it
 * goes through `$PAGER` (default `less -FRX`). `--stat` prints git's diffstat, `--name-only` the
 * paths alone.
 *
 * JSON: `{ "sessionId", "projectRoot", "messageId", "filesChanged", "insertions", "deletions",
 * "files": [{ "path", "status", "insertions", "deletions", "binary", "tooLarge"?, "tooManyChanges"?, "modeOnly"? }],
 * "skipped": [{ "path", "reason" }], "failed": [{ "path", "reason" }], "missing": [...],
 * "refusals": [{ "path", "kind": "backup-missing"|"unreadable", "reason" }], "patch"?, "outside" }`
 * (`outside`: the same stats, paths absolute, for the files a Claude Code session tracked outside
 * the project, which `fh rewind` changes only with `--include-outside`; null when it tracked none
 * or `--paths` is given). Human output adds their summary after the project's.
 *
 * `--agent <agentId>` (`main`, a sub-agent id or a unique prefix; issue 14): only the files that
 * agent changed after the checkpoint; a file other agents changed too is a conflict, listed in
 * `skipped` with who changed it and left out unless `--paths` names it. JSON adds `"agent": { "by",
 * "agentId", "agentType", "paths", "conflicts": [{ "path", "changedBy": [agent…] }] }`.
 *
 * `fh diff --undo <point>` previews `fh undo <point>` instead (see `diff-undo.ts`).
 */
import { resolve } from 'node:path';
import stringWidth from 'string-width';
import { conflictSkip, rewindRefusals, selectAgentChanges, snapshotFileBackups, type DiffStats, type FileDiffStat } from '@fh/core';
import { selectionDocument, selectionLines } from '../agent-lines.js';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import { UsageError } from '../cli-errors.js';
import type { CommandContext } from '../context.js';
import { filePatch } from '../file-patch.js';
import { progressBars } from '../progress-bar.js';
import { splitIdAndPaths } from '../id-and-paths.js';
import { resolveMessageId } from '../message-ref.js';
import { openSession, type OpenedSession } from '../open-session.js';
import type { Colors, Output } from '../output.js';
import { writeWithPager } from '../pager.js';
import { refusalText, renderDiffStats, type StatsWithRefusals } from '../render-stats.js';
import { displayId, displayPath } from '../format.js';
import { otherFilesHint } from '../refusal-hint.js';

/** Options of `fh diff`. */
export interface DiffOptions {
  patch?: boolean;
  stat?: boolean;
  nameOnly?: boolean;
  paths?: string[];
  agent?: string;
  /** `--undo <point>`: preview `fh undo <point>` instead (see `diff-undo.ts`). */
  undo?: string;
}

/** Run `fh diff`. */
export async function run(context: CommandContext, messageArgument: string | undefined, operands: string[], options: DiffOptions): Promise<void> {
  assertCheckpointingEnabled(context);
  const formats = [options.patch, options.stat, options.nameOnly].filter((flag) => flag === true).length;
  if (formats > 1) throw new UsageError('--patch, --stat and --name-only each choose the output: give one of them; nothing was read');
  if (options.undo !== undefined) {
    const { runUndoDiff } = await import('./diff-undo.js');
    return runUndoDiff(context, options.undo, [...(messageArgument === undefined ? [] : [messageArgument]), ...operands], options);
  }
  const split = splitIdAndPaths(messageArgument, operands, options.paths);
  if (split.messageId === undefined) throw new UsageError('fh diff needs a checkpoint: a message id, a unique prefix of it, or a turn number (fh list shows them)');
  const session = await openSession(context, { lock: false });
  try {
    const messageId = resolveMessageId(context, session, split.messageId);
    const givenPaths = split.paths?.map((path) => resolve(context.cwd, path));
    const selection =
      options.agent === undefined
        ? undefined
        : selectAgentChanges(session.history.state, messageId, options.agent, { projectRoot: session.projectRoot, ...(givenPaths === undefined ? {} : { paths: givenPaths }) });
    const paths = selection?.paths ?? givenPaths;
    const counted = await session.history.getDiffStats(messageId, { ...(paths === undefined ? {} : { paths }), onPhaseProgress: progressBars(context.output, 'diff') });
    // A file the dry run could not read is named in fh's words, not Node's (`EACCES: …, open '/p/a.txt'`).
    const readable = counted.failed === undefined ? counted : { ...counted, failed: counted.failed.map((failure) => ({ path: failure.path, reason: context.errorText(failure.reason, failure.path) })) };
    const plain = selection === undefined ? readable : { ...readable, skipped: [...(readable.skipped ?? []), ...selection.conflicts.map(conflictSkip)] };
    const stats: StatsWithRefusals & DiffStats = { ...plain, refusals: rewindRefusals(session.history.state, messageId, plain) };
    const patch = options.patch === true ? await gitPatch(session, messageId, stats, context.output) : undefined;
    const colors = context.output.colors;
    const outside = paths === undefined ? await outsideStats(session, messageId) : null;
    const document = {
      sessionId: session.sessionId,
      projectRoot: session.projectRoot,
      messageId,
      ...stats,
      ...(selection === undefined ? {} : { agent: selectionDocument(selection) }),
      ...(patch === undefined ? {} : { patch }),
      outside,
    };
    if (context.output.json) {
      context.output.writeDocument(document);
      return;
    }
    const refusal = refusalText(stats);
    if (options.nameOnly === true || options.stat === true) {
      const lines = options.nameOnly === true ? stats.files.map((file) => displayPath(file.path)) : renderStat(stats, colors);
      if (lines.length > 0) context.output.stdout.write(`${lines.join('\n')}\n`);
      if (refusal !== undefined) context.output.warn(`rewinding to ${displayId(messageId)}: ${refusal}`);
      return;
    }
    const summary = [
      ...(selection === undefined ? [] : selectionLines(selection, colors)),
      ...renderDiffStats(stats, colors, `Rewinding to ${displayId(messageId)}`, {
        refusalHint: otherFilesHint(context, session, messageId, stats),
      }),
      ...(outside === null ? [] : renderDiffStats(outside, colors, 'Outside the project, rewinding with --include-outside')),
    ];
    await writeSummaryAndPatch(context, summary, patch, colors);
  } finally {
    await session.close();
  }
}

/** The diff stats of the session's files outside the project (paths absolute), or null when it has none at that checkpoint. */
async function outsideStats(session: OpenedSession, messageId: string): Promise<DiffStats | null> {
  const outside = session.outsideHistory;
  if (outside === undefined || !outside.canRestore(messageId)) return null;
  const stats = await outside.getDiffStats(messageId);
  const absolute = (path: string) => `/${path}`;
  return {
    ...stats,
    filesChanged: stats.filesChanged.map(absolute),
    files: stats.files.map((file) => ({ ...file, path: absolute(file.path) })),
    ...(stats.skipped === undefined ? {} : { skipped: stats.skipped.map((entry) => ({ ...entry, path: absolute(entry.path) })) }),
    ...(stats.failed === undefined ? {} : { failed: stats.failed.map((entry) => ({ ...entry, path: absolute(entry.path) })) }),
    ...(stats.missing === undefined ? {} : { missing: stats.missing.map((entry) => ({ ...entry, path: absolute(entry.path) })) }),
  };
}

/** Width of the path column of `--stat` before paths are cut with `...` (git's default is about half of 80 columns). */
const STAT_PATH_WIDTH = 50;
/** Most `+`/`-` marks on a `--stat` line. */
const STAT_BAR_WIDTH = 40;

/**
 * A `--stat` path and its width in terminal columns (wide characters count two): the path, or
 * `...` and its end when wider than {@link STAT_PATH_WIDTH} columns.
 */
function statPath(path: string): { text: string; width: number } {
  const width = stringWidth(path);
  if (width <= STAT_PATH_WIDTH) return { text: path, width };
  const characters = [...path];
  let tail = '';
  let tailWidth = 0;
  for (let index = characters.length - 1; index >= 0; index -= 1) {
    const characterWidth = stringWidth(characters[index] as string);
    if (tailWidth + characterWidth > STAT_PATH_WIDTH - 3) break;
    tail = `${characters[index] as string}${tail}`;
    tailWidth += characterWidth;
  }
  return { text: `...${tail}`, width: tailWidth + 3 };
}

/** git's diffstat: ` path | 12 ++++----`, `Bin`, then ` N files changed, X insertions(+), Y deletions(-)`. Also used by `fh diff --undo`. */
export function renderStat(stats: DiffStats, colors: Colors): string[] {
  if (stats.files.length === 0) return [];
  const names = new Map(stats.files.map((file) => [file, statPath(displayPath(file.path))]));
  const name = (file: FileDiffStat): string => {
    const path = names.get(file) as { text: string; width: number };
    return path.text + ' '.repeat(nameWidth - path.width);
  };
  const counted = (file: FileDiffStat): boolean => !file.binary && file.tooLarge !== true && file.tooManyChanges !== true && file.modeOnly !== true;
  const nameWidth = Math.max(...[...names.values()].map((path) => path.width));
  const countWidth = Math.max(3, ...stats.files.map((file) => String(file.insertions + file.deletions).length));
  const largest = Math.max(1, ...stats.files.filter(counted).map((file) => file.insertions + file.deletions));
  const scale = largest > STAT_BAR_WIDTH ? STAT_BAR_WIDTH / largest : 1;
  const lines = stats.files.map((file) => {
    const left = ` ${name(file)} | `;
    if (file.binary || file.tooLarge === true) return `${left}${'Bin'.padStart(countWidth)}`;
    if (file.modeOnly === true) return `${left}${'0'.padStart(countWidth)} (mode only)`;
    if (file.tooManyChanges === true) return `${left}${'?'.padStart(countWidth)} (too many changes to count)`;
    const plus = Math.round(file.insertions * scale) || (file.insertions > 0 ? 1 : 0);
    const minus = Math.round(file.deletions * scale) || (file.deletions > 0 ? 1 : 0);
    return `${left}${String(file.insertions + file.deletions).padStart(countWidth)} ${colors.green('+'.repeat(plus))}${colors.red('-'.repeat(minus))}`;
  });
  const count = stats.files.length;
  const parts = [`${count} file${count === 1 ? '' : 's'} changed`];
  if (stats.insertions > 0 || stats.deletions === 0) parts.push(`${stats.insertions} insertion${stats.insertions === 1 ? '' : 's'}(+)`);
  if (stats.deletions > 0 || stats.insertions === 0) parts.push(`${stats.deletions} deletion${stats.deletions === 1 ? '' : 's'}(-)`);
  return [...lines, ` ${parts.join(', ')}`];
}

/** The git-style patch of every changed file, from now to the checkpoint (see file-patch.ts). */
async function gitPatch(session: OpenedSession, messageId: string, stats: DiffStats, output: Output): Promise<string> {
  const entries = snapshotFileBackups(session.history.state, messageId);
  const parts: string[] = [];
  const progress = output.progress('diff --patch: reading files', stats.files.length, { unit: 'files', showBytes: true });
  let bytes = 0;
  try {
    for (const [index, file] of stats.files.entries()) {
      const patch = await filePatch(session, messageId, file, entries);
      parts.push(patch.text);
      bytes += patch.bytes;
      progress.update(index + 1, undefined, bytes);
    }
  } finally {
    progress.stop();
  }
  return parts.join('');
}

/**
 * Print a dry run's summary lines, then its patch (coloured) when there is one: with a patch,
 * through the pager on a terminal (see `writeWithPager`); without, straight to stdout.
 */
export async function writeSummaryAndPatch(context: CommandContext, summary: readonly string[], patch: string | undefined, colors: Colors): Promise<void> {
  if (patch === undefined || patch === '') {
    context.output.stdout.write(`${summary.join('\n')}\n`);
    return;
  }
  await writeWithPager(context, `${summary.join('\n')}\n\n${colorPatch(patch, colors)}\n`);
}

/** A patch coloured for a terminal (headers bold, hunks cyan, +/- green/red). */
export function colorPatch(patch: string, colors: Colors): string {
  return patch
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')) return colors.bold(line);
      if (line.startsWith('@@')) return colors.cyan(line);
      if (line.startsWith('+')) return colors.green(line);
      if (line.startsWith('-')) return colors.red(line);
      return line;
    })
    .join('\n');
}

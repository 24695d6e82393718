/**
 * `fh diff --undo <point> [--patch | --stat | --name-only]`: the dry run of `fh undo <point>`
 * (issue 11) — which files going back to just before that timeline point would change, and by how
 * many lines, from each file as it is now to the file as it was then (`undoDiffStats` in
 * `@fh/core`); nothing is written. `<point>` is a point id or a unique prefix of one (4+
 * characters; `fh undo --list` shows them). `--patch` prints a git-style patch (now → before the
 * point, so `git apply` makes the undo's changes; on a terminal through `$PAGER`), `--stat` git's
 * diffstat, `--name-only` the paths alone. Without `--session`, the project's session that rewound
 * last is used, as `fh undo` does; the printed follow-up carries `--session`.
 *
 * JSON: `{ "sessionId", "projectRoot", "pointId", "point": { "operation", "createdAt",
 * "messageId", "target", "status" }, "filesChanged", "insertions", "deletions", "files": [{
 * "path", "status", "insertions", "deletions", "binary", "tooLarge"?, "tooManyChanges"?,
 * "modeOnly"? }], "failed": [{ "path", "reason" }], "missing": [{ "path", "backupFileName", "reason" }],
 * "patch"? }` (`failed`/`missing`: pre-images whose bytes fail their recorded hash, so the undo
 * would be refused, changing nothing) (`status` `created`: the file exists now and the undo deletes it;
 * `deleted`: the undo brings it back).
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { DIFF_TIMEOUT_MS, undoDiffStats, undoEntryBytes, type UndoEntry, type UndoPreview, type UndoStore } from '@fh/core';
import { UsageError } from '../cli-errors.js';
import { fhCommand } from '../command-hint.js';
import type { CommandContext } from '../context.js';
import { displayId, displayPath } from '../format.js';
import { gitFilePatch } from '../git-patch.js';
import { openSession, type OpenedSession } from '../open-session.js';
import { progressBars } from '../progress-bar.js';
import { refusalText, renderDiffStats } from '../render-stats.js';
import { undoStoreFor } from '../rewind-session.js';
import { renderStat, writeSummaryAndPatch, type DiffOptions } from './diff.js';
import { readCurrentBytes } from '../snapshot-content.js';

/** Run `fh diff --undo <point>`; `operands` must be empty (an undo covers the point's files). */
export async function runUndoDiff(context: CommandContext, pointId: string, operands: readonly string[], options: DiffOptions): Promise<void> {
  if (operands.length > 0 || options.paths !== undefined || options.agent !== undefined) {
    throw new UsageError('fh diff --undo <point> previews the whole undo: it takes no message id, paths or --agent; nothing was read');
  }
  const session = await openSession(context, { lock: false, preferTimeline: true });
  try {
    const undo = await undoStoreFor(context, session);
    const preview = await undoDiffStats(session.history, undo, pointId, { onProgress: progressBars(context.output, 'diff --undo') });
    const { point, stats } = preview;
    const patch = options.patch === true ? await undoPatch(session, undo, preview) : undefined;
    if (context.output.json) {
      context.output.writeDocument({
        sessionId: session.sessionId,
        projectRoot: session.projectRoot,
        pointId: point.undoId,
        point: { operation: point.operation, createdAt: point.createdAt.toISOString(), messageId: point.messageId, target: point.target, status: point.status },
        filesChanged: stats.filesChanged,
        insertions: stats.insertions,
        deletions: stats.deletions,
        files: stats.files,
        failed: stats.failed ?? [],
        missing: stats.missing ?? [],
        ...(patch === undefined ? {} : { patch }),
      });
      return;
    }
    const colors = context.output.colors;
    if (options.nameOnly === true || options.stat === true) {
      const lines = options.nameOnly === true ? stats.files.map((file) => displayPath(file.path)) : renderStat(stats, colors);
      if (lines.length > 0) context.output.stdout.write(`${lines.join('\n')}\n`);
      const refusal = refusalText(stats, 'undo');
      if (refusal !== undefined) context.output.warn(`undoing to just before point ${displayId(point.undoId)}: ${refusal}`);
      return;
    }
    const summary = [
      ...renderDiffStats(stats, colors, `Undoing to just before point ${displayId(point.undoId)}`, { operation: 'undo' }),
      colors.dim(`Do it with: ${fhCommand(context, ['undo', point.undoId], { session: session.sessionId })}`),
    ];
    await writeSummaryAndPatch(context, summary, patch, colors);
  } finally {
    await session.close();
  }
}

/** The git-style patch of every file the undo would change, from now to just before the point. */
async function undoPatch(session: OpenedSession, undo: UndoStore, preview: UndoPreview): Promise<string> {
  const entries = new Map<string, UndoEntry>(preview.entries.map((entry) => [entry.path, entry]));
  const parts: string[] = [];
  for (const file of preview.stats.files) {
    const entry = entries.get(file.path);
    if (entry === undefined || (entry.kind !== 'file' && entry.kind !== 'missing')) continue;
    const currentBytes = await readCurrentBytes(session.projectRoot, file.path);
    const currentMode = currentBytes === null ? undefined : (await lstat(join(session.projectRoot, file.path)).catch(() => undefined))?.mode;
    const targetBytes = await undoEntryBytes(undo, entry);
    const from = currentBytes === null ? null : { bytes: currentBytes, mode: currentMode };
    const to = targetBytes === null ? null : { bytes: targetBytes, mode: entry.mode ?? undefined };
    parts.push(await gitFilePatch(file.path, from, to, { binary: file.binary || file.tooLarge === true, wholeFile: file.tooManyChanges === true, timeoutMs: DIFF_TIMEOUT_MS }));
  }
  return parts.join('');
}

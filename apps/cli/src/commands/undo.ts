/**
 * `fh undo [pointId]`, `fh undo --list`, `fh undo --prune <older-than>` and `fh redo`: walk the
 * session's rewind timeline (see `session/undo.ts` in `@fh/core`). Every rewind, undo and redo is
 * a point; `fh undo` goes back one, `fh redo` forward one, `fh undo <id>` (an id prefix is enough)
 * to just before any point. Each first rolls back an operation that was interrupted. Only files it
 * changed are reported. The conversation is not changed.
 *
 * Without `--session`, the project's session that rewound last is used (not a session a later
 * `fh fork` or `fh resume` made), and every command printed carries `--session`.
 *
 * JSON (undo, redo): `{ "sessionId", "projectRoot", "operation", "target", "pointId", "restored",
 * "deleted", "skipped": [{ "path", "reason" }], "failed": [{ "path", "error" }], "recovered":
 * [{ "pointId", "operation", "outcome" }] }`. Exit 3 when some files could not be put back or were
 * skipped (each is named; the point stays pending and the next command rolls it back).
 * JSON (`--list`): `{ "sessionId", "projectRoot", "cursor", "points": [{ "pointId", "createdAt",
 * "operation", "messageId", "target", "status", "step", "current", "files", "insertions",
 * "deletions", "uncounted" }] }`: files and +/- as recorded with each point when it was saved
 * (the listing reads the log's records only, never a backup); `insertions`, `deletions` and
 * `uncounted` are null for points saved before fh recorded them (shown as `?`; `fh diff --undo
 * <point>` counts what undoing to it would change now). JSON (`--prune`): `{ "sessionId", "removed": [ids] }`.
 * `--prune` asks before removing any point on a terminal; without one it needs `--yes` (exit 2
 * otherwise, nothing removed), as `fh cleanup` does.
 */
import { buildTimeline, readTimeline, readTimelinePoints, redoStep, timelineRows, undoStep, type TimelinePoint, type TimelineRow, type UndoResult } from '@fh/core';
import { parseAge } from '../age.js';
import { partialMessage, PartialFailureError, UsageError } from '../cli-errors.js';
import { confirm, isInteractive } from '../confirm.js';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import type { CommandContext } from '../context.js';
import { fhCommand } from '../command-hint.js';
import { displayId, displayPath, formatTime, plural } from '../format.js';
import { openSession, type OpenedSession } from '../open-session.js';
import { renderTable } from '../output.js';
import { formatLineCounts, reasonText } from '../render-stats.js';
import { outsideUndoStoreFor, rewindSessionFor, undoStoreFor } from '../rewind-session.js';
import { progressBars } from '../progress-bar.js';

/** Options of `fh undo`. */
export interface UndoCommandOptions {
  list?: boolean;
  prune?: string;
  /** Undo on the timeline of a Claude Code session's files outside the project (`fh rewind --include-outside`). */
  outside?: boolean;
  /** `--prune` without asking (needed without a terminal when points would be removed). */
  yes?: boolean;
}

/** Run `fh undo`. */
export async function run(context: CommandContext, pointId: string | undefined, options: UndoCommandOptions = {}): Promise<void> {
  assertCheckpointingEnabled(context, 'undo writes no file while it is set');
  const modes = [options.list === true ? '--list' : undefined, options.prune !== undefined ? '--prune' : undefined, pointId !== undefined ? 'a point id' : undefined].filter((mode) => mode !== undefined);
  if (modes.length > 1) throw new UsageError(`fh undo takes one of --list, --prune or a point id, not ${modes.join(' and ')}; nothing was done`);
  if (options.list === true) return listPoints(context);
  if (options.prune !== undefined) return prune(context, parseAge(options.prune, '--prune'), options.prune, options.yes === true);
  const session = await openSession(context, { preferTimeline: true });
  try {
    const rewinder = await rewindSessionFor(context, session, { onProgress: progressBars(context.output, 'undo') });
    const result = options.outside === true ? await rewinder.undoOutside(pointId) : await rewinder.undo(pointId);
    report(context, session, result, await nextSteps(context, session, result, options.outside === true));
  } finally {
    await session.close();
  }
}

/** Run `fh redo`. */
export async function runRedo(context: CommandContext): Promise<void> {
  assertCheckpointingEnabled(context, 'redo writes no file while it is set');
  const session = await openSession(context, { preferTimeline: true });
  try {
    const rewinder = await rewindSessionFor(context, session, { onProgress: progressBars(context.output, 'redo') });
    const result = await rewinder.redo();
    report(context, session, result, await nextSteps(context, session, result, false));
  } finally {
    await session.close();
  }
}

const HEADLINES: Record<UndoResult['operation'], string> = {
  undo: 'Undid',
  redo: 'Redid',
  'undo-to': 'Went back to before point',
  recover: 'Rolled back the interrupted',
};

/**
 * The follow-up commands that work after `result`, read from the timeline as it is now: `fh redo`
 * only when there is a step to redo, `fh undo` named for what it would do (undo the `fh undo <id>`
 * or the redo just made, or go further back), and the listing.
 */
async function nextSteps(context: CommandContext, session: OpenedSession, result: UndoResult, outside: boolean): Promise<string[]> {
  const words = (rest: string[]) => fhCommand(context, outside ? [...rest, '--outside'] : rest, { session: session.sessionId });
  const timeline = await readTimeline(outside ? await outsideUndoStoreFor(context, session) : await undoStoreFor(context, session));
  const lines: string[] = [];
  // fh redo has no --outside: the files outside the project only go back.
  if (!outside && redoStep(timeline) !== undefined) lines.push(`${result.operation === 'undo' ? 'Redo with' : 'Redo the next step with'}: ${words(['redo'])}`);
  if (undoStep(timeline) !== undefined) {
    const verb = result.operation === 'undo' ? 'Go further back with' : result.operation === 'undo-to' || result.operation === 'redo' ? 'Undo this with' : 'Undo with';
    lines.push(`${verb}: ${words(['undo'])}`);
  }
  if (!outside) lines.push(`Every point: ${words(['undo', '--list'])}`);
  return lines;
}

function report(context: CommandContext, session: OpenedSession, result: UndoResult, steps: readonly string[]): void {
  const failed = result.failed.map((failure) => ({ path: failure.path, error: failure.error.message }));
  const recovered = result.recovered.map((recovery) => ({ pointId: recovery.pointId, operation: recovery.operation, outcome: recovery.outcome }));
  const what =
    result.operation === 'recover'
      ? `${HEADLINES.recover} ${result.recovered.find((recovery) => recovery.pointId === result.target)?.operation ?? 'operation'} ${displayId(result.target)}`
      : result.operation === 'undo-to'
        ? `${HEADLINES['undo-to']} ${displayId(result.target)}`
        : `${HEADLINES[result.operation]} point ${displayId(result.target)}`;
  context.output.result(
    {
      sessionId: session.sessionId,
      projectRoot: session.projectRoot,
      operation: result.operation,
      target: result.target,
      pointId: result.pointId,
      restored: result.restored,
      deleted: result.deleted,
      skipped: result.skipped,
      failed: failed.map((failure) => ({ path: failure.path, error: context.errorText(failure.error, failure.path) })),
      recovered,
    },
    () => [
      ...result.recovered
        .filter((recovery) => recovery.pointId !== result.target || result.operation !== 'recover')
        .map((recovery) => `First rolled back the interrupted ${recovery.operation} ${displayId(recovery.pointId)} (${recovery.restored.length} restored, ${recovery.deleted.length} deleted)`),
      `${what}: ${result.restored.length} restored, ${result.deleted.length} deleted, in ${displayPath(session.projectRoot)}`,
      ...result.restored.map((path) => `  restored  ${displayPath(path)}`),
      ...result.deleted.map((path) => `  deleted   ${displayPath(path)}`),
      ...result.skipped.map((entry) => `  skipped   ${displayPath(entry.path)}: ${reasonText(entry.path, entry.reason)}`),
      ...steps,
    ],
  );
  if (failed.length > 0 || result.skipped.length > 0) {
    throw new PartialFailureError(partialMessage(failed.length, result.skipped.length, 'put back'), [
      ...failed,
      ...result.skipped.map((entry) => ({ path: entry.path, error: `skipped: ${entry.reason}` })),
    ]);
  }
}

function describeOperation(point: TimelinePoint): string {
  if (point.operation === 'rewind') return `rewind to ${point.messageId === null ? '?' : displayId(point.messageId)}`;
  if (point.operation === 'recover') return `roll back ${displayId(point.target ?? '?')}`;
  if (point.operation === 'undo-to') return `undo to before ${displayId(point.target ?? '?')}`;
  return `${point.operation} ${displayId(point.target ?? '?')}`;
}

async function listPoints(context: CommandContext): Promise<void> {
  const session = await openSession(context, { lock: false, preferTimeline: true });
  try {
    const undo = await undoStoreFor(context, session);
    const onWarning = (message: string) => context.output.warn(message);
    // An fh session keeps its timeline in its own log, which opening it has read already.
    const ownLog = !session.claude && undo.store === session.store && undo.sessionId === session.sessionId;
    const timeline = ownLog ? buildTimeline(readTimelinePoints(session.records, onWarning)) : await readTimeline(undo, { onWarning });
    const rows = timelineRows(timeline);
    const colors = context.output.colors;
    const lines = (row: TimelineRow): string => {
      if (row.insertions === null || row.deletions === null) return colors.dim('?');
      const counts = formatLineCounts(row.insertions, row.deletions, colors);
      return row.uncounted === null || row.uncounted === 0 ? counts : `${counts} ${colors.dim(`(${row.uncounted} not counted)`)}`;
    };
    context.output.result(
      {
        sessionId: session.sessionId,
        projectRoot: session.projectRoot,
        cursor: timeline.steps[timeline.cursor - 1] ?? null,
        points: rows.map((row) => ({
          pointId: row.point.undoId,
          createdAt: row.point.createdAt.toISOString(),
          operation: row.point.operation,
          messageId: row.point.messageId,
          target: row.point.target,
          status: row.point.status,
          step: row.step,
          current: row.current,
          files: row.files,
          insertions: row.insertions,
          deletions: row.deletions,
          uncounted: row.uncounted,
        })),
      },
      () =>
        rows.length === 0
          ? [`session ${displayId(session.sessionId)} has no rewind, undo or redo yet`]
          : [
              `Timeline of session ${displayId(session.sessionId)} (${displayPath(session.projectRoot)}), oldest first; * marks where fh undo starts`,
              ...renderTable<TimelineRow>(
                rows,
                [
                  { header: '', value: (row) => (row.current ? '*' : '') },
                  { header: 'point', value: (row) => displayId(row.point.undoId) },
                  { header: 'time', value: (row) => formatTime(row.point.createdAt) },
                  { header: 'what', value: (row) => describeOperation(row.point) + (row.point.status === 'done' ? '' : colors.yellow(` (${row.point.status})`)) },
                  { header: 'files', value: (row) => String(row.files), right: true },
                  { header: '+/-', value: lines, right: true },
                ],
                colors,
              ),
              ...(rows.some((row) => row.insertions === null) ? [colors.dim('? : a point saved before fh counted lines; fh diff --undo <point> counts them')] : []),
              colors.dim(`Back to just before any point: ${fhCommand(context, ['undo', '<point>'], { session: session.sessionId })}`),
              colors.dim(`What that would change: ${fhCommand(context, ['diff', '--undo', '<point>'], { session: session.sessionId })}`),
            ],
    );
  } finally {
    await session.close();
  }
}

async function prune(context: CommandContext, ageMs: number, age: string, yes: boolean): Promise<void> {
  const session = await openSession(context, { preferTimeline: true });
  try {
    const { prunePoints } = await import('@fh/core');
    const undo = await undoStoreFor(context, session);
    // One cutoff for the points the person confirms and the removal.
    const olderThan = new Date(Date.now() - ageMs);
    if (!yes) {
      const planned = (await readTimeline(undo)).points.filter((point) => point.status !== 'pending' && point.createdAt.getTime() < olderThan.getTime());
      if (planned.length > 0) {
        const what = `${plural(planned.length, 'timeline point')} older than ${age} of session ${displayId(session.sessionId)} and their backups (undo could no longer go back before them)`;
        if (!isInteractive(context)) {
          throw new UsageError(`refusing to remove ${what} without confirmation: there is no terminal to ask on; nothing was removed. Pass --yes to remove them`);
        }
        for (const point of planned) context.output.line(`  ${displayId(point.undoId)}  ${formatTime(point.createdAt)}  ${describeOperation(point)}`);
        if (!(await confirm(`Remove ${what}? [y/N] `))) {
          context.output.line('Nothing removed.');
          return;
        }
      }
    }
    const removed = await prunePoints(undo, olderThan);
    context.output.result({ sessionId: session.sessionId, removed }, () => [
      removed.length === 0 ? 'No point is that old; nothing was removed.' : `Removed ${plural(removed.length, 'timeline point')} and their backups.`,
    ]);
  } finally {
    await session.close();
  }
}


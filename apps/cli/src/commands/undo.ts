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
 */
import { buildTimeline, readTimeline, readTimelinePoints, timelineRows, type TimelinePoint, type TimelineRow, type UndoResult } from '@fh/core';
import { partialMessage, PartialFailureError, UsageError } from '../cli-errors.js';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import type { CommandContext } from '../context.js';
import { fhCommand } from '../command-hint.js';
import { displayId, displayPath, formatTime, plural } from '../format.js';
import { openSession, type OpenedSession } from '../open-session.js';
import { renderTable } from '../output.js';
import { formatLineCounts, reasonText } from '../render-stats.js';
import { rewindSessionFor, undoStoreFor } from '../rewind-session.js';
import { progressBars } from '../progress-bar.js';

/** Options of `fh undo`. */
export interface UndoCommandOptions {
  list?: boolean;
  prune?: string;
  /** Undo on the timeline of a Claude Code session's files outside the project (`fh rewind --include-outside`). */
  outside?: boolean;
}

/** Run `fh undo`. */
export async function run(context: CommandContext, pointId: string | undefined, options: UndoCommandOptions = {}): Promise<void> {
  assertCheckpointingEnabled(context, 'undo writes no file while it is set');
  if (options.list === true) return listPoints(context);
  if (options.prune !== undefined) return prune(context, parseAge(options.prune));
  const session = await openSession(context, { preferTimeline: true });
  try {
    const rewinder = await rewindSessionFor(context, session, { onProgress: progressBars(context.output, 'undo') });
    report(context, session, options.outside === true ? await rewinder.undoOutside(pointId) : await rewinder.undo(pointId));
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
    report(context, session, await rewinder.redo());
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

function report(context: CommandContext, session: OpenedSession, result: UndoResult): void {
  const again = (words: string[]) => fhCommand(context, words, { session: session.sessionId });
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
      failed,
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
      ...(result.operation === 'undo' || result.operation === 'undo-to' ? [`Redo with: ${again(['redo'])}`] : []),
      `Go further back with: ${again(['undo'])}; every point: ${again(['undo', '--list'])}`,
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

async function prune(context: CommandContext, ageMs: number): Promise<void> {
  const session = await openSession(context, { preferTimeline: true });
  try {
    const { prunePoints } = await import('@fh/core');
    const removed = await prunePoints(await undoStoreFor(context, session), new Date(Date.now() - ageMs));
    context.output.result({ sessionId: session.sessionId, removed }, () => [
      removed.length === 0 ? 'No point is that old; nothing was removed.' : `Removed ${plural(removed.length, 'timeline point')} and their backups.`,
    ]);
  } finally {
    await session.close();
  }
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30d`, `12h`, `90m`, or a bare number of days → ms. */
export function parseAge(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([mhd]?)$/.exec(text.trim());
  if (match === null) throw new UsageError(`--prune takes an age like 30d, 12h or 90m (a bare number is days), not ${JSON.stringify(text)}; nothing was removed`);
  return Number(match[1]) * (UNITS[match[2] === '' ? 'd' : (match[2] as string)] as number);
}

/**
 * The rewind timeline of a session (issue 11), rebuilt from its points (`timeline-records.ts`).
 *
 * Every rewind, undo, redo, `undo-to` and recovery is a point, oldest first, holding the
 * pre-images of the files it changed. The undo stack is made of *steps*: each completed `rewind`
 * or `undo-to` drops the steps after the cursor (they stay reachable by id) and pushes itself; a
 * completed `undo` moves the cursor back over its target step, a completed `redo` forward.
 * Pending, rolled-back, abandoned and `recover` points are no steps.
 *
 * The state "just before point P" is, for each path any point at or after P touched, the
 * pre-image from the earliest such point (paths no later point touched are left as they are).
 * Abandoned points touched nothing (their operation was refused before its first write, and their
 * own pre-image backups were deleted), so they are left out.
 * `fh undo` reaches the state just before the step under the cursor; `fh redo` the state just
 * before the undo that moved the cursor over the next step; `fh undo <id>` the state before `<id>`.
 */
import { InvalidArgumentError, NotFoundError } from '../errors.js';
import type { UndoEntry } from './undo-records.js';
import type { TimelinePoint } from './timeline-records.js';

/** A session's timeline: its points, the undo stack and where the cursor is. */
export interface Timeline {
  /** Every point not pruned, oldest first. */
  points: TimelinePoint[];
  /** The undo stack: ids of completed `rewind` / `undo-to` points, oldest first. */
  steps: string[];
  /** How many steps are applied: `fh undo` undoes `steps[cursor - 1]`, `fh redo` redoes `steps[cursor]`. */
  cursor: number;
  /** Points without a done record, oldest first: interrupted operations. */
  pending: TimelinePoint[];
}

/** Build the timeline of `points` (oldest first, as `readTimelinePoints` returns them). */
export function buildTimeline(points: readonly TimelinePoint[]): Timeline {
  const steps: string[] = [];
  let cursor = 0;
  for (const point of points) {
    if (point.status !== 'done') continue;
    if (point.operation === 'rewind' || point.operation === 'undo-to') {
      steps.splice(cursor, steps.length - cursor, point.undoId);
      cursor = steps.length;
    } else if (point.operation === 'undo' && cursor > 0 && steps[cursor - 1] === point.target) {
      cursor -= 1;
    } else if (point.operation === 'redo' && steps[cursor] === point.target) {
      cursor += 1;
    }
  }
  return { points: [...points], steps, cursor, pending: points.filter((point) => point.status === 'pending') };
}

/**
 * The point whose id is `id` or starts with it (at least 4 characters). Throws
 * `InvalidArgumentError` for an empty id or a prefix of several points, `NotFoundError` for none.
 */
export function findPoint(timeline: Timeline, id: string, sessionId: string): TimelinePoint {
  if (id.trim() === '') throw new InvalidArgumentError(`an empty point id names no timeline point of session ${sessionId}: give a point id or a unique prefix of 4 or more characters (fh undo --list shows them)`);
  const exact = timeline.points.find((point) => point.undoId === id);
  if (exact !== undefined) return exact;
  const matches = id.length >= 4 ? timeline.points.filter((point) => point.undoId.startsWith(id)) : [];
  if (matches.length === 1) return matches[0] as TimelinePoint;
  if (matches.length > 1) {
    throw new InvalidArgumentError(`point id ${JSON.stringify(id)} of session ${sessionId} is ambiguous: ${matches.map((point) => point.undoId).join(', ')}; give more of it`);
  }
  const short = id.length < 4 ? ' (a prefix needs at least 4 characters)' : '';
  throw new NotFoundError(`session ${sessionId} has no timeline point ${JSON.stringify(id)}${short}; fh undo --list shows them`);
}

/**
 * The files as they were just before point `pointId` (see the module comment): path → the
 * pre-image entry, from the earliest point at or after it that touched the path (abandoned points
 * are skipped). Sorted by path.
 */
export function stateBefore(timeline: Timeline, pointId: string): Map<string, UndoEntry> {
  const index = timeline.points.findIndex((point) => point.undoId === pointId);
  if (index < 0) throw new NotFoundError(`no timeline point ${pointId}`);
  const state = new Map<string, UndoEntry>();
  for (const point of timeline.points.slice(index)) {
    if (point.status === 'abandoned') continue;
    for (const entry of point.entries) if (!state.has(entry.path)) state.set(entry.path, entry);
  }
  return new Map([...state.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The step `fh undo` would undo, or undefined at the start of the stack. */
export function undoStep(timeline: Timeline): TimelinePoint | undefined {
  const id = timeline.steps[timeline.cursor - 1];
  return id === undefined ? undefined : timeline.points.find((point) => point.undoId === id);
}

/**
 * What `fh redo` would do: the step it redoes and the undo point whose pre-state it restores, or
 * undefined at the end of the stack.
 */
export function redoStep(timeline: Timeline): { step: TimelinePoint; undo: TimelinePoint } | undefined {
  const id = timeline.steps[timeline.cursor];
  if (id === undefined) return undefined;
  const step = timeline.points.find((point) => point.undoId === id);
  const undo = [...timeline.points].reverse().find((point) => point.operation === 'undo' && point.status === 'done' && point.target === id);
  return step === undefined || undo === undefined ? undefined : { step, undo };
}

/** One point as a listing shows it (`fh undo --list`): from its record alone, no backup is read. */
export interface TimelineRow {
  point: TimelinePoint;
  /** True when the point is a step of the undo stack. */
  step: boolean;
  /** True for the step `fh undo` undoes next. */
  current: boolean;
  /** Paths the point's operation changed. */
  files: number;
  /** Lines added and removed, from the point's recorded summary; null for a point saved without one (shown as `?`). */
  insertions: number | null;
  deletions: number | null;
  /** Files of the summary whose lines were not counted; null without a summary. */
  uncounted: number | null;
}

/**
 * The rows of a listing of `timeline`, oldest first. Costs one pass over the points: files and
 * +/- come from each point's recorded summary (`point-summary.ts`).
 */
export function timelineRows(timeline: Timeline): TimelineRow[] {
  const current = timeline.steps[timeline.cursor - 1];
  const steps = new Set(timeline.steps);
  return timeline.points.map((point) => ({
    point,
    step: steps.has(point.undoId),
    current: point.undoId === current,
    files: point.summary?.files ?? point.entries.length,
    insertions: point.summary?.insertions ?? null,
    deletions: point.summary?.deletions ?? null,
    uncounted: point.summary?.uncounted ?? null,
  }));
}

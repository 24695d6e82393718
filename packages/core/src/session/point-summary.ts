/**
 * The summary a timeline point carries in its `fh-point` record (issue 11): how many files its
 * operation changes and by how many lines, counted once when the point is saved, so that
 * `fh undo --list` reads records only (its cost grows with the points it shows, not with the bytes
 * of their backups). Points saved before summaries existed have none: a listing shows their files
 * and `?` for lines; `fh diff --undo` counts lines when asked (`undo-preview.ts`).
 *
 * Lines are counted with jsdiff (`countLineChanges`) from each file's pre-image (read from the
 * project, where it is about to be overwritten) to what the operation writes there (its plan
 * entry: a checkpoint backup or a pre-image backup, read from the store). Counting is bounded so
 * a large rewind does not pay for it twice: files over {@link SUMMARY_LINE_CAP_BYTES} either side,
 * binary files, files whose backup cannot be read and every file left once
 * {@link SUMMARY_BUDGET_MS} has passed are `uncounted`.
 */
import type { BackupStore, WorkspaceFs } from '../store.js';
import { toAbsolutePath } from '../paths.js';
import { countLineChanges, MIN_DIFF_TIMEOUT_MS } from '../rewind/diff-stats.js';
import { readStoreBackup } from '../rewind/backup-content.js';
import type { UndoEntry } from './undo-records.js';

/** What a point's operation changes, counted when the point was saved (record field `summary`). */
export interface PointSummary {
  /** Paths the operation changes (its entries). */
  files: number;
  /** Bytes of the pre-images that are files. */
  bytesBefore: number;
  /** Bytes of the files the operation writes (plan entries with a recorded size). */
  bytesAfter: number;
  /** Lines the operation adds, over the counted files. */
  insertions: number;
  /** Lines the operation removes, over the counted files. */
  deletions: number;
  /** Files whose lines were not counted (binary, over the cap, unreadable, past the budget, a folder or link). */
  uncounted: number;
}

/** Where plan entries that are not `…@undo-…` backups live (a rewind's checkpoint backups). */
export interface PlanSource {
  store: BackupStore;
  sessionId: string;
}

/** Files larger than this (either side) are not line-counted for a summary: 1 MiB. */
export const SUMMARY_LINE_CAP_BYTES = 1024 * 1024;
/** Time spent counting lines for one point's summary, in ms; files left after it are `uncounted`. */
export const SUMMARY_BUDGET_MS = 2000;

/** Inputs of {@link summarizePoint}. */
export interface SummarizePointInput {
  projectRoot: string;
  fs: WorkspaceFs;
  /** The point's pre-images (the project's files as they are now). */
  entries: readonly UndoEntry[];
  /** What the operation writes at each path. */
  plan: readonly UndoEntry[];
  /** The store and session of `…@undo-…` plan entries. */
  undo: PlanSource;
  /** The store and session of other plan entries (checkpoint backups); without it they are uncounted. */
  checkpoints?: PlanSource;
  /** Runs one file's count at a time under the caller's concurrency limit. */
  limit: <T>(task: () => Promise<T>) => Promise<T>;
  /** Whether a name is an undo backup's. */
  isUndoBackup: (name: string) => boolean;
}

function storeBytes(source: PlanSource, name: string): Promise<Uint8Array> {
  return readStoreBackup(source.store, source.sessionId, name);
}

/**
 * Count what a point's operation changes (see the module comment). Never throws: a file that
 * cannot be read or counted is `uncounted`.
 */
export async function summarizePoint(input: SummarizePointInput): Promise<PointSummary> {
  const plan = new Map(input.plan.map((entry) => [entry.path, entry]));
  const summary: PointSummary = { files: input.entries.length, bytesBefore: 0, bytesAfter: 0, insertions: 0, deletions: 0, uncounted: 0 };
  for (const entry of input.entries) if (entry.kind === 'file') summary.bytesBefore += entry.size ?? 0;
  for (const entry of input.plan) if (entry.kind === 'file') summary.bytesAfter += entry.size ?? 0;
  const deadline = Date.now() + SUMMARY_BUDGET_MS;
  const sideBytes = async (entry: UndoEntry | undefined, before: boolean): Promise<Uint8Array | null | undefined> => {
    if (entry === undefined) return undefined;
    if (entry.kind === 'missing') return null;
    if (entry.kind !== 'file' || entry.size === undefined || entry.size > SUMMARY_LINE_CAP_BYTES) return undefined;
    if (before) return input.fs.readFile(toAbsolutePath(input.projectRoot, entry.path));
    const name = entry.backupFileName as string;
    const source = input.isUndoBackup(name) ? input.undo : input.checkpoints;
    return source === undefined ? undefined : storeBytes(source, name);
  };
  const counts = await Promise.all(
    input.entries.map((entry) =>
      input.limit(async () => {
        const left = deadline - Date.now();
        if (left <= 0) return undefined;
        try {
          const before = await sideBytes(entry, true);
          const after = before === undefined ? undefined : await sideBytes(plan.get(entry.path), false);
          if (before === undefined || after === undefined) return undefined;
          if (before !== null && before.length !== entry.size) return undefined;
          const lines = countLineChanges(before, after, Math.max(MIN_DIFF_TIMEOUT_MS, deadline - Date.now()));
          return lines === undefined || lines.binary ? undefined : lines;
        } catch {
          return undefined;
        }
      }),
    ),
  );
  for (const lines of counts) {
    if (lines === undefined) summary.uncounted += 1;
    else {
      summary.insertions += lines.insertions;
      summary.deletions += lines.deletions;
    }
  }
  return summary;
}

const SUMMARY_FIELDS = ['files', 'bytesBefore', 'bytesAfter', 'insertions', 'deletions', 'uncounted'] as const;

/** Parse a record's `summary`; undefined when absent or malformed (the point is then listed as unsummarized). */
export function parsePointSummary(value: unknown): PointSummary | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const summary: Partial<PointSummary> = {};
  for (const field of SUMMARY_FIELDS) {
    const number = record[field];
    if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) return undefined;
    summary[field] = number;
  }
  return summary as PointSummary;
}

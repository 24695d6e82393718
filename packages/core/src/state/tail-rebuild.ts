/**
 * Rebuilding a long session from the end of its log (`SessionLog.readTail`): the kept snapshots
 * need only the records from the newest `fh-snapshot` full record at or before the oldest kept
 * snapshot, so `FileHistory.open` reads the log's last bytes (more when they do not hold that
 * record), finds that record by the heads of the lines (`sniffFhSnapshotLine`, no parse), and
 * parses and replays only the lines from it on. The open then costs what those records cost, not
 * the session's length.
 *
 * Nothing is written for it (no index or checkpoint beside the log that a crash could leave ahead
 * of the log or out of step with it): the start is found in the log itself at every open, so it is
 * always exactly the log's. The result is what `rebuildStateFromLog` gives for the whole log, for
 * logs in fh's own form (`fh-snapshot` and `file-history-delta` records); a log whose newest records
 * hold Claude Code's `file-history-snapshot` records, a log without an `fh-session` record at its
 * start, one that fits the first read (a short log), one with fewer snapshots than are kept, or
 * one whose start record is not within {@link TAIL_REBUILD_MAX_BYTES} of its end is left to
 * `rebuildStateFromLog` (undefined here).
 * What differs: lines before the start record are not read, so a corrupt line there is not
 * reported at open (`fh verify` reads the whole log), and a skipped line's number is not known
 * (`firstLine` 0).
 */
import type { LogRecord, SessionLog } from '../store.js';
import { MAX_SNAPSHOTS } from '../types.js';
import { parseJsonlLine } from './jsonl.js';
import { LOG_HEAD_BYTES } from './log-ends.js';
import { StateRebuilder, type RebuildOptions, type RebuildResult } from './rebuild.js';
import { FH_SESSION_RECORD_TYPE } from './records.js';
import { FH_SNAPSHOT_RECORD_TYPE, sniffFhSnapshotLine } from './snapshot-records.js';

/**
 * Tail sizes tried in turn, in bytes, each 4× the one before (so at most about 4× the bytes needed
 * are read); the first holds about 200 turns of 10 changed files at 1,000 tracked. When a read
 * covers the whole log (past the first), all of it is searched the same way.
 */
export const TAIL_REBUILD_BYTES_STEPS: readonly number[] = [1024 * 1024, 4 * 1024 * 1024, 16 * 1024 * 1024, 64 * 1024 * 1024];

/** Past this many bytes from the end without a start record, the whole log is streamed instead. */
export const TAIL_REBUILD_MAX_BYTES = 64 * 1024 * 1024;

/** Options of {@link rebuildFromTail}: a rebuild's, and the byte counts read (tests use small ones). */
export interface TailRebuildOptions extends RebuildOptions {
  /** Bytes of the log's start read for its `fh-session` records. Default `LOG_HEAD_BYTES`. */
  headBytes?: number;
  /** Tail sizes tried in turn (each at most {@link TAIL_REBUILD_MAX_BYTES}). Default {@link TAIL_REBUILD_BYTES_STEPS}. */
  tailBytesSteps?: readonly number[];
}

interface TailLine {
  text: string;
  terminated: boolean;
}

/**
 * The state of a long session from the end of its log (see the module comment), or undefined when
 * the log cannot read its tail, is small enough to read whole, or its end does not settle the kept
 * snapshots; the caller then streams the whole log. Throws `InvalidArgumentError` when
 * `projectRoot` is not absolute, and the store's errors.
 */
export async function rebuildFromTail(log: SessionLog, options: TailRebuildOptions): Promise<RebuildResult | undefined> {
  if (log.readTail === undefined) return undefined;
  const maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
  const steps = options.tailBytesSteps ?? TAIL_REBUILD_BYTES_STEPS;
  for (const [step, tailBytes] of steps.entries()) {
    if (tailBytes > TAIL_REBUILD_MAX_BYTES) break;
    const ends = await log.readTail(options.headBytes ?? LOG_HEAD_BYTES, tailBytes);
    // A log that fits the first read is short: the whole-log rebuild reads it (and reports every line).
    if (ends.whole && step === 0) return undefined;
    const lines = splitTail(Buffer.from(ends.tail.buffer, ends.tail.byteOffset, ends.tail.byteLength), !ends.whole);
    const start = startLine(lines, maxSnapshots);
    if (start === 'unsupported') return undefined;
    if (start === undefined) {
      if (ends.whole) return undefined;
      continue;
    }
    const sessions = ends.whole ? sessionRecords(lines.slice(0, start)) : ends.head.filter((record) => record.type === FH_SESSION_RECORD_TYPE);
    if (sessions.length === 0) return undefined;
    return replayFrom(lines, start, sessions, options, maxSnapshots);
  }
  return undefined;
}

/** The `fh-session` records among `lines`. */
function sessionRecords(lines: readonly TailLine[]): LogRecord[] {
  const sessions: LogRecord[] = [];
  for (const line of lines) {
    if (!line.text.includes('"fh-session"')) continue;
    const parsed = parseJsonlLine(line.text, line.terminated);
    if (parsed !== undefined && 'record' in parsed && parsed.record.type === FH_SESSION_RECORD_TYPE) sessions.push(parsed.record);
  }
  return sessions;
}

/** The lines of `bytes` without blank ones, and without the first when `cut` (cut by the tail's bound). */
function splitTail(bytes: Buffer, cut: boolean): TailLine[] {
  const lines: TailLine[] = [];
  let start = cut ? bytes.indexOf(0x0a) + 1 : 0;
  if (cut && start === 0) return lines;
  for (let end = bytes.indexOf(0x0a, start); end >= 0; end = bytes.indexOf(0x0a, start)) {
    if (end > start) lines.push({ text: bytes.toString('utf8', start, end), terminated: true });
    start = end + 1;
  }
  if (start < bytes.length) lines.push({ text: bytes.toString('utf8', start), terminated: false });
  return lines;
}

/** Whether a line may be a record a rebuild reads, judged from its text (as `rebuild.ts` judges it). */
function mayMatter(text: string): boolean {
  return text.includes('"file-history-') || text.includes('"fh-snapshot"') || text.includes('"fh-session"');
}

/**
 * The index of the newest `fh-snapshot` full line from which at least `maxSnapshots` snapshots are
 * added (counted as `rebuildStateFromLog` counts them: a full record, or a diff against the snapshot
 * just before it), judged from line heads; undefined when the tail holds none; `'unsupported'`
 * when a line from the first full record on is one this reader leaves to the whole-log rebuild
 * (a Claude Code `file-history-snapshot` record, an `fh-snapshot` record not in fh's written form).
 */
function startLine(lines: readonly TailLine[], maxSnapshots: number): number | undefined | 'unsupported' {
  const fulls: number[] = [];
  /** nodesAt[i]: snapshots added by the lines before full record i (from the first full on). */
  const nodesAt: number[] = [];
  let nodes = 0;
  let lastSequence: number | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] as TailLine;
    const head = line.terminated ? sniffFhSnapshotLine(line.text) : undefined;
    if (head !== undefined) {
      if (head.kind === 'full') {
        fulls.push(index);
        nodesAt.push(nodes);
        nodes += 1;
        lastSequence = head.sequence;
      } else if (head.kind === 'diff' && lastSequence !== undefined && head.base === lastSequence) {
        nodes += 1;
        lastSequence = head.sequence;
      }
      continue;
    }
    if (fulls.length === 0 || line.text.startsWith('{"type":"file-history-delta"') || !mayMatter(line.text)) continue;
    const parsed = parseJsonlLine(line.text, line.terminated);
    if (parsed === undefined || 'reason' in parsed) continue;
    const type = parsed.record.type;
    if (type === 'file-history-snapshot' || type === FH_SNAPSHOT_RECORD_TYPE) return 'unsupported';
  }
  for (let at = fulls.length - 1; at >= 0; at -= 1) {
    if (nodes - (nodesAt[at] as number) >= maxSnapshots) return fulls[at];
  }
  return undefined;
}

/** Replay the head's `fh-session` records and the lines from `start` on. */
function replayFrom(lines: readonly TailLine[], start: number, sessions: readonly LogRecord[], options: RebuildOptions, maxSnapshots: number): RebuildResult {
  const skippedLines = new Map<string, { count: number; firstLine: number }>();
  const rebuilder = new StateRebuilder({ ...options, maxSnapshots });
  for (const session of sessions) rebuilder.push(session);
  for (let index = start; index < lines.length; index += 1) {
    const line = lines[index] as TailLine;
    const parsed = parseJsonlLine(line.text, line.terminated);
    if (parsed === undefined) continue;
    if ('reason' in parsed) {
      const seen = skippedLines.get(parsed.reason);
      if (seen === undefined) skippedLines.set(parsed.reason, { count: 1, firstLine: 0 });
      else seen.count += 1;
      continue;
    }
    rebuilder.push(parsed.record, true);
  }
  return { ...rebuilder.finish(), sessions: rebuilder.sessions, hasRecords: true, skippedLines };
}

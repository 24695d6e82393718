/**
 * Rebuilding a long session from the end of its log (`SessionLog.readTail`): the kept snapshots
 * need only the records from the newest `fh-snapshot` full record at or before the oldest kept
 * snapshot, so `FileHistory.open` reads the log's last bytes (more when they do not hold that
 * record), finds that record by the heads of the lines (`sniffFhSnapshotLine`, no parse), and
 * parses and replays only the lines from it on. The open then costs what those records cost, not
 * the session's length.
 *
 * The start is found in the log itself at every open, so it is always exactly the log's; a state
 * record beside the log (`state-record.ts`, the oldest kept snapshot in full) may move it later, to
 * the line it names, only when the tail holds that very line (head, length, sha256). The result
 * is what `rebuildStateFromLog` gives for the whole log, for logs in fh's own form (`fh-snapshot` and `file-history-delta` records). A log that one read
 * covers whole (at most {@link TAIL_REBUILD_MAX_BYTES}) is rebuilt whole from the bytes read
 * (`rebuildStateFromBytes`: exactly `rebuildStateFromLog`'s result, every line reported); a longer
 * one whose newest records hold Claude Code's `file-history-snapshot` records, that has no
 * `fh-session` record at its start, or whose start record is not within
 * {@link TAIL_REBUILD_MAX_BYTES} of its end is left to `rebuildStateFromLog` (undefined here).
 * Lines are held as bytes and decoded only when read (a line's head for its kind).
 * What differs: lines before the start record are not read, so a corrupt line there is not
 * reported at open (`fh verify` reads the whole log), and a skipped line's number is not known
 * (`firstLine` 0).
 */
import type { LogRecord, SessionLog } from '../store.js';
import { MAX_SNAPSHOTS } from '../types.js';
import { parseJsonlLine } from './jsonl.js';
import { LOG_HEAD_BYTES } from './log-ends.js';
import { byteLines, isDeltaByteLine, lineText, parseLines, rebuildStateFromBytes, sniffByteLine, StateRebuilder, type ByteLine, type RebuildOptions, type RebuildResult } from './rebuild.js';
import { FH_SESSION_RECORD_TYPE } from './records.js';
import { FH_SNAPSHOT_RECORD_TYPE, type FhSnapshotHead } from './snapshot-records.js';
import { lineSha256, readStateRecord, type AnchorLine, type StateRecord } from './state-record.js';

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

/**
 * The state of a session from the end of its log (see the module comment; from all of it when one
 * read covers it), or undefined when the log cannot read its tail or its end does not settle the
 * kept snapshots; the caller then streams the whole log. Throws `InvalidArgumentError` when
 * `projectRoot` is not absolute, and the store's errors.
 */
export async function rebuildFromTail(log: SessionLog, options: TailRebuildOptions): Promise<RebuildResult | undefined> {
  if (log.readTail === undefined) return undefined;
  const maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
  const steps = options.tailBytesSteps ?? TAIL_REBUILD_BYTES_STEPS;
  const headBytes = options.headBytes ?? LOG_HEAD_BYTES;
  let state: StateRecord | undefined;
  for (let step = 0, tailBytes = steps[0]; tailBytes !== undefined && tailBytes <= TAIL_REBUILD_MAX_BYTES; step += 1, tailBytes = steps[step]) {
    // The state record beside the log is read with the first tail (never a reason to fail the open).
    const [ends, stateBytes] = await Promise.all([log.readTail(headBytes, tailBytes), step === 0 ? log.readState?.().catch(() => undefined) : undefined]);
    if (stateBytes !== undefined) state = readStateRecord(stateBytes);
    const bytes = Buffer.from(ends.tail.buffer, ends.tail.byteOffset, ends.tail.byteLength);
    // A log read whole is rebuilt whole from the bytes read (every line reported, with its number).
    if (ends.whole) return rebuildStateFromBytes(bytes, options);
    const lines = splitTail(bytes);
    const diffs: DiffLine[] = [];
    const { start, snapshots, stateStart } = startLine(lines, maxSnapshots, state, diffs);
    if (start === 'unsupported') return undefined;
    if (stateStart !== undefined && (start === undefined || stateStart > start)) {
      const sessions = ends.head.filter((record) => record.type === FH_SESSION_RECORD_TYPE);
      if (sessions.length === 0) return undefined;
      return replayFrom(lines, stateStart, sessions, options, maxSnapshots, diffs, (state as StateRecord).body);
    }
    if (start === undefined) {
      // A tail that held no snapshot record at all (one turn's attachments) says nothing of how far back
      // the start is: when the log's size is known and one read can cover it, read it whole next
      // instead of every size between.
      if (snapshots === 0 && ends.size !== undefined && ends.size <= TAIL_REBUILD_MAX_BYTES) {
        const whole = await log.readTail(headBytes, ends.size);
        if (whole.whole) return rebuildStateFromBytes(Buffer.from(whole.tail.buffer, whole.tail.byteOffset, whole.tail.byteLength), options);
      }
      continue;
    }
    const sessions = ends.head.filter((record) => record.type === FH_SESSION_RECORD_TYPE);
    if (sessions.length === 0) return undefined;
    return replayFrom(lines, start, sessions, options, maxSnapshots, diffs);
  }
  return undefined;
}

/** The lines of a tail, without blank ones and without the first (cut by the tail's bound). */
function splitTail(bytes: Buffer): ByteLine[] {
  const lines: ByteLine[] = [];
  const first = bytes.indexOf(0x0a) + 1;
  if (first === 0) return lines;
  for (const line of byteLines(bytes.subarray(first))) lines.push(line);
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
 * `snapshots`: the `fh-snapshot` full and diff lines the tail holds.
 */
function startLine(lines: readonly ByteLine[], maxSnapshots: number, state: StateRecord | undefined, diffs: DiffLine[]): { start: number | undefined | 'unsupported'; snapshots: number; stateStart?: number } {
  const fulls: number[] = [];
  /** nodesAt[i]: snapshots added by the lines before full record i (from the first full on). */
  const nodesAt: number[] = [];
  let nodes = 0;
  let snapshots = 0;
  let lastSequence: number | undefined;
  /** The state record's anchor line, with the snapshots added before it (its body's counts as one). */
  let anchor: { index: number; nodesBefore: number } | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] as ByteLine;
    const head = sniffByteLine(line);
    if (head !== undefined) {
      if (state !== undefined && anchor === undefined && isAnchorLine(line, head, state) && (lastSequence === undefined || lastSequence === state.anchor.base)) {
        anchor = { index, nodesBefore: nodes - 1 };
        lastSequence = state.anchor.base;
      }
      if (head.kind !== 'attach') snapshots += 1;
      if (head.kind === 'diff') diffs.push({ index, head });
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
    if ((fulls.length === 0 && anchor === undefined) || isDeltaByteLine(line)) continue;
    const text = lineText(line);
    if (!mayMatter(text)) continue;
    const parsed = parseJsonlLine(text, line.terminated);
    if (parsed === undefined || 'reason' in parsed) continue;
    const type = parsed.record.type;
    if (type === 'file-history-snapshot' || type === FH_SNAPSHOT_RECORD_TYPE) return { start: 'unsupported', snapshots };
  }
  const stateStart = anchor !== undefined && nodes - anchor.nodesBefore >= maxSnapshots ? anchor.index : undefined;
  const found = stateStart === undefined ? {} : { stateStart };
  for (let at = fulls.length - 1; at >= 0; at -= 1) {
    if (nodes - (nodesAt[at] as number) >= maxSnapshots) return { start: fulls[at], snapshots, ...found };
  }
  return { start: undefined, snapshots, ...found };
}

/** An `fh-snapshot` diff line of a tail: its index and head. */
interface DiffLine {
  index: number;
  head: FhSnapshotHead;
}

/** Whether `line` (with head `head`) is the state record's anchor: its head, length and sha256 (see `state-record.ts`). */
function isAnchorLine(line: ByteLine, head: FhSnapshotHead, state: StateRecord): boolean {
  const { anchor } = state;
  if (head.kind !== 'diff' || head.sequence !== anchor.sequence || head.base !== anchor.base || head.messageId !== anchor.messageId) return false;
  return line.end - line.start === anchor.bytes && lineSha256(line.bytes.subarray(line.start, line.end)) === anchor.sha256;
}

/** Replay the head's `fh-session` records, then `body` (a state record's full record) when given, and the lines from `start` on. */
function replayFrom(lines: readonly ByteLine[], start: number, sessions: readonly LogRecord[], options: RebuildOptions, maxSnapshots: number, diffs: readonly DiffLine[], body?: LogRecord): RebuildResult {
  const skippedLines = new Map<string, { count: number; firstLine: number }>();
  const rebuilder = new StateRebuilder({ ...options, maxSnapshots });
  for (const session of sessions) rebuilder.push(session);
  if (body !== undefined) rebuilder.push(body, true);
  parseLines(lines.slice(start), (parsed) => {
    if (parsed === undefined) return;
    if ('reason' in parsed) {
      const seen = skippedLines.get(parsed.reason);
      if (seen === undefined) skippedLines.set(parsed.reason, { count: 1, firstLine: 0 });
      else seen.count += 1;
      return;
    }
    rebuilder.push(parsed.record, true);
  });
  // The diff lines replayed, copied into one buffer (a few KiB each: the tail read is not held on
  // to), for a later state record to name as its anchor.
  const replayed = diffs.filter(({ index }) => index >= start);
  let total = 0;
  for (const { index } of replayed) total += (lines[index] as ByteLine).end - (lines[index] as ByteLine).start;
  const copies = Buffer.allocUnsafeSlow(total);
  const anchorLines: AnchorLine[] = [];
  let at = 0;
  for (const { index, head } of replayed) {
    const line = lines[index] as ByteLine;
    const copied = line.bytes.copy(copies, at, line.start, line.end);
    anchorLines.push({ sequence: head.sequence, base: head.base as number, messageId: head.messageId, line: copies.subarray(at, at + copied) });
    at += copied;
  }
  return { ...rebuilder.finish(), sessions: rebuilder.sessions, hasRecords: true, skippedLines, anchorLines };
}

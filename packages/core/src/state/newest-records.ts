/**
 * The newest records of a session log, parsed from its newest full snapshot record on (issue 16:
 * `fh hook` pays for one event what the event needs, not the session's length): the log's ends are
 * read as bytes (`SessionLog.readTail`), the newest `fh-snapshot` full line is found by the heads
 * of the lines (`sniffByteLine`, no parse), and only the lines from it on are parsed, with the
 * `fh-session` records of the log's start. A small log read whole is parsed whole only when a
 * caller asks for all of its records.
 */
import type { LogEnds, LogRecord, SessionLog } from '../store.js';
import { parseJsonl, parseJsonlLine } from './jsonl.js';
import { LOG_HEAD_BYTES, LOG_TAIL_BYTES_STEPS } from './log-ends.js';
import { byteLines, isCleanKey, lineText, sniffByteLine, type ByteLine } from './rebuild.js';
import { FH_SESSION_RECORD_TYPE } from './records.js';
import { tailAnchor } from './restore-state.js';
import { FH_SNAPSHOT_RECORD_TYPE, fhSnapshotRecordHead } from './snapshot-records.js';

/** What {@link readNewestRecords} read. */
export interface NewestRecords {
  /**
   * The log's ends as `FileHistory.open({ rebuild: 'latest', logEnds })` and `tailMayTrack` take
   * them: `head` holds the log's `fh-session` records (for a log longer than one read, those of its
   * first `LOG_HEAD_BYTES`), `tail`
   * every record from the newest full snapshot record on (`tailAnchor(tail)` is 0), `whole` false.
   */
  ends: LogEnds;
  /**
   * Every record of the log in order (as `SessionLog.read` gives them), parsed on the first call
   * from the bytes already read, when one read covered the whole log; undefined otherwise (the
   * caller reads the log).
   */
  allRecords: (() => LogRecord[]) | undefined;
  /** The bytes read, when they are the whole log (tells an unchanged log, see `previous`). */
  readonly wholeBytes: Buffer | undefined;
  /**
   * The newest record of type `type` that `accept` takes (default: any) among the bytes read (the
   * whole log when `wholeBytes` is set; else the log's last bytes, from the first whole line on),
   * found by searching the bytes back for lines that name `type` and parsing only those; undefined
   * when there is none there.
   */
  newestOf(type: string, accept?: (record: LogRecord) => boolean): LogRecord | undefined;
}

/**
 * The newest records of `log` (see the module comment and {@link NewestRecords}), or undefined when
 * the log cannot read its tail (`readTail` absent) or its last `LOG_TAIL_BYTES_STEPS` bytes hold no
 * full snapshot record that settles the newest snapshot (see `tailAnchor`): the caller then reads
 * the ends (`readLogEnds`) or the whole log as before. `previous`: what an earlier call read (say
 * before the session's lock was taken); when the log read whole is byte for byte what it read, it
 * is returned as it is, without parsing again. Throws the store's errors.
 */
export async function readNewestRecords(log: SessionLog, previous?: NewestRecords): Promise<NewestRecords | undefined> {
  if (log.readTail === undefined) return undefined;
  for (const tailBytes of LOG_TAIL_BYTES_STEPS) {
    const read = await log.readTail(LOG_HEAD_BYTES, tailBytes);
    const bytes = Buffer.from(read.tail.buffer, read.tail.byteOffset, read.tail.byteLength);
    if (read.whole && previous?.wholeBytes !== undefined && previous.wholeBytes.equals(bytes)) return previous;
    // The tail's first line is cut by its bound (unless the read is whole): it starts after a newline.
    const from = read.whole ? 0 : bytes.indexOf(0x0a) + 1;
    if (from === 0 && !read.whole) continue;
    const start = newestFullLine(bytes, from);
    if (start === undefined) {
      if (read.whole) return undefined;
      continue;
    }
    const lines = [...byteLines(bytes.subarray(start))];
    const tail = parsedLines(lines);
    if (tailAnchor(tail) === undefined) return undefined;
    const head = (read.whole ? sessionRecords(bytes.subarray(0, start)) : read.head).filter((record) => record.type === FH_SESSION_RECORD_TYPE);
    let all: LogRecord[] | undefined;
    return {
      ends: { head, tail, whole: false },
      allRecords: read.whole ? () => (all ??= parseJsonl(bytes.toString('utf8')).records) : undefined,
      wholeBytes: read.whole ? bytes : undefined,
      newestOf: (type, accept) => newestOf(bytes.subarray(from), type, accept),
    };
  }
  return undefined;
}

/**
 * The newest snapshot of `tail` (`NewestRecords.ends.tail`: the records from the newest
 * `fh-snapshot` full record on) and whether it tracks the file at tracking path `key`, read from
 * the records as they are, without parsing or building any entry (issue 16: an edit of a new file
 * needs no more): `{ messageId, tracks }`, exactly what a rebuild of those records gives
 * (`latestStateFromTail`), or undefined when the records do not settle it that simply. They do
 * when they start with an `fh-snapshot` full record, every later `fh-snapshot` record is one a
 * rebuild takes as it is (a diff against the snapshot before it, an attach to the newest), no
 * `file-history-snapshot` record follows (Claude Code's form), and every path named (entries,
 * removed paths, `file-history-delta` paths) is a clean tracking path (`isCleanKey`: no other
 * spelling can stand for `key`). Other records (user turns, `fh-session`, ...) are passed over.
 */
export function newestSnapshotTracking(tail: readonly LogRecord[], key: string): { messageId: string; tracks: boolean } | undefined {
  let newest: { messageId: string; sequence: number } | undefined;
  let tracks = false;
  for (const record of tail) {
    const { type } = record;
    if (type === 'file-history-snapshot') return undefined;
    if (type === 'file-history-delta') {
      const path = record.trackingPath;
      if (newest === undefined || typeof path !== 'string' || !isCleanKey(path)) return undefined;
      if (path === key) tracks = true;
      continue;
    }
    if (type !== FH_SNAPSHOT_RECORD_TYPE) continue;
    const head = fhSnapshotRecordHead(record);
    const entries = record.entries;
    if (head === undefined || typeof entries !== 'object' || entries === null || Array.isArray(entries)) return undefined;
    if (head.kind === 'full' ? newest !== undefined : newest === undefined || (head.kind === 'diff' ? head.base !== newest.sequence : head.sequence !== newest.sequence || head.messageId !== newest.messageId)) return undefined;
    // A full record replaces every entry; a diff or an attach changes the named ones.
    if (head.kind === 'full') tracks = false;
    for (const path in entries) {
      if (!isCleanKey(path)) return undefined;
      if (path === key) tracks = true;
    }
    if (head.kind === 'diff' && record.removed !== undefined) {
      if (!Array.isArray(record.removed)) return undefined;
      for (const path of record.removed as unknown[]) {
        if (typeof path !== 'string' || !isCleanKey(path)) return undefined;
        if (path === key) tracks = false;
      }
    }
    newest = { messageId: head.messageId, sequence: head.sequence };
  }
  return newest === undefined ? undefined : { messageId: newest.messageId, tracks };
}

/** How every `fh-snapshot` full record fh writes starts (`fullSnapshotRecord`, see `sniffFhSnapshotLine`). */
const FULL_LINE_START = Buffer.from('{"type":"fh-snapshot","version":2,"kind":"full",');

/**
 * Where the newest line at or after `from` that fh wrote as an `fh-snapshot` full record starts in
 * `bytes`, found by searching back for its opening bytes after a newline (a newline inside a record
 * is always escaped, so those bytes after one start a line) and checked by its head
 * (`sniffByteLine`); undefined when there is none.
 */
function newestFullLine(bytes: Buffer, from: number): number | undefined {
  for (let at = bytes.length; at >= from; ) {
    const found = bytes.lastIndexOf(FULL_LINE_START, at);
    if (found < from) return undefined;
    if (found === 0 || bytes[found - 1] === 0x0a) {
      const end = bytes.indexOf(0x0a, found);
      const line: ByteLine = { line: 0, bytes, start: found, end: end < 0 ? bytes.length : end, terminated: end >= 0 };
      if (sniffByteLine(line)?.kind === 'full') return found;
    }
    at = found - 1;
  }
  return undefined;
}

/** The newest record of `type` that `accept` takes among the lines of `bytes` naming `type` (see {@link NewestRecords.newestOf}). */
function newestOf(bytes: Buffer, type: string, accept: (record: LogRecord) => boolean = () => true): LogRecord | undefined {
  const name = Buffer.from(JSON.stringify(type));
  for (let at = bytes.lastIndexOf(name); at >= 0; ) {
    const start = bytes.lastIndexOf(0x0a, at) + 1;
    const newline = bytes.indexOf(0x0a, at);
    const [record] = parsedLines([{ line: 0, bytes, start, end: newline < 0 ? bytes.length : newline, terminated: newline >= 0 }]);
    if (record !== undefined && record.type === type && accept(record)) return record;
    at = start === 0 ? -1 : bytes.lastIndexOf(name, start - 1);
  }
  return undefined;
}

/** The records of the lines of `bytes` that name an `fh-session` record (found by a byte search, not by parsing every line). */
function sessionRecords(bytes: Buffer): LogRecord[] {
  const records: LogRecord[] = [];
  const name = Buffer.from(`"${FH_SESSION_RECORD_TYPE}"`);
  for (let at = bytes.indexOf(name); at >= 0; ) {
    const start = bytes.lastIndexOf(0x0a, at) + 1;
    const newline = bytes.indexOf(0x0a, at);
    const end = newline < 0 ? bytes.length : newline;
    records.push(...parsedLines([{ line: 0, bytes, start, end, terminated: newline >= 0 }]));
    at = newline < 0 ? -1 : bytes.indexOf(name, end);
  }
  return records;
}

/** The records of `lines`, parsed as `parseJsonl` parses each line (bad lines skipped). */
function parsedLines(lines: readonly ByteLine[]): LogRecord[] {
  const records: LogRecord[] = [];
  for (const line of lines) {
    const parsed = parseJsonlLine(lineText(line), line.terminated);
    if (parsed !== undefined && 'record' in parsed) records.push(parsed.record);
  }
  return records;
}

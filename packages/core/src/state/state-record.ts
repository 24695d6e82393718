/**
 * The state record beside a session log (`fh-state`, format version 1; issue 16, ARCHITECTURE.md
 * "The state record beside the log"): the kept snapshots' oldest one in full, written now and then
 * by a long-lived writer, so `FileHistory.open` of a long session parses that one snapshot plus the
 * records after it instead of replaying from the log's newest full record before it (up to twice as
 * many lines). Two lines:
 *
 *   {"type":"fh-state","version":1,"anchor":{"sequence":9,"base":8,"messageId":"…","bytes":2480,"sha256":"…"},"bodyBytes":140123}
 *   {"type":"fh-snapshot","version":2,"kind":"full","sequence":8,"messageId":"…",…}
 *
 * The body is the `fh-snapshot` full record of snapshot `base` as it stood once the log's records up
 * to the anchor line were applied; the anchor names the log line that follows it: the `fh-snapshot`
 * diff record of snapshot `sequence` against `base`, by its head, its length in bytes (without the
 * `\n`) and the sha256 of its bytes. A reader replays the body, then the log's lines from the anchor
 * on, which gives what replaying the whole log gives (the body is what those lines were applied to).
 *
 * It can never be ahead of the log: it is written only after the anchor line was durable in the log
 * (the writer's own append, or a line it read), and it describes only records up to that line. It is
 * never trusted on its own: a reader uses it only when the log holds a line with exactly that head,
 * length and hash, and the body is whole (`bodyBytes`, ends in `\n`, parses as a full record of
 * snapshot `base`). Anything else (no state, a torn or stale one, a log rewritten or cut before the
 * anchor) is ignored and the log is read as without it. It is not fsynced: losing it costs only a
 * longer open.
 */
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { LogRecord } from '../store.js';
import { FH_SNAPSHOT_RECORD_TYPE, fhSnapshotRecordHead } from './snapshot-records.js';

/** Record type of the state record's first line. */
export const FH_STATE_RECORD_TYPE = 'fh-state';

/** Format version of the state record this fh writes and reads. */
export const FH_STATE_RECORD_VERSION = 1;

/** The log line a state record continues from: an `fh-snapshot` diff record (see the module comment). */
export interface StateAnchor {
  /** Sequence of the snapshot the anchor line records. */
  sequence: number;
  /** Sequence of the snapshot it is a diff against: the one the state's body holds. */
  base: number;
  messageId: string;
  /** Length of the line in bytes, without its `\n`. */
  bytes: number;
  /** sha256 of the line's bytes (without its `\n`), lower-case hex. */
  sha256: string;
}

/** A state record read back (see {@link readStateRecord}). */
export interface StateRecord {
  anchor: StateAnchor;
  /** The body: an `fh-snapshot` full record of snapshot `anchor.base`, parsed (owned by the caller). */
  body: LogRecord;
}

/** An `fh-snapshot` diff line durable in the log, which a state record may name as its anchor. */
export interface AnchorLine {
  sequence: number;
  base: number;
  messageId: string;
  /** The line without its `\n`: its bytes as read, or its text as written. */
  line: Uint8Array | string;
}

/** The anchor naming `line` (its length and sha256 computed here). */
export function anchorOf(line: AnchorLine): StateAnchor {
  const bytes = typeof line.line === 'string' ? Buffer.byteLength(line.line, 'utf8') : line.line.byteLength;
  return { sequence: line.sequence, base: line.base, messageId: line.messageId, bytes, sha256: lineSha256(line.line) };
}

/** sha256 (lower-case hex) of a line's bytes. */
export function lineSha256(line: Uint8Array | string): string {
  return createHash('sha256').update(line).digest('hex');
}

/**
 * The bytes of a state record: `anchor` and the JSON text of the `fh-snapshot` full record of
 * snapshot `anchor.base` (`fullSnapshotRecord`, serialized).
 */
export function formatStateRecord(anchor: StateAnchor, bodyText: string): Buffer {
  const body = Buffer.from(`${bodyText}\n`, 'utf8');
  const head = JSON.stringify({ type: FH_STATE_RECORD_TYPE, version: FH_STATE_RECORD_VERSION, anchor, bodyBytes: body.length });
  return Buffer.concat([Buffer.from(`${head}\n`, 'utf8'), body]);
}

function isAnchor(value: unknown): value is StateAnchor {
  if (typeof value !== 'object' || value === null) return false;
  const anchor = value as Record<string, unknown>;
  const count = (name: string) => typeof anchor[name] === 'number' && Number.isSafeInteger(anchor[name]) && (anchor[name] as number) >= 1;
  return count('sequence') && count('base') && count('bytes') && typeof anchor.messageId === 'string' && anchor.messageId !== '' && typeof anchor.sha256 === 'string' && /^[0-9a-f]{64}$/.test(anchor.sha256);
}

/**
 * The state record in `bytes`, or undefined when they are not a whole one of this version (empty,
 * torn, another version, a body that is not an `fh-snapshot` full record of snapshot `anchor.base`).
 * Never throws.
 */
export function readStateRecord(bytes: Uint8Array): StateRecord | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const newline = buffer.indexOf(0x0a);
  if (newline < 0) return undefined;
  let head: unknown;
  let body: unknown;
  try {
    head = JSON.parse(buffer.toString('utf8', 0, newline));
    if (typeof head !== 'object' || head === null) return undefined;
    const { type, version, anchor, bodyBytes } = head as Record<string, unknown>;
    if (type !== FH_STATE_RECORD_TYPE || version !== FH_STATE_RECORD_VERSION || !isAnchor(anchor)) return undefined;
    if (bodyBytes !== buffer.length - newline - 1 || buffer[buffer.length - 1] !== 0x0a) return undefined;
    // ASCII (fh's records mostly are) decodes as Latin-1: the same string, without UTF-8 decoding.
    const encoding = isAscii(buffer.subarray(newline + 1)) ? 'latin1' : 'utf8';
    body = JSON.parse(buffer.toString(encoding, newline + 1, buffer.length - 1));
    const bodyHead = typeof body === 'object' && body !== null && (body as { type?: unknown }).type === FH_SNAPSHOT_RECORD_TYPE ? fhSnapshotRecordHead(body) : undefined;
    if (bodyHead === undefined || bodyHead.kind !== 'full' || bodyHead.sequence !== anchor.base) return undefined;
    return { anchor, body: body as LogRecord };
  } catch {
    return undefined;
  }
}

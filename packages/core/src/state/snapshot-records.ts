/**
 * fh's compact snapshot records (format version 2, see ARCHITECTURE.md "Record formats"): a turn's
 * snapshot as what changed against the previous one, with a full record often enough that a
 * rebuild replays little. Written only into fh's own session logs (Claude Code ignores the
 * unknown `fh-snapshot` type); a log Claude Code reads gets its own full `file-history-snapshot`
 * records instead (`SessionLog.recordForm`).
 *
 *   {"type":"fh-snapshot","version":2,"kind":"full","sequence":7,"messageId":"…","timestamp":"…",
 *    "entries":{"src/a.ts":{…backup…},…},"pending":{"6":{"src/a.ts":"…@v2"}}}
 *   {"type":"fh-snapshot","version":2,"kind":"diff","sequence":8,"base":7,"messageId":"…",
 *    "timestamp":"…","entries":{"src/a.ts":{…}},"removed":["gone.txt"]}
 *
 * The head fields come first, in this order, so a reader can tell a record's kind, sequence, base
 * and message id from the start of its line without parsing the rest (`sniffFhSnapshotLine`).
 */
import type { LogRecord } from '../store.js';
import type { FileHistoryBackup, FileHistorySnapshot } from '../types.js';
import { adoptBackupEntry, isBackupFileName, parseBackupEntry, parseRecordTime, type BackupParseCache, type RecordTimes, type RecordWarningHandler } from './records.js';
import { setBackup } from './snapshot-chain.js';

/** Record type of fh's compact snapshot records. */
export const FH_SNAPSHOT_RECORD_TYPE = 'fh-snapshot';

/** Format version of the `fh-snapshot` records this fh writes and reads. */
export const FH_SNAPSHOT_RECORD_VERSION = 2;

/**
 * Backups superseded by one snapshot: tracking path → the name of the backup the previous
 * snapshot held for it and this one replaced (only names retention may delete: not a version 1,
 * not `null`, not an entry with `error`). Retention deletes them when the previous snapshot is
 * dropped.
 */
export type SupersededBackups = Readonly<Record<string, string>>;

/** A parsed `fh-snapshot` record. */
export interface FhSnapshotRecord {
  type: typeof FH_SNAPSHOT_RECORD_TYPE;
  /**
   * `full`: `entries` holds every tracked file; `diff`: only those that changed against `base`;
   * `attach`: backups attached mid-turn to snapshot `sequence` (one record per batch of `trackEdit`s).
   */
  kind: 'full' | 'diff' | 'attach';
  /** The snapshot's number in the session (`snapshotSequence` once it was made), from 1. */
  sequence: number;
  messageId: string;
  timestamp: Date;
  /** diff: the sequence of the snapshot it is relative to (the one made just before it). */
  base?: number;
  /** Tracking path → backup: every file (full) or the added and replaced ones (diff). */
  entries: Record<string, FileHistoryBackup>;
  /** The keys of `entries`, in their order (one list, so a rebuild walks a map of many files once). */
  paths: string[];
  /** diff: tracking paths the snapshot no longer holds. */
  removed: string[];
  /**
   * full: what the kept snapshots up to this one superseded (sequence → {@link SupersededBackups}),
   * so retention can run from this record on without the records before it.
   */
  pending: Map<number, SupersededBackups>;
}

/** Head fields of an `fh-snapshot` line, read without parsing it (see {@link sniffFhSnapshotLine}). */
export interface FhSnapshotHead {
  kind: 'full' | 'diff' | 'attach';
  sequence: number;
  /** diff: the sequence of the snapshot it is relative to. */
  base?: number;
  messageId: string;
}

const HEAD_PATTERN = /^\{"type":"fh-snapshot","version":2,"kind":"(full|diff|attach)","sequence":(\d{1,15}),(?:"base":(\d{1,15}),)?"messageId":("(?:[^"\\]|\\.)*")/;

/**
 * The head of a line fh wrote as an `fh-snapshot` record (fields in the written order), or
 * undefined when the line does not start like one (it is then parsed in full to find out).
 */
export function sniffFhSnapshotLine(text: string): FhSnapshotHead | undefined {
  const match = HEAD_PATTERN.exec(text.length > 4096 ? text.slice(0, 4096) : text);
  if (match === null) return undefined;
  let messageId: unknown;
  try {
    messageId = JSON.parse(match[4] as string);
  } catch {
    return undefined;
  }
  if (typeof messageId !== 'string' || messageId === '') return undefined;
  const kind = match[1] as 'full' | 'diff' | 'attach';
  if ((kind === 'diff') !== (match[3] !== undefined)) return undefined;
  return { kind, sequence: Number(match[2]), ...(match[3] === undefined ? {} : { base: Number(match[3]) }), messageId };
}

/** The head of a parsed `fh-snapshot` record, or undefined for other records and malformed heads. */
export function fhSnapshotRecordHead(record: unknown): FhSnapshotHead | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const value = record as Record<string, unknown>;
  if (value.type !== FH_SNAPSHOT_RECORD_TYPE || value.version !== FH_SNAPSHOT_RECORD_VERSION) return undefined;
  if (value.kind !== 'full' && value.kind !== 'diff' && value.kind !== 'attach') return undefined;
  if (!isSequence(value.sequence) || typeof value.messageId !== 'string' || value.messageId === '') return undefined;
  if (value.kind === 'diff') return isSequence(value.base) ? { kind: 'diff', sequence: value.sequence, base: value.base, messageId: value.messageId } : undefined;
  return { kind: value.kind, sequence: value.sequence, messageId: value.messageId };
}

/**
 * The full record of `snapshot`, number `sequence`, carrying `pending` (the superseded backups of
 * the kept snapshots, by sequence; only those after `sequence − MAX_SNAPSHOTS` matter).
 */
export function fullSnapshotRecord(snapshot: FileHistorySnapshot, sequence: number, pending: ReadonlyMap<number, SupersededBackups> = new Map()): LogRecord {
  const pendingObject: Record<string, SupersededBackups> = {};
  for (const [at, backups] of pending) if (Object.keys(backups).length > 0) pendingObject[String(at)] = backups;
  return {
    type: FH_SNAPSHOT_RECORD_TYPE,
    version: FH_SNAPSHOT_RECORD_VERSION,
    kind: 'full',
    sequence,
    messageId: snapshot.messageId,
    timestamp: snapshot.timestamp,
    entries: snapshot.trackedFileBackups,
    ...(Object.keys(pendingObject).length === 0 ? {} : { pending: pendingObject }),
  };
}

/**
 * The diff record of the snapshot `messageId` number `sequence` against snapshot `base`: the
 * entries added or replaced, and the paths removed.
 */
export function diffSnapshotRecord(
  messageId: string,
  timestamp: Date,
  sequence: number,
  base: number,
  entries: Readonly<Record<string, FileHistoryBackup>>,
  removed: readonly string[] = [],
): LogRecord {
  return {
    type: FH_SNAPSHOT_RECORD_TYPE,
    version: FH_SNAPSHOT_RECORD_VERSION,
    kind: 'diff',
    sequence,
    base,
    messageId,
    timestamp,
    entries,
    ...(removed.length === 0 ? {} : { removed }),
  };
}

/**
 * The attach record of backups added mid-turn to snapshot `messageId` number `sequence` (the
 * newest): one record for a batch of `trackEdit`s instead of one `file-history-delta` each.
 */
export function attachSnapshotRecord(messageId: string, sequence: number, entries: Readonly<Record<string, FileHistoryBackup>>): LogRecord {
  return { type: FH_SNAPSHOT_RECORD_TYPE, version: FH_SNAPSHOT_RECORD_VERSION, kind: 'attach', sequence, messageId, timestamp: new Date(), entries };
}

/**
 * Parse an `fh-snapshot` record read from a log. Undefined for other types (no warning) and for
 * a malformed or unknown-version one (one warning). Entries are parsed like those of
 * `file-history-snapshot` records (a malformed entry is kept, marked with `error`); malformed
 * `removed` paths and `pending` names are dropped with a warning. Never throws. `owned`: the
 * record was parsed for this call alone (from a log line), so well-formed entries are taken over
 * in place (`adoptBackupEntry`) instead of copied; the record must not be used afterwards.
 * `times`: shared Dates for the entries taken over (see `RecordTimes`).
 */
export function parseFhSnapshotRecord(record: unknown, warn: RecordWarningHandler = () => {}, cache?: BackupParseCache, owned = false, times?: RecordTimes): FhSnapshotRecord | undefined {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const value = record as Record<string, unknown>;
  if (value.type !== FH_SNAPSHOT_RECORD_TYPE) return undefined;
  if (value.version !== FH_SNAPSHOT_RECORD_VERSION) {
    warn(`fh-snapshot record of format version ${JSON.stringify(value.version)} skipped (this fh reads version ${FH_SNAPSHOT_RECORD_VERSION}; a newer fh wrote it?)`);
    return undefined;
  }
  const head = fhSnapshotRecordHead(value);
  if (head === undefined) {
    warn('fh-snapshot record without a kind, sequence, base or messageId skipped');
    return undefined;
  }
  const label = `fh-snapshot ${head.messageId}`;
  const time = typeof value.timestamp === 'string' ? parseRecordTime(value.timestamp) : Number.NaN;
  if (Number.isNaN(time)) warn(`${label}: timestamp ${JSON.stringify(value.timestamp) ?? 'undefined'} is not a date; using the epoch`);
  const rawEntries = value.entries;
  if (typeof rawEntries !== 'object' || rawEntries === null || Array.isArray(rawEntries)) {
    warn(`${label}: entries is not an object; record skipped`);
    return undefined;
  }
  const base = head.base;
  // An owned record's entries object becomes the entries (each value replaced in place): no copy.
  const entries = (owned ? rawEntries : {}) as Record<string, FileHistoryBackup>;
  const paths = Object.keys(rawEntries);
  let kept = 0;
  for (let index = 0; index < paths.length; index += 1) {
    const path = paths[index] as string;
    if (path === '') {
      warn(`${label}: entry with an empty path skipped`);
      if (owned) delete entries[path];
      continue;
    }
    paths[kept] = path;
    kept += 1;
    const raw = (rawEntries as Record<string, unknown>)[path];
    // An owned entry taken over in place is already where it belongs.
    if (owned && adoptBackupEntry(raw, times) !== undefined) continue;
    setBackup(entries, path, parseBackupEntry(raw, label, path, warn, cache));
  }
  paths.length = kept;
  const removed: string[] = [];
  if (head.kind === 'diff' && value.removed !== undefined) {
    if (Array.isArray(value.removed)) {
      for (const path of value.removed) {
        if (typeof path === 'string' && path !== '') removed.push(path);
        else warn(`${label}: removed path ${JSON.stringify(path)} ignored`);
      }
    } else {
      warn(`${label}: removed is not a list; ignored`);
    }
  }
  const pending = new Map<number, SupersededBackups>();
  if (head.kind === 'full' && typeof value.pending === 'object' && value.pending !== null) {
    for (const [at, backups] of Object.entries(value.pending as Record<string, unknown>)) {
      const sequence = Number(at);
      if (!isSequence(sequence) || typeof backups !== 'object' || backups === null) {
        warn(`${label}: pending retention entry ${JSON.stringify(at)} ignored`);
        continue;
      }
      const kept: Record<string, string> = {};
      for (const [path, name] of Object.entries(backups as Record<string, unknown>)) {
        if (path !== '' && typeof name === 'string' && isBackupFileName(name)) kept[path] = name;
        else warn(`${label}: pending retention of ${JSON.stringify(path)} ignored (not a backup name)`);
      }
      pending.set(sequence, kept);
    }
  }
  return {
    type: FH_SNAPSHOT_RECORD_TYPE,
    kind: head.kind,
    sequence: head.sequence,
    messageId: head.messageId,
    timestamp: new Date(Number.isNaN(time) ? 0 : time),
    ...(base === undefined ? {} : { base }),
    entries,
    paths,
    removed,
    pending,
  };
}

function isSequence(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

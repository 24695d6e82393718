/**
 * Session record formats (Claude Code transcript lines) that carry file history, and their
 * parsing. fh writes these into its session log and reads them from Claude Code transcripts; see
 * ARCHITECTURE.md.
 *
 * What Claude Code really writes (checked against public transcripts, 2026):
 * - `{"type":"file-history-snapshot","messageId":…,"snapshot":{"messageId":…,"trackedFileBackups":{…},"timestamp":…},"isSnapshotUpdate":…}`.
 *   The top-level `messageId` of an update can differ from `snapshot.messageId` (it names the
 *   message being processed); the snapshot it belongs to is `snapshot.messageId`.
 * - `{"type":"file-history-delta","messageId":…,"snapshotMessageId":…,"trackingPath":…,"backup":{…},"timestamp":…}`.
 * - Backup names are `{sha256(absolute path)[:16]}@v{version}` (16 lower-case hex digits), or
 *   `null` when the file did not exist. Newer versions add fields such as `realParentDir` to a
 *   backup; unknown fields are ignored.
 * - Keys of `trackedFileBackups` are relative to the session's first working folder (older
 *   versions wrote absolute paths).
 */
import { parseChangedBy } from '../attribution/agents.js';
import type { LogRecord } from '../store.js';
import type { FileHistoryBackup, FileHistorySnapshot } from '../types.js';
import { setBackup } from './snapshot-chain.js';

/**
 * `{"type":"file-history-snapshot", messageId, snapshot, isSnapshotUpdate}`: a turn's snapshot
 * (`isSnapshotUpdate: false`) or the same snapshot after a backup was attached to it mid-turn
 * (`true`). Dates are ISO-8601 strings once serialised.
 */
export interface FileHistorySnapshotRecord {
  type: 'file-history-snapshot';
  messageId: string;
  snapshot: FileHistorySnapshot;
  isSnapshotUpdate: boolean;
}

/**
 * `{"type":"file-history-delta", messageId, snapshotMessageId, trackingPath, backup, timestamp}`:
 * one tracked file's backup added to the snapshot of `snapshotMessageId`.
 */
export interface FileHistoryDeltaRecord {
  type: 'file-history-delta';
  messageId: string;
  snapshotMessageId: string;
  trackingPath: string;
  backup: FileHistoryBackup;
  timestamp: Date;
}

/** A parsed file-history record (see {@link parseFileHistoryRecord}). */
export type FileHistoryRecord = FileHistorySnapshotRecord | FileHistoryDeltaRecord;

/** Build the record that persists `snapshot` (seed: recordFileHistorySnapshot). */
export function snapshotRecord(snapshot: FileHistorySnapshot, isSnapshotUpdate: boolean): FileHistorySnapshotRecord {
  return { type: 'file-history-snapshot', messageId: snapshot.messageId, snapshot, isSnapshotUpdate };
}

/**
 * Most tracked files a snapshot may hold for a mid-turn attachment to be recorded as a whole
 * `file-history-snapshot` update (`isSnapshotUpdate: true`, as Claude Code writes it). Past this,
 * each attached backup is recorded as one `file-history-delta` record instead: an update carries
 * the whole snapshot, so a turn that tracks thousands of files one by one would otherwise write a
 * log that grows with the square of the file count.
 */
export const SNAPSHOT_UPDATE_MAX_FILES = 64;

/** Build the `file-history-delta` record that adds `backup` of `trackingPath` to `snapshotMessageId`'s snapshot. */
export function deltaRecord(snapshotMessageId: string, trackingPath: string, backup: FileHistoryBackup, timestamp: Date = new Date()): FileHistoryDeltaRecord {
  return { type: 'file-history-delta', messageId: snapshotMessageId, snapshotMessageId, trackingPath, backup, timestamp };
}

/**
 * The records that persist backups attached mid-turn to `snapshot` (already holding them): one
 * update record while the snapshot holds at most {@link SNAPSHOT_UPDATE_MAX_FILES} files, else
 * one delta record per attached file. `restoreStateFromLog` rebuilds the same state from either.
 */
export function attachmentRecords(snapshot: FileHistorySnapshot, attachedPaths: readonly string[]): FileHistoryRecord[] {
  if (Object.keys(snapshot.trackedFileBackups).length <= SNAPSHOT_UPDATE_MAX_FILES) return [snapshotRecord(snapshot, true)];
  const timestamp = new Date();
  return attachedPaths.map((path) => deltaRecord(snapshot.messageId, path, snapshot.trackedFileBackups[path] as FileHistoryBackup, timestamp));
}

/**
 * The names fh and Claude Code give backups: `{sha256(absolute path)[:16]}@v{version}`. A name
 * read from a record must match this before it reaches a store, so a record can never point a
 * store outside the session's folder.
 */
export const BACKUP_FILE_NAME_PATTERN = /^[0-9a-f]{16}@v[0-9]{1,15}$/;

/** 1 at the UTF-16 code of each lower-case hex digit (`0-9a-f`); other codes read 0 or undefined. */
const LOWER_HEX = (() => {
  const table = new Uint8Array(128);
  for (const digit of '0123456789abcdef') table[digit.charCodeAt(0)] = 1;
  return table;
})();

/**
 * True when `name` is a backup name fh accepts from a record ({@link BACKUP_FILE_NAME_PATTERN}),
 * checked character by character (a rebuild checks every entry's name).
 */
export function isBackupFileName(name: string): boolean {
  const length = name.length;
  if (length < 19 || length > 33 || name.charCodeAt(16) !== 64 || name.charCodeAt(17) !== 118) return false;
  for (let index = 0; index < 16; index += 1) if (LOWER_HEX[name.charCodeAt(index)] !== 1) return false;
  for (let index = 18; index < length; index += 1) {
    const code = name.charCodeAt(index);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** The two-digit number at `at` in `text`, or -1. */
function twoDigits(text: string, at: number): number {
  const high = text.charCodeAt(at) - 48;
  const low = text.charCodeAt(at + 1) - 48;
  return high >= 0 && high <= 9 && low >= 0 && low <= 9 ? high * 10 + low : -1;
}

/**
 * `Date.parse(text)`, read directly for the form `Date#toJSON` writes (`2026-01-02T03:04:05.678Z`,
 * the form of every time fh records) when its fields are plainly in range, else by `Date.parse`:
 * the same number either way.
 */
export function parseRecordTime(text: string): number {
  if (text.length === 24 && text.charCodeAt(4) === 45 && text.charCodeAt(7) === 45 && text.charCodeAt(10) === 84 && text.charCodeAt(13) === 58 && text.charCodeAt(16) === 58 && text.charCodeAt(19) === 46 && text.charCodeAt(23) === 90) {
    const century = twoDigits(text, 0);
    const yearLow = twoDigits(text, 2);
    const month = twoDigits(text, 5);
    const day = twoDigits(text, 8);
    const hour = twoDigits(text, 11);
    const minute = twoDigits(text, 14);
    const second = twoDigits(text, 17);
    const tenths = twoDigits(text, 20);
    const thousandths = text.charCodeAt(22) - 48;
    if (century >= 1 && yearLow >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= 28 && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59 && tenths >= 0 && thousandths >= 0 && thousandths <= 9) {
      // Days since the epoch of a proleptic Gregorian date (H. Hinnant's days_from_civil).
      const year = century * 100 + yearLow - (month <= 2 ? 1 : 0);
      const era = Math.floor(year / 400);
      const yearOfEra = year - era * 400;
      const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
      const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
      const days = era * 146097 + dayOfEra - 719468;
      return days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + tenths * 10 + thousandths;
    }
  }
  return Date.parse(text);
}

/**
 * The Dates of the times one rebuild reads, one object per distinct ISO string: entries backed up
 * together share their times (a batch of `trackEdit`s, each `changedBy[].at`), so a rebuild of
 * many entries makes a Date per distinct time instead of two per entry. Entries never change
 * their Dates (fh replaces an entry, never mutates it), so sharing one is safe.
 */
export class RecordTimes {
  private readonly dates = new Map<string, Date | null>();
  /** The last time asked for and its Date: entries next to each other mostly share it (no hash of the text then). */
  private lastText = '';
  private lastDate: Date | null = null;

  /** The Date of `text` (as {@link parseRecordTime} reads it), or undefined when it is not one. */
  date(text: string): Date | undefined {
    if (text === this.lastText) return this.lastDate ?? undefined;
    let date = this.dates.get(text);
    if (date === undefined) {
      const time = parseRecordTime(text);
      date = Number.isNaN(time) ? null : new Date(time);
      this.dates.set(text, date);
    }
    this.lastText = text;
    this.lastDate = date;
    return date ?? undefined;
  }
}

/** Receives one human-readable warning about a record that was skipped or repaired. */
export type RecordWarningHandler = (message: string) => void;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** A Date from a Date or an ISO-8601 string; undefined when missing or unparseable. */
function toDate(value: unknown): Date | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : new Date(value.getTime());
  if (typeof value !== 'string') return undefined;
  const time = parseRecordTime(value);
  return Number.isNaN(time) ? undefined : new Date(time);
}

/** Time used when a record's date is missing: the epoch, so change detection compares bytes. */
const UNKNOWN_TIME = 0;

/**
 * Parse one backup entry read from a record (a `file-history-snapshot`, `file-history-delta` or
 * `fh-snapshot` entry), as {@link parseFileHistoryRecord} parses each: a malformed entry is kept,
 * marked with `error` (see there); `label` and `path` name it in warnings. Never throws.
 */
export function parseBackupEntry(value: unknown, label: string, path: string, warn: RecordWarningHandler, cache?: BackupParseCache): FileHistoryBackup {
  return parseBackup(value, label, path, warn, cache);
}

/**
 * A backup entry parsed from a log line this fh owns (nobody else holds the object), taken over
 * in place when it is exactly what fh writes: the known fields only, each well formed (the checks
 * of {@link parseBackupEntry}), `backupTime` and each `changedBy[].at` an ISO string. Those strings
 * become Dates in the object itself, and the object is the entry: no copy, so a rebuild of a
 * snapshot of many files costs little more than `JSON.parse` of it. Undefined (and the object left
 * as it was) for anything else, which the caller then parses with {@link parseBackupEntry}.
 * `times`: the rebuild's shared Dates (see {@link RecordTimes}); without it each time is a new Date.
 */
export function adoptBackupEntry(value: unknown, times?: RecordTimes): FileHistoryBackup | undefined {
  if (!isObject(value)) return undefined;
  const name = value.backupFileName;
  if (name !== null && (typeof name !== 'string' || !isBackupFileName(name))) return undefined;
  const version = value.version;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) return undefined;
  if (typeof value.backupTime !== 'string') return undefined;
  const backupTime = timeOf(value.backupTime, times);
  if (backupTime === undefined) return undefined;
  let fields = 3;
  const { size, mode, sha256, error, changedBy } = value;
  if (size !== undefined) {
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return undefined;
    fields += 1;
  }
  if (mode !== undefined) {
    if (typeof mode !== 'number' || !Number.isInteger(mode) || mode < 0 || mode > 0o7777) return undefined;
    fields += 1;
  }
  if (sha256 !== undefined) {
    if (typeof sha256 !== 'string' || !isSha256Hex(sha256)) return undefined;
    fields += 1;
  }
  if (error !== undefined) {
    if (typeof error !== 'string') return undefined;
    fields += 1;
  }
  let changedAt: Date[] | undefined;
  if (changedBy !== undefined) {
    if (!Array.isArray(changedBy) || changedBy.length === 0) return undefined;
    changedAt = [];
    for (const item of changedBy as unknown[]) {
      const at = adoptableAttributionTime(item, times);
      if (at === undefined) return undefined;
      changedAt.push(at);
    }
    fields += 1;
  }
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key)) count += 1;
  if (count !== fields) return undefined;
  value.backupTime = backupTime;
  if (changedAt !== undefined) {
    const dates = changedAt;
    (changedBy as Array<Record<string, unknown>>).forEach((item, index) => (item.at = dates[index]));
  }
  return value as unknown as FileHistoryBackup;
}

/** The Date of an ISO `text`: shared through `times` when given, else a new one; undefined when not a date. */
function timeOf(text: string, times: RecordTimes | undefined): Date | undefined {
  if (times !== undefined) return times.date(text);
  const time = parseRecordTime(text);
  return Number.isNaN(time) ? undefined : new Date(time);
}

/** 64 lower-case hex digits (what `/^[0-9a-f]{64}$/` accepts), checked without a regular expression. */
function isSha256Hex(text: string): boolean {
  if (text.length !== 64) return false;
  for (let index = 0; index < 64; index += 1) if (LOWER_HEX[text.charCodeAt(index)] !== 1) return false;
  return true;
}

/** The time of a `changedBy` item fh wrote (`{by:'main',at}` or `{by:'subagent',agentId,agentType?,at}`), or undefined. */
function adoptableAttributionTime(item: unknown, times: RecordTimes | undefined): Date | undefined {
  if (!isObject(item) || typeof item.at !== 'string') return undefined;
  let fields = 2;
  if (item.by === 'subagent') {
    if (typeof item.agentId !== 'string' || item.agentId === '') return undefined;
    fields += 1;
    if (item.agentType !== undefined) {
      if (typeof item.agentType !== 'string' || item.agentType === '') return undefined;
      fields += 1;
    }
  } else if (item.by !== 'main') {
    return undefined;
  }
  let count = 0;
  for (const key in item) if (Object.hasOwn(item, key)) count += 1;
  if (count !== fields) return undefined;
  return timeOf(item.at, times);
}

/**
 * Parse one backup entry. A malformed entry is never dropped (that could make a rewind treat the
 * file as untracked at that turn): it is kept with `error` set, so a rewind reports it as failed.
 * `label` and `path` name the entry in warnings (`{label} "{path}"`).
 */
function parseBackup(value: unknown, label: string, path: string, warn: RecordWarningHandler, cache: BackupParseCache | undefined): FileHistoryBackup {
  const describe = () => `${label} ${JSON.stringify(path)}`;
  if (!isObject(value)) {
    warn(`${describe()}: backup is not an object; marked unavailable`);
    return { backupFileName: null, version: 0, backupTime: new Date(UNKNOWN_TIME), error: `unreadable backup record at ${describe()}` };
  }
  const cacheable = cache !== undefined && isCacheable(value);
  if (cacheable) {
    const cached = findCached(cache, value);
    if (cached !== undefined) return cached;
  }
  let warned = false;
  const where = () => {
    warned = true;
    return describe();
  };
  const problems: string[] = [];
  const rawName = value.backupFileName;
  let backupFileName: string | null = null;
  if (rawName === null) {
    backupFileName = null;
  } else if (typeof rawName === 'string' && isBackupFileName(rawName)) {
    backupFileName = rawName;
  } else {
    problems.push(`backupFileName ${JSON.stringify(rawName) ?? 'undefined'} is not a backup name`);
  }
  const rawVersion = value.version;
  let version = 0;
  if (typeof rawVersion === 'number' && Number.isSafeInteger(rawVersion) && rawVersion >= 1) {
    version = rawVersion;
  } else {
    problems.push(`version ${JSON.stringify(rawVersion) ?? 'undefined'} is not a positive integer`);
  }
  let backupTime = toDate(value.backupTime);
  if (backupTime === undefined) {
    warn(`${where()}: backupTime ${JSON.stringify(value.backupTime) ?? 'undefined'} is not a date; using the epoch`);
    backupTime = new Date(UNKNOWN_TIME);
  }
  const backup: FileHistoryBackup = { backupFileName, version, backupTime };
  if (value.size !== undefined) {
    if (typeof value.size === 'number' && Number.isSafeInteger(value.size) && value.size >= 0) backup.size = value.size;
    else warn(`${where()}: size ${JSON.stringify(value.size)} ignored`);
  }
  if (value.mode !== undefined) {
    if (typeof value.mode === 'number' && Number.isInteger(value.mode) && value.mode >= 0 && value.mode <= 0o7777) backup.mode = value.mode;
    else warn(`${where()}: mode ${JSON.stringify(value.mode)} ignored`);
  }
  if (value.sha256 !== undefined) {
    if (typeof value.sha256 === 'string' && /^[0-9a-f]{64}$/.test(value.sha256)) backup.sha256 = value.sha256;
    else warn(`${where()}: sha256 ${JSON.stringify(value.sha256)} ignored`);
  }
  if (typeof value.error === 'string') backup.error = value.error;
  if (value.changedBy !== undefined) {
    const changedBy = parseChangedBy(value.changedBy, describe(), (message) => {
      warned = true;
      warn(message);
    });
    if (changedBy !== undefined) backup.changedBy = changedBy;
  }
  if (problems.length > 0) {
    const reason = problems.join('; ');
    warn(`${where()}: ${reason}; marked unavailable`);
    backup.backupFileName = null;
    backup.error = backup.error ?? `unreadable backup record at ${describe()}: ${reason}`;
  }
  if (cacheable && !warned) remember(cache, value, backup);
  return backup;
}

/**
 * Parsed backup entries, for one log being read. A session log repeats each unchanged entry in
 * every later snapshot record; with a cache, each distinct entry is parsed (and held in memory)
 * once and the rebuilt snapshots share it. Entries are never changed after parsing. Create one
 * with `new Map()`; its layout is internal.
 */
export type BackupParseCache = Map<string, CachedBackup[]>;

/** A parsed entry with the raw fields it came from. */
interface CachedBackup {
  raw: JsonObject;
  parsed: FileHistoryBackup;
}

/** Whether an entry's fields have the types a well-formed entry has (only those are cached). */
function isCacheable(value: JsonObject): boolean {
  const { backupFileName, version, backupTime, size, mode, error, sha256, changedBy } = value;
  return (
    changedBy === undefined &&
    typeof backupTime === 'string' &&
    typeof version === 'number' &&
    (backupFileName === null || typeof backupFileName === 'string') &&
    (size === undefined || typeof size === 'number') &&
    (mode === undefined || typeof mode === 'number') &&
    (sha256 === undefined || typeof sha256 === 'string') &&
    (error === undefined || typeof error === 'string')
  );
}

/** Entries are bucketed by backup name (by backup time for `null` names), then compared field by field. */
function bucketKey(value: JsonObject): string {
  return typeof value.backupFileName === 'string' ? value.backupFileName : `\0${String(value.backupTime)}`;
}

function findCached(cache: BackupParseCache, value: JsonObject): FileHistoryBackup | undefined {
  const bucket = cache.get(bucketKey(value));
  if (bucket === undefined) return undefined;
  for (const entry of bucket) {
    const raw = entry.raw;
    if (
      raw.backupFileName === value.backupFileName &&
      raw.version === value.version &&
      raw.backupTime === value.backupTime &&
      raw.size === value.size &&
      raw.mode === value.mode &&
      raw.sha256 === value.sha256 &&
      raw.error === value.error
    ) {
      return entry.parsed;
    }
  }
  return undefined;
}

function remember(cache: BackupParseCache, value: JsonObject, parsed: FileHistoryBackup): void {
  const key = bucketKey(value);
  const raw = { backupFileName: value.backupFileName, version: value.version, backupTime: value.backupTime, size: value.size, mode: value.mode, sha256: value.sha256, error: value.error };
  const bucket = cache.get(key);
  if (bucket === undefined) cache.set(key, [{ raw, parsed }]);
  else bucket.push({ raw, parsed });
}

function parseSnapshotRecord(record: JsonObject, warn: RecordWarningHandler, cache: BackupParseCache | undefined): FileHistorySnapshotRecord | undefined {
  const snapshot = record.snapshot;
  if (!isObject(snapshot)) {
    warn('file-history-snapshot record without a snapshot object skipped');
    return undefined;
  }
  const messageId = nonEmptyString(snapshot.messageId) ?? nonEmptyString(record.messageId);
  if (messageId === undefined) {
    warn('file-history-snapshot record without a messageId skipped');
    return undefined;
  }
  const backups = snapshot.trackedFileBackups;
  if (!isObject(backups)) {
    warn(`file-history-snapshot ${messageId}: trackedFileBackups is not an object; record skipped`);
    return undefined;
  }
  let timestamp = toDate(snapshot.timestamp);
  if (timestamp === undefined) {
    warn(`file-history-snapshot ${messageId}: timestamp ${JSON.stringify(snapshot.timestamp) ?? 'undefined'} is not a date; using the epoch`);
    timestamp = new Date(UNKNOWN_TIME);
  }
  const trackedFileBackups: Record<string, FileHistoryBackup> = {};
  const label = `file-history-snapshot ${messageId}`;
  for (const trackingPath in backups) {
    if (!Object.hasOwn(backups, trackingPath)) continue;
    if (trackingPath.length === 0) {
      warn(`${label}: entry with an empty path skipped`);
      continue;
    }
    setBackup(trackedFileBackups, trackingPath, parseBackup(backups[trackingPath], label, trackingPath, warn, cache));
  }
  return {
    type: 'file-history-snapshot',
    messageId,
    snapshot: { messageId, trackedFileBackups, timestamp },
    isSnapshotUpdate: record.isSnapshotUpdate === true,
  };
}

function parseDeltaRecord(record: JsonObject, warn: RecordWarningHandler, cache: BackupParseCache | undefined): FileHistoryDeltaRecord | undefined {
  const snapshotMessageId = nonEmptyString(record.snapshotMessageId) ?? nonEmptyString(record.messageId);
  if (snapshotMessageId === undefined) {
    warn('file-history-delta record without a snapshotMessageId skipped');
    return undefined;
  }
  const trackingPath = nonEmptyString(record.trackingPath);
  if (trackingPath === undefined) {
    warn(`file-history-delta for ${snapshotMessageId} without a trackingPath skipped`);
    return undefined;
  }
  let timestamp = toDate(record.timestamp);
  if (timestamp === undefined) {
    warn(`file-history-delta for ${snapshotMessageId}: timestamp ${JSON.stringify(record.timestamp) ?? 'undefined'} is not a date; using the epoch`);
    timestamp = new Date(UNKNOWN_TIME);
  }
  return {
    type: 'file-history-delta',
    messageId: nonEmptyString(record.messageId) ?? snapshotMessageId,
    snapshotMessageId,
    trackingPath,
    backup: parseBackup(record.backup, `file-history-delta for ${snapshotMessageId}`, trackingPath, warn, cache),
    timestamp,
  };
}

/**
 * Parse a `file-history-snapshot` or `file-history-delta` record as read from a session log or a
 * Claude Code transcript (dates as ISO strings or Date objects).
 *
 * Returns `undefined` for any other record type (transcripts hold many) without a warning, and
 * for a malformed file-history record with one warning through `onWarning`. Unknown fields are
 * ignored. A malformed backup entry inside an otherwise good record is kept, marked with `error`
 * and `backupFileName: null`, so it is reported as unavailable rather than read as "the file did
 * not exist"; a backup name that is not `{16 hex}@v{n}` is treated as malformed. Never throws.
 * With a `cache` (one per log being read), identical entries share one parsed object.
 */
export function parseFileHistoryRecord(record: unknown, onWarning: RecordWarningHandler = () => {}, cache?: BackupParseCache): FileHistoryRecord | undefined {
  if (!isObject(record)) return undefined;
  if (record.type === 'file-history-snapshot') return parseSnapshotRecord(record, onWarning, cache);
  if (record.type === 'file-history-delta') return parseDeltaRecord(record, onWarning, cache);
  return undefined;
}

/** What {@link fileHistoryRecordHead} reads of a record. */
export type FileHistoryRecordHead =
  | { type: 'file-history-snapshot'; messageId: string; isSnapshotUpdate: boolean }
  | { type: 'file-history-delta'; snapshotMessageId: string };

/**
 * Which snapshot a `file-history-snapshot` or `file-history-delta` record is about, read without
 * parsing its entries. Undefined for exactly the records {@link parseFileHistoryRecord} skips
 * (other types, malformed heads), so a scan can pick records by their heads and parse only those.
 */
export function fileHistoryRecordHead(record: unknown): FileHistoryRecordHead | undefined {
  if (!isObject(record)) return undefined;
  if (record.type === 'file-history-snapshot') {
    const snapshot = record.snapshot;
    if (!isObject(snapshot) || !isObject(snapshot.trackedFileBackups)) return undefined;
    const messageId = nonEmptyString(snapshot.messageId) ?? nonEmptyString(record.messageId);
    return messageId === undefined ? undefined : { type: 'file-history-snapshot', messageId, isSnapshotUpdate: record.isSnapshotUpdate === true };
  }
  if (record.type === 'file-history-delta') {
    const snapshotMessageId = nonEmptyString(record.snapshotMessageId) ?? nonEmptyString(record.messageId);
    if (snapshotMessageId === undefined || nonEmptyString(record.trackingPath) === undefined) return undefined;
    return { type: 'file-history-delta', snapshotMessageId };
  }
  return undefined;
}

/** Options of {@link userMessageRecord}. */
export interface UserMessageRecordOptions {
  /** The message id; a snapshot of this turn uses the same id as its `messageId`. */
  uuid: string;
  /** The previous message's uuid, or `null` for the first message. */
  parentUuid: string | null;
  sessionId: string;
  /** The prompt text. */
  text: string;
  /** When the prompt was sent. */
  timestamp: Date;
  /** Working folder of the agent (Claude Code records it on every message). */
  cwd?: string;
}

/**
 * A Claude Code transcript `user` record: `{parentUuid, isSidechain: false, userType: 'external',
 * cwd?, sessionId, type: 'user', message: {role: 'user', content: text}, uuid, timestamp}` with
 * the timestamp as an ISO-8601 string. The CLI records each prompt with it, so fh's own sessions
 * list prompts the same way Claude Code sessions do.
 */
export function userMessageRecord(options: UserMessageRecordOptions): LogRecord {
  return {
    parentUuid: options.parentUuid,
    isSidechain: false,
    userType: 'external',
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    sessionId: options.sessionId,
    type: 'user',
    message: { role: 'user', content: options.text },
    uuid: options.uuid,
    timestamp: options.timestamp.toISOString(),
  };
}

/** Record type of {@link FhSessionRecord}. */
export const FH_SESSION_RECORD_TYPE = 'fh-session';

/**
 * `{"type":"fh-session", sessionId, projectRoot, createdAt, resumedFrom?, snapshotSequenceOffset?}`:
 * fh's own record (Claude Code ignores unknown types) saying which project a session belongs to.
 * `FileHistory.open` appends it when a session is first opened; a resume writes it first in the
 * new session, with the session it came from.
 */
export interface FhSessionRecord {
  type: typeof FH_SESSION_RECORD_TYPE;
  sessionId: string;
  /** Absolute project root the session's tracking paths are relative to. */
  projectRoot: string;
  /** When the session was created. */
  createdAt: Date;
  /** The session this one was resumed from. */
  resumedFrom?: string;
  /**
   * Snapshots made before this log began and not carried into it (they were dropped by the cap);
   * added to the count of snapshot records to give `snapshotSequence`, so it never goes down
   * across a resume.
   */
  snapshotSequenceOffset?: number;
}

/** Build an {@link FhSessionRecord} as a log record (dates as ISO strings). */
export function fhSessionRecord(options: Omit<FhSessionRecord, 'type'>): LogRecord {
  return {
    type: FH_SESSION_RECORD_TYPE,
    sessionId: options.sessionId,
    projectRoot: options.projectRoot,
    createdAt: options.createdAt.toISOString(),
    ...(options.resumedFrom === undefined ? {} : { resumedFrom: options.resumedFrom }),
    ...(options.snapshotSequenceOffset === undefined ? {} : { snapshotSequenceOffset: options.snapshotSequenceOffset }),
  };
}

/**
 * Parse an `fh-session` record; `undefined` for other types. A malformed one (no sessionId or
 * projectRoot) gives one warning and `undefined`. Never throws.
 */
export function parseFhSessionRecord(record: unknown, onWarning: RecordWarningHandler = () => {}): FhSessionRecord | undefined {
  if (!isObject(record) || record.type !== FH_SESSION_RECORD_TYPE) return undefined;
  const sessionId = nonEmptyString(record.sessionId);
  const projectRoot = nonEmptyString(record.projectRoot);
  if (sessionId === undefined || projectRoot === undefined) {
    onWarning('fh-session record without a sessionId or projectRoot skipped');
    return undefined;
  }
  const parsed: FhSessionRecord = { type: FH_SESSION_RECORD_TYPE, sessionId, projectRoot, createdAt: toDate(record.createdAt) ?? new Date(UNKNOWN_TIME) };
  const resumedFrom = nonEmptyString(record.resumedFrom);
  if (resumedFrom !== undefined) parsed.resumedFrom = resumedFrom;
  const offset = record.snapshotSequenceOffset;
  if (typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0) parsed.snapshotSequenceOffset = offset;
  return parsed;
}

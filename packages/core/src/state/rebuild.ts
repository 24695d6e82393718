/**
 * The rebuild of a session's file-history state from its records (seed 000 §8), record by record:
 * `restoreStateFromLog` feeds it an array, `rebuildStateFromLog` the lines of a log streamed from
 * the store, replaying only the records the kept snapshots need.
 *
 * Snapshots are held as nodes: a full node has its whole map (a `file-history-snapshot` record or
 * an `fh-snapshot` full record), a diff node only its changes against the node before it (an
 * `fh-snapshot` diff record). One running map follows the newest node, so a diff or a
 * `file-history-delta` costs what it holds (never a copy of the whole map), and the kept snapshots
 * come out chained (`snapshot-chain.ts`): memory proportional to the distinct entries.
 */
import { isAscii } from 'node:buffer';
import { posix, win32 } from 'node:path';
import { InvalidArgumentError } from '../errors.js';
import type { LogRecord, SessionLog } from '../store.js';
import { MAX_SNAPSHOTS, setStateBookkeeping, type FileHistoryBackup, type FileHistorySnapshot, type FileHistoryState } from '../types.js';
import { parseJsonlLine } from './jsonl.js';
import { readLogLines, type LogLine } from './log-lines.js';
import {
  FH_SESSION_RECORD_TYPE,
  fileHistoryRecordHead,
  adoptBackupEntry,
  parseBackupEntry,
  parseFhSessionRecord,
  parseFileHistoryRecord,
  RecordTimes,
  type BackupParseCache,
  type FhSessionRecord,
  type RecordWarningHandler,
} from './records.js';
import { chainedSnapshot, copyBackupMap, markKeysTracked, ownBackup, setBackup } from './snapshot-chain.js';
import type { AnchorLine } from './state-record.js';
import { FH_SNAPSHOT_RECORD_TYPE, fhSnapshotRecordHead, parseFhSnapshotRecord, sniffFhSnapshotLine, type FhSnapshotHead, type SupersededBackups } from './snapshot-records.js';

/** Options of a rebuild. */
export interface RebuildOptions {
  /** Absolute project root: absolute keys inside it become relative, keys outside it are dropped. */
  projectRoot: string;
  /** Receives one message per skipped record, dropped key or repaired entry. */
  onWarning?: RecordWarningHandler;
  /** Most snapshots kept (the oldest are dropped first). Default {@link MAX_SNAPSHOTS}. */
  maxSnapshots?: number;
}

/** Options of {@link StateRebuilder}: a rebuild's, plus a per-record base folder (see `RestoreStateOptions.baseFolder`). */
export interface StateRebuilderOptions extends RebuildOptions {
  baseFolder?: (record: unknown) => string;
}

/** What a rebuild found besides the state. */
export interface RebuildResult {
  state: FileHistoryState;
  /** The `fh-session` records read, in order. */
  sessions: FhSessionRecord[];
  /** Whether the log held any record at all (of any type). */
  hasRecords: boolean;
  /**
   * The sequence of the newest snapshot when its content is exactly what an `fh-snapshot` record
   * (plus later deltas) holds, so the next snapshot may be recorded as a diff against it;
   * undefined otherwise (the next one is then recorded in full).
   */
  diffBase: number | undefined;
  /**
   * Lines that could not be read, by reason (`invalid JSON`, `torn last line`, ...), with the
   * first one's 1-based line number (0 when it is not known: a rebuild from the log's end, see
   * `tail-rebuild.ts`).
   */
  skippedLines: Map<string, { count: number; firstLine: number }>;
  /**
   * The `fh-snapshot` diff lines read (the newest `maxSnapshots` of them, at most), in log order:
   * lines durable in the log a state record may name as its anchor (`state-record.ts`).
   */
  anchorLines?: AnchorLine[];
}

type PathApi = typeof posix;

/** Windows roots (`C:\…`, `\\server\…`) use win32 path rules; everything else POSIX. */
function pathApiFor(projectRoot: string): PathApi {
  return /^[A-Za-z]:[\\/]/.test(projectRoot) || projectRoot.startsWith('\\\\') ? win32 : posix;
}

/**
 * Whether `key` is already in tracking form, kept as it is: relative (no leading `/`, no drive
 * letter), `/` separated, no empty, `.` or `..` segment, no trailing `/`, no NUL or `\\`. Checked
 * character by character, as a rebuild checks every key it reads.
 */
export function isCleanKey(key: string): boolean {
  const length = key.length;
  if (length === 0) return false;
  if (length >= 2 && key.charCodeAt(1) === 58) {
    const first = key.charCodeAt(0) | 0x20;
    if (first >= 97 && first <= 122) return false;
  }
  let segmentStart = 0;
  for (let index = 0; index <= length; index += 1) {
    const code = index === length ? 47 : key.charCodeAt(index);
    if (code === 0 || code === 92) return false;
    if (code !== 47) continue;
    const segment = index - segmentStart;
    if (segment === 0) return false;
    if (segment <= 2 && key.charCodeAt(segmentStart) === 46 && (segment === 1 || key.charCodeAt(segmentStart + 1) === 46)) return false;
    segmentStart = index + 1;
  }
  return true;
}

/**
 * The tracking key (relative to the root, `/` separators) for a key read from a record, or a
 * reason it cannot be one: an absolute path outside the root, or a relative path that climbs out.
 */
function toTrackingKey(key: string, root: string, path: PathApi, base: string = root): { key: string } | { reason: string } {
  if (base === root && isCleanKey(key)) return { key };
  if (key.includes('\0')) return { reason: 'contains a NUL character' };
  let relative: string;
  if (path.isAbsolute(key) || base !== root) {
    relative = path.relative(root, path.resolve(base, key));
    if (path.isAbsolute(relative)) return { reason: `is outside the project root ${root}` };
  } else {
    relative = path.normalize(key);
  }
  if (path === win32) relative = relative.replaceAll('\\', '/');
  relative = relative.replace(/\/+$/, '');
  if (relative === '' || relative === '.') return { reason: 'names the project root itself' };
  if (relative === '..' || relative.startsWith('../')) return { reason: `is outside the project root ${root}` };
  return { key: relative.startsWith('./') ? relative.slice(2) : relative };
}

/** Whether retention may delete `backup` once no kept snapshot holds it. */
export function isRetainable(backup: FileHistoryBackup | undefined): backup is FileHistoryBackup & { backupFileName: string } {
  return backup !== undefined && backup.backupFileName !== null && backup.error === undefined && backup.version > 1;
}

interface Node {
  messageId: string;
  timestamp: Date;
  sequence: number;
  /** Whole map (full nodes, and diff nodes once built). */
  map: Record<string, FileHistoryBackup> | undefined;
  /** Changes against the node before (diff nodes). */
  changes: Map<string, FileHistoryBackup | undefined> | undefined;
  superseded: SupersededBackups | undefined;
  pending: Map<number, SupersededBackups> | undefined;
  /** The content is exactly an `fh-snapshot` record's (plus deltas). */
  compact: boolean;
}

/**
 * Applies records in append order (see `restoreStateFromLog` for the rules) and hands out the
 * state. `before` tells it about the nodes of records it was not given (a streamed rebuild skips
 * the records older snapshots needed): their count and message ids.
 */
export class StateRebuilder {
  private readonly path: PathApi;
  private readonly root: string;
  private readonly baseFolder: ((record: unknown) => string) | undefined;
  /** The folder relative keys of the current record resolve against. */
  private base: string;
  private readonly maxSnapshots: number;
  private readonly warn: RecordWarningHandler;
  private readonly trackingKeys = new Map<string, { key: string } | { reason: string }>();
  private readonly cache: BackupParseCache = new Map();
  /** Dates of the times read, one per distinct time (entries taken over share them). */
  private readonly times = new RecordTimes();
  private readonly nodes: Node[] = [];
  private readonly latestIndex = new Map<string, number>();
  private readonly keys = new Set<string>();
  private running: Record<string, FileHistoryBackup> | undefined;
  /** `running` is the newest node's own map (copied before a diff changes it). */
  private runningShared = false;
  private readonly nodesBefore: number;
  private readonly messageIdsBefore: ReadonlySet<string>;
  private snapshotRecordCount: number;
  /** Sequence of the last snapshot before the records given. */
  private readonly sequenceBefore: number;
  private sequenceOffset = 0;
  readonly sessions: FhSessionRecord[] = [];

  constructor(
    options: StateRebuilderOptions,
    before: { nodes: number; snapshotRecords: number; messageIds: ReadonlySet<string>; lastSequence?: number } = { nodes: 0, snapshotRecords: 0, messageIds: new Set() },
  ) {
    this.path = pathApiFor(options.projectRoot);
    if (!this.path.isAbsolute(options.projectRoot)) {
      throw new InvalidArgumentError(`projectRoot must be an absolute path, got ${JSON.stringify(options.projectRoot)}`);
    }
    this.root = this.path.resolve(options.projectRoot);
    this.base = this.root;
    this.baseFolder = (options as StateRebuilderOptions).baseFolder;
    this.maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
    this.warn = options.onWarning ?? (() => {});
    this.nodesBefore = before.nodes;
    this.snapshotRecordCount = before.snapshotRecords;
    this.messageIdsBefore = before.messageIds;
    this.sequenceBefore = before.lastSequence ?? 0;
  }

  /**
   * Apply one record (any type; only file-history, `fh-snapshot` and `fh-session` ones count).
   * `owned`: the record was parsed from a log line for this rebuild alone, so its entries may be
   * taken over in place (`adoptBackupEntry`); the caller must not use it afterwards.
   */
  push(record: unknown, owned = false): void {
    if (this.baseFolder !== undefined) this.base = this.path.resolve(this.baseFolder(record));
    if (typeof record !== 'object' || record === null) return;
    const type = (record as { type?: unknown }).type;
    if (type === FH_SESSION_RECORD_TYPE) {
      const session = parseFhSessionRecord(record, this.warn);
      if (session === undefined) return;
      this.sessions.push(session);
      if (session.snapshotSequenceOffset !== undefined) this.sequenceOffset = Math.max(this.sequenceOffset, session.snapshotSequenceOffset);
      return;
    }
    if (type === FH_SNAPSHOT_RECORD_TYPE) {
      this.pushCompact(record, owned);
      return;
    }
    if (type === 'file-history-delta') {
      this.pushDelta(record as Record<string, unknown>, owned);
      return;
    }
    // Entries repeat across Claude Code's full records (each turn holds every file), so those share
    // one parsed object per distinct entry; a delta's entry is new, so it is parsed without the cache.
    const parsed = parseFileHistoryRecord(record, this.warn, type === 'file-history-snapshot' ? this.cache : undefined);
    if (parsed === undefined) return;
    if (parsed.type === 'file-history-snapshot') {
      if (!parsed.isSnapshotUpdate) this.snapshotRecordCount += 1;
      const map = this.rekeyed(parsed.snapshot.trackedFileBackups, `file-history-snapshot ${parsed.messageId}`);
      const target = parsed.isSnapshotUpdate ? this.latestIndex.get(parsed.messageId) : undefined;
      if (target === undefined) {
        if (parsed.isSnapshotUpdate && this.messageIdsBefore.has(parsed.messageId)) return;
        this.appendFull(parsed.messageId, parsed.snapshot.timestamp, map, this.nextSequence(), false, undefined);
      } else {
        this.replace(target, map, parsed.snapshot.timestamp);
      }
      return;
    }
    const targetIndex = this.latestIndex.get(parsed.snapshotMessageId);
    if (targetIndex === undefined) {
      if (!this.messageIdsBefore.has(parsed.snapshotMessageId)) {
        this.warn(`file-history-delta for ${parsed.snapshotMessageId}: no snapshot with that messageId precedes it; skipped`);
      }
      return;
    }
    const key = this.migrate(parsed.trackingPath, `file-history-delta for ${parsed.snapshotMessageId}`);
    if (key === undefined) return;
    this.keys.add(key);
    this.setEntry(targetIndex, key, parsed.backup);
  }

  /** The rebuilt state and what else was found (see {@link RebuildResult}). */
  finish(): Omit<RebuildResult, 'hasRecords' | 'skippedLines' | 'sessions'> {
    const kept = this.nodes.slice(Math.max(0, this.nodes.length - this.maxSnapshots));
    const first = kept[0];
    if (first !== undefined) this.build(this.nodes.length - kept.length);
    const snapshots: FileHistorySnapshot[] = [];
    const superseded = new Map<number, SupersededBackups>();
    kept.forEach((node, index) => {
      const previous = snapshots[index - 1];
      const last = index === kept.length - 1;
      if (node.map !== undefined) {
        snapshots.push({ messageId: node.messageId, trackedFileBackups: node.map, timestamp: node.timestamp });
      } else {
        snapshots.push(chainedSnapshot(node.messageId, node.timestamp, previous as FileHistorySnapshot, node.changes ?? new Map(), last ? this.running : undefined));
      }
    });
    // Every path applied is in `keys`, the tracked files handed out with these snapshots.
    for (const snapshot of snapshots) markKeysTracked(snapshot);
    const totalNodes = this.nodesBefore + this.nodes.length;
    const newest = kept.at(-1);
    const snapshotSequence = Math.max(totalNodes, this.sequenceOffset + this.snapshotRecordCount, newest?.sequence ?? 0);
    // What snapshot s superseded is deleted when s − 1 is dropped: needed while s − 1 is held.
    const lowest = snapshotSequence - this.maxSnapshots + 2;
    kept.forEach((node, index) => {
      if (index > 0 && node.sequence >= lowest && node.superseded !== undefined && Object.keys(node.superseded).length > 0) superseded.set(node.sequence, node.superseded);
    });
    for (const node of kept) {
      for (const [at, backups] of node.pending ?? []) {
        if (at >= lowest && at <= node.sequence && !superseded.has(at) && Object.keys(backups).length > 0) superseded.set(at, backups);
      }
    }
    return {
      // The rebuilder is done with its key set: it becomes the state's (no copy of every key).
      state: setStateBookkeeping({ snapshots, trackedFiles: this.keys, snapshotSequence }, { superseded: superseded.size === 0 ? undefined : superseded }),
      diffBase: newest !== undefined && newest.compact && newest.sequence === snapshotSequence ? newest.sequence : undefined,
    };
  }

  /**
   * A `file-history-delta`: checked like `parseFileHistoryRecord` checks it (same warnings), but
   * only the fields a rebuild uses are read (the record's own timestamp is not).
   */
  private pushDelta(record: Record<string, unknown>, owned: boolean): void {
    const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined);
    const snapshotMessageId = text(record.snapshotMessageId) ?? text(record.messageId);
    if (snapshotMessageId === undefined) {
      this.warn('file-history-delta record without a snapshotMessageId skipped');
      return;
    }
    const trackingPath = text(record.trackingPath);
    if (trackingPath === undefined) {
      this.warn(`file-history-delta for ${snapshotMessageId} without a trackingPath skipped`);
      return;
    }
    const targetIndex = this.latestIndex.get(snapshotMessageId);
    if (targetIndex === undefined) {
      if (!this.messageIdsBefore.has(snapshotMessageId)) this.warn(`file-history-delta for ${snapshotMessageId}: no snapshot with that messageId precedes it; skipped`);
      return;
    }
    const context = `file-history-delta for ${snapshotMessageId}`;
    const backup = (owned ? adoptBackupEntry(record.backup, this.times) : undefined) ?? parseBackupEntry(record.backup, context, trackingPath, this.warn);
    const key = this.migrate(trackingPath, context);
    if (key === undefined) return;
    this.keys.add(key);
    this.setEntry(targetIndex, key, backup);
  }

  private pushCompact(record: unknown, owned: boolean): void {
    const parsed = parseFhSnapshotRecord(record, this.warn, undefined, owned, this.times);
    if (parsed === undefined) return;
    const label = `fh-snapshot ${parsed.messageId}`;
    const entries = this.rekeyed(parsed.entries, label, parsed.paths);
    // The record's key list serves every walk over its entries unless rekeying made a new map.
    const paths = entries === parsed.entries ? parsed.paths : Object.keys(entries);
    if (parsed.kind === 'attach') {
      const index = this.nodes.length - 1;
      const newest = this.nodes[index];
      if (newest === undefined || newest.sequence !== parsed.sequence || newest.messageId !== parsed.messageId) {
        this.warn(`${label}: backups attached to snapshot ${parsed.sequence}, which is not the newest snapshot in the log; skipped`);
        return;
      }
      for (const key of paths) {
        this.keys.add(key);
        this.setEntry(index, key, entries[key] as FileHistoryBackup);
      }
      return;
    }
    if (parsed.kind === 'full') {
      const pending = new Map<number, SupersededBackups>();
      for (const [at, backups] of parsed.pending) pending.set(at, this.rekeyedNames(backups, label));
      this.appendFull(parsed.messageId, parsed.timestamp, entries, parsed.sequence, true, pending, paths);
      return;
    }
    const previous = this.nodes.at(-1);
    if (previous === undefined || previous.sequence !== parsed.base || this.running === undefined) {
      this.warn(`${label}: a diff against snapshot ${String(parsed.base)}, which is not the snapshot before it in the log; skipped`);
      return;
    }
    if (this.runningShared) {
      this.running = copyBackupMap(this.running);
      this.runningShared = false;
    }
    const running = this.running;
    const changes = new Map<string, FileHistoryBackup | undefined>();
    const superseded: Record<string, string> = {};
    for (let index = 0; index < paths.length; index += 1) {
      const key = paths[index] as string;
      const entry = entries[key] as FileHistoryBackup;
      const before = ownBackup(running, key);
      if (isRetainable(before) && before.backupFileName !== entry.backupFileName) superseded[key] = before.backupFileName;
      setBackup(running, key, entry);
      changes.set(key, entry);
      // Every key the running map holds is in `keys` already.
      if (before === undefined) this.keys.add(key);
    }
    for (const rawKey of parsed.removed) {
      const key = this.migrate(rawKey, label);
      if (key === undefined) continue;
      const before = ownBackup(running, key);
      if (isRetainable(before)) superseded[key] = before.backupFileName;
      delete running[key];
      changes.set(key, undefined);
    }
    this.latestIndex.set(parsed.messageId, this.nodes.length);
    this.nodes.push({ messageId: parsed.messageId, timestamp: parsed.timestamp, sequence: parsed.sequence, map: undefined, changes, superseded, pending: undefined, compact: true });
    this.snapshotRecordCount += 1;
  }

  private nextSequence(): number {
    return Math.max(this.nodesBefore + this.nodes.length + 1, this.sequenceOffset + this.snapshotRecordCount, (this.nodes.at(-1)?.sequence ?? this.sequenceBefore) + 1);
  }

  /** A full node; `paths`: the keys of `map`, when the caller has them listed. */
  private appendFull(messageId: string, timestamp: Date, map: Record<string, FileHistoryBackup>, sequence: number, compact: boolean, pending: Map<number, SupersededBackups> | undefined, paths?: readonly string[]): void {
    let superseded: Record<string, string> | undefined;
    if (this.running !== undefined) {
      superseded = {};
      for (const key in this.running) {
        const before = this.running[key];
        if (isRetainable(before) && ownBackup(map, key)?.backupFileName !== before.backupFileName) superseded[key] = before.backupFileName;
      }
    }
    if (paths === undefined) {
      for (const key in map) this.keys.add(key);
    } else {
      for (let index = 0; index < paths.length; index += 1) this.keys.add(paths[index] as string);
    }
    if (compact) this.snapshotRecordCount += 1;
    this.latestIndex.set(messageId, this.nodes.length);
    this.nodes.push({ messageId, timestamp, sequence, map, changes: undefined, superseded, pending, compact });
    this.running = map;
    this.runningShared = true;
  }

  /** An update record: the node's whole map becomes `map` (only that snapshot changes). */
  private replace(index: number, map: Record<string, FileHistoryBackup>, timestamp: Date): void {
    const node = this.nodes[index] as Node;
    for (const key in map) this.keys.add(key);
    if (index === this.nodes.length - 1) {
      node.map = map;
      node.changes = undefined;
      node.timestamp = timestamp;
      node.compact = false;
      this.running = map;
      this.runningShared = true;
      return;
    }
    this.build(index + 1);
    node.map = map;
    node.changes = undefined;
    node.timestamp = timestamp;
    node.compact = false;
  }

  /** A delta: one entry added to node `index` (the newest, as fh and Claude Code write them). */
  private setEntry(index: number, key: string, backup: FileHistoryBackup): void {
    const node = this.nodes[index] as Node;
    if (index === this.nodes.length - 1 && this.running !== undefined) {
      // A path this diff removed comes back at the end of the map, as it does in the running map;
      // a list of changes applied over the previous map would put it back in its old place, so the
      // node takes the running map as its own (rare: an attachment of a file removed at this turn).
      if (node.map === undefined && node.changes?.has(key) === true && node.changes.get(key) === undefined) this.build(index);
      if (node.map !== undefined) setBackup(node.map, key, backup);
      else node.changes?.set(key, backup);
      if (node.map !== this.running) setBackup(this.running, key, backup);
      return;
    }
    this.build(index + 1);
    this.build(index);
    setBackup(node.map as Record<string, FileHistoryBackup>, key, backup);
    node.changes = undefined;
  }

  /** Give node `index` its own map (a diff node: the nearest full one before it plus the changes between). */
  private build(index: number): void {
    const node = this.nodes[index];
    if (node === undefined || node.map !== undefined) return;
    if (index === this.nodes.length - 1 && this.running !== undefined) {
      node.map = this.running;
      this.runningShared = true;
      node.changes = undefined;
      return;
    }
    let start = index;
    while (start > 0 && this.nodes[start]?.map === undefined) start -= 1;
    const map = copyBackupMap(this.nodes[start]?.map ?? {});
    for (let at = start + 1; at <= index; at += 1) {
      for (const [key, entry] of this.nodes[at]?.changes ?? []) {
        if (entry === undefined) delete map[key];
        else setBackup(map, key, entry);
      }
    }
    node.map = map;
  }

  /** `parsed` with its keys in tracking form (itself when they all are); `paths`: its keys, when listed. */
  private rekeyed(parsed: Record<string, FileHistoryBackup>, context: string, paths?: readonly string[]): Record<string, FileHistoryBackup> {
    let rekey = false;
    const atRoot = this.base === this.root;
    for (const rawKey of paths ?? Object.keys(parsed)) {
      if (atRoot && isCleanKey(rawKey)) continue;
      const result = this.lookup(rawKey);
      if ('reason' in result || result.key !== rawKey) {
        rekey = true;
        break;
      }
    }
    if (!rekey) return parsed;
    const map: Record<string, FileHistoryBackup> = {};
    for (const [rawKey, backup] of Object.entries(parsed)) {
      const key = this.migrate(rawKey, context);
      if (key === undefined) continue;
      const existing = ownBackup(map, key);
      if (existing !== undefined && existing.version >= backup.version) continue;
      setBackup(map, key, backup);
    }
    return map;
  }

  private rekeyedNames(backups: SupersededBackups, context: string): SupersededBackups {
    const kept: Record<string, string> = {};
    for (const [rawKey, name] of Object.entries(backups)) {
      const key = this.migrate(rawKey, context);
      if (key !== undefined) kept[key] = name;
    }
    return kept;
  }

  private lookup(key: string): { key: string } | { reason: string } {
    const cacheKey = this.base === this.root || this.path.isAbsolute(key) ? key : `${this.base}\0${key}`;
    let result = this.trackingKeys.get(cacheKey);
    if (result === undefined) {
      result = toTrackingKey(key, this.root, this.path, this.base);
      this.trackingKeys.set(cacheKey, result);
    }
    return result;
  }

  private migrate(key: string, context: string): string | undefined {
    if (this.base === this.root && isCleanKey(key)) return key;
    const result = this.lookup(key);
    if ('reason' in result) {
      this.warn(`${context}: path ${JSON.stringify(key)} ${result.reason}; dropped`);
      return undefined;
    }
    return result.key;
  }
}

/**
 * A line of a log held in memory (`bytes[start, end)`, without its `\n`), decoded only when it is
 * read: a rebuild from bytes holds no string per line between its two passes.
 */
export interface ByteLine {
  line: number;
  bytes: Buffer;
  start: number;
  end: number;
  terminated: boolean;
}

/** The text of a {@link ByteLine}. */
export function lineText(line: ByteLine): string {
  return line.bytes.toString('utf8', line.start, line.end);
}

/** Bytes of a line decoded in turn to read its `fh-snapshot` head (then up to 4,096 when the head is longer). */
const HEAD_WINDOWS_BYTES = [192, 512];

/** How every line `sniffFhSnapshotLine` reads starts. */
const SNAPSHOT_HEAD_PREFIX = Buffer.from('{"type":"fh-snapshot","version":2,"kind":"');

/** The head of an `fh-snapshot` line (`sniffFhSnapshotLine`) read from its first bytes, or undefined. */
export function sniffByteLine(line: ByteLine): FhSnapshotHead | undefined {
  if (!line.terminated) return undefined;
  const length = line.end - line.start;
  // A line that does not start as the head's pattern does is none, without decoding it.
  const prefix = SNAPSHOT_HEAD_PREFIX.length;
  if (length < prefix || line.bytes.compare(SNAPSHOT_HEAD_PREFIX, 0, prefix, line.start, line.start + prefix) !== 0) return undefined;
  for (const window of HEAD_WINDOWS_BYTES) {
    if (length <= window) break;
    const head = sniffFhSnapshotLine(line.bytes.toString('utf8', line.start, line.start + window));
    if (head !== undefined) return head;
  }
  return sniffFhSnapshotLine(line.bytes.toString('utf8', line.start, Math.min(line.end, line.start + 4096)));
}

const DELTA_PREFIX = Buffer.from('{"type":"file-history-delta"');

/** Whether a line starts as fh writes a `file-history-delta` record. */
export function isDeltaByteLine(line: ByteLine): boolean {
  return line.end - line.start >= DELTA_PREFIX.length && line.bytes.compare(DELTA_PREFIX, 0, DELTA_PREFIX.length, line.start, line.start + DELTA_PREFIX.length) === 0;
}

/** The lines of a log held whole in `bytes`, numbered from 1 (blank ones left out), as `readLogLines` gives them. */
export function* byteLines(bytes: Buffer): Generator<ByteLine> {
  let line = 0;
  let start = 0;
  for (let end = bytes.indexOf(0x0a, start); end >= 0; end = bytes.indexOf(0x0a, start)) {
    line += 1;
    if (end > start && !(end - start === 1 && bytes[start] === 0x0d)) yield { line, bytes, start, end, terminated: true };
    start = end + 1;
  }
  if (start < bytes.length && bytes.toString('utf8', start).trim() !== '') yield { line: line + 1, bytes, start, end: bytes.length, terminated: false };
}

/** A line of text held for a rebuild's second pass (from a stream, see `readLogLines`). */
interface TextLine {
  text: string;
  terminated: boolean;
  line: number;
}

/**
 * Bytes of lines parsed by one `JSON.parse` call in {@link parseLines}. V8 allocates what one
 * parse of a long text (100 KiB and more) makes straight in the old generation, so the entries a
 * rebuild keeps are not copied by every young-generation collection on the way, as they are when
 * each line of a few KiB is parsed on its own.
 */
export const LINE_BATCH_BYTES = 256 * 1024;

/**
 * Parse `lines` in order, as `parseJsonlLine` parses each (same records, same reasons), handing
 * each result to `each` with its line. Consecutive terminated lines are parsed together, as the
 * elements of one JSON array (`[line\n,line\n]`: a raw newline cannot be inside a JSON string, so
 * a well-formed line is exactly one element, and a torn or cut line leaves its record's object
 * open, which no later well-formed line closes, so the batch does not parse); a batch that does
 * not parse, or gives another count of elements than lines, is parsed again line by line. The one
 * difference from parsing each line alone: corrupt lines made to complement each other (one left
 * open inside a list, a later one closing it, and another holding two records) can be read as
 * records; they are then checked like any record, as the same records written whole would be.
 */
export function parseLines(lines: readonly (ByteLine | TextLine)[], each: (parsed: { record: LogRecord } | { reason: string } | undefined, line: ByteLine | TextLine) => void): void {
  const scratch: { bytes?: Buffer } = {};
  let start = 0;
  while (start < lines.length) {
    let end = start;
    let bytes = 0;
    while (end < lines.length && bytes < LINE_BATCH_BYTES) {
      const line = lines[end] as ByteLine | TextLine;
      if (!line.terminated) break;
      bytes += 'bytes' in line ? line.end - line.start : line.text.length;
      end += 1;
    }
    if (end - start >= 2) {
      const batch = lines.slice(start, end);
      const records = parseBatch(batch, scratch);
      if (records !== undefined) {
        batch.forEach((line, index) => each(isRecordValue(records[index]) ? { record: records[index] as LogRecord } : { reason: 'not an object with a type' }, line));
        start = end;
        continue;
      }
    }
    const last = Math.max(end, start + 1);
    for (let index = start; index < last; index += 1) {
      const line = lines[index] as ByteLine | TextLine;
      each(parseJsonlLine('bytes' in line ? lineText(line) : line.text, line.terminated), line);
    }
    start = last;
  }
}

/**
 * The values of `lines` parsed as one JSON array, or undefined when that fails or miscounts.
 * Byte lines are joined in `scratch.bytes`, one buffer reused by every batch of a call.
 */
function parseBatch(lines: readonly (ByteLine | TextLine)[], scratch: { bytes?: Buffer }): unknown[] | undefined {
  let text: string;
  if (lines.every((line) => 'bytes' in line)) {
    const byteLines = lines as readonly ByteLine[];
    let length = 1;
    for (const line of byteLines) length += line.end - line.start + 2;
    if (scratch.bytes === undefined || scratch.bytes.length < length) scratch.bytes = Buffer.allocUnsafe(Math.max(length, 2 * LINE_BATCH_BYTES));
    const joined = scratch.bytes;
    joined[0] = 0x5b;
    let at = 1;
    for (const line of byteLines) {
      at += line.bytes.copy(joined, at, line.start, line.end);
      joined[at] = 0x0a;
      joined[at + 1] = 0x2c;
      at += 2;
    }
    joined[length - 1] = 0x5d;
    // ASCII (fh's own records mostly are) decodes as Latin-1: the same string, without UTF-8 decoding.
    text = isAscii(joined.subarray(0, length)) ? joined.toString('latin1', 0, length) : joined.toString('utf8', 0, length);
  } else {
    text = `[${lines.map((line) => ('bytes' in line ? lineText(line) : line.text)).join('\n,')}\n]`;
  }
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch {
    return undefined;
  }
  return Array.isArray(values) && values.length === lines.length ? values : undefined;
}

function isRecordValue(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { type?: unknown }).type === 'string';
}

/** One record (or raw line) held for the second pass of {@link rebuildStateFromLog}. */
type Held = TextLine | { record: LogRecord } | ByteLine;

/** A line a rebuild reads: from a stream (`readLogLines`) or from bytes held whole. */
type SourceLine = LogLine | ByteLine;

interface Segment {
  /** Index (0-based, in the whole log) of the snapshot its first record adds. */
  startNode: number;
  /** Snapshot records (not updates) before the segment. */
  snapshotRecordsBefore: number;
  /** Sequence of the snapshot before the segment. */
  lastSequenceBefore: number;
  held: Held[];
}

/** Whether a line may be a record a rebuild reads, judged from its text without parsing it. */
function mayMatter(text: string): boolean {
  return text.includes('"file-history-') || text.includes('"fh-snapshot"') || text.includes('"fh-session"');
}

/**
 * Rebuild a session's state from its log, streamed line by line (`SessionLog.readStream`, see
 * `readLogLines`): never the whole log as one string, at any size. A first pass reads fh's own
 * `fh-snapshot` and `file-history-delta` lines by their first bytes only (other lines are parsed,
 * so a corrupt one is reported, and dropped unless they name a file-history record type) and
 * holds the lines from the newest full record at or before the oldest snapshot that will be kept;
 * the second pass parses and replays only those.
 * So the cost is one scan of the log plus parsing what the kept snapshots need, and memory is
 * bounded by those records. The result equals `restoreStateFromLog` of all the log's records.
 *
 * Throws `InvalidArgumentError` when `projectRoot` is not absolute, and the store's errors.
 */
export async function rebuildStateFromLog(log: SessionLog, options: RebuildOptions): Promise<RebuildResult> {
  return rebuildFromLines(() => readLogLines(log), options);
}

/**
 * {@link rebuildStateFromLog} of a log already read whole into `bytes` (`SessionLog.readTail`
 * returned it all): the same result, line numbers included, without reading the log again.
 * Each line is decoded only when read, and only the lines the kept snapshots need are parsed.
 */
export async function rebuildStateFromBytes(bytes: Uint8Array, options: RebuildOptions): Promise<RebuildResult> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return rebuildFromLines(() => byteLines(buffer), options);
}

async function rebuildFromLines(lines: () => AsyncIterable<SourceLine> | Iterable<SourceLine>, options: RebuildOptions): Promise<RebuildResult> {
  const maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
  const first = await replayLog(lines, options, maxSnapshots, true);
  // Pass 1 counts the snapshots a record adds from its head; a corrupt record it counted (a full
  // record whose body does not parse) can make it drop records that were needed. Then, rarely,
  // the log is replayed whole.
  if (first.dropped && first.state.snapshots.length < maxSnapshots) return replayLog(lines, options, maxSnapshots, false);
  return first;
}

async function replayLog(lines: () => AsyncIterable<SourceLine> | Iterable<SourceLine>, options: RebuildOptions, maxSnapshots: number, dropUnneeded: boolean): Promise<RebuildResult & { dropped: boolean }> {
  const skippedLines = new Map<string, { count: number; firstLine: number }>();
  const skip = (line: number, reason: string) => {
    const seen = skippedLines.get(reason);
    if (seen === undefined) skippedLines.set(reason, { count: 1, firstLine: line });
    else seen.count += 1;
  };
  const sessions: LogRecord[] = [];
  const messageIds = new Set<string>();
  const nodeMessageIds: string[] = [];
  let nodes = 0;
  let snapshotRecords = 0;
  let lastSequence = 0;
  let sequenceOffset = 0;
  let hasRecords = false;
  let dropped = false;
  const segments: Segment[] = [{ startNode: 0, snapshotRecordsBefore: 0, lastSequenceBefore: 0, held: [] }];
  const hold = (held: Held) => (segments.at(-1) as Segment).held.push(held);
  const startNode = (messageId: string, full: boolean, countsAsRecord: boolean, sequence: number, held: Held) => {
    if (full) segments.push({ startNode: nodes, snapshotRecordsBefore: snapshotRecords, lastSequenceBefore: lastSequence, held: [] });
    hold(held);
    messageIds.add(messageId);
    nodeMessageIds.push(messageId);
    nodes += 1;
    if (countsAsRecord) snapshotRecords += 1;
    lastSequence = sequence;
    while (dropUnneeded && segments.length >= 2 && (segments[1] as Segment).startNode <= nodes - maxSnapshots) {
      segments.shift();
      dropped = true;
    }
  };
  /** The diff lines held, for `anchorLines` (only the last `maxSnapshots` are kept in the result). */
  const diffs: { head: FhSnapshotHead; held: ByteLine | TextLine }[] = [];
  /** An `fh-snapshot` record adds a snapshot when it is a full one or a diff against the newest. */
  const compact = (head: FhSnapshotHead, held: Held) => {
    if (head.kind === 'diff' && !('record' in held)) diffs.push({ head, held });
    if (head.kind === 'attach') hold(held);
    else if (head.kind === 'full' || (nodes > 0 && head.base === lastSequence)) startNode(head.messageId, head.kind === 'full', true, head.sequence, held);
    else hold(held);
  };
  const classify = (record: LogRecord, held: Held) => {
    if (record.type === FH_SESSION_RECORD_TYPE) {
      sessions.push(record);
      const offset = parseFhSessionRecord(record)?.snapshotSequenceOffset;
      if (offset !== undefined) sequenceOffset = Math.max(sequenceOffset, offset);
      return;
    }
    if (record.type === FH_SNAPSHOT_RECORD_TYPE) {
      const head = fhSnapshotRecordHead(record);
      if (head === undefined) hold(held);
      else compact(head, held);
      return;
    }
    const head = fileHistoryRecordHead(record);
    if (head === undefined) {
      if (record.type === 'file-history-snapshot' || record.type === 'file-history-delta') hold(held);
      return;
    }
    if (head.type === 'file-history-snapshot' && (!head.isSnapshotUpdate || !messageIds.has(head.messageId))) {
      const records = snapshotRecords + (head.isSnapshotUpdate ? 0 : 1);
      startNode(head.messageId, true, !head.isSnapshotUpdate, Math.max(nodes + 1, sequenceOffset + records, lastSequence + 1), held);
      return;
    }
    hold(held);
  };
  for await (const line of lines()) {
    if ('skipped' in line) {
      skip(line.line, line.skipped);
      continue;
    }
    if ('record' in line) {
      hasRecords = true;
      classify(line.record, { record: line.record });
      continue;
    }
    let text: string;
    if ('bytes' in line) {
      const head = sniffByteLine(line);
      hasRecords = true;
      if (head !== undefined) {
        compact(head, line);
        continue;
      }
      if (line.terminated && isDeltaByteLine(line)) {
        hold(line);
        continue;
      }
      text = lineText(line);
    } else {
      hasRecords = true;
      text = line.text;
      const head = line.terminated ? sniffFhSnapshotLine(text) : undefined;
      if (head !== undefined) {
        compact(head, { text, terminated: true, line: line.line });
        continue;
      }
      if (line.terminated && text.startsWith('{"type":"file-history-delta"')) {
        hold({ text, terminated: true, line: line.line });
        continue;
      }
    }
    const parsed = parseJsonlLine(text, line.terminated);
    if (parsed === undefined) continue;
    if ('reason' in parsed) {
      skip(line.line, parsed.reason);
      continue;
    }
    if (mayMatter(text)) classify(parsed.record, { record: parsed.record });
  }
  const first = segments[0] as Segment;
  const rebuilder = new StateRebuilder(
    { ...options, maxSnapshots },
    { nodes: first.startNode, snapshotRecords: first.snapshotRecordsBefore, messageIds: new Set(nodeMessageIds.slice(0, first.startNode)), lastSequence: first.lastSequenceBefore },
  );
  for (const session of sessions) rebuilder.push(session);
  const pushLine = (parsed: { record: LogRecord } | { reason: string } | undefined, line: ByteLine | TextLine) => {
    if (parsed === undefined) return;
    if ('reason' in parsed) skip(line.line, parsed.reason);
    else rebuilder.push(parsed.record, true);
  };
  for (const segment of segments) {
    let lines: (ByteLine | TextLine)[] = [];
    for (const held of segment.held) {
      if (!('record' in held)) {
        lines.push(held);
        continue;
      }
      parseLines(lines, pushLine);
      lines = [];
      rebuilder.push(held.record);
    }
    parseLines(lines, pushLine);
  }
  const finished = rebuilder.finish();
  // The newest diff lines read, copied, for a later state record to name (see `RebuildResult.anchorLines`).
  const anchorLines: AnchorLine[] = diffs.slice(-maxSnapshots).map(({ head, held }) => ({
    sequence: head.sequence,
    base: head.base as number,
    messageId: head.messageId,
    line: 'bytes' in held ? Buffer.from(held.bytes.subarray(held.start, held.end)) : held.text,
  }));
  return { ...finished, sessions: rebuilder.sessions, hasRecords, skippedLines, dropped, anchorLines };
}

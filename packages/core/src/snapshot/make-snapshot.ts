/**
 * `fileHistoryMakeSnapshot` (seed 000 §5, seed 004 §3.2): at each user turn, record the state of
 * every tracked file under the turn's message id.
 *
 * Three phases:
 * 1. Capture the state.
 * 2. For each tracked file, with bounded concurrency (a wide limit for the `stat`, the normal one
 *    for reading and copying): unchanged since its latest backup → reuse
 *    that entry (with a newer `backupTime` when the bytes had to be compared); changed → a new
 *    version; gone, or a folder in its place → `null`; a symlink leading nowhere → failed (it is
 *    there, but has no content: never recorded as gone, so a rewind never deletes it). A backup that fails gives an entry with
 *    `error` set — never the older version in disguise — and a later rewind reports that file as
 *    failed.
 * 3. Commit the new snapshot. Files a concurrent `trackEdit` started tracking during phase 2 inherit
 *    their entry from the most recent snapshot. Snapshots beyond {@link MAX_SNAPSHOTS} are dropped
 *    oldest first; `snapshotSequence` only grows. Once the snapshot is recorded, backups only the
 *    dropped snapshots referenced are deleted, except each file's first backup (retention).
 */
import { withoutAttribution } from '../attribution/agents.js';
import { backupTimeMs, checkFileChanged, compareMetadata } from './change-detection.js';
import { createBackup } from '../track/create-backup.js';
import { errnoCode, InvalidArgumentError } from '../errors.js';
import { captureState, type FileHistoryContext, type FileHistoryStateUpdater } from '../file-history-context.js';
import { backupFileName, toAbsolutePath } from '../paths.js';
import { isRetainable } from '../state/rebuild.js';
import { isBackupFileName } from '../state/records.js';
import { chainedSnapshot, chainLink, columnOf, detach, dropColumn, entryOf, isDeferred, keysTracked, markKeysTracked, noteChanges, noteColumn, type SnapshotColumn, type SnapshotDiff } from '../state/snapshot-chain.js';
import { latestBackup, nextVersion } from '../state/state-queries.js';
import { createMetadataReader, type MetadataReader } from '../metadata.js';
import { mapWithWorkers } from '../worker-pool.js';
import { MAX_SNAPSHOTS, setStateBookkeeping, type FileHistoryBackup, type FileHistorySnapshot, type FileHistoryState } from '../types.js';

/**
 * Make the snapshot of `messageId` (a non-empty string) from every tracked file's current state.
 * Resolves with the committed snapshot once it is durable in the session log (when the context
 * records snapshots), or undefined when the updater is a no-op. Per-file failures become entries
 * with `error`; only `InvalidArgumentError` for a bad message id and the log's errors are thrown.
 */
export async function fileHistoryMakeSnapshot(
  updateState: FileHistoryStateUpdater,
  messageId: string,
  context: FileHistoryContext,
): Promise<FileHistorySnapshot | undefined> {
  if (typeof messageId !== 'string' || messageId === '') {
    throw new InvalidArgumentError(`messageId must be a non-empty string, got ${JSON.stringify(messageId)}`);
  }
  const captured = captureState(updateState);
  if (captured === undefined) return undefined;

  const trackingPaths = sharedSortedPaths(captured.trackedFiles);
  const metadata = createMetadataReader(context.fs);
  // A reused entry leaves its turn's attribution behind: the new turn has no changes yet.
  const entries: Array<FileHistoryBackup | undefined> = new Array(trackingPaths.length);
  // same[i] = 1: entries[i] is the very entry the newest snapshot holds (nothing to record).
  const same = new Uint8Array(trackingPaths.length);
  const column = emptyColumn(trackingPaths, entries as FileHistoryBackup[]);
  const rest = await unchangedByTimestamps(context, metadata, captured, trackingPaths, entries, same, column);
  const checked = await mapWithWorkers(context.metadataLimit, rest, context.concurrency, async (index) => {
    const trackingPath = trackingPaths[index] as string;
    return withoutAttribution(await snapshotEntry(context, metadata, captured, trackingPath, latestBackup(captured, trackingPath)));
  });
  rest.forEach((index, at) => {
    const entry = checked[at] as FileHistoryBackup;
    entries[index] = entry;
    setColumnEntry(column, index, entry);
  });
  let committed: FileHistorySnapshot | undefined;
  let released: Array<[string, string]> = [];
  let changes: SnapshotDiff | undefined;
  updateState((state) => {
    const latest = state.snapshots.at(-1);
    const superseded: Record<string, string> = {};
    const timestamp = new Date();
    // Nothing changed the state since it was captured (every commit makes a new state object) and
    // the newest snapshot holds no path beyond the tracked ones (`keysTracked`): only the files
    // not marked `same` can differ from it, so only those are compared (no scan of every entry),
    // and the new snapshot is the newest one plus those changes (no map of every entry).
    if (state === captured && latest !== undefined && keysTracked(latest)) {
      const changed: string[] = [];
      const changedEntries = new Map<string, FileHistoryBackup>();
      for (let index = 0; index < trackingPaths.length; index += 1) {
        if (same[index] === 1) continue;
        const trackingPath = trackingPaths[index] as string;
        const before = entryOf(latest, trackingPath);
        const now = entries[index] as FileHistoryBackup;
        if (now === before) continue;
        changed.push(trackingPath);
        changedEntries.set(trackingPath, now);
        if (isRetainable(before) && before.backupFileName !== now.backupFileName) superseded[trackingPath] = before.backupFileName;
      }
      changes = { changed, removed: [], size: trackingPaths.length };
      committed = sharedSnapshot(messageId, timestamp, latest, changedEntries, trackingPaths, entries);
    } else {
      const trackedFileBackups = entryMap(trackingPaths, entries);
      const latestBackups = latest?.trackedFileBackups ?? {};
      for (const trackingPath in latestBackups) {
        const before = latestBackups[trackingPath];
        const now = trackedFileBackups[trackingPath];
        if (now === undefined) {
          if (before !== undefined && state.trackedFiles.has(trackingPath)) trackedFileBackups[trackingPath] = withoutAttribution(before);
          else if (isRetainable(before)) superseded[trackingPath] = before.backupFileName;
        } else if (now !== before && isRetainable(before) && before.backupFileName !== now.backupFileName) {
          superseded[trackingPath] = before.backupFileName;
        }
      }
      committed = { messageId, trackedFileBackups, timestamp };
    }
    const sequence = state.snapshotSequence + 1;
    const held = (state.heldSnapshots ?? state.snapshots.length) + 1;
    const droppedCount = Math.max(0, held - MAX_SNAPSHOTS);
    const snapshots = [...state.snapshots, committed];
    const droppedInMemory = snapshots.length > MAX_SNAPSHOTS ? snapshots.splice(0, snapshots.length - MAX_SNAPSHOTS) : [];
    const index = new Map<number, Readonly<Record<string, string>>>();
    const lowest = sequence - MAX_SNAPSHOTS + 2;
    for (const [at, backups] of state.superseded ?? []) if (at >= lowest) index.set(at, backups);
    if (Object.keys(superseded).length > 0) index.set(sequence, superseded);
    released = releasedBackups(state, sequence, droppedCount, droppedInMemory, snapshots, committed);
    return setStateBookkeeping(
      { ...state, snapshots, snapshotSequence: sequence },
      { superseded: index.size > 0 ? index : undefined, heldSnapshots: state.heldSnapshots === undefined ? undefined : Math.min(MAX_SNAPSHOTS, held) },
    );
  });
  if (committed !== undefined) {
    markKeysTracked(committed);
    if (changes !== undefined) {
      const previous = captured.snapshots.at(-1) as FileHistorySnapshot;
      noteChanges(committed, previous, changes);
      // The new snapshot holds exactly `trackingPaths` → `entries`: the next makeSnapshot reads it
      // by position. Only the newest snapshot's column is ever read.
      noteColumn(committed, column);
      dropColumn(previous);
    }
  }
  if (committed !== undefined) await context.recordSnapshot?.(committed, false);
  if (released.length > 0) await deleteReleasedBackups(updateState, released, context);
  return committed;
}

/**
 * Most entries a shared snapshot's changes may hold (against the snapshot it is derived from)
 * before a snapshot is made with a map of its own: 4,096, or 1/32 of the tracked files when more.
 * Copying the changes costs at most that per snapshot, and a whole map is built only after that
 * many entries changed, so a snapshot costs what changed plus, amortised, a small share of a map.
 */
function sharedChangesLimit(tracked: number): number {
  return Math.max(4096, tracked >> 5);
}

/**
 * The new snapshot as `latest` plus `changed` (path → new entry), sharing the map it derives
 * from (`snapshot-chain.ts`) instead of copying every entry: derived from `latest` when `latest`
 * has a map of its own, else from the map `latest` derives from, with `latest`'s changes copied
 * in (so a lookup never walks more than one step). Past {@link sharedChangesLimit} changes, or
 * when `latest` derives from a chain, a snapshot with its own map of `trackingPaths` → `entries`.
 */
function sharedSnapshot(
  messageId: string,
  timestamp: Date,
  latest: FileHistorySnapshot,
  changed: Map<string, FileHistoryBackup>,
  trackingPaths: readonly string[],
  entries: ReadonlyArray<FileHistoryBackup | undefined>,
): FileHistorySnapshot {
  const limit = sharedChangesLimit(trackingPaths.length);
  const link = chainLink(latest);
  if (link === undefined) {
    if (changed.size <= limit) return chainedSnapshot(messageId, timestamp, latest, changed);
  } else if (!isDeferred(link.previous) && link.changes.size + changed.size <= limit) {
    const merged = new Map(link.changes);
    for (const [trackingPath, entry] of changed) merged.set(trackingPath, entry);
    return chainedSnapshot(messageId, timestamp, link.previous, merged);
  }
  return { messageId, trackedFileBackups: entryMap(trackingPaths, entries), timestamp };
}

/** A map of `trackingPaths[i]` → `entries[i]`, in the paths' order. */
function entryMap(trackingPaths: readonly string[], entries: ReadonlyArray<FileHistoryBackup | undefined>): Record<string, FileHistoryBackup> {
  const map: Record<string, FileHistoryBackup> = {};
  for (let index = 0; index < trackingPaths.length; index += 1) map[trackingPaths[index] as string] = entries[index] as FileHistoryBackup;
  return map;
}

/**
 * The backups (tracking path, name) that the snapshots dropped by the cap referenced and that no
 * held snapshot does, except each file's first backup: from the retention index
 * (`state.superseded`: what the snapshot after each dropped one replaced) where it has the
 * dropped snapshot, else by comparing the dropped snapshot (when in memory) with the one after it.
 * Only what the dropped snapshots referenced is looked at, never every held snapshot.
 */
/** The sorted paths of each tracked-file set, as last sorted, with the set's size then. */
const sortedSets = new WeakMap<ReadonlySet<string>, readonly string[]>();

/**
 * The paths of `tracked` in sorted order. A state's tracked-file set only grows, in place
 * (`trackEdit` adds to it; nothing in fh removes a path, and hosts treat the state as read-only):
 * the paths added since the last call are the last ones in its insertion order, so only those are
 * sorted and merged in. A set that shrank, or whose new tail holds a path sorted before (one
 * removed and added again), is sorted afresh. Returns a new array.
 */
export function sortedPaths(tracked: ReadonlySet<string>): string[] {
  return sharedSortedPaths(tracked).slice();
}

/**
 * {@link sortedPaths} without the copy: the same array while the set keeps its size, so what is
 * derived from it (a snapshot's column, the absolute paths) can be reused by identity. Read only.
 */
export function sharedSortedPaths(tracked: ReadonlySet<string>): readonly string[] {
  const cached = sortedSets.get(tracked);
  if (cached === undefined || cached.length > tracked.size) return sortAfresh(tracked);
  if (cached.length === tracked.size) return cached;
  const added: string[] = [];
  let index = 0;
  for (const path of tracked) if (index++ >= cached.length) added.push(path);
  added.sort();
  const sorted = new Array<string>(tracked.size);
  let from = 0;
  let next = 0;
  let at = 0;
  while (from < cached.length || next < added.length) {
    const old = cached[from];
    const fresh = added[next];
    // A path in both: the set was changed otherwise than by adding (a path removed and added
    // again moved to the end of its order), so the tail is not what was added.
    if (old === fresh) return sortAfresh(tracked);
    if (fresh === undefined || (old !== undefined && old < fresh)) {
      sorted[at++] = old as string;
      from += 1;
    } else {
      sorted[at++] = fresh;
      next += 1;
    }
  }
  sortedSets.set(tracked, sorted);
  return sorted;
}

function sortAfresh(tracked: ReadonlySet<string>): readonly string[] {
  const sorted = [...tracked].sort();
  sortedSets.set(tracked, sorted);
  return sorted;
}

/** The absolute paths of each shared sorted-path array, for the project root they were made for. */
const absoluteSets = new WeakMap<readonly string[], { projectRoot: string; paths: ReadonlyArray<string | undefined> }>();

/**
 * `toAbsolutePath(projectRoot, trackingPaths[i])` for each i (undefined where it throws: that file
 * is left to the second pass, which reports it), made once per shared sorted-path array
 * ({@link sharedSortedPaths}; rewind planning reads the same array). Read only.
 */
export function absolutePathsOf(projectRoot: string, trackingPaths: readonly string[]): ReadonlyArray<string | undefined> {
  const cached = absoluteSets.get(trackingPaths);
  if (cached !== undefined && cached.projectRoot === projectRoot) return cached.paths;
  const paths = trackingPaths.map((trackingPath) => {
    try {
      return toAbsolutePath(projectRoot, trackingPath);
    } catch {
      return undefined;
    }
  });
  absoluteSets.set(trackingPaths, { projectRoot, paths });
  return paths;
}

function releasedBackups(
  state: FileHistoryState,
  sequence: number,
  droppedCount: number,
  droppedInMemory: readonly FileHistorySnapshot[],
  kept: readonly FileHistorySnapshot[],
  newest: FileHistorySnapshot,
): Array<[string, string]> {
  if (droppedCount === 0) return [];
  const oldestKept = kept[0];
  // A snapshot derived from a chain would keep the dropped ones in memory: it gets its own map.
  // One derived from a map (what makeSnapshot makes) keeps only that map.
  const link = oldestKept === undefined ? undefined : chainLink(oldestKept);
  if (oldestKept !== undefined && link !== undefined && isDeferred(link.previous)) detach(oldestKept);
  const candidates = new Map<string, string>();
  for (let offset = 0; offset < droppedCount; offset += 1) {
    const dropped = sequence - MAX_SNAPSHOTS - droppedCount + 1 + offset;
    const indexed = state.superseded?.get(dropped + 1);
    if (indexed !== undefined) {
      for (const [path, name] of Object.entries(indexed)) candidates.set(`${path}\0${name}`, path);
      continue;
    }
    const snapshot = droppedInMemory[droppedInMemory.length - droppedCount + offset];
    const after = droppedInMemory[droppedInMemory.length - droppedCount + offset + 1] ?? oldestKept;
    if (snapshot === undefined || after === undefined) continue;
    for (const [path, backup] of Object.entries(snapshot.trackedFileBackups)) {
      if (isRetainable(backup) && entryOf(after, path)?.backupFileName !== backup.backupFileName) candidates.set(`${path}\0${backup.backupFileName}`, path);
    }
  }
  const released: Array<[string, string]> = [];
  for (const [key, path] of candidates) {
    const name = key.slice(path.length + 1);
    if (!isLaterVersionName(name)) continue;
    if (oldestKept !== undefined && entryOf(oldestKept, path)?.backupFileName === name) continue;
    if (entryOf(newest, path)?.backupFileName === name) continue;
    released.push([path, name]);
  }
  return released;
}

/** Whether `name` is a backup name retention may delete: well formed and not a version 1. */
function isLaterVersionName(name: string): boolean {
  return isBackupFileName(name) && Number(name.slice(name.lastIndexOf('@v') + 2)) > 1;
}

/**
 * Retention (issue 3): delete the released backups (see `releasedBackups`). Runs after the new
 * snapshot is durable in the log, so a state rebuilt from the log never refers to a deleted
 * backup; skips a backup the newest snapshot refers to by now (attached meanwhile). A failed
 * delete leaves the backup in place and is reported through `context.onWarning`; it never fails
 * the snapshot.
 */
async function deleteReleasedBackups(updateState: FileHistoryStateUpdater, released: Array<[string, string]>, context: FileHistoryContext): Promise<void> {
  const newest = captureState(updateState)?.snapshots.at(-1);
  await Promise.all(
    released.map(([path, name]) =>
      context.limit(async () => {
        if (newest !== undefined && entryOf(newest, path)?.backupFileName === name) return;
        try {
          await context.store.deleteBackup(context.sessionId, name);
        } catch (error) {
          context.onWarning?.(`retention could not delete backup ${name} of session ${context.sessionId}: ${messageOf(error)}`);
        }
      }),
    ),
  );
}

/**
 * The first pass of change detection, without a promise per file: where the metadata reader
 * stats synchronously, each tracked file whose latest entry names a backup with its size and
 * mode and whose synchronous `stat` proves it unchanged by timestamps (`compareMetadata`) gets
 * that entry (without attribution) in `entries`, at its index. Returns the indexes of the other
 * files, for {@link snapshotEntry} (all of them when the reader has no sync calls). Any error or
 * other kind of file leaves the file to the second pass, which checks it again and reports it.
 * Yields to the event loop between slices of sync calls (`MetadataReader.pause`).
 */
async function unchangedByTimestamps(
  context: FileHistoryContext,
  metadata: MetadataReader,
  state: FileHistoryState,
  trackingPaths: readonly string[],
  entries: Array<FileHistoryBackup | undefined>,
  same: Uint8Array,
  column: SnapshotColumn,
): Promise<number[]> {
  const rest: number[] = [];
  const granularity = context.timestampGranularityMs;
  const newest = state.snapshots.at(-1);
  // The newest snapshot's column when makeSnapshot made it from these very paths (no lookup per
  // file, no read of its entries), else its own map, read once, when it has one (a chained one
  // is walked by entryOf).
  const noted = newest === undefined ? undefined : columnOf(newest);
  const held = noted !== undefined && noted.paths === trackingPaths ? noted : undefined;
  const newestMap = held !== undefined || newest === undefined || isDeferred(newest) ? undefined : newest.trackedFileBackups;
  const absolutePaths = absolutePathsOf(context.projectRoot, trackingPaths);
  for (let index = 0; index < trackingPaths.length; index += 1) {
    const pause = metadata.pause();
    if (pause !== undefined) await pause;
    const absolutePath = absolutePaths[index];
    if (held !== undefined && held.quick[index] === 1) {
      if (absolutePath !== undefined && unchangedAt(metadata, absolutePath, held.sizes[index] as number, held.modes[index] as number, held.times[index] as number, granularity)) {
        entries[index] = held.entries[index];
        same[index] = 1;
        column.quick[index] = 1;
        column.sizes[index] = held.sizes[index] as number;
        column.modes[index] = held.modes[index] as number;
        column.times[index] = held.times[index] as number;
      } else {
        rest.push(index);
      }
      continue;
    }
    const trackingPath = trackingPaths[index] as string;
    const entry =
      held !== undefined
        ? held.entries[index]
        : newestMap !== undefined
          ? Object.hasOwn(newestMap, trackingPath)
            ? newestMap[trackingPath]
            : undefined
          : newest === undefined
            ? undefined
            : entryOf(newest, trackingPath);
    const previous = entry ?? latestBackup(state, trackingPath);
    if (
      previous === undefined ||
      previous.backupFileName === null ||
      previous.error !== undefined ||
      previous.size === undefined ||
      previous.mode === undefined ||
      absolutePath === undefined ||
      !unchangedAt(metadata, absolutePath, previous.size, previous.mode, backupTimeMs(previous), granularity)
    ) {
      rest.push(index);
      continue;
    }
    const kept = withoutAttribution(previous);
    entries[index] = kept;
    setColumnEntry(column, index, kept);
    if (kept === entry) same[index] = 1;
  }
  return rest;
}

/**
 * True when a synchronous `stat` of `absolutePath` finds a regular file that `compareMetadata`
 * proves unchanged against a backup of `size` bytes, `mode` and backup time `timeMs`; false when it
 * cannot (changed, not a file, an error, or the reader no longer stats synchronously).
 */
function unchangedAt(metadata: MetadataReader, absolutePath: string, size: number, mode: number, timeMs: number, granularity: number): boolean {
  let stats;
  try {
    stats = metadata.statNow(absolutePath);
  } catch {
    return false;
  }
  return stats !== undefined && stats.isFile() && compareMetadata(stats, size, mode, timeMs, granularity)?.changed === false;
}

/** A column for `trackingPaths` whose entries are `entries`, to be filled by {@link setColumnEntry}. */
function emptyColumn(trackingPaths: readonly string[], entries: FileHistoryBackup[]): SnapshotColumn {
  const length = trackingPaths.length;
  return { paths: trackingPaths, entries, quick: new Uint8Array(length), sizes: new Float64Array(length), modes: new Uint32Array(length), times: new Float64Array(length) };
}

/** Record in `column` what proving `entry` (at `index`) unchanged by timestamps needs. */
function setColumnEntry(column: SnapshotColumn, index: number, entry: FileHistoryBackup): void {
  const quick = entry.backupFileName !== null && entry.error === undefined && entry.size !== undefined && entry.mode !== undefined && entry.changedBy === undefined;
  column.quick[index] = quick ? 1 : 0;
  if (!quick) return;
  column.sizes[index] = entry.size as number;
  column.modes[index] = entry.mode as number;
  column.times[index] = backupTimeMs(entry);
}

/**
 * The entry one tracked file gets in a new snapshot of `state`, given its latest entry
 * (`previous`). Never throws: a failure becomes an entry with `error`. A new version number is
 * looked up only when a new entry is made.
 */
async function snapshotEntry(
  context: FileHistoryContext,
  metadata: MetadataReader,
  state: FileHistoryState,
  trackingPath: string,
  previous: FileHistoryBackup | undefined,
): Promise<FileHistoryBackup> {
  const version = () => nextVersion(state, trackingPath);
  let absolutePath: string;
  try {
    absolutePath = toAbsolutePath(context.projectRoot, trackingPath);
  } catch (error) {
    return { backupFileName: null, version: version(), backupTime: new Date(), error: messageOf(error) };
  }
  const absent = (): FileHistoryBackup =>
    previous !== undefined && previous.backupFileName === null && previous.error === undefined
      ? previous
      : { backupFileName: null, version: version(), backupTime: new Date() };
  try {
    let stats;
    try {
      stats = await metadata.stat(absolutePath);
    } catch (error) {
      const code = errnoCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      if (code === 'ENOENT' && (await isSymlink(metadata, absolutePath))) {
        return failedEntry(absolutePath, version(), `${trackingPath} is a symbolic link that leads nowhere (its target does not exist), so it has no content to back up`);
      }
      return absent();
    }
    // A folder where the file was (a file that became a folder): the file does not exist. A
    // symlink to a folder stays a failure, so no rewind ever deletes the link.
    if (stats.isDirectory() && !(await metadata.lstat(absolutePath)).isSymbolicLink()) return absent();
    if (!stats.isFile()) {
      return failedEntry(absolutePath, version(), `${trackingPath} is not a regular file (a device, socket, pipe or link to a folder)`);
    }
    if (previous !== undefined && previous.backupFileName !== null && previous.error === undefined) {
      const name = previous.backupFileName;
      const check =
        (previous.size !== undefined && previous.mode !== undefined
          ? compareMetadata(stats, previous.size, previous.mode, backupTimeMs(previous), context.timestampGranularityMs)
          : undefined) ?? (await context.limit(() => checkFileChanged(context, absolutePath, stats, { ...previous, backupFileName: name })));
      if (!check.changed) return check.by === 'content' ? { ...previous, backupTime: check.verifiedAt } : previous;
    }
    return await context.limit(() => createBackup(context, absolutePath, version()));
  } catch (error) {
    return failedEntry(absolutePath, version(), messageOf(error));
  }
}

/** Whether `absolutePath` is a symlink (one `lstat`); false when nothing is there. */
async function isSymlink(metadata: MetadataReader, absolutePath: string): Promise<boolean> {
  try {
    return (await metadata.lstat(absolutePath)).isSymbolicLink();
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

/** An entry for a version that could not be captured; it names the backup it should have been. */
function failedEntry(absolutePath: string, version: number, error: string): FileHistoryBackup {
  return { backupFileName: backupFileName(absolutePath, version), version, backupTime: new Date(), error };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

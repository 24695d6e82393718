/**
 * `beginCommand` (issue 12): before a command runs, make sure the before-bytes of every file it
 * may change exist somewhere fh can restore them from, without copying the tree:
 * - a file the current checkpoint already tracks needs nothing (its v1 stays);
 * - in a git repository a clean file needs nothing now: its bytes are a blob of the index, which
 *   the probe saves; `endCommand` copies the blob only if the command changed the file;
 * - every other file the probe lists (git's dirty and untracked files, or every file of a walk)
 *   reuses an unchanged earlier backup (the pre-image cache, or the newest checkpoint entry) or is
 *   backed up now, within the caps (`command-limits.ts`).
 * The window is then saved in the journal (backups first, then the records that name them), so
 * `endCommand` may run in another process. With a store's `putBackups` (`put-batch.ts`) the
 * copies are durable before the window record is written; a store without it makes them durable
 * by its own rule (the fs store: before the session log's next append of the same process).
 */
import { randomUUID } from 'node:crypto';
import { errnoCode, FhError, InvalidArgumentError, NotFoundError } from '../errors.js';
import { captureState, type FileHistoryContext, type FileHistoryStateUpdater } from '../file-history-context.js';
import { createMetadataReader } from '../metadata.js';
import { backupFileName, toAbsolutePath } from '../paths.js';
import { startPhase, type ProgressCallback } from '../progress.js';
import { entryOf } from '../state/snapshot-chain.js';
import { latestBackup, nextVersion } from '../state/state-queries.js';
import type { FileHistoryBackup, FileHistoryState } from '../types.js';
import { COMMAND_WINDOW_RECORD_VERSION, type CommandJournal, type CommandWindowRecord, type PreImage, type PreImageCache, type WindowEntry } from './command-journal.js';
import { resolveCommandLimits, type CommandLimits } from './command-limits.js';
import type { CommandProbe } from './command-probe.js';
import { factsOf, permissionBits, sameFacts, type EntryFacts } from './facts.js';
import { BATCH_BYTES, BATCH_COUNT, batchPut, putBatch, type BatchItem } from './put-batch.js';

/** Options of `beginCommand`. */
export interface BeginCommandOptions {
  /** Lists the project (git or walk); `@fh/command-probe`'s `NodeCommandProbe` for real projects. */
  probe: CommandProbe;
  /** Keeps the window until `endCommand` (and the pre-image cache). */
  journal: CommandJournal;
  /** The window's id: a single path segment (an agent's `tool_use_id`). Default: a random UUID. */
  windowId?: string;
  /** The command line, for messages. */
  command?: string;
  /** Size caps; see `command-limits.ts`. */
  limits?: CommandLimits;
  /**
   * Progress for a bar (`progress.ts`): a `backing-up` phase, one step per file copied into the
   * store, with its bytes (the total bytes known at the start). Must not throw.
   */
  onProgress?: ProgressCallback;
}

/** What `beginCommand` did. */
export interface CommandWindow {
  windowId: string;
  /** When the listing started. */
  startedAt: Date;
  kind: 'git' | 'walk';
  /** Files whose before-bytes fh holds itself (git: dirty and untracked; walk: every file). */
  files: number;
  /** Of those, backed up now: count and bytes. */
  copied: number;
  copiedBytes: number;
  /** Of those, an unchanged earlier backup reused. */
  reused: number;
  /** Of those, already tracked by the current checkpoint. */
  tracked: number;
  /** Files whose before-bytes are not kept (a symlink, over a cap, the copy failed), with why. */
  notCaptured: Array<{ path: string; reason: string }>;
  /** Ignored paths the probe saw (not captured; a change to one is reported by `endCommand`). */
  ignored: number;
}

/** Copies tried past a backup name already taken (by an unattached object) before giving up. */
const MAX_TAKEN_NAMES_SKIPPED = 16;

/** A single path segment: what a window id must be. */
const WINDOW_ID_PATTERN = /^[A-Za-z0-9._-]{1,200}$/;

/**
 * Begin a command window on the newest checkpoint (see the top of this file). Throws
 * `NotFoundError` when the session has no snapshot yet, `InvalidArgumentError` for a window id
 * that is not a single path segment or a window id already open, and the probe's errors (nothing
 * is kept then).
 */
export async function beginCommand(updateState: FileHistoryStateUpdater, context: FileHistoryContext, options: BeginCommandOptions): Promise<CommandWindow> {
  const limits = resolveCommandLimits(options.limits);
  const windowId = options.windowId ?? randomUUID();
  if (!WINDOW_ID_PATTERN.test(windowId) || windowId === '.' || windowId === '..') {
    throw new InvalidArgumentError(`command window id ${JSON.stringify(windowId)} is not a single path segment of letters, digits, '.', '_' or '-'`);
  }
  const state = captureState(updateState);
  const latest = state?.snapshots.at(-1);
  if (state === undefined || latest === undefined) {
    throw new NotFoundError(`session "${context.sessionId}" has no snapshot yet, so a command cannot be captured: make the turn's snapshot (makeSnapshot) first`);
  }
  if ((await options.journal.loadWindow(windowId)) !== undefined) {
    throw new InvalidArgumentError(
      `command window ${windowId} is already open in session ${context.sessionId}: a command with this id was started and has not ended yet, so nothing was changed (the open window still captures it). Give each command its own id`,
    );
  }
  const startedAt = new Date();
  const listing = await options.probe.begin(context.projectRoot, windowId);
  try {
    const [cache, openWindows] = await Promise.all([options.journal.loadPreImages(), options.journal.listWindows()]);
    const entries: Record<string, WindowEntry> = {};
    const notCaptured: Array<{ path: string; reason: string }> = [];
    const toCopy: Array<{ path: string; facts: EntryFacts }> = [];
    let plannedBytes = 0;
    let reused = 0;
    let tracked = 0;
    for (const [path, facts] of listing.own) {
      if (context.store.containsPath(toAbsolutePath(context.projectRoot, path))) continue;
      if (entryOf(latest, path) !== undefined) {
        entries[path] = { facts, preImage: { kind: 'tracked' } };
        tracked += 1;
        continue;
      }
      if (facts.type === 'missing') {
        entries[path] = { facts, preImage: { kind: 'backup', backup: { backupFileName: null, version: nextVersion(state, path), backupTime: startedAt } } };
        continue;
      }
      const none = (reason: string): void => {
        entries[path] = { facts, preImage: { kind: 'none', reason } };
        notCaptured.push({ path, reason });
      };
      if (facts.type !== 'file') {
        none(facts.type === 'symlink' ? 'a symbolic link (fh backs up regular files only)' : 'not a regular file');
        continue;
      }
      if (facts.size > limits.maxFileBytes) {
        none(`${facts.size} bytes, over the per-file cap of ${limits.maxFileBytes} bytes (maxFileBytes)`);
        continue;
      }
      const reusable = reusableBackup(state, cache, path, facts, context.timestampGranularityMs);
      if (reusable !== undefined) {
        entries[path] = { facts, preImage: { kind: 'backup', backup: reusable } };
        reused += 1;
        continue;
      }
      if (plannedBytes + facts.size > limits.maxCommandBytes) {
        none(`not backed up: the command's copies would pass the per-command cap of ${limits.maxCommandBytes} bytes (maxCommandBytes)`);
        continue;
      }
      plannedBytes += facts.size;
      toCopy.push({ path, facts });
    }

    const replaced: FileHistoryBackup[] = [];
    let copiedBytes = 0;
    const metadata = createMetadataReader(context.fs);
    const progress = startPhase(options.onProgress, 'backing-up', toCopy.length, plannedBytes);
    const versionOf = (path: string): number => Math.max(nextVersion(state, path), (cache[path]?.backup.version ?? 0) + 1);
    const settle = (path: string, facts: EntryFacts, preImage: Exclude<PreImage, { kind: 'tracked' }>): void => {
      progress.file(facts.size);
      entries[path] = { facts, preImage };
      if (preImage.kind === 'none') {
        notCaptured.push({ path, reason: preImage.reason });
        return;
      }
      copiedBytes += preImage.backup.size ?? 0;
      const previous = cache[path];
      if (previous !== undefined && !previous.attached) replaced.push(previous.backup);
      cache[path] = { backup: preImage.backup, facts, attached: false };
    };
    const putBackups = batchPut(context);
    if (putBackups !== undefined) {
      // Batches of files read and stored together, durable before the window record names them.
      for (let start = 0; start < toCopy.length; ) {
        let end = start;
        for (let bytes = 0; end < toCopy.length && end - start < BATCH_COUNT && (end === start || bytes + (toCopy[end] as (typeof toCopy)[number]).facts.size <= BATCH_BYTES); end += 1) bytes += (toCopy[end] as (typeof toCopy)[number]).facts.size;
        for (const [path, facts, preImage] of await copyPreImages(context, metadata, putBackups, toCopy.slice(start, end), versionOf)) settle(path, facts, preImage);
        start = end;
      }
    } else {
      await Promise.all(toCopy.map(({ path, facts }) => context.limit(async () => settle(path, facts, await copyPreImage(context, metadata, path, facts, versionOf(path))))));
    }
    const copied = toCopy.length - toCopy.filter(({ path }) => entries[path]?.preImage.kind === 'none').length;
    const inUse = namesInUse(openWindows, entries);
    const evicted = evictOverTotal(cache, limits.maxTotalBytes, inUse);
    await deleteUnused(context, [...replaced, ...evicted], inUse);
    if (copied > 0 || replaced.length > 0 || evicted.length > 0) await options.journal.savePreImages(cache);

    const record: CommandWindowRecord = {
      version: COMMAND_WINDOW_RECORD_VERSION,
      windowId,
      sessionId: context.sessionId,
      ...(options.command === undefined ? {} : { command: options.command }),
      startedAt: startedAt.toISOString(),
      kind: listing.kind,
      probeState: listing.state,
      entries,
      ignored: Object.fromEntries(listing.ignored),
      notCaptured,
    };
    await options.journal.saveWindow(record);
    notCaptured.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { windowId, startedAt, kind: listing.kind, files: Object.keys(entries).length, copied, copiedBytes, reused, tracked, notCaptured, ignored: listing.ignored.size };
  } catch (error) {
    await options.probe.release(context.projectRoot, windowId, listing.state).catch(() => undefined);
    throw error;
  }
}

/**
 * An earlier backup holding exactly the file described by `facts`: the cached pre-image made
 * when the file had these very facts, else the newest checkpoint entry of the same size and mode.
 * Either only when the file's timestamps are older than the backup's time minus the granularity
 * margin, so a write racing the copy is never mistaken for the copied bytes.
 */
function reusableBackup(state: FileHistoryState, cache: PreImageCache, path: string, facts: EntryFacts, granularityMs: number): FileHistoryBackup | undefined {
  const settled = (backup: FileHistoryBackup): boolean => Math.max(facts.mtimeMs, facts.ctimeMs) < new Date(backup.backupTime).getTime() - granularityMs;
  const cached = cache[path];
  if (cached !== undefined && sameFacts(cached.facts, facts) && settled(cached.backup)) return cached.backup;
  const newest = latestBackup(state, path);
  if (
    newest !== undefined &&
    newest.backupFileName !== null &&
    newest.error === undefined &&
    newest.size === facts.size &&
    newest.mode === permissionBits(facts.mode) &&
    settled(newest)
  ) {
    return newest;
  }
  return undefined;
}

/**
 * Back the file up as version `version` (or the next free one), recording the sha256 the store
 * computed of the bytes it stored (as `trackEdit` does), so a rewind checks them. The file is
 * stat'ed again after the copy: one that changed meanwhile is not trusted (the copy is deleted
 * and reported).
 */
async function copyPreImage(
  context: FileHistoryContext,
  metadata: ReturnType<typeof createMetadataReader>,
  path: string,
  facts: EntryFacts,
  version: number,
): Promise<Exclude<PreImage, { kind: 'tracked' }>> {
  const absolutePath = toAbsolutePath(context.projectRoot, path);
  for (let skipped = 0; ; skipped += 1) {
    const name = backupFileName(absolutePath, version + skipped);
    const backupTime = new Date();
    try {
      const info = await context.store.putBackup(context.sessionId, name, absolutePath);
      let after: EntryFacts | undefined;
      try {
        after = factsOf(await metadata.lstat(absolutePath));
      } catch {
        after = undefined;
      }
      if (after === undefined || !sameFacts(after, facts)) {
        await context.store.deleteBackup(context.sessionId, name).catch(() => undefined);
        return { kind: 'none', reason: 'it changed while fh was backing it up, before the command ran' };
      }
      return { kind: 'backup', backup: { backupFileName: name, version: version + skipped, backupTime, size: info.size, mode: info.mode, ...(info.sha256 === undefined ? {} : { sha256: info.sha256 }) } };
    } catch (error) {
      if (FhError.hasCode(error, 'FH_CONFLICT') && skipped < MAX_TAKEN_NAMES_SKIPPED) continue;
      if (FhError.hasCode(error, 'FH_NOT_FOUND') || errnoCode(error) === 'ENOENT') return { kind: 'none', reason: 'it disappeared before fh could back it up' };
      return { kind: 'none', reason: `the backup failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}

/**
 * Back up files in one batch through the store's `putBackups` (see `put-batch.ts`): each read
 * (a regular file of its listed size, or it is reported), stored with its bits, durable when this
 * resolves, then stat'ed again as {@link copyPreImage} does (a file that changed meanwhile is not
 * trusted: its copy is deleted and reported). Returns each file's pre-image.
 */
async function copyPreImages(
  context: FileHistoryContext,
  metadata: ReturnType<typeof createMetadataReader>,
  putBackups: NonNullable<ReturnType<typeof batchPut>>,
  files: ReadonlyArray<{ path: string; facts: EntryFacts }>,
  versionOf: (path: string) => number,
): Promise<Array<[string, EntryFacts, Exclude<PreImage, { kind: 'tracked' }>]>> {
  const read = await Promise.all(
    files.map(({ path, facts }) =>
      context.limit(async (): Promise<BatchItem | string> => {
        const absolutePath = toAbsolutePath(context.projectRoot, path);
        const backupTime = new Date();
        try {
          // A regular file still (never a FIFO a read would block on), then its bytes.
          if (!(await metadata.lstat(absolutePath)).isFile()) return 'it changed while fh was backing it up, before the command ran';
          const bytes = await context.fs.readFile(absolutePath);
          if (bytes.length !== facts.size) return 'it changed while fh was backing it up, before the command ran';
          return { path, bytes, mode: permissionBits(facts.mode), version: versionOf(path), backupTime };
        } catch (error) {
          const code = errnoCode(error);
          if (code === 'ENOENT' || code === 'ENOTDIR') return 'it disappeared before fh could back it up';
          return `the backup failed: ${error instanceof Error ? error.message : String(error)}`;
        }
      }),
    ),
  );
  const items = read.filter((item): item is BatchItem => typeof item !== 'string');
  const stored = items.length === 0 ? [] : await putBatch(context, putBackups, items);
  const byPath = new Map(items.map((item, index) => [item.path, stored[index] as FileHistoryBackup | Error]));
  return Promise.all(
    files.map(({ path, facts }, index) =>
      context.limit(async (): Promise<[string, EntryFacts, Exclude<PreImage, { kind: 'tracked' }>]> => {
        const reason = read[index];
        if (typeof reason === 'string') return [path, facts, { kind: 'none', reason }];
        const backup = byPath.get(path) as FileHistoryBackup | Error;
        if (backup instanceof Error) return [path, facts, { kind: 'none', reason: `the backup failed: ${backup.message}` }];
        let after: EntryFacts | undefined;
        try {
          after = factsOf(await metadata.lstat(toAbsolutePath(context.projectRoot, path)));
        } catch {
          after = undefined;
        }
        if (after === undefined || !sameFacts(after, facts)) {
          await context.store.deleteBackup(context.sessionId, backup.backupFileName as string).catch(() => undefined);
          return [path, facts, { kind: 'none', reason: 'it changed while fh was backing it up, before the command ran' }];
        }
        return [path, facts, { kind: 'backup', backup }];
      }),
    ),
  );
}

/** Backup names some open window (or this one) relies on. */
function namesInUse(openWindows: readonly CommandWindowRecord[], entries: Record<string, WindowEntry>): Set<string> {
  const names = new Set<string>();
  const add = (entry: WindowEntry): void => {
    if (entry.preImage.kind === 'backup' && entry.preImage.backup.backupFileName !== null) names.add(entry.preImage.backup.backupFileName);
  };
  for (const window of openWindows) for (const entry of Object.values(window.entries)) add(entry);
  for (const entry of Object.values(entries)) add(entry);
  return names;
}

/**
 * Drop the oldest unattached cache entries until the unattached ones hold at most `maxTotalBytes`
 * (entries an open window relies on stay). Returns the dropped backups.
 */
function evictOverTotal(cache: PreImageCache, maxTotalBytes: number, inUse: Set<string>): FileHistoryBackup[] {
  const unattached = Object.entries(cache).filter(([, entry]) => !entry.attached);
  let total = unattached.reduce((sum, [, entry]) => sum + (entry.backup.size ?? 0), 0);
  if (total <= maxTotalBytes) return [];
  unattached.sort(([, a], [, b]) => new Date(a.backup.backupTime).getTime() - new Date(b.backup.backupTime).getTime());
  const dropped: FileHistoryBackup[] = [];
  for (const [path, entry] of unattached) {
    if (total <= maxTotalBytes) break;
    if (entry.backup.backupFileName !== null && inUse.has(entry.backup.backupFileName)) continue;
    delete cache[path];
    total -= entry.backup.size ?? 0;
    dropped.push(entry.backup);
  }
  return dropped;
}

/** Delete backup objects only the cache referred to (never one an open window relies on). */
async function deleteUnused(context: FileHistoryContext, backups: readonly FileHistoryBackup[], inUse: Set<string>): Promise<void> {
  await Promise.all(
    backups.map((backup) =>
      backup.backupFileName === null || inUse.has(backup.backupFileName)
        ? undefined
        : context.store.deleteBackup(context.sessionId, backup.backupFileName).catch((error: unknown) => {
            context.onWarning?.(`command window: unused pre-image ${backup.backupFileName} could not be deleted (${error instanceof Error ? error.message : String(error)})`);
          }),
    ),
  );
}

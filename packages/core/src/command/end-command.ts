/**
 * `endCommand` (issue 12): after a command ran, find what it changed (created, modified, deleted,
 * mode changed; a rename is a delete plus a create) and attach those files to the newest
 * checkpoint exactly as if `trackEdit` had run before the change: a file the checkpoint already
 * tracks keeps its v1, a created file gets a `null` backup (a rewind deletes it), and any other
 * changed file gets its before-bytes: the backup `beginCommand` chose, or, for a file clean in git
 * at begin, its blob from the index saved then, copied into the store now.
 *
 * Windows that overlap: a window ended while another window that began earlier is still open is
 * covered by that one (its own begin is earlier, and its end is later, so it sees every change
 * this one saw, against older before-bytes); it attaches nothing and says so (`coveredBy`).
 */
import { errnoCode, FhError, NotFoundError } from '../errors.js';
import { captureState, type FileHistoryContext, type FileHistoryStateUpdater } from '../file-history-context.js';
import { createMetadataReader } from '../metadata.js';
import { backupFileName, toAbsolutePath } from '../paths.js';
import { startPhase, type ProgressCallback } from '../progress.js';
import { entryOf } from '../state/snapshot-chain.js';
import { nextVersion } from '../state/state-queries.js';
import { attachBackup } from '../track/attach-backups.js';
import { attributionFor, MAIN_AGENT, type AgentIdentity } from '../attribution/agents.js';
import type { FileHistoryBackup } from '../types.js';
import type { CommandJournal, CommandWindowRecord, PreImage, PreImageCache } from './command-journal.js';
import { resolveCommandLimits, type CommandLimits } from './command-limits.js';
import { SCAN_LIMIT_CODE, type BlobRequest, type CommandProbe, type IndexEntry, type ProbeEnd } from './command-probe.js';
import { factsOf, permissionBits, sameFacts, type EntryFacts } from './facts.js';
import { BATCH_BYTES, BATCH_COUNT, batchPut, putBatch, type BatchItem } from './put-batch.js';

/** Options of `endCommand`. */
export interface EndCommandOptions {
  /** The probe the window was begun with. */
  probe: CommandProbe;
  /** The journal the window was saved in. */
  journal: CommandJournal;
  /** Size caps; see `command-limits.ts`. */
  limits?: CommandLimits;
  /**
   * Who ran the command (issue 14): every file it changed records this agent in its entry's
   * `changedBy` — a sub-agent's id and type from the hook event, or the main agent (default).
   */
  agent?: AgentIdentity;
  /**
   * Progress for a bar (`progress.ts`): a `checking` phase, one step per file compared with the
   * window's begin, then a `backing-up` phase, one step per blob of a file clean in git at begin
   * copied into the store, with its bytes. Must not throw.
   */
  onProgress?: ProgressCallback;
}

/** How a command changed a file. */
export type CommandChange = 'created' | 'modified' | 'deleted' | 'mode';

/** Where a captured file's before-bytes came from. */
export type PreImageSource =
  /** Already tracked by the checkpoint: its v1 stays. */
  | 'tracked'
  /** A backup made (or reused) at `beginCommand`. */
  | 'backup'
  /** Its blob in the index saved at `beginCommand`, copied into the store now. */
  | 'git'
  /** It did not exist: a `null` backup, so a rewind deletes it. */
  | 'created';

/** What `endCommand` did. */
export interface CommandCapture {
  windowId: string;
  /** The checkpoint (message id) the files were attached to; undefined when covered. */
  messageId: string | undefined;
  /** Files the command changed, now restorable by a rewind to that checkpoint, sorted by path. */
  captured: Array<{ path: string; change: CommandChange; source: PreImageSource }>;
  /** Files the command changed whose before-bytes fh does not have, with why, sorted by path. */
  notCaptured: Array<{ path: string; change: CommandChange; reason: string }>;
  /** Ignored paths the command created, deleted or changed: not captured. `paths` holds the first 10. */
  ignored: { count: number; paths: string[] };
  /** Bytes copied into the store by this end (blobs of files that were clean in git). */
  copiedBytes: number;
  /** Set when an earlier window still open covers this one (it attached nothing). */
  coveredBy?: string;
  /**
   * Set when the probe's listing after the command passed its size or time limits: the window
   * is closed, nothing was captured, and this is the probe's message saying why.
   */
  scanLimit?: string;
}

/** Ignored paths named in a capture; the rest are counted. */
const IGNORED_NAMES_SHOWN = 10;

interface Change {
  path: string;
  change: CommandChange;
  preImage: PreImage | { kind: 'git'; entry: IndexEntry; now: EntryFacts | undefined } | { kind: 'created' };
}

/**
 * End the window `windowId` (see the top of this file). Throws `NotFoundError` when no such window
 * is open (never begun, or already ended) or the session has no snapshot, and the probe's, the
 * store's and the log's errors; the window stays open on error, so ending it again retries.
 */
export async function endCommand(updateState: FileHistoryStateUpdater, context: FileHistoryContext, windowId: string, options: EndCommandOptions): Promise<CommandCapture> {
  const limits = resolveCommandLimits(options.limits);
  const record = await options.journal.loadWindow(windowId);
  if (record === undefined) {
    throw new NotFoundError(`no open command window ${JSON.stringify(windowId)} in session ${context.sessionId}: it was never begun or has already ended`);
  }
  const empty = { windowId, messageId: undefined, captured: [], notCaptured: [], ignored: { count: 0, paths: [] }, copiedBytes: 0 };
  const earlier = (await options.journal.listWindows()).filter((window) => window.windowId !== windowId && isEarlier(window, record)).sort(compareWindows)[0];
  if (earlier !== undefined) {
    await options.journal.removeWindow(windowId);
    await options.probe.release(context.projectRoot, windowId, record.probeState).catch(() => undefined);
    return { ...empty, coveredBy: earlier.windowId };
  }
  const state = captureState(updateState);
  const latest = state?.snapshots.at(-1);
  if (state === undefined || latest === undefined) {
    throw new NotFoundError(`session "${context.sessionId}" has no snapshot, so command window ${windowId} has no checkpoint to attach to`);
  }
  let probeEnd: ProbeEnd;
  try {
    probeEnd = await options.probe.end(context.projectRoot, windowId, record.probeState);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== SCAN_LIMIT_CODE) throw error;
    await options.journal.removeWindow(windowId);
    await options.probe.release(context.projectRoot, windowId, record.probeState).catch(() => undefined);
    return { ...empty, messageId: latest.messageId, scanLimit: error instanceof Error ? error.message : String(error) };
  }
  const changes = await findChanges(context, record, probeEnd, options.onProgress);

  const captured: CommandCapture['captured'] = [];
  const notCaptured: CommandCapture['notCaptured'] = [];
  const attachments: Array<{ path: string; change: CommandChange; source: PreImageSource; backup: FileHistoryBackup; made: boolean }> = [];
  const blobs: Array<{ change: Change; request: BlobRequest; entry: IndexEntry }> = [];
  const cache = await options.journal.loadPreImages();
  const startedAt = new Date(record.startedAt);
  const versionOf = (path: string): number => Math.max(nextVersion(state, path), (cache[path]?.backup.version ?? 0) + 1);
  for (const change of changes) {
    const { path } = change;
    const preImage = change.preImage;
    if (entryOf(latest, path) !== undefined || preImage.kind === 'tracked') {
      captured.push({ path, change: change.change, source: 'tracked' });
    } else if (preImage.kind === 'none') {
      notCaptured.push({ path, change: change.change, reason: preImage.reason });
    } else if (preImage.kind === 'backup') {
      attachments.push({ path, change: change.change, source: preImage.backup.backupFileName === null ? 'created' : 'backup', backup: preImage.backup, made: false });
    } else if (preImage.kind === 'created') {
      attachments.push({ path, change: change.change, source: 'created', backup: { backupFileName: null, version: versionOf(path), backupTime: startedAt }, made: false });
    } else if (preImage.entry.gitMode === 0o120000) {
      notCaptured.push({ path, change: change.change, reason: 'a symbolic link in git (fh backs up regular files only)' });
    } else if (preImage.entry.gitMode === 0o160000) {
      notCaptured.push({ path, change: change.change, reason: 'a git submodule (its files are another repository)' });
    } else {
      const executable = (preImage.entry.gitMode & 0o111) !== 0;
      const now = preImage.now;
      const mode =
        preImage.entry.mode ??
        (now !== undefined && now.type === 'file' && ((now.mode & 0o100) !== 0) === executable ? permissionBits(now.mode) : options.probe.checkoutMode(preImage.entry.gitMode));
      blobs.push({ change, request: { blobId: preImage.entry.blobId, mode }, entry: preImage.entry });
    }
  }

  let copiedBytes = 0;
  if (blobs.length > 0) {
    const progress = startPhase(options.onProgress, 'backing-up', blobs.length);
    const stored = (change: Change, backup: FileHistoryBackup): void => {
      progress.file(backup.size ?? 0);
      copiedBytes += backup.size ?? 0;
      attachments.push({ path: change.path, change: change.change, source: 'git', backup, made: true });
    };
    const overCap = (change: Change): void => {
      notCaptured.push({ path: change.path, change: change.change, reason: `over the per-file cap of ${limits.maxFileBytes} bytes (maxFileBytes)` });
    };
    const requests = blobs.map((blob) => blob.request);
    const putBackups = batchPut(context);
    if (putBackups !== undefined && options.probe.readBlobBytes !== undefined) {
      // Each before-image written once, straight into the store, in batches made durable together.
      let batch: Change[] = [];
      let items: BatchItem[] = [];
      let batchBytes = 0;
      const flush = async (): Promise<void> => {
        const changes = batch;
        const results = await putBatch(context, putBackups, items);
        batch = [];
        items = [];
        batchBytes = 0;
        // The first failure fails the end (the window stays open); those stored stay, unattached, as siblings of a failed putBackup do.
        const failed = results.find((result): result is Error => result instanceof Error);
        if (failed !== undefined) throw failed;
        for (const [index, backup] of results.entries()) stored(changes[index] as Change, backup as FileHistoryBackup);
      };
      await options.probe.readBlobBytes(context.projectRoot, windowId, record.probeState, requests, limits.maxFileBytes, async (index, bytes) => {
        const blob = blobs[index] as (typeof blobs)[number];
        if (bytes === undefined) return overCap(blob.change);
        batch.push(blob.change);
        items.push({ path: blob.change.path, bytes, mode: blob.request.mode, version: versionOf(blob.change.path), backupTime: startedAt });
        batchBytes += bytes.length;
        if (batch.length >= BATCH_COUNT || batchBytes >= BATCH_BYTES) await flush();
      });
      await flush();
    } else {
      const written = await options.probe.materializeBlobs(context.projectRoot, windowId, record.probeState, requests, limits.maxFileBytes);
      await Promise.all(
        blobs.map(({ change }, index) =>
          context.limit(async () => {
            const blob = written[index];
            if (blob === undefined) return overCap(change);
            stored(change, await putFromBlob(context, change.path, blob.path, versionOf(change.path), startedAt));
          }),
        ),
      );
    }
  }

  await verifyReused(context, attachments, notCaptured);
  const attribution = attributionFor(options.agent ?? MAIN_AGENT, startedAt);
  const attributed = captured.map((item) => attachBackup(updateState, context, item.path, undefined, attribution));
  const outcomes = await Promise.all(attachments.map((item) => attachBackup(updateState, context, item.path, item.backup, attribution)));
  await Promise.all([...outcomes, ...(await Promise.all(attributed))].map((outcome) => outcome.recorded));
  let cacheChanged = false;
  await Promise.all(
    attachments.map(async (item, index) => {
      const outcome = outcomes[index];
      if (outcome?.attached === true) {
        captured.push({ path: item.path, change: item.change, source: item.source });
        cacheChanged = markAttached(cache, item.path, item.backup) || cacheChanged;
        return;
      }
      captured.push({ path: item.path, change: item.change, source: 'tracked' });
      if (item.made && item.backup.backupFileName !== null) await context.store.deleteBackup(context.sessionId, item.backup.backupFileName).catch(() => undefined);
    }),
  );
  if (cacheChanged) await options.journal.savePreImages(cache);
  await options.journal.removeWindow(windowId);
  await options.probe.release(context.projectRoot, windowId, record.probeState).catch(() => undefined);
  const byPath = <T extends { path: string }>(a: T, b: T): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return { windowId, messageId: latest.messageId, captured: captured.sort(byPath), notCaptured: notCaptured.sort(byPath), ignored: ignoredChanges(record, probeEnd), copiedBytes };
}

/** True when window `a` began before `b` (by start time, then id). */
function isEarlier(a: CommandWindowRecord, b: CommandWindowRecord): boolean {
  return compareWindows(a, b) < 0;
}

/** Order windows by start time, then id. */
export function compareWindows(a: CommandWindowRecord, b: CommandWindowRecord): number {
  const at = Date.parse(a.startedAt);
  const bt = Date.parse(b.startedAt);
  if (at !== bt) return at - bt;
  return a.windowId < b.windowId ? -1 : a.windowId > b.windowId ? 1 : 0;
}

/** Every file the command created, modified, deleted or changed the mode of, with its before-bytes. */
async function findChanges(context: FileHistoryContext, record: CommandWindowRecord, probeEnd: ProbeEnd, onProgress: ProgressCallback | undefined): Promise<Change[]> {
  const metadata = createMetadataReader(context.fs);
  const factsNow = async (path: string): Promise<EntryFacts | undefined> => {
    const listed = probeEnd.own.get(path);
    if (listed !== undefined) return listed;
    try {
      return factsOf(await metadata.lstat(toAbsolutePath(context.projectRoot, path)));
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
  };
  const paths = new Set<string>([...Object.keys(record.entries), ...probeEnd.own.keys(), ...probeEnd.indexChanged.keys()]);
  const changes: Change[] = [];
  const progress = startPhase(onProgress, 'checking', paths.size);
  await Promise.all(
    [...paths].map((path) =>
      context.metadataLimit(async () => {
        if (context.store.containsPath(toAbsolutePath(context.projectRoot, path))) return;
        const before = record.entries[path];
        if (before !== undefined) {
          const now = await factsNow(path);
          if (before.facts.type === 'missing') {
            if (now !== undefined && now.type !== 'folder') changes.push({ path, change: 'created', preImage: before.preImage });
            return;
          }
          if (now !== undefined && now.type === 'folder' && before.facts.type !== 'folder') {
            changes.push({ path, change: 'deleted', preImage: before.preImage });
            return;
          }
          if (now !== undefined && sameFacts(now, before.facts)) return;
          changes.push({ path, change: changeKind(before.facts, now), preImage: before.preImage });
          return;
        }
        const entry = probeEnd.indexChanged.get(path);
        if (entry !== undefined) {
          const now = await factsNow(path);
          const present = now !== undefined && now.type !== 'folder';
          const modeOnly =
            present &&
            now.type === 'file' &&
            entry.gitMode !== 0o120000 &&
            (entry.contentChanged === undefined ? ((now.mode & 0o100) !== 0) !== ((entry.gitMode & 0o100) !== 0) : !entry.contentChanged);
          changes.push({ path, change: !present ? 'deleted' : modeOnly ? 'mode' : 'modified', preImage: { kind: 'git', entry, now: present ? now : undefined } });
          return;
        }
        const now = probeEnd.own.get(path);
        if (now === undefined) return;
        const ignoredAtBegin = ignoredBy(record, path);
        if (ignoredAtBegin !== undefined) {
          changes.push({ path, change: 'created', preImage: { kind: 'none', reason: `it was ignored (${ignoredAtBegin}) when the command began, so fh kept no before-bytes` } });
          return;
        }
        changes.push({ path, change: 'created', preImage: { kind: 'created' } });
      }).finally(() => progress.file()),
    ),
  );
  return changes;
}

/** How a file with facts `before` became `now` (undefined: gone). */
function changeKind(before: EntryFacts, now: EntryFacts | undefined): CommandChange {
  if (now === undefined) return 'deleted';
  if (now.type === before.type && now.size === before.size && now.mtimeMs === before.mtimeMs && now.ino === before.ino && permissionBits(now.mode) !== permissionBits(before.mode)) return 'mode';
  return 'modified';
}

/** The ignored entry at begin that covers `path` (itself, or a folder above it), or undefined. */
function ignoredBy(record: CommandWindowRecord, path: string): string | undefined {
  if (record.ignored[path] !== undefined) return path;
  let slash = path.indexOf('/');
  while (slash !== -1) {
    const folder = `${path.slice(0, slash)}/`;
    if (record.ignored[folder] !== undefined) return folder;
    slash = path.indexOf('/', slash + 1);
  }
  return undefined;
}

/** Ignored paths created, deleted or changed between begin and end. */
function ignoredChanges(record: CommandWindowRecord, probeEnd: ProbeEnd): { count: number; paths: string[] } {
  const touched = new Set<string>();
  for (const [path, facts] of Object.entries(record.ignored)) {
    const now = probeEnd.ignored.get(path);
    if (now === undefined || !sameFacts(now, facts)) touched.add(path);
  }
  for (const path of probeEnd.ignored.keys()) if (record.ignored[path] === undefined) touched.add(path);
  const paths = [...touched].sort();
  return { count: paths.length, paths: paths.slice(0, IGNORED_NAMES_SHOWN) };
}

/**
 * Copy a materialized blob into the store as `trackingPath`'s backup (next free version), with
 * the sha256 the store computed of the bytes it stored (as `trackEdit` does).
 */
async function putFromBlob(context: FileHistoryContext, trackingPath: string, blobPath: string, version: number, backupTime: Date): Promise<FileHistoryBackup> {
  const absolutePath = toAbsolutePath(context.projectRoot, trackingPath);
  for (let skipped = 0; ; skipped += 1) {
    const name = backupFileName(absolutePath, version + skipped);
    try {
      const info = await context.store.putBackup(context.sessionId, name, blobPath);
      return { backupFileName: name, version: version + skipped, backupTime, size: info.size, mode: info.mode, ...(info.sha256 === undefined ? {} : { sha256: info.sha256 }) };
    } catch (error) {
      if (!FhError.hasCode(error, 'FH_CONFLICT') || skipped >= 16) throw error;
    }
  }
}

/**
 * A reused backup must still be in the store (retention may have deleted an old one): each
 * missing one moves from the attachments to `notCaptured`.
 */
async function verifyReused(
  context: FileHistoryContext,
  attachments: Array<{ path: string; change: CommandChange; source: PreImageSource; backup: FileHistoryBackup }>,
  notCaptured: CommandCapture['notCaptured'],
): Promise<void> {
  const checks = await Promise.all(
    attachments.map((item) =>
      item.source !== 'backup' || item.backup.backupFileName === null ? true : context.limit(async () => (await context.store.statBackup(context.sessionId, item.backup.backupFileName as string)) !== null),
    ),
  );
  for (let index = checks.length - 1; index >= 0; index -= 1) {
    if (checks[index] === true) continue;
    const [item] = attachments.splice(index, 1);
    if (item !== undefined) notCaptured.push({ path: item.path, change: item.change, reason: `its backup ${item.backup.backupFileName} is no longer in the store` });
  }
}

/** Mark the cache entry of `path` attached when it is this backup; true when it changed. */
function markAttached(cache: PreImageCache, path: string, backup: FileHistoryBackup): boolean {
  const entry = cache[path];
  if (entry === undefined || entry.attached || entry.backup.backupFileName !== backup.backupFileName) return false;
  entry.attached = true;
  return true;
}

/** Options of `endOpenCommands`. */
export interface EndOpenCommandsOptions extends EndCommandOptions {
  /** End only windows begun before this moment. Default: every open window. */
  startedBefore?: Date;
}

/**
 * End the session's open windows (see {@link EndOpenCommandsOptions.startedBefore}): a host calls
 * it at the next prompt, before the turn's snapshot, for commands whose end never came (an agent
 * killed mid-command, a hook that did not run). The newest window ends first, so windows an older
 * one covers cost nothing. Returns one capture per window ended, in that order; stops at the
 * first error (the windows not yet ended stay open).
 */
export async function endOpenCommands(updateState: FileHistoryStateUpdater, context: FileHistoryContext, options: EndOpenCommandsOptions): Promise<CommandCapture[]> {
  const before = options.startedBefore?.getTime() ?? Number.POSITIVE_INFINITY;
  const open = (await options.journal.listWindows()).filter((window) => Date.parse(window.startedAt) < before).sort(compareWindows).reverse();
  const captures: CommandCapture[] = [];
  for (const window of open) captures.push(await endCommand(updateState, context, window.windowId, options));
  return captures;
}

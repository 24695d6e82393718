/**
 * `NodeCommandProbe`: the `CommandProbe` of `@fh/core`'s command window for real projects.
 *
 * In a git work tree (a `.git` at or above the project folder), by default no `git` runs for
 * `begin` or `end` (`git-scan.ts`): `begin` reads the index file in-process (read-only), `lstat`s
 * every entry and proves each clean by git's stat data or by hashing its bytes (racy entries,
 * modified within the same second the index was written, are always hashed), walks the folders
 * for untracked files with the `.gitignore` rules, and writes a tree file
 * (`{stateDir}/{windowId}.tree`: every clean entry's blob id and `lstat` facts, every folder's
 * facts); `end` `lstat`s the same entries against that tree and reads again only the folders whose
 * facts changed. A file whose bytes or permission bits (all of them, not only the executable bit)
 * differ from the begin is named with its blob id, whatever the command did to the real index
 * (`checkout`, `stash`, `reset --hard`, `commit`).
 *
 * Repositories that scan does not handle (`.gitattributes`, `core.autocrlf` and other config that
 * makes the work tree's bytes differ from the blobs, submodules, a split or sparse index, entries
 * marked skip-worktree or assume-unchanged) use `git status` instead:
 * - `begin` copies the index to `{stateDir}/{windowId}.index` and runs
 *   `git status --porcelain=v2 -z --untracked-files=all --ignored=matching` against that copy
 *   (`GIT_INDEX_FILE`), limited to the project folder: dirty and untracked files are the ones fh
 *   backs up itself, ignored ones are listed for the report; clean files are not touched;
 * - `end` runs the same status against the same saved copy. There only the executable bit of a
 *   clean file is compared (git records no other permission bits).
 * Either way the blobs of files the command really changed are read once it has run (`readBlobBytes`;
 * `materializeBlobs` writes them to `{stateDir}/{windowId}.blob-{n}`): loose objects in-process,
 * the rest with one `git cat-file --batch`.
 * Outside a git work tree, `begin` and `end` walk the project folder with `.gitignore` rules
 * (every `.gitignore` on the way, through the `ignore` package; `.git` folders always skipped).
 *
 * With `watch` (a change feed, for long-lived hosts: `change-feed.ts`, `feed-model.ts`), `begin` and
 * `end` re-check only the paths that had an event since the previous cut; a window's state then
 * names the feed's base tree and holds its own delta, so any process can still end it in full.
 *
 * Layout of `stateDir` (one folder per session): `{windowId}.tree` or `{windowId}.index`,
 * `{windowId}.blob-{n}` (all removed by `release`), `ignored-folders.json` (see `IGNORED_FOLDERS_FILE`); with a feed also
 * `feed-base-{random}.tree` and the watcher's cookie folder `feed-{random}/`. Nothing is written into the project or its `.git`.
 */
import type { BlobRequest, CommandProbe, EntryFacts, IndexEntry, JsonValue, MaterializedBlob, ProbeBegin, ProbeEnd } from '@fh/core';
import { factsOf, InvalidArgumentError, MISSING_FACTS } from '@fh/core';
import { lstatSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import ignore from 'ignore';
import { parseStatus, readBlobs, runGit, type StatusEntry } from './git.js';
import { isIgnored, type Rules } from './ignore-rules.js';
import { limitError, type ListingLimits } from './tree-listing.js';
import { readText, readTree, scanBegin, scanEnd, unsupportedRepository, writeTree, type GitLocation, type ScanBegin, type ScanChange, type ScanTree } from './git-scan.js';
import { ChangeFeed, type ChangeFeedOptions } from './change-feed.js';
import { syncFileAndFolder } from './durable-file.js';
import { readLooseBlob, WarmBlobReader } from './warm-blobs.js';
import { deltaTree, FeedModel, indexFolders, makeBase, patchedTree, watchTree, windowDelta, type FeedWindow, type WindowDelta } from './feed-model.js';

/** Options of {@link NodeCommandProbe}. */
export interface NodeCommandProbeOptions {
  /** Absolute folder for the saved index and written blobs (created when needed). */
  stateDir: string;
  /** The git binary. Default `git` (from PATH). */
  gitBinary?: string;
  /** The umask files are checked out with, for {@link NodeCommandProbe.checkoutMode}. Default: this process's. */
  umask?: number;
  /**
   * How a git work tree is listed. `'index'` (default): the in-process scan of `git-scan.ts` (no
   * `git` for begin or end; every permission bit compared). `'status'`: `git status` against a
   * saved copy of the index before and after (git compares only the executable bit, so a
   * `chmod 750 → 777` is not seen); on a machine where spawning work to git's C code is cheaper
   * than the scan's JavaScript, it can be faster (see README, Known limits).
   */
  gitScan?: 'index' | 'status';
  /**
   * Most files and folders one listing of a git work tree may hold (default
   * {@link DEFAULT_MAX_SCAN_ENTRIES}); past it `begin`/`end` throw `ScanLimitError` and no
   * window is kept, so a project folder of `/` or a home folder is refused in seconds.
   */
  maxScanEntries?: number;
  /** Longest one listing may take, in ms (default {@link DEFAULT_MAX_SCAN_MS}); past it, as for `maxScanEntries`. */
  maxScanMs?: number;
  /**
   * Absolute folders a window never captures anything in (fh's own store when it lies inside the
   * project): a folder here that is inside the project folder (not the project folder itself) is
   * not entered by a walk, and nothing at or under it is reported by `begin` or `end` (not backed
   * up, not named changed, not listed as ignored). Folders outside the project are skipped. Default none.
   */
  exclude?: readonly string[];
  /**
   * A change feed (`change-feed.ts`, `feed-model.ts`), for a long-lived process that runs many
   * commands (an embedding harness): a watcher thread follows the project between commands, so
   * `begin` and `end` re-check only the paths that changed instead of scanning the tree. `true`
   * or options turn it on (default off: one-shot processes such as `fh hook` and `fh run` scan in
   * full). The first `begin` (or {@link NodeCommandProbe.startFeed}) scans in full and starts it;
   * whenever it cannot vouch for what changed (an overflowed queue, a failed watch, a changed
   * `.gitignore`, a cut without answer) the next `begin` or `end` scans in full. Only for a git
   * work tree the in-process scan handles (`gitScan: 'index'`), on a local file system. Call
   * {@link NodeCommandProbe.close} when done.
   */
  watch?: boolean | WatchOptions;
}

/** Options of the change feed ({@link NodeCommandProbeOptions.watch}); every member has a default. */
export interface WatchOptions extends ChangeFeedOptions {
  /** The feed scans in full again at the first `begin` this long after its last full scan, in ms. Default {@link DEFAULT_RESCAN_AFTER_MS}. */
  rescanAfterMs?: number;
  /** A delta of more clean rows than this is folded into a new base tree (file) at the next `begin`. Default {@link DEFAULT_REBASE_ROWS}. */
  rebaseRows?: number;
}

/** Default {@link WatchOptions.rescanAfterMs}: 30 minutes (blobs a feed relies on stay referenced by a recent index). */
export const DEFAULT_RESCAN_AFTER_MS = 30 * 60 * 1000;

/** Delay (ms) from the first change after a cut to the feed's own cut while no window is open. */
const IDLE_CUT_MS = 50;

/** Blobs up to this size (bytes) are written out synchronously by `materializeBlobs`. */
const SYNC_WRITE_BYTES = 256 * 1024;

/** Default {@link WatchOptions.rebaseRows}: 1,024 rows (a begin writes the delta; a new base costs a tree file of the whole project). */
export const DEFAULT_REBASE_ROWS = 1024;

/** What the change feed did so far ({@link NodeCommandProbe.feedStatus}). */
export interface FeedStatus {
  /** True while a feed follows a project. */
  running: boolean;
  /** Begins and ends answered from the feed (only the paths with events re-checked). */
  incremental: number;
  /** Full scans the feed made (its start, and after each time it could not vouch for the changes). */
  fullScans: number;
  /** Why the feed last had to scan in full, or why it is off. */
  lastFallback?: string;
}

/** Default {@link NodeCommandProbeOptions.maxScanEntries}: 1,000,000 files and folders. */
export const DEFAULT_MAX_SCAN_ENTRIES = 1_000_000;

/** Default {@link NodeCommandProbeOptions.maxScanMs}: 10 s, well inside a hook's 60 s timeout for a begin or an end. */
export const DEFAULT_MAX_SCAN_MS = 10_000;

/** What the probe keeps between `begin` and `end` of a git window. */
interface GitState {
  kind: 'git';
  /** The work tree's top folder. */
  top: string;
  /** The project folder relative to `top`, with a trailing `/` (empty at the top). */
  prefix: string;
  /** The saved copy of the index. */
  indexCopy: string;
}

/** What the probe keeps between `begin` and `end` of a window scanned in-process (`git-scan.ts`). */
interface ScanState extends GitLocation {
  kind: 'scan';
  /** The tree file of the begin (for a window begun on a change feed: the feed's base tree). */
  treeFile: string;
  /** A window begun on a change feed: its delta, patching `treeFile` into the begin's tree. */
  delta?: WindowDelta;
  /** The same as a file of its own, as an earlier fh wrote it (`{windowId}.delta`). */
  deltaFile?: string;
}

/**
 * The session's folders ignored as a whole, as the last git scan found them (a JSON array of
 * project paths in `stateDir`): the next scan lists them without entering them, while they stay
 * ignored.
 */
const IGNORED_FOLDERS_FILE = 'ignored-folders.json';

/** The folders in `file`, or none when it is missing or not such a list. */
function readIgnoredFolders(file: string): Set<string> {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return new Set(Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
  } catch {
    return new Set();
  }
}

/** Folders a walk never enters, whatever the ignore files say. */
const ALWAYS_SKIPPED = new Set(['.git']);

/** See the top of this file. */
export class NodeCommandProbe implements CommandProbe {
  private readonly stateDir: string;
  private readonly gitBinary: string;
  private readonly umask: number;
  private readonly gitScan: 'index' | 'status';
  private readonly maxScanEntries: number;
  private readonly maxScanMs: number;
  private readonly exclude: readonly string[];
  /** Trees of windows begun by this instance, so an end in the same process does not read the tree file back. */
  private readonly trees = new Map<string, ScanTree>();
  private readonly watchOptions: WatchOptions | undefined;
  /** The running change feed and its model of the project. */
  private feedState: { projectRoot: string; feed: ChangeFeed; model: FeedModel; blobs?: WarmBlobReader; idleTimer?: NodeJS.Timeout } | undefined;
  /** Windows begun on the feed's model, by id. */
  private readonly feedWindows = new Map<string, FeedWindow>();
  private readonly feedCounts: FeedStatus = { running: false, incremental: 0, fullScans: 0 };
  /** Set when the feed cannot run here at all (a watch failed): why. */
  private feedOff: string | undefined;
  /** Begins and ends on the feed run one at a time (parallel commands): each cut and its re-checks finish before the next. */
  private feedQueue: Promise<unknown> = Promise.resolve();

  /** Run `task` after every feed task before it. */
  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const result = this.feedQueue.then(task, task);
    this.feedQueue = result.catch(() => undefined);
    return result;
  }

  constructor(options: NodeCommandProbeOptions) {
    if (typeof options?.stateDir !== 'string' || !isAbsolute(options.stateDir)) {
      throw new Error(`NodeCommandProbe needs an absolute stateDir, got ${JSON.stringify(options?.stateDir)}`);
    }
    this.stateDir = options.stateDir;
    this.gitBinary = options.gitBinary ?? 'git';
    this.umask = options.umask ?? process.umask();
    if (options.gitScan !== undefined && options.gitScan !== 'index' && options.gitScan !== 'status') {
      throw new Error(`NodeCommandProbe gitScan must be 'index' or 'status', got ${JSON.stringify(options.gitScan)}`);
    }
    this.gitScan = options.gitScan ?? 'index';
    for (const name of ['maxScanEntries', 'maxScanMs'] as const) {
      const value = options[name];
      if (value !== undefined && (typeof value !== 'number' || !(value > 0))) throw new Error(`NodeCommandProbe ${name} must be a number > 0, got ${JSON.stringify(value)}`);
    }
    this.maxScanEntries = options.maxScanEntries ?? DEFAULT_MAX_SCAN_ENTRIES;
    this.maxScanMs = options.maxScanMs ?? DEFAULT_MAX_SCAN_MS;
    if (options.exclude !== undefined && (!Array.isArray(options.exclude) || options.exclude.some((folder) => typeof folder !== 'string' || !isAbsolute(folder)))) {
      throw new Error(`NodeCommandProbe exclude must be a list of absolute folders, got ${JSON.stringify(options.exclude)}`);
    }
    this.exclude = options.exclude ?? [];
    if (options.watch !== undefined && typeof options.watch !== 'boolean' && (typeof options.watch !== 'object' || options.watch === null)) {
      throw new Error(`NodeCommandProbe watch must be true, false or options, got ${JSON.stringify(options.watch)}`);
    }
    this.watchOptions = options.watch === true ? {} : options.watch === false || options.watch === undefined ? undefined : { ...options.watch };
  }

  /** What the change feed did so far (counts for tests and benchmarks). */
  feedStatus(): FeedStatus {
    return { ...this.feedCounts, running: this.feedState !== undefined };
  }

  /**
   * Start the change feed on `projectRoot` now (a full scan), so the first command's `begin` is
   * already answered from it. Resolves false when no feed can run there (the probe has no
   * `watch` option, the project is not a git work tree the in-process scan handles, a watch
   * failed); commands are then scanned in full as without a feed.
   */
  async startFeed(projectRoot: string): Promise<boolean> {
    if (this.watchOptions === undefined) return false;
    const located = this.locateRepository(projectRoot);
    if (located === undefined) return false;
    return (await this.serialized(() => this.restartFeed(projectRoot, located, this.excludedPaths(projectRoot)))) !== undefined;
  }

  /** Stop the change feed (its thread and cookie folder); windows still open end with a full scan. Idempotent. */
  async close(): Promise<void> {
    const state = this.feedState;
    this.feedState = undefined;
    for (const window of this.feedWindows.values()) window.stale = true;
    if (state === undefined) return;
    clearTimeout(state.idleTimer);
    state.blobs?.close();
    await state.feed.close();
    this.dropBaseUnlessUsed(state.model.base.file);
  }

  /** Remove base tree file `file` unless the running model or an open window uses it. */
  private dropBaseUnlessUsed(file: string): void {
    if (this.feedState?.model.base.file === file) return;
    for (const window of this.feedWindows.values()) if (window.base.file === file) return;
    rmSync(file, { force: true });
  }

  /**
   * (Re)start the feed on `projectRoot`: a new watcher thread, every folder watched, then a full
   * scan as the model's base. Open windows of the old model are marked stale (they end with a
   * full scan). Returns the scan, or undefined when no feed can run (the caller scans as without one).
   */
  private async restartFeed(projectRoot: string, located: GitLocation & { index: string }, excluded: readonly string[]): Promise<ScanBegin | undefined> {
    const previous = this.feedState;
    this.feedState = undefined;
    for (const window of this.feedWindows.values()) window.stale = true;
    if (previous !== undefined) {
      clearTimeout(previous.idleTimer);
      previous.blobs?.close();
      await previous.feed.close();
      this.dropBaseUnlessUsed(previous.model.base.file);
    }
    if (this.watchOptions === undefined || this.feedOff !== undefined || this.gitScan !== 'index') return undefined;
    const unsupported = unsupportedRepository(located);
    if (unsupported !== undefined) {
      this.feedCounts.lastFallback = `no feed: ${unsupported}`;
      return undefined;
    }
    await mkdir(this.stateDir, { recursive: true });
    const feed = await ChangeFeed.start(this.stateDir, this.watchOptions);
    const oidBytes = /^\s*objectformat\s*=\s*sha256\b/im.test(readText(join(located.commonDir, 'config')) ?? '') ? 32 : 20;
    const watched = await watchTree(feed, projectRoot, located, excluded, indexFolders(located, oidBytes));
    if ('failed' in watched) {
      await feed.close();
      this.feedOff = watched.failed;
      this.feedCounts.lastFallback = `no feed: ${watched.failed}`;
      return undefined;
    }
    const scannedAt = Date.now();
    const prunedFile = join(this.stateDir, IGNORED_FOLDERS_FILE);
    const pruned = readIgnoredFolders(prunedFile);
    const scanned = await scanBegin(projectRoot, located, pruned, this.limits());
    if ('unsupported' in scanned) {
      await feed.close();
      this.feedCounts.lastFallback = `no feed: ${scanned.unsupported}`;
      return undefined;
    }
    const ignoredFolders = scanned.tree.ignored.filter((key) => key.endsWith('/')).map((key) => key.slice(0, -1));
    if (ignoredFolders.length !== pruned.size || ignoredFolders.some((folder) => !pruned.has(folder))) await writeFile(prunedFile, JSON.stringify(ignoredFolders));
    const base = makeBase(this.stateDir, scanned.tree);
    const model = new FeedModel(projectRoot, located, excluded, base, scanned, watched.watched, feed, scannedAt);
    const state = { projectRoot, feed, model };
    this.feedState = state;
    feed.onActivity = () => this.scheduleIdleCut(state);
    this.feedCounts.fullScans += 1;
    return scanned;
  }

  /**
   * `begin` on the change feed: a cut and the paths since the previous one re-checked, or (no
   * model yet, or the model lost) a restart with a full scan. Undefined when no feed runs here.
   */
  private async feedBegin(projectRoot: string, located: GitLocation & { index: string }, windowId: string, excluded: readonly string[]): Promise<ProbeBegin | undefined> {
    let state = this.feedState;
    let full = false;
    if (state !== undefined && state.model.lost === undefined && Date.now() - state.model.scannedAt < (this.watchOptions?.rescanAfterMs ?? DEFAULT_RESCAN_AFTER_MS)) {
      const touched = await state.model.applyCut();
      if (state.model.lost === undefined) {
        for (const window of this.feedWindows.values()) for (const path of touched) window.pending.add(path);
      }
    }
    if (state === undefined || state.model.lost !== undefined || Date.now() - state.model.scannedAt >= (this.watchOptions?.rescanAfterMs ?? DEFAULT_RESCAN_AFTER_MS)) {
      if (state !== undefined) this.feedCounts.lastFallback = state.model.lost ?? "the feed's last full scan is older than rescanAfterMs";
      if ((await this.restartFeed(projectRoot, located, excluded)) === undefined) return undefined;
      state = this.feedState as NonNullable<typeof this.feedState>;
      full = true;
    } else {
      this.feedCounts.incremental += 1;
    }
    const model = state.model;
    if (!full && model.delta.size > (this.watchOptions?.rebaseRows ?? DEFAULT_REBASE_ROWS)) {
      const old = model.base;
      model.base = makeBase(this.stateDir, patchedTree(old.tree, model.delta, { beginMs: old.tree.beginMs, known: [...model.own.keys()], ignored: [...model.ignored.keys()], folders: [...model.folders] }));
      model.delta = new Map();
      this.dropBaseUnlessUsed(old.file);
    }
    const window = model.snapshot();
    // The delta goes into the window record (durable with it: the base tree file already is).
    const delta = full ? undefined : windowDelta(window.delta, window.known, window.ignored, window.extras.folders);
    this.feedWindows.set(windowId, window);
    const scanState: ScanState = { kind: 'scan', top: located.top, prefix: located.prefix, gitDir: located.gitDir, commonDir: located.commonDir, treeFile: model.base.file, ...(delta === undefined ? {} : { delta }) };
    return { kind: 'git', state: scanState as unknown as JsonValue, ...withoutExcluded(excluded, { own: new Map(model.own), ignored: new Map(model.ignored) }) };
  }

  /**
   * After the first change since a cut, while no window is open on the feed: a cut
   * {@link IDLE_CUT_MS} later, so the re-checks of changes made between commands (the user's, a
   * `git add`) are done while the host waits, not in the next `begin`. Skipped while a window is
   * open (its end re-checks what the command changed, once).
   */
  private scheduleIdleCut(state: NonNullable<typeof this.feedState>): void {
    if (state.idleTimer !== undefined) clearTimeout(state.idleTimer);
    state.idleTimer = setTimeout(() => {
      state.idleTimer = undefined;
      void this.serialized(async () => {
        if (this.feedState !== state || state.model.lost !== undefined || this.feedWindows.size > 0) return;
        await state.model.applyCut();
      }).catch(() => undefined);
    }, IDLE_CUT_MS);
    state.idleTimer.unref();
  }

  /** `end` on the change feed, for window `windowId` begun on it; undefined when the feed cannot vouch (the caller scans in full). */
  private async feedEnd(windowId: string): Promise<{ own: Map<string, EntryFacts>; ignored: Map<string, EntryFacts>; changed: Map<string, ScanChange> } | undefined> {
    const window = this.feedWindows.get(windowId);
    const state = this.feedState;
    if (window === undefined || window.stale || state === undefined || state.model.lost !== undefined) return undefined;
    const touched = await state.model.applyCut();
    if (state.model.lost !== undefined) {
      this.feedCounts.lastFallback = state.model.lost;
      for (const open of this.feedWindows.values()) open.stale = true;
      return undefined;
    }
    for (const open of this.feedWindows.values()) for (const path of touched) open.pending.add(path);
    this.feedCounts.incremental += 1;
    return state.model.endOf(window);
  }

  /** {@link NodeCommandProbeOptions.exclude} as project paths (`/` separators) of the folders inside `projectRoot`. */
  private excludedPaths(projectRoot: string): string[] {
    const paths: string[] = [];
    for (const folder of this.exclude) {
      const inside = relative(projectRoot, folder);
      if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) continue;
      paths.push(inside.split(sep).join('/'));
    }
    return paths;
  }

  /** The limits of a listing starting now. */
  private limits(): ListingLimits {
    return { maxEntries: this.maxScanEntries, deadline: Date.now() + this.maxScanMs };
  }

  async begin(projectRoot: string, windowId: string): Promise<ProbeBegin> {
    if (parse(projectRoot).root === projectRoot) {
      throw new InvalidArgumentError(
        `the project folder is ${projectRoot}, the root of the file system: fh does not scan the whole file system for a command window, so this command is not captured; start the agent in your project's folder (or give fh --project <folder>)`,
      );
    }
    const excluded = this.excludedPaths(projectRoot);
    const located = this.locateRepository(projectRoot);
    if (located === undefined) return { kind: 'walk', state: { kind: 'walk' }, ...walkProject(projectRoot, this.limits(), excluded) };
    if (this.watchOptions !== undefined && (this.feedState === undefined || this.feedState.projectRoot === projectRoot)) {
      const begun = await this.serialized(() => this.feedBegin(projectRoot, located, windowId, excluded));
      if (begun !== undefined) return begun;
    }
    await mkdir(this.stateDir, { recursive: true });
    const prunedFile = join(this.stateDir, IGNORED_FOLDERS_FILE);
    const pruned = readIgnoredFolders(prunedFile);
    const scanned = this.gitScan === 'index' && unsupportedRepository(located) === undefined ? await scanBegin(projectRoot, located, pruned, this.limits()) : undefined;
    if (scanned !== undefined && !('unsupported' in scanned)) {
      const treeFile = join(this.stateDir, `${windowId}.tree`);
      writeTree(treeFile, scanned.tree);
      const ignoredFolders = scanned.tree.ignored.filter((key) => key.endsWith('/')).map((key) => key.slice(0, -1));
      if (ignoredFolders.length !== pruned.size || ignoredFolders.some((folder) => !pruned.has(folder))) await writeFile(prunedFile, JSON.stringify(ignoredFolders));
      this.trees.set(windowId, scanned.tree);
      const state: ScanState = { kind: 'scan', ...located, treeFile };
      return { kind: 'git', state: state as unknown as JsonValue, ...withoutExcluded(excluded, { own: scanned.own, ignored: scanned.ignored }) };
    }
    const indexCopy = join(this.stateDir, `${windowId}.index`);
    try {
      await copyFile(located.index, indexCopy);
      syncFileAndFolder(indexCopy);
    } catch (error) {
      // A repository with no index yet (nothing ever added): git reads a missing index file as empty.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const state: GitState = { kind: 'git', top: located.top, prefix: located.prefix, indexCopy };
    try {
      const entries = await this.status(projectRoot, state);
      const listing = withoutExcluded(excluded, listingOf(projectRoot, state, entries));
      return { kind: 'git', state: state as unknown as JsonValue, own: listing.own, ignored: listing.ignored };
    } catch (error) {
      await rm(indexCopy, { force: true });
      throw error;
    }
  }

  async end(projectRoot: string, windowId: string, state: JsonValue): Promise<ProbeEnd> {
    const saved = state as unknown as GitState | ScanState | { kind: 'walk' };
    const excluded = this.excludedPaths(projectRoot);
    if (saved.kind === 'walk') return { ...walkProject(projectRoot, this.limits(), excluded), indexChanged: new Map() };
    if (saved.kind === 'scan') {
      const fromFeed = await this.serialized(() => this.feedEnd(windowId));
      const window = this.feedWindows.get(windowId);
      const scanned =
        fromFeed ??
        (await scanEnd(
          projectRoot,
          saved,
          window !== undefined
            ? patchedTree(window.base.tree, window.delta, window.extras)
            : saved.delta !== undefined
              ? deltaTree(saved.treeFile, { inline: saved.delta })
              : saved.deltaFile !== undefined
                ? deltaTree(saved.treeFile, { deltaFile: saved.deltaFile })
                : (this.trees.get(windowId) ?? readTree(saved.treeFile)),
          this.limits(),
        ));
      const indexChanged = new Map<string, IndexEntry>();
      for (const [path, change] of scanned.changed) indexChanged.set(path, { blobId: change.blobId, gitMode: change.gitMode, mode: change.mode, contentChanged: change.contentChanged });
      return withoutExcluded(excluded, { own: scanned.own, ignored: scanned.ignored, indexChanged });
    }
    const entries = await this.status(projectRoot, saved);
    const listing = listingOf(projectRoot, saved, entries);
    const indexChanged = new Map<string, { blobId: string; gitMode: number }>();
    for (const entry of entries) {
      if (entry.kind !== 'changed' || entry.worktree === '.' || entry.indexMode === 0) continue;
      const path = projectPath(saved, entry.path);
      if (path !== undefined) indexChanged.set(path, { blobId: entry.indexBlob, gitMode: entry.indexMode });
    }
    for (const path of indexChanged.keys()) if (listing.own.get(path)?.type === 'missing') listing.own.delete(path);
    return withoutExcluded(excluded, { own: listing.own, ignored: listing.ignored, indexChanged });
  }

  async materializeBlobs(projectRoot: string, windowId: string, state: JsonValue, requests: readonly BlobRequest[], maxBytes: number): Promise<Array<MaterializedBlob | undefined>> {
    const written: Array<MaterializedBlob | undefined> = requests.map(() => undefined);
    await mkdir(this.stateDir, { recursive: true });
    await this.readBlobBytes(projectRoot, windowId, state, requests, maxBytes, async (index, bytes) => {
      if (bytes === undefined) return;
      const path = join(this.stateDir, `${windowId}.blob-${index}`);
      const request = requests[index] as BlobRequest;
      if (bytes.length <= SYNC_WRITE_BYTES) {
        // A small blob: written at once, not through the thread pool.
        writeFileSync(path, bytes, { mode: request.mode, flag: 'wx' });
        chmodSync(path, request.mode);
      } else {
        await writeFile(path, bytes, { mode: request.mode, flag: 'wx' });
        await chmod(path, request.mode);
      }
      written[index] = { path, size: bytes.length };
      this.feedWindows.get(windowId)?.files.push(path);
    });
    return written;
  }

  /**
   * The blobs' bytes (see `CommandProbe.readBlobBytes`). Loose objects (what `git add` and
   * `git commit` just wrote, the blobs a command most often changes) are read in-process, their
   * id checked, so no `git` is started when every blob is loose; the rest go, in order, through
   * the warm `git cat-file --batch` of a running feed of this repository, else one
   * `git cat-file --batch` of their own. Each blob is handed on as soon as it is read (loose ones
   * as they are met, then the others), so only one is held at a time.
   */
  async readBlobBytes(_projectRoot: string, _windowId: string, state: JsonValue, requests: readonly BlobRequest[], maxBytes: number, onBlob: (index: number, bytes: Uint8Array | undefined) => Promise<void>): Promise<void> {
    const saved = state as unknown as GitState | ScanState;
    const ids = requests.map((request) => request.blobId);
    if (ids.length === 0) return;
    const commonDir = saved.kind === 'scan' ? saved.commonDir : this.locateRepository(saved.top)?.commonDir;
    const rest: number[] = [];
    for (const [index, id] of ids.entries()) {
      const bytes = commonDir === undefined ? undefined : readLooseBlob(join(commonDir, 'objects'), id, maxBytes);
      if (bytes === undefined) rest.push(index);
      else await onBlob(index, bytes.length > maxBytes ? undefined : bytes);
    }
    if (rest.length === 0) return;
    const feed = this.feedState;
    if (feed !== undefined && feed.model.location.top === saved.top) {
      if (feed.blobs === undefined || feed.blobs.gone) feed.blobs = new WarmBlobReader(this.gitBinary, saved.top);
      let read: Array<Buffer | undefined> | undefined;
      try {
        read = await feed.blobs.read(rest.map((index) => ids[index] as string), maxBytes);
      } catch {
        // The warm process failed: the blobs are read by a git of their own below (which names a missing one).
      }
      if (read !== undefined) {
        for (const [at, bytes] of read.entries()) await onBlob(rest[at] as number, bytes !== undefined && bytes.length > maxBytes ? undefined : bytes);
        return;
      }
    }
    await readBlobs(this.gitBinary, saved.top, rest.map((index) => ids[index] as string), maxBytes, (at, bytes) => onBlob(rest[at] as number, bytes));
  }

  async release(_projectRoot: string, windowId: string): Promise<void> {
    this.trees.delete(windowId);
    const window = this.feedWindows.get(windowId);
    if (window !== undefined) {
      this.feedWindows.delete(windowId);
      this.dropBaseUnlessUsed(window.base.file);
      // Every file this window has: the blobs written for it.
      for (const file of window.files) rmSync(file, { force: true });
      return;
    }
    let names: string[];
    try {
      names = await readdir(this.stateDir);
    } catch {
      return;
    }
    await Promise.all(names.filter((name) => name.startsWith(`${windowId}.`)).map((name) => rm(join(this.stateDir, name), { force: true })));
  }

  checkoutMode(gitMode: number): number {
    return ((gitMode & 0o111) !== 0 ? 0o777 : 0o666) & ~this.umask;
  }

  /**
   * The work tree holding `projectRoot`, or undefined when it is not in one: the nearest folder
   * at or above it with a `.git` folder (or a `.git` file naming the git folder, as worktrees and
   * submodules have), found without starting git. The index is `index` in that git folder; a
   * linked worktree's git folder names the common one in its `commondir` file.
   */
  private locateRepository(projectRoot: string): (GitLocation & { index: string }) | undefined {
    let top = projectRoot;
    for (;;) {
      const dotGit = join(top, '.git');
      const stats = lstatSync(dotGit, { throwIfNoEntry: false });
      let gitDir: string | undefined;
      if (stats?.isDirectory() === true) gitDir = dotGit;
      else if (stats?.isFile() === true) {
        const match = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'));
        if (match !== null) gitDir = resolve(top, (match[1] as string).trim());
      }
      if (gitDir !== undefined) {
        let commonDir = gitDir;
        try {
          commonDir = resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
        } catch {
          // No commondir file: the git folder is the common one.
        }
        return { top, prefix: prefixOf(top, projectRoot), gitDir, commonDir, index: join(gitDir, 'index') };
      }
      const parent = dirname(top);
      if (parent === top) return undefined;
      top = parent;
    }
  }

  /** `git status` of the project folder against the saved index. Throws with git's message on failure. */
  private async status(projectRoot: string, state: GitState): Promise<StatusEntry[]> {
    const result = await runGit(
      this.gitBinary,
      projectRoot,
      ['-c', 'core.quotePath=false', '-c', 'status.relativePaths=false', 'status', '--porcelain=v2', '-z', '--untracked-files=all', '--ignored=matching', '--no-renames', '--ignore-submodules=none', ...(state.prefix === '' ? [] : ['--', '.'])],
      { env: { GIT_INDEX_FILE: state.indexCopy } },
    );
    if (result.code !== 0) throw new Error(`git status failed in ${projectRoot} (exit ${result.code}): ${result.stderr.trim()}`);
    return parseStatus(result.stdout);
  }
}

/** The project folder relative to the work tree's top, with `/` separators and a trailing `/` (empty at the top). */
function prefixOf(top: string, projectRoot: string): string {
  const inside = relative(top, projectRoot);
  return inside === '' ? '' : `${inside.split(sep).join('/')}/`;
}

/** `path` (relative to the work tree's top) relative to the project folder, or undefined outside it. */
function projectPath(state: GitState, path: string): string | undefined {
  if (!path.startsWith(state.prefix)) return undefined;
  const inside = path.slice(state.prefix.length);
  return inside === '' ? undefined : inside;
}

/** The probe's listing from status entries: dirty and untracked files (`own`), ignored paths. */
function listingOf(projectRoot: string, state: GitState, entries: readonly StatusEntry[]): { own: Map<string, EntryFacts>; ignored: Map<string, EntryFacts> } {
  const own = new Map<string, EntryFacts>();
  const ignored = new Map<string, EntryFacts>();
  for (const entry of entries) {
    const path = projectPath(state, entry.path);
    if (path === undefined) continue;
    if (entry.kind === 'ignored') {
      const facts = lstatFacts(join(projectRoot, path));
      if (facts !== undefined) ignored.set(path, facts);
      continue;
    }
    if (entry.kind === 'changed' && (entry.worktree === '.' || entry.submodule)) continue;
    const facts = lstatFacts(join(projectRoot, path)) ?? MISSING_FACTS;
    if (facts.type === 'folder') continue;
    own.set(path, facts);
  }
  return { own, ignored };
}

/** Whether the project path `path` (an ignored folder's key may end with `/`) is one of `excluded` or under one. */
function isExcluded(excluded: readonly string[], path: string): boolean {
  return excluded.some((folder) => path === folder || path.startsWith(`${folder}/`));
}

/** `listing` with every path at or under an `excluded` folder taken out of its maps (in place; the same object). */
function withoutExcluded<T extends { own: Map<string, EntryFacts>; ignored: Map<string, EntryFacts>; indexChanged?: Map<string, IndexEntry> }>(excluded: readonly string[], listing: T): T {
  if (excluded.length === 0) return listing;
  for (const map of [listing.own, listing.ignored, listing.indexChanged]) {
    if (map === undefined) continue;
    for (const path of map.keys()) if (isExcluded(excluded, path)) map.delete(path);
  }
  return listing;
}

/** The facts of `path` (lstat), or undefined when nothing is there. */
function lstatFacts(path: string): EntryFacts | undefined {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  return stats === undefined ? undefined : factsOf(stats);
}

/**
 * Walk the project: every file (regular files and symlinks, never followed) that no `.gitignore`
 * on the way ignores goes to `own`; ignored files and folders to `ignored` (folders are not
 * entered; their key ends with `/`). The project paths in `excluded` (folders) are neither entered
 * nor reported. Throws `ScanLimitError` once it has seen more than
 * `limits.maxEntries` files and folders or runs past `limits.deadline` (default: the probe's defaults from now).
 */
export function walkProject(
  projectRoot: string,
  limits: ListingLimits = { maxEntries: DEFAULT_MAX_SCAN_ENTRIES, deadline: Date.now() + DEFAULT_MAX_SCAN_MS },
  excluded: readonly string[] = [],
): { own: Map<string, EntryFacts>; ignored: Map<string, EntryFacts> } {
  const own = new Map<string, EntryFacts>();
  const ignored = new Map<string, EntryFacts>();
  let seen = 0;
  const visit = (folder: string, inherited: readonly Rules[]): void => {
    const absoluteFolder = folder === '' ? projectRoot : join(projectRoot, folder);
    let entries: Dirent[];
    try {
      entries = readdirSync(absoluteFolder, { withFileTypes: true });
    } catch {
      return;
    }
    seen += entries.length;
    if (seen > limits.maxEntries || Date.now() > limits.deadline) throw limitError(projectRoot, seen, limits);
    const rules = [...inherited];
    if (entries.some((entry) => entry.name === '.gitignore' && entry.isFile())) {
      try {
        rules.push({ base: folder, rules: ignore().add(readFileSync(join(absoluteFolder, '.gitignore'), 'utf8')) });
      } catch {
        // An unreadable .gitignore adds no rules.
      }
    }
    for (const entry of entries) {
      if (entry.isDirectory() && ALWAYS_SKIPPED.has(entry.name)) continue;
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (excluded.length !== 0 && excluded.includes(path)) continue;
      const directory = entry.isDirectory();
      if (isIgnored(rules, path, directory)) {
        const facts = lstatFacts(join(projectRoot, path));
        if (facts !== undefined) ignored.set(directory ? `${path}/` : path, facts);
        continue;
      }
      if (directory) {
        visit(path, rules);
        continue;
      }
      const facts = lstatFacts(join(projectRoot, path));
      if (facts !== undefined && facts.type !== 'folder') own.set(path, facts);
    }
  };
  visit('', []);
  if (Date.now() > limits.deadline) throw limitError(projectRoot, seen, limits);
  return { own, ignored };
}

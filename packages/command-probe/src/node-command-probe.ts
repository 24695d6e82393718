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
 * Either way `materializeBlobs` writes the blobs of files the command really changed to
 * `{stateDir}/{windowId}.blob-{n}` with one `git cat-file --batch`.
 * Outside a git work tree, `begin` and `end` walk the project folder with `.gitignore` rules
 * (every `.gitignore` on the way, through the `ignore` package; `.git` folders always skipped).
 *
 * Layout of `stateDir` (one folder per session): `{windowId}.tree` or `{windowId}.index`,
 * `{windowId}.blob-{n}` (all removed by `release`), `ignored-folders.json` (see `IGNORED_FOLDERS_FILE`). Nothing is written into the project or its `.git`.
 */
import type { BlobRequest, CommandProbe, EntryFacts, IndexEntry, JsonValue, MaterializedBlob, ProbeBegin, ProbeEnd } from '@fh/core';
import { factsOf, InvalidArgumentError, MISSING_FACTS } from '@fh/core';
import { lstatSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import ignore from 'ignore';
import { parseStatus, readBlobs, runGit, type StatusEntry } from './git.js';
import { isIgnored, type Rules } from './ignore-rules.js';
import { limitError, type ListingLimits } from './tree-listing.js';
import { readTree, scanBegin, scanEnd, unsupportedRepository, writeTree, type GitLocation, type ScanTree } from './git-scan.js';

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
  /** The tree file of the begin. */
  treeFile: string;
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
      const scanned = await scanEnd(projectRoot, saved, this.trees.get(windowId) ?? readTree(saved.treeFile), this.limits());
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

  async materializeBlobs(_projectRoot: string, windowId: string, state: JsonValue, requests: readonly BlobRequest[], maxBytes: number): Promise<Array<MaterializedBlob | undefined>> {
    const saved = state as unknown as GitState;
    const written: Array<MaterializedBlob | undefined> = requests.map(() => undefined);
    await mkdir(this.stateDir, { recursive: true });
    await readBlobs(this.gitBinary, saved.top, requests.map((request) => request.blobId), maxBytes, async (index, bytes) => {
      if (bytes === undefined) return;
      const path = join(this.stateDir, `${windowId}.blob-${index}`);
      const request = requests[index] as BlobRequest;
      await writeFile(path, bytes, { mode: request.mode, flag: 'wx' });
      await chmod(path, request.mode);
      written[index] = { path, size: bytes.length };
    });
    return written;
  }

  async release(_projectRoot: string, windowId: string): Promise<void> {
    this.trees.delete(windowId);
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

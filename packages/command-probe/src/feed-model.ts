/**
 * The change feed's model of a git work tree (issue 12, "command window vs shadow git"): what a
 * full `scanBegin` would say now, kept up to date from the paths a {@link ChangeFeed} cut reports,
 * so that `begin` and `end` re-check only the paths that changed instead of the whole tree.
 *
 * The model is a **base** (the tree of the last full scan, a tree file of `git-scan.ts` named
 * `feed-base-{random}.tree` in the probe's state folder) plus a **delta** (paths whose clean entry
 * changed since: a new clean row, or `null` when the path is no longer clean), the dirty and
 * untracked files (`own`) and the ignored paths. A path is clean when its bytes are a blob git
 * has: the base's index entries (proved by git's stat rule or by hashing, as the scan does), or
 * a file the feed re-checked whose hash names a loose object in `objects/` (so `git add` of a
 * changed file makes it clean again without reading the index), or, after the index changed, the
 * index entry of its path (a packed blob, as `git checkout` writes).
 *
 * On a cut, each path with an event is re-checked: `lstat`, and for a regular file or a symlink
 * its blob hash (events prove something happened, so facts are never trusted alone). A folder
 * that is new is watched and then listed (anything created in it before the watch is found by the
 * listing); a folder that is gone takes every path under it. An ignored folder is watched but not
 * entered (a change directly inside changes its facts, as the full scan reports it). A change to a
 * `.gitignore`, `.gitattributes`, `info/exclude`, git's config, or an index entry appearing inside
 * an ignored folder the feed does not enter makes the model lost: the probe scans in full again.
 *
 * A window begun on the model keeps a snapshot (the delta at its begin, its own and ignored
 * paths) and collects the paths of every later cut; its end compares just those paths. For a
 * crash between begin and end, the begin's probe state (saved in the window record) holds the
 * window's delta ({@link WindowDelta}: the delta rows, the dirty and untracked paths, the ignored
 * and folder lists); a later process without a feed rebuilds the begin's tree from base + delta
 * and ends the window with a full `scanEnd`.
 */
import type { EntryFacts } from '@fh/core';
import { factsOf, MISSING_FACTS } from '@fh/core';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { ChangeFeed } from './change-feed.js';
import { contentOid, readTree, rootRules, rowOid, rowPath, TREE_STRIDE, withGitignore, writeTree, type GitLocation, type ScanBegin, type ScanChange, type ScanTree } from './git-scan.js';
import { oidAt, readIndex } from './git-index.js';
import { isIgnored, type Rules } from './ignore-rules.js';
import { TYPE_FILE, TYPE_FOLDER, TYPE_NAMES, TYPE_OTHER, TYPE_SYMLINK } from './tree-listing.js';

/** A clean entry: its facts (type code of `tree-listing.ts`, size, `st_mode`, mtime and ctime ms, inode), git mode and blob id (hex). */
export interface CleanRow {
  type: number;
  size: number;
  mode: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  gitMode: number;
  oid: string;
}

/** Files larger than this are not hashed by the feed (they stay dirty: fh backs them up itself). */
const MAX_HASH_BYTES = 32 * 1024 * 1024;

/** Version of a window's delta ({@link WindowDelta}). */
const DELTA_VERSION = 1;

/** A base tree: the tree of a full scan, its file, and its rows by path. */
export interface FeedBase {
  tree: ScanTree;
  file: string;
  rows: Map<string, number>;
}

/** The type code of `stats`. */
function typeOf(stats: Stats): number {
  return stats.isSymbolicLink() ? TYPE_SYMLINK : stats.isFile() ? TYPE_FILE : stats.isDirectory() ? TYPE_FOLDER : TYPE_OTHER;
}

/** `lstat` of `path`, or undefined when nothing is there (ENOENT, or a file where a folder was: ENOTDIR). */
function lstatOrNone(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** Row `r` of `tree` as a {@link CleanRow}. */
function baseRow(tree: ScanTree, r: number): CleanRow {
  const at = r * TREE_STRIDE;
  const f = tree.facts;
  return { type: f[at] as number, size: f[at + 1] as number, mode: f[at + 2] as number, mtimeMs: f[at + 3] as number, ctimeMs: f[at + 4] as number, ino: f[at + 5] as number, gitMode: tree.gitModes[r] as number, oid: rowOid(tree, r) };
}

/** The clean entry of `path` in `base` patched by `delta`, or undefined. */
export function cleanAt(base: FeedBase, delta: ReadonlyMap<string, CleanRow | null>, path: string): CleanRow | undefined {
  const patched = delta.get(path);
  if (patched !== undefined) return patched ?? undefined;
  const r = base.rows.get(path);
  return r === undefined ? undefined : baseRow(base.tree, r);
}

/** A base from a full scan's tree: written to a new `feed-base-{random}.tree` in `stateDir`. */
export function makeBase(stateDir: string, tree: ScanTree): FeedBase {
  const file = join(stateDir, `feed-base-${randomBytes(6).toString('hex')}.tree`);
  writeTree(file, tree);
  const rows = new Map<string, number>();
  for (let r = 0; r < tree.count; r += 1) rows.set(rowPath(tree, r), r);
  return { tree, file, rows };
}

/** The fields of a tree beyond its clean rows. */
interface TreeExtras {
  beginMs: number;
  known: string[];
  ignored: string[];
  folders: string[];
}

/**
 * The tree of `base` patched by `delta` (rows of paths in the delta dropped, the delta's clean rows
 * added at the end), with `extras`. The base's begin time is kept: rows added later are then
 * judged racy by a full `scanEnd` and hashed, never trusted on facts alone.
 */
export function patchedTree(base: ScanTree, delta: ReadonlyMap<string, CleanRow | null>, extras: TreeExtras): ScanTree {
  const kept: number[] = [];
  for (let r = 0; r < base.count; r += 1) if (!delta.has(rowPath(base, r))) kept.push(r);
  const added = [...delta].filter((entry): entry is [string, CleanRow] => entry[1] !== null);
  const count = kept.length + added.length;
  const oidBytes = base.oidBytes;
  const facts = new Float64Array(count * TREE_STRIDE);
  const gitModes = new Uint32Array(count);
  const oids = Buffer.alloc(count * oidBytes);
  const paths: string[] = [];
  const gitignoreRows: number[] = [];
  let row = 0;
  for (const r of kept) {
    for (let field = 0; field < TREE_STRIDE; field += 1) facts[row * TREE_STRIDE + field] = base.facts[r * TREE_STRIDE + field] as number;
    gitModes[row] = base.gitModes[r] as number;
    base.oids.copy(oids, row * oidBytes, r * oidBytes, (r + 1) * oidBytes);
    paths.push(rowPath(base, r));
    row += 1;
  }
  for (const [path, clean] of added) {
    facts.set([clean.type, clean.size, clean.mode, clean.mtimeMs, clean.ctimeMs, clean.ino], row * TREE_STRIDE);
    gitModes[row] = clean.gitMode;
    Buffer.from(clean.oid, 'hex').copy(oids, row * oidBytes);
    paths.push(path);
    row += 1;
  }
  const pathStarts = new Uint32Array(count + 1);
  let offset = 0;
  paths.forEach((path, index) => {
    if (path === '.gitignore' || path.endsWith('/.gitignore')) gitignoreRows.push(index);
    offset += Buffer.byteLength(path) + 1;
    pathStarts[index + 1] = offset;
  });
  return {
    beginMs: extras.beginMs,
    count,
    pathBytes: Buffer.from(count === 0 ? '' : `${paths.join('\0')}\0`),
    pathStarts,
    facts,
    gitModes,
    oids,
    oidBytes,
    gitignoreRows,
    known: extras.known,
    ignored: extras.ignored,
    folders: extras.folders,
  };
}

/**
 * A feed window's delta (version 1), JSON kept in the window's probe state, so inside the window
 * record itself: one durable write at the begin, not a file of its own and then the record.
 */
export interface WindowDelta {
  version: number;
  /** Paths whose base row does not hold at the begin. */
  dropped: string[];
  /** Clean rows of the begin that are not the base's: path, type code, size, mode, mtime ms, ctime ms, inode, git mode, blob id. */
  added: Array<[string, number, number, number, number, number, number, number, string]>;
  known: string[];
  ignored: string[];
  folders: string[];
}

/** A window's delta (see the top of this file) for its probe state. */
export function windowDelta(delta: ReadonlyMap<string, CleanRow | null>, known: Iterable<string>, ignored: Iterable<string>, folders: Iterable<string>): WindowDelta {
  const content: WindowDelta = { version: DELTA_VERSION, dropped: [], added: [], known: [...known], ignored: [...ignored], folders: [...folders] };
  for (const [path, clean] of delta) {
    if (clean === null) content.dropped.push(path);
    else content.added.push([path, clean.type, clean.size, clean.mode, clean.mtimeMs, clean.ctimeMs, clean.ino, clean.gitMode, clean.oid]);
  }
  return content;
}

/**
 * The begin's tree of a window begun on a feed: the base tree file patched by the window's delta
 * (`delta`, from its probe state; or, for a window an earlier fh begun, the JSON of its
 * `{windowId}.delta` file `deltaFile`). Throws naming what is not one fh wrote.
 */
export function deltaTree(treeFile: string, delta: { inline: unknown } | { deltaFile: string }): ScanTree {
  const base = readTree(treeFile);
  const what = 'inline' in delta ? "command window record's delta" : `command window delta file ${delta.deltaFile}`;
  let content: WindowDelta;
  try {
    content = ('inline' in delta ? delta.inline : JSON.parse(readFileSync(delta.deltaFile, 'utf8'))) as WindowDelta;
    if (content?.version !== DELTA_VERSION || !Array.isArray(content.dropped) || !Array.isArray(content.added)) throw new Error(`version ${String(content?.version)}`);
  } catch (error) {
    throw new Error(`${what} is not one fh wrote (${error instanceof Error ? error.message : String(error)}): remove the window's record to drop it, or begin a new one`);
  }
  const rows = new Map<string, CleanRow | null>();
  for (const path of content.dropped) rows.set(path, null);
  for (const [path, type, size, mode, mtimeMs, ctimeMs, ino, gitMode, oid] of content.added) rows.set(path, { type, size, mode, mtimeMs, ctimeMs, ino, gitMode, oid });
  return patchedTree(base, rows, { beginMs: base.beginMs, known: content.known, ignored: content.ignored, folders: content.folders });
}

/** What a window begun on the model remembers for its end. */
export interface FeedWindow {
  base: FeedBase;
  delta: Map<string, CleanRow | null>;
  known: Set<string>;
  ignored: Set<string>;
  /** Paths with an event (re-checked) since the begin. */
  pending: Set<string>;
  /** Set when the model was lost while the window was open: its end scans in full. */
  stale: boolean;
  /** Files written for the window besides its delta file (blobs), removed with it. */
  files: string[];
  extras: TreeExtras;
}

/** See the top of this file. */
export class FeedModel {
  delta = new Map<string, CleanRow | null>();
  readonly own: Map<string, EntryFacts>;
  /** Blob ids of dirty or untracked files the feed hashed (for a later `git add` to make them clean). */
  readonly ownOid = new Map<string, string>();
  readonly ignored: Map<string, EntryFacts>;
  readonly folders: Set<string>;
  /** Set once the model no longer follows the tree: why. */
  lost: string | undefined;
  private readonly rulesMemo = new Map<string, readonly Rules[]>();
  private readonly ignoredFolderMemo = new Map<string, boolean>();
  private readonly rootSlash: string;
  private readonly gitSlash: string;

  constructor(
    readonly projectRoot: string,
    readonly location: GitLocation,
    private readonly excluded: readonly string[],
    public base: FeedBase,
    scanned: ScanBegin,
    /** Project folders watched (`''` is the project folder), with their inode: every folder of the tree but ignored ones' insides. */
    readonly watched: Map<string, number>,
    private readonly feed: ChangeFeed,
    /** When the base's full scan began (ms since the epoch). */
    readonly scannedAt: number,
  ) {
    this.own = new Map(scanned.own);
    this.ignored = new Map(scanned.ignored);
    this.folders = new Set(scanned.tree.folders);
    this.rootSlash = projectRoot.endsWith('/') ? projectRoot : `${projectRoot}/`;
    this.gitSlash = `${location.gitDir}/`;
  }

  /** The model's clean entry of `path` now. */
  clean(path: string): CleanRow | undefined {
    return cleanAt(this.base, this.delta, path);
  }

  /** A snapshot for a window beginning now. */
  snapshot(): FeedWindow {
    return {
      base: this.base,
      delta: new Map(this.delta),
      known: new Set(this.own.keys()),
      ignored: new Set(this.ignored.keys()),
      pending: new Set(),
      stale: false,
      files: [],
      extras: { beginMs: this.base.tree.beginMs, known: [...this.own.keys()], ignored: [...this.ignored.keys()], folders: [...this.folders] },
    };
  }

  /** The rules in effect inside project folder `folder` (memoized; the model is lost when a `.gitignore` changes). */
  private rulesOf(folder: string): readonly Rules[] {
    const memo = this.rulesMemo.get(folder);
    if (memo !== undefined) return memo;
    const slash = folder.lastIndexOf('/');
    const rules = folder === '' ? rootRules(this.location) : withGitignore(this.rulesOf(slash === -1 ? '' : folder.slice(0, slash)), this.projectRoot, this.location, folder);
    this.rulesMemo.set(folder, rules);
    return rules;
  }

  /** Whether project folder `folder` is ignored (itself or a folder above it). */
  private ignoredFolder(folder: string): boolean {
    if (folder === '') return false;
    const memo = this.ignoredFolderMemo.get(folder);
    if (memo !== undefined) return memo;
    const slash = folder.lastIndexOf('/');
    const parent = slash === -1 ? '' : folder.slice(0, slash);
    const ignored = this.ignoredFolder(parent) || isIgnored(this.rulesOf(parent), this.location.prefix + folder, true);
    this.ignoredFolderMemo.set(folder, ignored);
    return ignored;
  }

  /** Whether a new file at project path `path` is ignored. */
  private ignoredFile(path: string): boolean {
    const slash = path.lastIndexOf('/');
    const parent = slash === -1 ? '' : path.slice(0, slash);
    return this.ignoredFolder(parent) || isIgnored(this.rulesOf(parent), this.location.prefix + path, false);
  }

  /** The ignored folder (key ending `/`) the feed watches without entering that holds `path`, if any. */
  private prunedAbove(path: string): string | undefined {
    for (let slash = path.lastIndexOf('/'); slash !== -1; slash = path.lastIndexOf('/', slash - 1)) {
      const key = `${path.slice(0, slash)}/`;
      if (this.ignored.has(key)) return key;
    }
    return undefined;
  }

  /** Whether `path` is at or under an excluded folder or a `.git` folder. */
  private skipped(path: string): boolean {
    if (path === '.git' || path.startsWith('.git/') || path.includes('/.git/') || path.endsWith('/.git')) return true;
    return this.excluded.some((folder) => path === folder || path.startsWith(`${folder}/`));
  }

  /**
   * Take a cut: re-check every path with an event and bring the model up to date. Returns the
   * project paths re-checked (including every path under a folder that is gone, and the listing
   * of new folders). Sets {@link lost} (and returns what it had) when the model cannot follow.
   */
  async applyCut(): Promise<Set<string>> {
    const touched = new Set<string>();
    const cut = await this.feed.cut();
    if (cut.lost !== undefined) {
      this.lost ??= cut.lost;
      return touched;
    }
    let indexChanged = false;
    const paths: string[] = [];
    const commonSlash = `${this.location.commonDir}/`;
    const rulesFiles = new Set([
      join(this.location.gitDir, 'config'),
      join(this.location.gitDir, 'config.worktree'),
      join(this.location.commonDir, 'config'),
      join(this.location.commonDir, 'info'),
      join(this.location.commonDir, 'info', 'exclude'),
      join(this.location.commonDir, 'info', 'attributes'),
      join(this.location.commonDir, 'info', 'sparse-checkout'),
    ]);
    for (const absolute of cut.paths) {
      if (absolute.startsWith(this.gitSlash) || absolute.startsWith(commonSlash)) {
        if (absolute === join(this.location.gitDir, 'index')) indexChanged = true;
        else if (rulesFiles.has(absolute)) this.lost ??= `${absolute} changed (git's config or ignore rules)`;
        continue;
      }
      if (!absolute.startsWith(this.rootSlash)) {
        if (absolute.endsWith('/.gitignore')) this.lost ??= `${absolute} changed (ignore rules above the project folder)`;
        continue;
      }
      const path = absolute.slice(this.rootSlash.length);
      if (path === '' || this.skipped(path)) continue;
      const name = path.slice(path.lastIndexOf('/') + 1);
      if (name === '.gitignore' || name === '.gitattributes') {
        this.lost ??= `${path} changed (ignore rules or attributes)`;
        continue;
      }
      paths.push(path);
    }
    if (this.lost !== undefined) return touched;
    paths.sort();
    try {
      const newFolders: string[] = [];
      for (const path of paths) this.recheck(path, touched, newFolders);
      await this.enterNewFolders(newFolders, touched);
      if (indexChanged && this.lost === undefined) this.afterIndexChange();
    } catch (error) {
      // A path that cannot be read (EACCES, EIO): the full scan reports it as it does without a feed.
      this.lost ??= `a re-check failed (${error instanceof Error ? error.message : String(error)})`;
    }
    return touched;
  }

  /** Remove every model path at or under folder `folder` (it is gone or no longer a folder), adding them to `touched`. */
  private dropFolder(folder: string, touched: Set<string>): void {
    const inside = `${folder}/`;
    for (const path of this.base.rows.keys()) if (path.startsWith(inside) && !this.delta.has(path)) this.setClean(path, undefined, touched);
    for (const [path, clean] of this.delta) if (clean !== null && path.startsWith(inside)) this.setClean(path, undefined, touched);
    for (const path of this.own.keys()) {
      if (!path.startsWith(inside)) continue;
      touched.add(path);
      this.own.delete(path);
      this.ownOid.delete(path);
    }
    for (const key of this.ignored.keys()) {
      if (key.startsWith(inside) || key === inside) {
        touched.add(key.endsWith('/') ? key.slice(0, -1) : key);
        this.ignored.delete(key);
      }
    }
    for (const watched of this.watched.keys()) {
      if (watched === folder || watched.startsWith(inside)) this.watched.delete(watched);
    }
    this.feed.unwatch([this.rootSlash + folder]);
  }

  /** Set (or, `row` undefined, remove) the clean entry of `path`; a removed tracked file stays known as missing (as the full scan lists it). */
  private setClean(path: string, row: CleanRow | undefined, touched: Set<string>): void {
    touched.add(path);
    const wasClean = this.clean(path) !== undefined;
    if (row === undefined) {
      if (this.base.rows.has(path)) this.delta.set(path, null);
      else this.delta.delete(path);
      if (wasClean) {
        this.own.set(path, MISSING_FACTS);
        this.ownOid.delete(path);
      }
      return;
    }
    this.delta.set(path, row);
    this.own.delete(path);
    this.ownOid.delete(path);
  }

  /** A clean row from `stats` and blob id `oid`. */
  private static row(stats: Stats, type: number, oid: string): CleanRow {
    const facts = factsOf(stats);
    return { type, size: facts.size, mode: facts.mode, mtimeMs: facts.mtimeMs, ctimeMs: facts.ctimeMs, ino: facts.ino, gitMode: type === TYPE_SYMLINK ? 0o120000 : (facts.mode & 0o100) !== 0 ? 0o100755 : 0o100644, oid };
  }

  /** Whether git holds blob `oid` as a loose object. */
  private hasObject(oid: string): boolean {
    return existsSync(join(this.location.commonDir, 'objects', oid.slice(0, 2), oid.slice(2)));
  }

  /** Re-check one path with an event (see the top of this file). */
  private recheck(path: string, touched: Set<string>, newFolders: string[]): void {
    const pruned = this.prunedAbove(path);
    if (pruned !== undefined) {
      // An event directly inside an ignored folder the feed does not enter: its facts.
      const folder = pruned.slice(0, -1);
      const stats = lstatOrNone(this.rootSlash + folder);
      if (stats?.isDirectory() === true) this.ignored.set(pruned, factsOf(stats));
      touched.add(folder);
      return;
    }
    const absolute = this.rootSlash + path;
    const stats = lstatOrNone(absolute);
    const type = stats === undefined ? undefined : typeOf(stats);
    const wasFolder = this.watched.has(path) || this.ignored.has(`${path}/`);
    const watchedIno = this.watched.get(path);
    if (wasFolder && (type !== TYPE_FOLDER || (watchedIno !== undefined && watchedIno !== (stats as Stats).ino))) this.dropFolder(path, touched);
    touched.add(path);
    if (stats === undefined) {
      if (this.clean(path) !== undefined) this.setClean(path, undefined, touched);
      else if (this.own.get(path)?.type !== 'missing') {
        this.own.delete(path);
        this.ownOid.delete(path);
      }
      this.ignored.delete(path);
      return;
    }
    if (type === TYPE_FOLDER) {
      if (this.clean(path) !== undefined) this.setClean(path, undefined, touched);
      if (this.own.has(path)) {
        this.own.delete(path);
        this.ownOid.delete(path);
      }
      this.ignored.delete(path);
      const key = `${path}/`;
      if (this.ignored.has(key)) this.ignored.set(key, factsOf(stats));
      else if (!this.watched.has(path)) newFolders.push(path);
      return;
    }
    this.recheckFile(path, stats, type as number, touched);
  }

  /** Re-check a file or symlink (or other) at `path` with `stats`. */
  private recheckFile(path: string, stats: Stats, type: number, touched: Set<string>): void {
    touched.add(path);
    const previous = this.clean(path);
    const known = previous !== undefined || this.own.has(path);
    if (!known && (this.ignored.has(path) || this.ignoredFile(path))) {
      this.ignored.set(path, factsOf(stats));
      return;
    }
    const oid = (type === TYPE_FILE || type === TYPE_SYMLINK) && stats.size <= MAX_HASH_BYTES ? contentOid(this.rootSlash + path, type, stats.size, this.base.tree.oidBytes) : undefined;
    if (oid !== undefined && ((previous !== undefined && previous.type === type && previous.oid === oid) || this.hasObject(oid))) {
      this.setClean(path, FeedModel.row(stats, type, oid), touched);
      return;
    }
    if (previous !== undefined) {
      if (this.base.rows.has(path)) this.delta.set(path, null);
      else this.delta.delete(path);
    }
    this.own.set(path, factsOf(stats));
    if (oid === undefined) this.ownOid.delete(path);
    else this.ownOid.set(path, oid);
  }

  /**
   * Watch each new folder, then list it (so nothing created in it is missed), level by level:
   * its files are re-checked as new, its folders entered in turn. An ignored folder is watched
   * but not entered; a nested repository is neither.
   */
  private async enterNewFolders(folders: string[], touched: Set<string>): Promise<void> {
    let level = folders.filter((folder, index) => index === 0 || !folders.some((other) => folder.startsWith(`${other}/`)));
    while (level.length > 0 && this.lost === undefined) {
      const watch: string[] = [];
      const enter: string[] = [];
      for (const folder of level) {
        const stats = lstatOrNone(this.rootSlash + folder);
        if (stats?.isDirectory() !== true) continue;
        if (existsSync(join(this.rootSlash + folder, '.git'))) continue;
        touched.add(folder);
        if (!this.folders.has(folder) && this.ignoredFolder(folder)) {
          this.ignored.set(`${folder}/`, factsOf(stats));
          watch.push(folder);
          continue;
        }
        watch.push(folder);
        enter.push(folder);
      }
      const failed = await this.feed.watch(watch.map((folder) => this.rootSlash + folder));
      if (failed.length > 0) {
        this.lost ??= `the watch of ${failed[0]?.folder} failed (${failed[0]?.code})`;
        return;
      }
      for (const folder of watch) {
        const stats = lstatOrNone(this.rootSlash + folder);
        if (stats !== undefined) this.watched.set(folder, stats.ino);
      }
      const next: string[] = [];
      for (const folder of enter) {
        let names;
        try {
          names = readdirSync(this.rootSlash + folder, { withFileTypes: true });
        } catch {
          continue;
        }
        for (const entry of names) {
          const path = `${folder}/${entry.name}`;
          if (this.skipped(path)) continue;
          if (entry.name === '.gitignore' || entry.name === '.gitattributes') {
            this.lost ??= `${path} appeared (ignore rules or attributes)`;
            return;
          }
          if (entry.isDirectory()) {
            next.push(path);
            continue;
          }
          const stats = lstatOrNone(this.rootSlash + path);
          if (stats !== undefined && !stats.isDirectory()) this.recheckFile(path, stats, typeOf(stats), touched);
        }
      }
      level = next;
    }
  }

  /**
   * The index changed (`git add`, `commit`, `reset`, `checkout`): dirty files whose bytes git now
   * holds become clean, and an index entry inside an ignored folder the feed does not enter makes
   * the model lost (its changes would not be seen).
   */
  private afterIndexChange(): void {
    const prunedFolders = [...this.ignored.keys()].filter((key) => key.endsWith('/'));
    if (prunedFolders.length > 0) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(join(this.location.gitDir, 'index'));
      } catch {
        bytes = Buffer.alloc(0);
      }
      const index = readIndex(bytes, this.base.tree.oidBytes);
      if ('unsupported' in index) {
        this.lost ??= `the index changed and cannot be read (${index.unsupported})`;
        return;
      }
      const prefixes = prunedFolders.map((key) => this.location.prefix + key);
      if (index.paths.some((path) => prefixes.some((prefix) => path.startsWith(prefix)))) {
        this.lost ??= 'the index now tracks a file inside an ignored folder the feed does not enter';
        return;
      }
    }
    /** Dirty files whose blob is not loose: looked up in the index (packed blobs, as a checkout writes). */
    const notLoose = new Map<string, string>();
    for (const [path, facts] of this.own) {
      if (facts.type !== 'file' && facts.type !== 'symlink') continue;
      let oid = this.ownOid.get(path);
      if (oid === undefined && facts.size <= MAX_HASH_BYTES) {
        oid = contentOid(this.rootSlash + path, facts.type === 'file' ? TYPE_FILE : TYPE_SYMLINK, facts.size, this.base.tree.oidBytes);
        if (oid !== undefined) this.ownOid.set(path, oid);
      }
      if (oid === undefined) continue;
      if (this.hasObject(oid)) this.promote(path, facts, oid);
      else notLoose.set(this.location.prefix + path, oid);
    }
    if (notLoose.size === 0) return;
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(this.location.gitDir, 'index'));
    } catch {
      return;
    }
    const index = readIndex(bytes, this.base.tree.oidBytes);
    if ('unsupported' in index) return;
    for (let k = 0; k < index.count; k += 1) {
      const topPath = index.paths[k] as string;
      const oid = notLoose.get(topPath);
      if (oid === undefined || oidAt(index, k) !== oid) continue;
      const path = topPath.slice(this.location.prefix.length);
      const facts = this.own.get(path);
      if (facts !== undefined) this.promote(path, facts, oid);
    }
  }

  /** Make dirty file `path` (facts `facts` when it was hashed to `oid`) clean, while it is still exactly that file (facts equal). */
  private promote(path: string, facts: EntryFacts, oid: string): void {
    const stats = lstatOrNone(this.rootSlash + path);
    if (stats === undefined) return;
    const now = factsOf(stats);
    if (now.mtimeMs !== facts.mtimeMs || now.ctimeMs !== facts.ctimeMs || now.size !== facts.size || now.ino !== facts.ino || now.mode !== facts.mode) return;
    this.delta.set(path, FeedModel.row(stats, typeOf(stats), oid));
    this.own.delete(path);
    this.ownOid.delete(path);
  }

  /**
   * A window's end from the model (after a cut): the clean entries of its begin that changed,
   * the files new since its begin (not clean, dirty, untracked or ignored then), and the ignored
   * paths now.
   */
  endOf(window: FeedWindow): { own: Map<string, EntryFacts>; ignored: Map<string, EntryFacts>; changed: Map<string, ScanChange> } {
    const changed = new Map<string, ScanChange>();
    const own = new Map<string, EntryFacts>();
    for (const path of window.pending) {
      const before = cleanAt(window.base, window.delta, path);
      const nowClean = this.clean(path);
      const nowOwn = this.own.get(path);
      const nowFacts: EntryFacts | undefined = nowClean !== undefined ? rowFacts(nowClean) : nowOwn !== undefined && nowOwn.type !== 'missing' ? nowOwn : undefined;
      if (before !== undefined) {
        if (nowFacts === undefined || nowFacts.type === 'folder') {
          changed.set(path, { blobId: before.oid, gitMode: before.gitMode, mode: before.mode & 0o7777, contentChanged: true });
          continue;
        }
        const sameType = TYPE_NAMES[before.type] === nowFacts.type;
        const nowOid = nowClean?.oid ?? this.ownOid.get(path);
        const contentSame = sameType && nowOid === before.oid;
        const modeChanged = !sameType || (nowFacts.mode & 0o7777) !== (before.mode & 0o7777);
        if (contentSame && !modeChanged) continue;
        changed.set(path, { blobId: before.oid, gitMode: before.gitMode, mode: before.mode & 0o7777, contentChanged: !contentSame });
        continue;
      }
      if (window.known.has(path) || window.ignored.has(path) || nowFacts === undefined || nowFacts.type === 'folder') continue;
      own.set(path, nowFacts);
    }
    return { own, ignored: new Map(this.ignored), changed };
  }
}

/** The facts of a clean row. */
function rowFacts(row: CleanRow): EntryFacts {
  return { type: TYPE_NAMES[row.type] as EntryFacts['type'], size: row.size, mode: row.mode, mtimeMs: row.mtimeMs, ctimeMs: row.ctimeMs, ino: row.ino };
}

/**
 * Watch the project's folders before a full scan (so any change after a folder's listing is an
 * event): the project folder, then level by level each folder found, except `.git`, nested
 * repositories, excluded folders, and the insides of ignored folders that hold no index entry
 * (`trackedFolders`: the folders holding one). Also watched: the git folder (`index`, `config`),
 * `info/` of the common git folder, and the folders between the work tree's top and the project
 * folder (their `.gitignore`). Returns the project folders watched, or the first failure.
 */
export async function watchTree(feed: ChangeFeed, projectRoot: string, location: GitLocation, excluded: readonly string[], trackedFolders: ReadonlySet<string>): Promise<{ watched: Map<string, number> } | { failed: string }> {
  const rootSlash = projectRoot.endsWith('/') ? projectRoot : `${projectRoot}/`;
  const extra = [location.gitDir];
  if (existsSync(join(location.commonDir, 'info'))) extra.push(join(location.commonDir, 'info'));
  if (location.commonDir !== location.gitDir) extra.push(location.commonDir);
  const parts = location.prefix === '' ? [] : location.prefix.slice(0, -1).split('/');
  for (let depth = 0; depth < parts.length; depth += 1) extra.push(join(location.top, ...parts.slice(0, depth)));
  const failedExtra = await feed.watch(extra);
  if (failedExtra.length > 0) return { failed: `the watch of ${failedExtra[0]?.folder} failed (${failedExtra[0]?.code})` };
  const watched = new Map<string, number>();
  const rulesMemo = new Map<string, readonly Rules[]>();
  const rulesOf = (folder: string): readonly Rules[] => {
    const memo = rulesMemo.get(folder);
    if (memo !== undefined) return memo;
    const slash = folder.lastIndexOf('/');
    const rules = folder === '' ? rootRules(location) : withGitignore(rulesOf(slash === -1 ? '' : folder.slice(0, slash)), projectRoot, location, folder);
    rulesMemo.set(folder, rules);
    return rules;
  };
  const isExcluded = (path: string): boolean => excluded.some((folder) => path === folder || path.startsWith(`${folder}/`));
  let level: Array<{ path: string; enter: boolean }> = [{ path: '', enter: true }];
  while (level.length > 0) {
    const failed = await feed.watch(level.map(({ path }) => (path === '' ? projectRoot : rootSlash + path)));
    if (failed.length > 0) return { failed: `the watch of ${failed[0]?.folder} failed (${failed[0]?.code})` };
    const next: Array<{ path: string; enter: boolean }> = [];
    for (const { path: folder, enter } of level) {
      const stats = lstatOrNone(folder === '' ? projectRoot : rootSlash + folder);
      if (stats !== undefined) watched.set(folder, stats.ino);
      if (!enter) continue;
      let entries;
      try {
        entries = readdirSync(folder === '' ? projectRoot : rootSlash + folder, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (!entry.isDirectory() || entry.name === '.git') continue;
        const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
        if (isExcluded(path) || existsSync(join(rootSlash + path, '.git'))) continue;
        const ignored = !trackedFolders.has(path) && isIgnored(rulesOf(folder), location.prefix + path, true);
        next.push({ path, enter: !ignored });
      }
    }
    level = next;
  }
  return { watched };
}

/** The project folders holding an index entry (and every folder above them), read from the index file; empty when it cannot be read. */
export function indexFolders(location: GitLocation, oidBytes: number): Set<string> {
  const folders = new Set<string>();
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(location.gitDir, 'index'));
  } catch {
    return folders;
  }
  const index = readIndex(bytes, oidBytes);
  if ('unsupported' in index) return folders;
  for (const topPath of index.paths) {
    if (!topPath.startsWith(location.prefix)) continue;
    const path = topPath.slice(location.prefix.length);
    for (let slash = path.lastIndexOf('/'); slash !== -1; slash = path.lastIndexOf('/', slash - 1)) {
      const folder = path.slice(0, slash);
      if (folders.has(folder)) break;
      folders.add(folder);
    }
  }
  return folders;
}

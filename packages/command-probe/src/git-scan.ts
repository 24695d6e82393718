/**
 * The command window's scan of a git work tree (issue 12): no `git` is started for `begin` or
 * `end`; `git cat-file --batch` runs later only for the blobs of files the command really changed.
 *
 * `scanBegin`:
 * - reads the index file (`git-index.ts`, read-only) and lists the project with the `lstat` of
 *   every file and folder (`tree-listing.ts`: one GNU `find` run, else in-process). An entry is
 *   clean when its stat data equals the index's (mtime and ctime to the nanosecond, size, inode,
 *   uid, gid, type and executable bit) and the index was written in a later second than the
 *   file's mtime and ctime; a racy entry (modified within the same second the index was written,
 *   or later) and one whose stat differs are hashed (`blob <size>\0…`) and are clean only when the
 *   hash equals the index's object id. Everything else is dirty;
 * - sorts the files the index does not have into untracked and ignored with the `.gitignore`
 *   rules (every `.gitignore` from the top of the work tree down, `.git/info/exclude`, the global
 *   excludes file); folders ignored as a whole are not entered (and are pruned from later
 *   listings of the session while they stay ignored);
 * - keeps a tree file: every clean entry's object id, git mode and `lstat` facts (size, full
 *   mode, mtime, ctime, inode).
 * `scanEnd` lists the project again against that tree file: a clean entry whose facts are
 * unchanged (and were not racy at begin) is unchanged; one whose facts changed is hashed, and it
 * changed when its bytes or its permission bits (any of the 0o7777, not only the executable bit)
 * differ; a file not listed at begin is new. Whatever the command did to `.git` (checkout, stash,
 * reset, commit) does not matter: the end compares against what the begin saw.
 *
 * Repositories whose work-tree bytes are not the blob's bytes (attributes, `core.autocrlf`), or
 * whose index this reader does not handle, are reported unsupported, and the probe uses
 * `git status` instead.
 */
import type { EntryFacts } from '@fh/core';
import { MISSING_FACTS } from '@fh/core';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, lstatSync, openSync, readFileSync, readlinkSync, readSync, type Stats } from 'node:fs';
import { writeFileDurably } from './durable-file.js';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import ignore from 'ignore';
import { I_CTIME_NSEC, I_CTIME_SEC, I_GID, I_INO, I_MODE, I_MTIME_NSEC, I_MTIME_SEC, I_SIZE, I_UID, indexField, oidAt, readIndex, type IndexEntries } from './git-index.js';
import {
  Builder,
  factsAt,
  TYPE_NAMES,
  fields,
  fieldsCtimeMs,
  fieldsMtimeMs,
  listInto,
  type FindSink,
  N_CTIME_MS,
  N_INO,
  N_MODE,
  N_MTIME_MS,
  N_SIZE,
  STRIDE,
  TYPE_FILE,
  TYPE_FOLDER,
  TYPE_SYMLINK,
  type ListingLimits,
  type TreeListing,
} from './tree-listing.js';
import { isIgnored, type Rules } from './ignore-rules.js';

/** Where a work tree's git files are. */
export interface GitLocation {
  /** The work tree's top folder. */
  top: string;
  /** The project folder relative to `top`, `/` separators, trailing `/` (empty at the top). */
  prefix: string;
  /** The git folder of this work tree (holds `index`). */
  gitDir: string;
  /** The common git folder (holds `config`, `info/`, objects); `gitDir` unless a linked worktree. */
  commonDir: string;
}

/** Numbers per clean entry in {@link ScanTree.facts}: type code, size, mode, mtime ms, ctime ms, inode. */
export const TREE_STRIDE = 6;

/**
 * What `scanBegin` keeps for `scanEnd`: the clean entries as flat arrays, in the order the
 * begin's listing gave them (so the end's listing, in the same order while folders are
 * unchanged, is matched row by row without building a string per file). Row `r` has its path
 * in `pathBytes[pathStarts[r], pathStarts[r + 1] - 1)` (UTF-8; rows are NUL-separated), facts
 * `facts[r * 6 …]` (type code of `tree-listing.ts`, size, `st_mode`, mtime and ctime in ms,
 * inode), git mode `gitModes[r]` and object id `oids[r * oidBytes …]`.
 */
export interface ScanTree {
  /** When the begin's `lstat`s started (ms since the epoch). */
  beginMs: number;
  count: number;
  pathBytes: Buffer;
  pathStarts: Uint32Array;
  facts: Float64Array;
  gitModes: Uint32Array;
  oids: Buffer;
  oidBytes: number;
  /** Rows that are `.gitignore` files. */
  gitignoreRows: number[];
  /** Project paths of the begin's dirty tracked files and untracked files. */
  known: string[];
  /** The begin's ignored keys (folders ignored whole end with `/`). */
  ignored: string[];
  /** Folders holding an index entry or an untracked file at begin: never ignored as a whole at the end. */
  folders: string[];
}

/** The project path of row `r`. */
export function rowPath(tree: ScanTree, r: number): string {
  return tree.pathBytes.toString('utf8', tree.pathStarts[r] as number, (tree.pathStarts[r + 1] as number) - 1);
}

/** The object id of row `r`, hex. */
export function rowOid(tree: ScanTree, r: number): string {
  return tree.oids.toString('hex', r * tree.oidBytes, (r + 1) * tree.oidBytes);
}

/** The begin's listing. */
export interface ScanBegin {
  own: Map<string, EntryFacts>;
  ignored: Map<string, EntryFacts>;
  tree: ScanTree;
}

/** A changed clean entry: its before-state. */
export interface ScanChange {
  blobId: string;
  gitMode: number;
  /** Permission bits (`& 0o7777`) the file had at begin. */
  mode: number;
  /** False when only the mode changed (the bytes equal the blob). */
  contentChanged: boolean;
}

/** Facts older than this before the begin are not racy at the end (ms). */
const RACY_MARGIN_MS = 1000;

/** Files larger than this are hashed in chunks of it. */
const HASH_CHUNK = 1024 * 1024;

/**
 * Why this repository cannot be scanned in-process (the work tree's bytes may not be the blobs'
 * bytes, or git would read the work tree otherwise), or undefined when it can. Reads the
 * repository's and the user's git config as text.
 */
export function unsupportedRepository(location: GitLocation): string | undefined {
  const configs = [join(location.commonDir, 'config'), join(location.gitDir, 'config.worktree'), ...globalConfigFiles()];
  for (const file of configs) {
    const text = readText(file);
    if (text === undefined) continue;
    const match = /^\s*(autocrlf|eol|safecrlf|filemode\s*=\s*false|ignorecase\s*=\s*true|symlinks\s*=\s*false|sparsecheckout|fsmonitor|attributesfile|checkstat|worktreeconfig|precomposeunicode|splitindex|untrackedcache|preloadindex\s*=\s*false)\b/im.exec(text);
    if (match !== null) return `git config ${file} sets ${(match[1] as string).split(/\s/)[0]}`;
  }
  if (existsSync(join(location.commonDir, 'info', 'attributes'))) return 'the repository has info/attributes';
  if (existsSync(join(location.commonDir, 'info', 'sparse-checkout'))) return 'the repository has a sparse checkout';
  return undefined;
}

/** Add every folder above `path` (not `path` itself) to `folders`, stopping at one already there. */
function addFoldersAbove(path: string, folders: Set<string>): void {
  for (let slash = path.lastIndexOf('/'); slash !== -1; slash = path.lastIndexOf('/', slash - 1)) {
    const above = path.slice(0, slash);
    if (folders.has(above)) return;
    folders.add(above);
  }
}

/**
 * List the project before a command (see the top of this file), or `{ unsupported }` when the
 * index or the tree holds something this scan does not handle (a submodule, `.gitattributes`).
 * `prune`: folders believed ignored (from earlier windows) that need not be entered; one that is
 * no longer ignored is listed after all. Throws `ScanLimitError` past `limits`.
 */
export async function scanBegin(projectRoot: string, location: GitLocation, prune: ReadonlySet<string>, limits: ListingLimits): Promise<ScanBegin | { unsupported: string }> {
  const oidBytes = /^\s*objectformat\s*=\s*sha256\b/im.test(readText(join(location.commonDir, 'config')) ?? '') ? 32 : 20;
  const indexFile = join(location.gitDir, 'index');
  const indexStats: Stats | undefined = lstatSync(indexFile, { throwIfNoEntry: false });
  const beginMs = Date.now();
  // find starts listing the tree; the index is read and parsed here before its first output is
  // taken (the callbacks wait for this synchronous code), and each entry is then met against
  // the index as it streams in.
  const context: BeginContext = { index: undefined, inside: undefined, indexSec: indexStats === undefined ? 0 : Math.floor(indexStats.mtimeMs / 1000) };
  const first = listInto(projectRoot, prune, limits, () => new BeginMatcher(context));
  first.catch(() => undefined);
  let indexBytes: Buffer;
  try {
    indexBytes = readFileSync(indexFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    indexBytes = Buffer.alloc(0);
  }
  const parsed = readIndex(indexBytes, oidBytes);
  const inside = 'unsupported' in parsed ? parsed : projectEntries(parsed, location.prefix);
  if ('unsupported' in inside) {
    context.unsupported = true;
    await first.catch(() => undefined);
    return inside;
  }
  context.index = parsed as IndexEntries;
  context.inside = inside;
  const finish = (matcher: BeginMatcher, keepPruned: boolean): ScanBegin | undefined => finishBegin(projectRoot, location, matcher, beginMs, keepPruned);
  let matcher = await first;
  if ([...prune].some((folder) => inside.folders.has(folder))) matcher = await listInto(projectRoot, new Set([...prune].filter((folder) => !inside.folders.has(folder))), limits, () => new BeginMatcher(context));
  return finish(matcher, false) ?? (finish(await listInto(projectRoot, new Set(), limits, () => new BeginMatcher(context)), true) as ScanBegin);
}

/** The index entries inside the project folder: their numbers, project paths, and the folders above them. */
interface ProjectEntries {
  entries: number[];
  paths: string[];
  /** Position in `entries` by project path. */
  byPath: Map<string, number>;
  folders: Set<string>;
}

/** {@link ProjectEntries} of `index` under `prefix`, or `{ unsupported }` for a submodule or `.gitattributes`. */
function projectEntries(index: IndexEntries, prefix: string): ProjectEntries | { unsupported: string } {
  const entries: number[] = [];
  const paths: string[] = [];
  const byPath = new Map<string, number>();
  const folders = new Set<string>();
  let lastFolder: string | undefined;
  for (let k = 0; k < index.count; k += 1) {
    const topPath = index.paths[k] as string;
    if (prefix !== '' && !topPath.startsWith(prefix)) continue;
    const path = prefix === '' ? topPath : topPath.slice(prefix.length);
    if (indexField(index, k, I_MODE) === 0o160000) return { unsupported: `${path} is a submodule` };
    if (path.endsWith('.gitattributes') && (path === '.gitattributes' || path.endsWith('/.gitattributes'))) return { unsupported: `${path} sets attributes` };
    byPath.set(path, entries.length);
    entries.push(k);
    paths.push(path);
    const slash = path.lastIndexOf('/');
    if (slash === -1 || (lastFolder !== undefined && lastFolder.length === slash && path.startsWith(lastFolder))) continue;
    lastFolder = path.slice(0, slash);
    if (!folders.has(lastFolder)) {
      folders.add(lastFolder);
      addFoldersAbove(lastFolder, folders);
    }
  }
  return { entries, paths, byPath, folders };
}

/** What the begin's matcher reads: the index (set once it is parsed, before any entry arrives). */
interface BeginContext {
  index: IndexEntries | undefined;
  inside: ProjectEntries | undefined;
  /** The second the index file was last written. */
  indexSec: number;
  /** Set when the index turned out unsupported: entries are then dropped. */
  unsupported?: boolean;
}

/**
 * The begin's {@link FindSink}: each listed file is looked up among the index entries as it
 * arrives (while find goes on listing) and checked by git's stat rule there and then; files the
 * index does not have, and folders, go to `rest` for the `.gitignore` rules.
 */
class BeginMatcher implements FindSink {
  count = 0;
  readonly rest = new Builder(256);
  /**
   * Listed index entries (`rows` of them; typed arrays sized by the index, since each entry is
   * listed at most once): path, position in `inside.entries`, facts (6 numbers each, as a tree
   * row), 1 when stat could not prove it clean.
   */
  rows = 0;
  readonly rowPaths: string[] = [];
  rowEntries = new Int32Array(0);
  rowFacts = new Float64Array(0);
  rowDoubt = new Uint8Array(0);
  /** 1 for each entry of `inside.entries` the listing has (as a file or a folder). */
  listed: Uint8Array | undefined;

  constructor(readonly context: BeginContext) {}

  entry(tag: number, type: number, bytes: Buffer, pathStart: number, pathEnd: number): void {
    this.count += 1;
    const { index, inside } = this.context;
    if (index === undefined || inside === undefined) {
      if (this.context.unsupported === true) return;
      throw new Error('the begin of a git scan took a listed entry before the index was read');
    }
    const path = bytes.toString('utf8', pathStart, pathEnd);
    const e = inside.byPath.get(path);
    if (e !== undefined && this.listed === undefined) {
      const capacity = inside.entries.length;
      this.listed = new Uint8Array(capacity);
      this.rowEntries = new Int32Array(capacity);
      this.rowFacts = new Float64Array(capacity * TREE_STRIDE);
      this.rowDoubt = new Uint8Array(capacity);
    }
    if (e !== undefined) (this.listed as Uint8Array)[e] = 1;
    if (e === undefined || type === TYPE_FOLDER) {
      this.rest.entryAt(tag, type, path);
      return;
    }
    const k = inside.entries[e] as number;
    const gitMode = indexField(index, k, I_MODE);
    const mode = fields[1] as number;
    const racy = this.context.indexSec <= Math.max(indexField(index, k, I_MTIME_SEC), indexField(index, k, I_CTIME_SEC));
    const statClean =
      !racy &&
      fields[4] === indexField(index, k, I_MTIME_SEC) &&
      fields[5] === indexField(index, k, I_MTIME_NSEC) &&
      fields[6] === indexField(index, k, I_CTIME_SEC) &&
      fields[7] === indexField(index, k, I_CTIME_NSEC) &&
      (fields[0] as number) % 2 ** 32 === indexField(index, k, I_SIZE) &&
      (fields[8] as number) % 2 ** 32 === indexField(index, k, I_INO) &&
      fields[2] === indexField(index, k, I_UID) &&
      fields[3] === indexField(index, k, I_GID) &&
      typeMatches(gitMode, type, mode);
    const row = this.rows;
    this.rows += 1;
    this.rowPaths.push(path);
    this.rowEntries[row] = e;
    const at = row * TREE_STRIDE;
    const facts = this.rowFacts;
    facts[at] = type;
    facts[at + 1] = fields[0] as number;
    facts[at + 2] = mode;
    facts[at + 3] = fieldsMtimeMs();
    facts[at + 4] = fieldsCtimeMs();
    facts[at + 5] = fields[8] as number;
    this.rowDoubt[row] = statClean ? 0 : 1;
  }

  nested(folder: string): void {
    this.rest.nested(folder);
  }
}

/**
 * The begin's answer from one listing: each index entry clean (stat data, or bytes hashed) or
 * dirty, the rest of the listing untracked or ignored. Undefined when a pruned folder turned out
 * not to be ignored (unless `keepPruned`).
 */
function finishBegin(projectRoot: string, location: GitLocation, matcher: BeginMatcher, beginMs: number, keepPruned: boolean): ScanBegin | undefined {
  const index = matcher.context.index as IndexEntries;
  const inside = matcher.context.inside as ProjectEntries;
  const rootSlash = projectRoot.endsWith('/') ? projectRoot : `${projectRoot}/`;
  const { rowPaths, rowEntries, rowFacts, rowDoubt, rows } = matcher;
  const clean = new Uint8Array(rows);
  let cleanCount = 0;
  const gitignoreFolders = new Set<string>();
  for (let row = 0; row < rows; row += 1) {
    const path = rowPaths[row] as string;
    if (path.endsWith('.gitignore') && (path.length === 10 || path[path.length - 11] === '/')) gitignoreFolders.add(path.length === 10 ? '' : path.slice(0, -11));
    const k = inside.entries[rowEntries[row] as number] as number;
    const at = row * TREE_STRIDE;
    const type = rowFacts[at] as number;
    if (rowDoubt[row] === 0 || (typeMatches(indexField(index, k, I_MODE), type, rowFacts[at + 2] as number) && contentOid(rootSlash + path, type, rowFacts[at + 1] as number, index.oidBytes) === oidAt(index, k))) {
      clean[row] = 1;
      cleanCount += 1;
    }
  }
  const listing = matcher.rest.done();
  const untracked = classify(projectRoot, location, listing, new Uint8Array(listing.count), (folder) => inside.folders.has(folder), keepPruned, (folder) => gitignoreFolders.has(folder));
  if (untracked === undefined) return undefined;
  const own = new Map<string, EntryFacts>(untracked.own);
  const folders = new Set(inside.folders);
  for (const path of untracked.own.keys()) addFoldersAbove(path, folders);
  for (let row = 0; row < rows; row += 1) {
    if (clean[row] === 1) continue;
    const at = row * TREE_STRIDE;
    own.set(rowPaths[row] as string, { type: TYPE_NAMES[rowFacts[at] as number] as EntryFacts['type'], size: rowFacts[at + 1] as number, mode: rowFacts[at + 2] as number, mtimeMs: rowFacts[at + 3] as number, ctimeMs: rowFacts[at + 4] as number, ino: rowFacts[at + 5] as number });
  }
  for (let e = 0; e < inside.entries.length; e += 1) if (matcher.listed?.[e] !== 1) own.set(inside.paths[e] as string, MISSING_FACTS);
  const oidBytes = index.oidBytes;
  const cleanPaths: string[] = new Array<string>(cleanCount);
  const pathStarts = new Uint32Array(cleanCount + 1);
  const tree: ScanTree = {
    beginMs,
    count: cleanCount,
    pathBytes: Buffer.alloc(0),
    pathStarts,
    facts: new Float64Array(cleanCount * TREE_STRIDE),
    gitModes: new Uint32Array(cleanCount),
    oids: Buffer.allocUnsafe(cleanCount * oidBytes),
    oidBytes,
    gitignoreRows: [],
    known: [...own.keys()],
    ignored: [...untracked.ignored.keys()],
    folders: [...folders],
  };
  // Rows in the listing's order (see ScanTree).
  let r = 0;
  let offset = 0;
  for (let row = 0; row < rows; row += 1) {
    if (clean[row] !== 1) continue;
    const path = rowPaths[row] as string;
    const k = inside.entries[rowEntries[row] as number] as number;
    cleanPaths[r] = path;
    if (path.endsWith('.gitignore') && (path.length === 10 || path[path.length - 11] === '/')) tree.gitignoreRows.push(r);
    for (let field = 0; field < TREE_STRIDE; field += 1) tree.facts[r * TREE_STRIDE + field] = rowFacts[row * TREE_STRIDE + field] as number;
    tree.gitModes[r] = indexField(index, k, I_MODE);
    // Byte by byte: a Buffer.copy per row costs more than the whole row's other work.
    const oid = (index.offsets[k] as number) + 40;
    const oids = tree.oids;
    const indexBytes = index.bytes;
    for (let byte = 0, to = r * oidBytes; byte < oidBytes; byte += 1) oids[to + byte] = indexBytes[oid + byte] as number;
    offset += path.length + 1;
    pathStarts[r + 1] = offset;
    r += 1;
  }
  tree.pathBytes = Buffer.from(cleanCount === 0 ? '' : `${cleanPaths.join('\0')}\0`);
  if (tree.pathBytes.length !== offset) {
    // Not all ASCII: byte offsets.
    offset = 0;
    for (let row = 0; row < cleanCount; row += 1) {
      offset += Buffer.byteLength(cleanPaths[row] as string) + 1;
      pathStarts[row + 1] = offset;
    }
  }
  return { own, ignored: untracked.ignored, tree };
}

/** {@link scanEnd}'s answer. */
export interface ScanEnd {
  /** Files that are new since the begin (not tracked, not listed then), with their facts. */
  own: Map<string, EntryFacts>;
  /** Ignored paths now: those of the begin still there, and new ones. */
  ignored: Map<string, EntryFacts>;
  /** Clean entries of the begin whose bytes, mode or presence changed, by project path. */
  changed: Map<string, ScanChange>;
}

/** Rows ahead of the expected one that an entry of the end's listing is compared with before it is looked up by path. */
const LOOKAHEAD = 4;

/**
 * The end's {@link FindSink}: each entry of the listing is compared with the next rows of the
 * tree, in order, byte by byte (no string, no map); an entry matching row `r` is checked against
 * its facts there and then. Entries that match no row nearby (folders, dirty, untracked and
 * ignored files, and rows whose folder now lists in another order) go to `rest`, a listing of
 * their own, to be looked up by path afterwards.
 */
class EndMatcher implements FindSink {
  count = 0;
  readonly rest = new Builder(256);
  /** 1 for each row matched in order. */
  readonly seen: Uint8Array;
  /** Rows matched whose facts differ (or were racy at begin), with their type code, size and mode now. */
  readonly toCheck: number[] = [];
  /** Rows matched that are a folder now. */
  readonly folders: number[] = [];
  private expected = 0;

  constructor(
    private readonly tree: ScanTree,
    private readonly racySince: number,
  ) {
    this.seen = new Uint8Array(tree.count);
  }

  entry(tag: number, type: number, bytes: Buffer, pathStart: number, pathEnd: number): void {
    this.count += 1;
    const { pathBytes, pathStarts, count } = this.tree;
    const length = pathEnd - pathStart;
    const last = bytes[pathEnd - 1];
    for (let r = this.expected, stop = Math.min(count, this.expected + LOOKAHEAD); r < stop; r += 1) {
      const start = pathStarts[r] as number;
      const end = (pathStarts[r + 1] as number) - 1;
      if (end - start !== length || pathBytes[end - 1] !== last || bytes.compare(pathBytes, start, end, pathStart, pathEnd) !== 0) continue;
      this.expected = r + 1;
      this.seen[r] = 1;
      if (type === TYPE_FOLDER) {
        this.folders.push(r);
        this.rest.entry(tag, type, bytes, pathStart, pathEnd);
        return;
      }
      const facts = this.tree.facts;
      const at = r * TREE_STRIDE;
      const mtimeMs = fieldsMtimeMs();
      const ctimeMs = fieldsCtimeMs();
      if (
        type !== facts[at] ||
        fields[0] !== facts[at + 1] ||
        fields[1] !== facts[at + 2] ||
        mtimeMs !== facts[at + 3] ||
        ctimeMs !== facts[at + 4] ||
        fields[8] !== facts[at + 5] ||
        Math.max(facts[at + 3] as number, facts[at + 4] as number) >= this.racySince
      ) {
        this.toCheck.push(r, type, fields[0] as number, fields[1] as number);
      }
      return;
    }
    this.rest.entry(tag, type, bytes, pathStart, pathEnd);
  }

  nested(folder: string): void {
    this.rest.nested(folder);
  }
}

/** List the project after the command against the begin's tree (see the top of this file). Throws `ScanLimitError` past `limits`. */
export async function scanEnd(projectRoot: string, location: GitLocation, tree: ScanTree, limits: ListingLimits): Promise<ScanEnd> {
  const racySince = tree.beginMs - RACY_MARGIN_MS;
  const rootSlash = projectRoot.endsWith('/') ? projectRoot : `${projectRoot}/`;
  const prune = new Set(tree.ignored.filter((key) => key.endsWith('/')).map((key) => key.slice(0, -1)));
  const matcher = await listInto(projectRoot, prune, limits, () => new EndMatcher(tree, racySince));
  const listing = matcher.rest.done();
  const claimed = new Uint8Array(listing.count);
  const changed = new Map<string, ScanChange>();
  const { facts } = tree;
  /** Row `r` is now of type `type` with `size` and `mode` (its facts differ, or were racy): changed unless the bytes and permission bits are the same. */
  const check = (r: number, type: number, size: number, mode: number): void => {
    const at = r * TREE_STRIDE;
    const before = (facts[at + 2] as number) & 0o7777;
    const path = rowPath(tree, r);
    const blobId = rowOid(tree, r);
    const sameType = type === facts[at];
    const modeChanged = !sameType || (mode & 0o7777) !== before;
    const contentSame = sameType && contentOid(rootSlash + path, type, size, tree.oidBytes) === blobId;
    if (contentSame && !modeChanged) return;
    changed.set(path, { blobId, gitMode: tree.gitModes[r] as number, mode: before, contentChanged: !contentSame });
  };
  const goneRows = new Uint8Array(tree.count);
  const gone = (r: number): void => {
    goneRows[r] = 1;
    changed.set(rowPath(tree, r), { blobId: rowOid(tree, r), gitMode: tree.gitModes[r] as number, mode: (facts[r * TREE_STRIDE + 2] as number) & 0o7777, contentChanged: true });
  };
  const { toCheck } = matcher;
  for (let at = 0; at < toCheck.length; at += 4) check(toCheck[at] as number, toCheck[at + 1] as number, toCheck[at + 2] as number, toCheck[at + 3] as number);
  for (const r of matcher.folders) gone(r);
  // Rows not met in order: looked up by path among the rest.
  const numbers = listing.numbers;
  for (let r = 0; r < tree.count; r += 1) {
    if (matcher.seen[r] === 1) continue;
    const j = listing.indexOf.get(rowPath(tree, r));
    if (j === undefined || listing.types[j] === TYPE_FOLDER) {
      gone(r);
      continue;
    }
    claimed[j] = 1;
    const at = r * TREE_STRIDE;
    const base = j * STRIDE;
    const type = listing.types[j] as number;
    if (
      type === facts[at] &&
      numbers[base + N_SIZE] === facts[at + 1] &&
      numbers[base + N_MODE] === facts[at + 2] &&
      numbers[base + N_MTIME_MS] === facts[at + 3] &&
      numbers[base + N_CTIME_MS] === facts[at + 4] &&
      numbers[base + N_INO] === facts[at + 5] &&
      Math.max(facts[at + 3] as number, facts[at + 4] as number) < racySince
    ) {
      continue;
    }
    check(r, type, numbers[base + N_SIZE] as number, numbers[base + N_MODE] as number);
  }
  for (const path of tree.known) claimFile(listing, claimed, path);
  for (const key of tree.ignored) claimFile(listing, claimed, key);
  const gitignoreFolders = new Set<string>();
  for (const r of tree.gitignoreRows) {
    if (goneRows[r] === 1) continue;
    const path = rowPath(tree, r);
    gitignoreFolders.add(path.length === 10 ? '' : path.slice(0, -11));
  }
  const folders = new Set(tree.folders);
  const classified = classify(projectRoot, location, listing, claimed, (folder) => folders.has(folder), true, (folder) => gitignoreFolders.has(folder)) as Classified;
  for (const key of tree.ignored) {
    const j = listing.indexOf.get(key.endsWith('/') ? key.slice(0, -1) : key);
    if (j !== undefined) classified.ignored.set(key, factsAt(listing, j));
  }
  return { own: classified.own, ignored: classified.ignored, changed };
}

/** Mark the listing's entry at `path` known, when it is there and is not a folder. */
function claimFile(listing: TreeListing, claimed: Uint8Array, path: string): void {
  const j = listing.indexOf.get(path);
  if (j !== undefined && listing.types[j] !== TYPE_FOLDER) claimed[j] = 1;
}

/** Untracked files (`own`) and ignored paths (`ignored`, folders ignored whole end with `/`). */
interface Classified {
  own: Map<string, EntryFacts>;
  ignored: Map<string, EntryFacts>;
}

/**
 * Sort the listing's files not `claimed` (tracked or known) into untracked and ignored, with the
 * `.gitignore` rules of each folder (read when the listing has one). Folders ignored as a whole,
 * and nested repositories, are not looked into; a folder `isTrackedFolder` claims is never
 * ignored as a whole (its untracked files may be). Undefined when a pruned folder turns out not
 * to be ignored (list again without pruning); with `keepPruned`, pruned folders are trusted.
 * `hasGitignore`: folders known to hold a `.gitignore` that the listing does not show.
 */
function classify(
  projectRoot: string,
  location: GitLocation,
  listing: TreeListing,
  claimed: Uint8Array,
  isTrackedFolder: (folder: string) => boolean,
  keepPruned: boolean,
  hasGitignore: (folder: string) => boolean = () => false,
): Classified | undefined {
  const own = new Map<string, EntryFacts>();
  const ignored = new Map<string, EntryFacts>();
  const skipped = new Set<string>();
  const ignoredInside = new Set<string>();
  const rulesMemo = new Map<string, readonly Rules[]>();
  const rulesOf = (folder: string): readonly Rules[] => {
    const memo = rulesMemo.get(folder);
    if (memo !== undefined) return memo;
    const slash = folder.lastIndexOf('/');
    const above = (): readonly Rules[] => rulesOf(slash === -1 ? '' : folder.slice(0, slash));
    const rules = folder === '' ? rootRules(location) : listing.indexOf.has(`${folder}/.gitignore`) || hasGitignore(folder) ? withGitignore(above(), projectRoot, location, folder) : above();
    rulesMemo.set(folder, rules);
    return rules;
  };
  for (let i = 0; i < listing.count; i += 1) {
    const type = listing.types[i] as number;
    if (type !== TYPE_FOLDER && claimed[i] === 1) continue;
    const path = listing.paths[i] as string;
    const slash = path.lastIndexOf('/');
    const parent = slash === -1 ? '' : path.slice(0, slash);
    if (skipped.has(parent)) {
      if (type === TYPE_FOLDER) skipped.add(path);
      continue;
    }
    const topPath = location.prefix + path;
    if (type === TYPE_FOLDER) {
      if (isTrackedFolder(path)) {
        if (ignoredInside.has(parent) || isIgnored(rulesOf(parent), topPath, true)) ignoredInside.add(path);
        continue;
      }
      if (listing.nestedRepositories.has(path)) {
        skipped.add(path);
        continue;
      }
      if (ignoredInside.has(parent) || isIgnored(rulesOf(parent), topPath, true)) {
        ignored.set(`${path}/`, factsAt(listing, i));
        skipped.add(path);
        continue;
      }
      if (listing.pruned.has(path) && !keepPruned) return undefined;
      continue;
    }
    if (ignoredInside.has(parent) || isIgnored(rulesOf(parent), topPath, false)) ignored.set(path, factsAt(listing, i));
    else own.set(path, factsAt(listing, i));
  }
  return { own, ignored };
}

/**
 * The rules in effect at the project folder: the global excludes file, `info/exclude`, and every
 * `.gitignore` from the top of the work tree down to the project folder (bases relative to the top).
 */
export function rootRules(location: GitLocation): Rules[] {
  const rules: Rules[] = [];
  for (const file of [globalExcludesFile(), join(location.commonDir, 'info', 'exclude')]) {
    const text = file === undefined ? undefined : readText(file);
    if (text !== undefined) rules.push({ base: '', rules: ignore().add(text) });
  }
  const parts = location.prefix === '' ? [] : location.prefix.slice(0, -1).split('/');
  for (let depth = 0; depth <= parts.length; depth += 1) {
    const base = parts.slice(0, depth).join('/');
    const text = readText(join(location.top, base, '.gitignore'));
    if (text !== undefined) rules.push({ base, rules: ignore().add(text) });
  }
  return rules;
}

/** `rules` plus the `.gitignore` of project folder `folder`, when it has a readable one. */
export function withGitignore(rules: readonly Rules[], projectRoot: string, location: GitLocation, folder: string): readonly Rules[] {
  const text = readText(join(projectRoot, folder, '.gitignore'));
  if (text === undefined) return rules;
  return [...rules, { base: location.prefix + folder, rules: ignore().add(text) }];
}

/** The user's git config files (global, XDG). */
function globalConfigFiles(): string[] {
  const xdg = process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config');
  return [process.env.GIT_CONFIG_GLOBAL ?? join(homedir(), '.gitconfig'), join(xdg, 'git', 'config')];
}

/** `core.excludesFile` from the user's config, else git's default (`$XDG_CONFIG_HOME/git/ignore`). */
function globalExcludesFile(): string | undefined {
  for (const file of globalConfigFiles()) {
    const match = /^\s*excludesfile\s*=\s*(.+?)\s*$/im.exec(readText(file) ?? '');
    if (match !== null) {
      const value = (match[1] as string).replace(/^"(.*)"$/, '$1');
      return value.startsWith('~/') ? join(homedir(), value.slice(2)) : resolve(value);
    }
  }
  return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'git', 'ignore');
}

/** A file's text, or undefined when it cannot be read. */
export function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Whether an entry of type code `type` and `st_mode` `mode` is the kind of file `gitMode` names (for a regular file, with its executable bit). */
function typeMatches(gitMode: number, type: number, mode: number): boolean {
  if (gitMode === 0o120000) return type === TYPE_SYMLINK;
  if (gitMode !== 0o100644 && gitMode !== 0o100755) return false;
  return type === TYPE_FILE && ((mode & 0o100) !== 0) === (gitMode === 0o100755);
}

/** The git object id of the file's bytes (a symlink: its target), or undefined when it cannot be read or changed meanwhile. `size`: its listed size. */
export function contentOid(absolute: string, type: number, size: number, oidBytes: number): string | undefined {
  const hash = createHash(oidBytes === 32 ? 'sha256' : 'sha1');
  try {
    if (type === TYPE_SYMLINK) {
      const target = readlinkSync(absolute, { encoding: 'buffer' });
      return hash.update(`blob ${target.length}\0`).update(target).digest('hex');
    }
    if (type !== TYPE_FILE) return undefined;
    const fd = openSync(absolute, 'r');
    try {
      const buffer = Buffer.allocUnsafe(Math.min(HASH_CHUNK, Math.max(size, 1)));
      hash.update(`blob ${size}\0`);
      let total = 0;
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, null);
        if (read === 0) break;
        hash.update(buffer.subarray(0, read));
        total += read;
      }
      // A file that changed size since it was listed is not the blob.
      return total === size ? hash.digest('hex') : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Version of the tree file {@link writeTree} writes. */
const TREE_FILE_VERSION = 3;

/** The tree file's JSON header. */
interface TreeHeader {
  version: number;
  beginMs: number;
  count: number;
  oidBytes: number;
  gitignoreRows: number[];
  known: string[];
  ignored: string[];
  folders: string[];
}

/**
 * Write `tree` to `file`: a 4-byte length, a JSON header (version, begin time, count, object id
 * length, the `.gitignore` rows, the known, ignored and folder lists), padding to 8, the facts
 * (six float64 per row), the path starts (count + 1 uint32), the git modes (uint32 each), the
 * object ids (raw bytes), then the rows' paths, each ended by NUL. Numbers in this machine's byte
 * order: the file is read back on the machine that wrote it.
 */
export function writeTree(file: string, tree: ScanTree): void {
  const header: TreeHeader = { version: TREE_FILE_VERSION, beginMs: tree.beginMs, count: tree.count, oidBytes: tree.oidBytes, gitignoreRows: tree.gitignoreRows, known: tree.known, ignored: tree.ignored, folders: tree.folders };
  const headerBytes = Buffer.from(JSON.stringify(header));
  const layout = treeLayout(headerBytes.length, tree.count, tree.oidBytes);
  const out = Buffer.alloc(layout.pathsStart + tree.pathBytes.length);
  out.writeUInt32LE(headerBytes.length, 0);
  headerBytes.copy(out, 4);
  Buffer.from(tree.facts.buffer, tree.facts.byteOffset, tree.count * TREE_STRIDE * 8).copy(out, layout.factsStart);
  Buffer.from(tree.pathStarts.buffer, tree.pathStarts.byteOffset, (tree.count + 1) * 4).copy(out, layout.startsStart);
  Buffer.from(tree.gitModes.buffer, tree.gitModes.byteOffset, tree.count * 4).copy(out, layout.modesStart);
  tree.oids.copy(out, layout.oidsStart, 0, tree.count * tree.oidBytes);
  tree.pathBytes.copy(out, layout.pathsStart);
  writeFileDurably(file, out);
}

/** Where each part of a tree file starts. */
function treeLayout(headerLength: number, count: number, oidBytes: number): { factsStart: number; startsStart: number; modesStart: number; oidsStart: number; pathsStart: number } {
  const factsStart = (4 + headerLength + 7) & ~7;
  const startsStart = factsStart + count * TREE_STRIDE * 8;
  const modesStart = startsStart + (count + 1) * 4;
  const oidsStart = modesStart + count * 4;
  return { factsStart, startsStart, modesStart, oidsStart, pathsStart: oidsStart + count * oidBytes };
}

/** Read a tree file {@link writeTree} wrote; throws naming the file when it is not one. */
export function readTree(file: string): ScanTree {
  const bytes = readFileSync(file);
  try {
    const headerLength = bytes.readUInt32LE(0);
    const header = JSON.parse(bytes.toString('utf8', 4, 4 + headerLength)) as TreeHeader;
    if (header.version !== TREE_FILE_VERSION) throw new Error(`version ${header.version}`);
    const { count, oidBytes } = header;
    const layout = treeLayout(headerLength, count, oidBytes);
    if (layout.pathsStart > bytes.length) throw new Error('it is truncated');
    const copy = (start: number, end: number): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + end) as ArrayBuffer;
    const pathStarts = new Uint32Array(copy(layout.startsStart, layout.modesStart));
    const pathBytes = bytes.subarray(layout.pathsStart);
    if (pathStarts[count] !== pathBytes.length) throw new Error('the paths do not match their count');
    return {
      beginMs: header.beginMs,
      count,
      pathBytes,
      pathStarts,
      facts: new Float64Array(copy(layout.factsStart, layout.startsStart)),
      gitModes: new Uint32Array(copy(layout.modesStart, layout.oidsStart)),
      oids: bytes.subarray(layout.oidsStart, layout.pathsStart),
      oidBytes,
      gitignoreRows: header.gitignoreRows,
      known: header.known,
      ignored: header.ignored,
      folders: header.folders,
    };
  } catch (error) {
    throw new Error(`command window tree file ${file} is not one fh wrote (${error instanceof Error ? error.message : String(error)}): end the window again after removing it, or begin a new one`);
  }
}

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
import { factsOf, MISSING_FACTS, sameFacts } from '@fh/core';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, writeFileSync, type Dirent, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import ignore from 'ignore';
import { readIndex, type IndexFileEntry } from './git-index.js';
import { listTree, type ListedEntry, type TreeListing } from './tree-listing.js';
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

/** A clean index entry (or a folder) as the begin saw it. */
interface TreeRow {
  path: string;
  facts: EntryFacts;
}

/** What `scanBegin` keeps for `scanEnd`. */
export interface ScanTree {
  /** When the begin's `lstat`s started (ms since the epoch). */
  beginMs: number;
  /** Clean entries: project path, facts; `oids[i]`/`gitModes[i]` for `clean[i]`. */
  clean: TreeRow[];
  oids: string[];
  gitModes: number[];
  /** Project paths of the begin's dirty tracked files and untracked files. */
  known: string[];
  /** The begin's ignored keys (folders ignored whole end with `/`). */
  ignored: string[];
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

/**
 * List the project before a command (see the top of this file), or `{ unsupported }` when the
 * index or the tree holds something this scan does not handle (a submodule, `.gitattributes`).
 * `prune`: folders believed ignored (from earlier windows) that need not be entered; one that is
 * no longer ignored is listed after all.
 */
export async function scanBegin(projectRoot: string, location: GitLocation, prune: ReadonlySet<string> = new Set()): Promise<ScanBegin | { unsupported: string }> {
  const oidBytes = /^\s*objectformat\s*=\s*sha256\b/im.test(readText(join(location.commonDir, 'config')) ?? '') ? 32 : 20;
  const indexFile = join(location.gitDir, 'index');
  let indexBytes: Buffer;
  let indexStats: Stats | undefined;
  try {
    indexStats = lstatSync(indexFile);
    indexBytes = readFileSync(indexFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    indexBytes = Buffer.alloc(0);
  }
  const parsed = readIndex(indexBytes, oidBytes);
  if ('unsupported' in parsed) return parsed;
  const indexSec = indexStats === undefined ? 0 : Math.floor(indexStats.mtimeMs / 1000);
  const { prefix } = location;
  const entries: IndexFileEntry[] = [];
  const tracked = new Set<string>();
  const trackedFolders = new Set<string>();
  let lastFolder: string | undefined;
  for (const entry of parsed.entries) {
    if (!entry.path.startsWith(prefix)) continue;
    const path = entry.path.slice(prefix.length);
    if (entry.gitMode === 0o160000) return { unsupported: `${path} is a submodule` };
    if (path === '.gitattributes' || path.endsWith('/.gitattributes')) return { unsupported: `${path} sets attributes` };
    entries.push(entry);
    tracked.add(path);
    const folder = path.slice(0, Math.max(path.lastIndexOf('/'), 0));
    if (folder === lastFolder) continue;
    lastFolder = folder;
    for (let slash = path.lastIndexOf('/'); slash !== -1; slash = path.lastIndexOf('/', slash - 1)) {
      const above = path.slice(0, slash);
      if (trackedFolders.has(above)) break;
      trackedFolders.add(above);
    }
  }
  const beginMs = Date.now();
  const safePrune = new Set([...prune].filter((folder) => !trackedFolders.has(folder)));
  let listing = await listTree(projectRoot, safePrune);
  let untracked = classifyUntracked(projectRoot, location, listing, (path) => tracked.has(path), (folder) => trackedFolders.has(folder));
  if (untracked === undefined) {
    listing = await listTree(projectRoot, new Set());
    untracked = classifyUntracked(projectRoot, location, listing, (path) => tracked.has(path), (folder) => trackedFolders.has(folder)) as Classified;
  }
  const own = untracked.own;
  const tree: ScanTree = { beginMs, clean: [], oids: [], gitModes: [], known: [], ignored: [] };
  const rootSlash = projectRoot.endsWith('/') ? projectRoot : `${projectRoot}/`;
  for (const entry of entries) {
    const path = entry.path.slice(prefix.length);
    const listed = listing.entries.get(path);
    if (listed === undefined) {
      own.set(path, MISSING_FACTS);
      continue;
    }
    const facts = listed.facts;
    if (facts.type === 'folder') continue;
    const racy = indexSec <= Math.max(entry.mtimeSec, entry.ctimeSec);
    if ((!racy && statMatches(entry, listed)) || (typeMatches(entry.gitMode, facts) && contentOid(rootSlash + path, facts, oidBytes) === entry.oid)) {
      tree.clean.push({ path, facts });
      tree.oids.push(entry.oid);
      tree.gitModes.push(entry.gitMode);
    } else {
      own.set(path, facts);
    }
  }
  tree.known = [...own.keys()];
  tree.ignored = [...untracked.ignored.keys()];
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

/** List the project after the command against the begin's tree (see the top of this file). */
export async function scanEnd(projectRoot: string, location: GitLocation, tree: ScanTree): Promise<ScanEnd> {
  const oidBytes = (tree.oids[0]?.length ?? 40) / 2;
  const racySince = tree.beginMs - RACY_MARGIN_MS;
  const racy = (facts: EntryFacts): boolean => Math.max(facts.mtimeMs, facts.ctimeMs) >= racySince;
  const rootSlash = projectRoot.endsWith('/') ? projectRoot : `${projectRoot}/`;
  const prune = new Set(tree.ignored.filter((key) => key.endsWith('/')).map((key) => key.slice(0, -1)));
  const listing = await listTree(projectRoot, prune);
  const changed = new Map<string, ScanChange>();
  const knownFiles = new Set<string>([...tree.known, ...tree.ignored]);
  tree.clean.forEach(({ path, facts: before }, index) => {
    knownFiles.add(path);
    const now = listing.entries.get(path)?.facts;
    const oid = tree.oids[index] as string;
    const gitMode = tree.gitModes[index] as number;
    const mode = before.mode & 0o7777;
    if (now === undefined || now.type === 'folder') {
      changed.set(path, { blobId: oid, gitMode, mode, contentChanged: true });
      return;
    }
    if (sameFacts(now, before) && !racy(before)) return;
    const modeChanged = now.type !== before.type || (now.mode & 0o7777) !== mode;
    const contentSame = now.type === before.type && contentOid(rootSlash + path, now, oidBytes) === oid;
    if (contentSame && !modeChanged) return;
    changed.set(path, { blobId: oid, gitMode, mode, contentChanged: !contentSame });
  });
  const trackedFolders = new Set<string>();
  for (const path of [...tree.clean.map((row) => row.path), ...tree.known]) {
    for (let slash = path.lastIndexOf('/'); slash !== -1; slash = path.lastIndexOf('/', slash - 1)) {
      const above = path.slice(0, slash);
      if (trackedFolders.has(above)) break;
      trackedFolders.add(above);
    }
  }
  const classified = classifyUntracked(projectRoot, location, listing, (path) => knownFiles.has(path), (folder) => trackedFolders.has(folder), true) as Classified;
  for (const key of tree.ignored) {
    const listed = listing.entries.get(key.endsWith('/') ? key.slice(0, -1) : key);
    if (listed !== undefined) classified.ignored.set(key, listed.facts);
  }
  return { own: classified.own, ignored: classified.ignored, changed };
}

/** Untracked files (`own`) and ignored paths (`ignored`, folders ignored whole end with `/`). */
interface Classified {
  own: Map<string, EntryFacts>;
  ignored: Map<string, EntryFacts>;
}

/**
 * Sort the listing's paths that `isKnown` does not claim into untracked and ignored, with the
 * `.gitignore` rules of each folder (read when the listing has one). Folders ignored as a whole,
 * and nested repositories, are not looked into; a folder `isTrackedFolder` claims is never
 * ignored as a whole (its untracked files may be). Undefined when a pruned folder turns out not
 * to be ignored (list again without pruning); with `keepPruned`, pruned folders are trusted.
 */
function classifyUntracked(
  projectRoot: string,
  location: GitLocation,
  listing: TreeListing,
  isKnown: (path: string) => boolean,
  isTrackedFolder: (folder: string) => boolean,
  keepPruned = false,
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
    const rules = folder === '' ? rootRules(location) : listing.entries.has(`${folder}/.gitignore`) ? withGitignore(rulesOf(slash === -1 ? '' : folder.slice(0, slash)), projectRoot, location, folder) : rulesOf(slash === -1 ? '' : folder.slice(0, slash));
    rulesMemo.set(folder, rules);
    return rules;
  };
  for (const [path, { facts }] of listing.entries) {
    const slash = path.lastIndexOf('/');
    const parent = slash === -1 ? '' : path.slice(0, slash);
    if (skipped.has(parent)) {
      if (facts.type === 'folder') skipped.add(path);
      continue;
    }
    const topPath = location.prefix + path;
    if (facts.type === 'folder') {
      if (isTrackedFolder(path)) {
        if (ignoredInside.has(parent) || isIgnored(rulesOf(parent), topPath, true)) ignoredInside.add(path);
        continue;
      }
      if (listing.nestedRepositories.has(path)) {
        skipped.add(path);
        continue;
      }
      if (ignoredInside.has(parent) || isIgnored(rulesOf(parent), topPath, true)) {
        ignored.set(`${path}/`, facts);
        skipped.add(path);
        continue;
      }
      if (listing.pruned.has(path) && !keepPruned) return undefined;
      continue;
    }
    if (isKnown(path)) continue;
    if (ignoredInside.has(parent) || isIgnored(rulesOf(parent), topPath, false)) ignored.set(path, facts);
    else own.set(path, facts);
  }
  return { own, ignored };
}

/**
 * The rules in effect at the project folder: the global excludes file, `info/exclude`, and every
 * `.gitignore` from the top of the work tree down to the project folder (bases relative to the top).
 */
function rootRules(location: GitLocation): Rules[] {
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
function withGitignore(rules: readonly Rules[], projectRoot: string, location: GitLocation, folder: string): readonly Rules[] {
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
function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Whether `facts` are of the kind of file `gitMode` names (and, for a regular file, with its executable bit). */
function typeMatches(gitMode: number, facts: EntryFacts): boolean {
  if (gitMode === 0o120000) return facts.type === 'symlink';
  if (gitMode !== 0o100644 && gitMode !== 0o100755) return false;
  return facts.type === 'file' && ((facts.mode & 0o100) !== 0) === (gitMode === 0o100755);
}

/** Git's stat check: the index's stat data equals the file's (times to the nanosecond). */
function statMatches(entry: IndexFileEntry, listed: ListedEntry): boolean {
  return (
    listed.mtimeSec === entry.mtimeSec &&
    listed.mtimeNsec === entry.mtimeNsec &&
    listed.ctimeSec === entry.ctimeSec &&
    listed.ctimeNsec === entry.ctimeNsec &&
    listed.facts.size % 2 ** 32 === entry.size &&
    listed.facts.ino % 2 ** 32 === entry.ino &&
    listed.uid === entry.uid &&
    listed.gid === entry.gid &&
    typeMatches(entry.gitMode, listed.facts)
  );
}

/** The git object id of the file's bytes (a symlink: its target), or undefined when it cannot be read or changed meanwhile. */
function contentOid(absolute: string, facts: EntryFacts, oidBytes: number): string | undefined {
  const hash = createHash(oidBytes === 32 ? 'sha256' : 'sha1');
  try {
    if (facts.type === 'symlink') {
      const target = readlinkSync(absolute, { encoding: 'buffer' });
      return hash.update(`blob ${target.length}\0`).update(target).digest('hex');
    }
    if (facts.type !== 'file') return undefined;
    const fd = openSync(absolute, 'r');
    try {
      const buffer = Buffer.allocUnsafe(Math.min(HASH_CHUNK, Math.max(facts.size, 1)));
      hash.update(`blob ${facts.size}\0`);
      let total = 0;
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, null);
        if (read === 0) break;
        hash.update(buffer.subarray(0, read));
        total += read;
      }
      // A file that changed size since it was listed is not the blob.
      return total === facts.size ? hash.digest('hex') : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Version of the tree file {@link writeTree} writes. */
const TREE_FILE_VERSION = 1;

/** Type codes of facts in the tree file. */
const TYPES: ReadonlyArray<EntryFacts['type']> = ['file', 'symlink', 'folder', 'other', 'missing'];

/**
 * Write `tree` to `file`: a 4-byte length, a JSON header (begin time, counts, git modes, the short lists),
 * padding to 8, six float64 per clean entry (type, size, mode, mtime, ctime, inode), then the
 * clean paths and object ids joined by NUL.
 */
export function writeTree(file: string, tree: ScanTree): void {
  const rows = tree.clean;
  const numbers = new Float64Array(rows.length * 6);
  rows.forEach(({ facts }, index) => {
    numbers.set([TYPES.indexOf(facts.type), facts.size, facts.mode, facts.mtimeMs, facts.ctimeMs, facts.ino], index * 6);
  });
  const header = Buffer.from(JSON.stringify({ version: TREE_FILE_VERSION, beginMs: tree.beginMs, clean: tree.clean.length, gitModes: tree.gitModes, known: tree.known, ignored: tree.ignored }));
  const headerEnd = 4 + header.length;
  const numbersStart = (headerEnd + 7) & ~7;
  const text = Buffer.from([...tree.clean.map((row) => row.path), ...tree.oids].join('\0'));
  const out = Buffer.alloc(numbersStart + numbers.byteLength + text.length);
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  Buffer.from(numbers.buffer).copy(out, numbersStart);
  text.copy(out, numbersStart + numbers.byteLength);
  writeFileSync(file, out, { flag: 'wx' });
}

/** Read a tree file {@link writeTree} wrote; throws naming the file when it is not one. */
export function readTree(file: string): ScanTree {
  const bytes = readFileSync(file);
  try {
    const headerLength = bytes.readUInt32LE(0);
    const header = JSON.parse(bytes.toString('utf8', 4, 4 + headerLength)) as { version: number; beginMs: number; clean: number; gitModes: number[]; known: string[]; ignored: string[] };
    if (header.version !== TREE_FILE_VERSION) throw new Error(`version ${header.version}`);
    const numbersStart = (4 + headerLength + 7) & ~7;
    const rows = header.clean;
    const numbers = new Float64Array(bytes.buffer.slice(bytes.byteOffset + numbersStart, bytes.byteOffset + numbersStart + rows * 48));
    const text = bytes.toString('utf8', numbersStart + rows * 48).split('\0');
    const row = (index: number): TreeRow => {
      const at = index * 6;
      return { path: text[index] as string, facts: { type: TYPES[numbers[at] as number] as EntryFacts['type'], size: numbers[at + 1] as number, mode: numbers[at + 2] as number, mtimeMs: numbers[at + 3] as number, ctimeMs: numbers[at + 4] as number, ino: numbers[at + 5] as number } };
    };
    const clean = Array.from({ length: header.clean }, (_, index) => row(index));
    const oids = text.slice(rows, rows + header.clean);
    if (oids.length !== header.clean || header.gitModes.length !== header.clean) throw new Error('the counts do not match');
    return { beginMs: header.beginMs, clean, oids, gitModes: header.gitModes, known: header.known, ignored: header.ignored };
  } catch (error) {
    throw new Error(`command window tree file ${file} is not one fh wrote (${error instanceof Error ? error.message : String(error)}): end the window again after removing it, or begin a new one`);
  }
}

/**
 * The command window's in-process scan of a git work tree (issue 12): no `git` is started for
 * `begin` or `end`; `git cat-file --batch` runs later only for the blobs of files the command
 * really changed.
 *
 * `scanBegin`:
 * - reads the index file (`git-index.ts`, read-only) and `lstat`s every entry inside the project.
 *   An entry is clean when its stat data equals the index's (mtime and ctime to the nanosecond,
 *   size, inode, uid, gid, type and executable bit) and the index was written in a later second
 *   than the file's mtime and ctime; a racy entry (modified within the same second as the index
 *   was written, or later) and one whose stat differs are hashed (`blob <size>\0…`) and are clean
 *   only when the hash equals the index's object id. Everything else is dirty;
 * - walks the project's folders for untracked files with `.gitignore` rules (every `.gitignore`
 *   from the top of the work tree down, `.git/info/exclude`, the global excludes file);
 * - keeps a tree file: every clean entry's object id, git mode and `lstat` facts (size, full
 *   mode, mtime, ctime, inode), and every folder's facts.
 * `scanEnd` `lstat`s the same entries and folders against that tree file: a clean entry whose
 * facts are unchanged (and were not racy at begin) is unchanged; one whose facts changed is
 * hashed, and it changed when its bytes or its permission bits (any of the 0o7777, not only the
 * executable bit) differ. Only folders whose facts changed are read again, for created files.
 * Whatever the command did to `.git` (checkout, stash, reset, commit) does not matter: the end
 * compares against what the begin saw.
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
  /** Every folder of the project the begin read (project path, `''` for the project folder). */
  folders: TreeRow[];
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
 */
export function scanBegin(projectRoot: string, location: GitLocation): ScanBegin | { unsupported: string } {
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
  const beginMs = Date.now();
  const indexSec = indexStats === undefined ? 0 : Math.floor(indexStats.mtimeMs / 1000);
  const { prefix } = location;
  const rootSlash = projectRoot.endsWith('/') ? projectRoot : `${projectRoot}/`;
  const tracked = new Set<string>();
  const trackedFolders = new Set<string>();
  const own = new Map<string, EntryFacts>();
  const ignored = new Map<string, EntryFacts>();
  const tree: ScanTree = { beginMs, clean: [], oids: [], gitModes: [], folders: [], known: [], ignored: [] };
  for (const entry of parsed.entries) {
    if (!entry.path.startsWith(prefix)) continue;
    const path = entry.path.slice(prefix.length);
    if (entry.gitMode === 0o160000) return { unsupported: `${path} is a submodule` };
    if (path === '.gitattributes' || path.endsWith('/.gitattributes')) return { unsupported: `${path} sets attributes` };
    tracked.add(path);
    for (let slash = path.lastIndexOf('/'); slash !== -1; slash = path.lastIndexOf('/', slash - 1)) {
      const folder = path.slice(0, slash);
      if (trackedFolders.has(folder)) break;
      trackedFolders.add(folder);
    }
    const absolute = rootSlash + path;
    const stats = lstatQuiet(absolute);
    if (stats === undefined) {
      own.set(path, MISSING_FACTS);
      continue;
    }
    if (stats.isDirectory()) continue;
    const facts = factsOf(stats);
    const racy = indexSec <= Math.max(entry.mtimeSec, entry.ctimeSec);
    if ((!racy && statMatches(entry, stats)) || (typeMatches(entry.gitMode, stats) && contentOid(absolute, stats, oidBytes) === entry.oid)) {
      tree.clean.push({ path, facts });
      tree.oids.push(entry.oid);
      tree.gitModes.push(entry.gitMode);
    } else {
      own.set(path, facts);
    }
  }
  const walked = walkUntracked(projectRoot, location, '', rootRules(location), (path, directory) => (directory ? trackedFolders.has(path) : tracked.has(path)), tree.folders);
  if ('unsupported' in walked) return walked;
  for (const [path, facts] of walked.own) own.set(path, facts);
  for (const [path, facts] of walked.ignored) ignored.set(path, facts);
  tree.known = [...own.keys()];
  tree.ignored = [...ignored.keys()];
  return { own, ignored, tree };
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
export function scanEnd(projectRoot: string, location: GitLocation, tree: ScanTree): ScanEnd {
  const oidBytes = (tree.oids[0]?.length ?? 40) / 2;
  const racySince = tree.beginMs - RACY_MARGIN_MS;
  const racy = (facts: EntryFacts): boolean => Math.max(facts.mtimeMs, facts.ctimeMs) >= racySince;
  const changed = new Map<string, ScanChange>();
  const rootSlash = projectRoot.endsWith('/') ? projectRoot : `${projectRoot}/`;
  const knownFiles = new Set<string>([...tree.known, ...tree.ignored]);
  tree.clean.forEach(({ path, facts: before }, index) => {
    knownFiles.add(path);
    const absolute = rootSlash + path;
    const stats = lstatQuiet(absolute);
    const oid = tree.oids[index] as string;
    const gitMode = tree.gitModes[index] as number;
    const mode = before.mode & 0o7777;
    if (stats === undefined || stats.isDirectory()) {
      changed.set(path, { blobId: oid, gitMode, mode, contentChanged: true });
      return;
    }
    const now = factsOf(stats);
    if (sameFacts(now, before) && !racy(before)) return;
    const modeChanged = now.type !== before.type || (now.mode & 0o7777) !== mode;
    const contentSame = now.type === before.type && contentOid(absolute, stats, oidBytes) === oid;
    if (contentSame && !modeChanged) return;
    changed.set(path, { blobId: oid, gitMode, mode, contentChanged: !contentSame });
  });
  const knownFolders = new Set<string>(tree.folders.map((row) => row.path));
  const isKnown = (path: string, directory: boolean): boolean => (directory ? knownFolders.has(path) || knownFiles.has(`${path}/`) : knownFiles.has(path));
  const own = new Map<string, EntryFacts>();
  const ignored = new Map<string, EntryFacts>();
  for (const path of tree.ignored) {
    const stats = lstatQuiet(join(projectRoot, path.endsWith('/') ? path.slice(0, -1) : path));
    if (stats !== undefined) ignored.set(path, factsOf(stats));
  }
  const rulesMemo = new Map<string, readonly Rules[]>();
  const rulesOf = (folder: string): readonly Rules[] => {
    const memo = rulesMemo.get(folder);
    if (memo !== undefined) return memo;
    const slash = folder.lastIndexOf('/');
    const parent = folder === '' ? rootRules(location) : rulesOf(slash === -1 ? '' : folder.slice(0, slash));
    const own = folder === '' ? parent : withGitignore(parent, projectRoot, location, folder);
    rulesMemo.set(folder, own);
    return own;
  };
  for (const { path: folder, facts: before } of tree.folders) {
    const stats = lstatQuiet(folder === '' ? projectRoot : join(projectRoot, folder));
    if (stats === undefined || !stats.isDirectory()) continue;
    if (sameFacts(factsOf(stats), before) && !racy(before)) continue;
    // Read the folder again: anything not listed at begin is new. New folders are walked whole.
    const walked = walkUntracked(projectRoot, location, folder, rulesOf(folder), isKnown, [], true);
    if ('unsupported' in walked) continue;
    for (const [path, facts] of walked.own) own.set(path, facts);
    for (const [path, facts] of walked.ignored) ignored.set(path, facts);
  }
  return { own, ignored, changed };
}

/**
 * Walk `folder` (a project path) for files `isKnown` does not claim: not ignored ones go to `own`,
 * ignored ones (and folders ignored whole, key ending with `/`) to `ignored`. Known folders are
 * entered (unless `shallow`, when only unknown ones are); every folder entered is pushed to
 * `folders`. A folder holding `.git` that is not known (a nested repository) is skipped, as git
 * lists it without entering it.
 */
function walkUntracked(
  projectRoot: string,
  location: GitLocation,
  folder: string,
  inherited: readonly Rules[],
  isKnown: (path: string, directory: boolean) => boolean,
  folders: TreeRow[],
  shallow = false,
): { own: Map<string, EntryFacts>; ignored: Map<string, EntryFacts> } | { unsupported: string } {
  const own = new Map<string, EntryFacts>();
  const ignored = new Map<string, EntryFacts>();
  const visit = (current: string, rules: readonly Rules[], insideIgnored: boolean, onlyUnknown: boolean): void => {
    const absoluteFolder = current === '' ? projectRoot : join(projectRoot, current);
    const stats = lstatQuiet(absoluteFolder);
    if (stats === undefined || !stats.isDirectory()) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(absoluteFolder, { withFileTypes: true });
    } catch {
      return;
    }
    if (!onlyUnknown) folders.push({ path: current, facts: factsOf(stats) });
    const here = current === '' || entries.every((entry) => entry.name !== '.gitignore') ? rules : withGitignore(rules, projectRoot, location, current);
    for (const entry of entries) {
      const name = entry.name;
      if (name === '.git' && current === '' && location.prefix === '') continue;
      const path = current === '' ? name : `${current}/${name}`;
      const directory = entry.isDirectory();
      const topPath = location.prefix + path;
      if (directory) {
        const knownFolder = isKnown(path, true);
        if (knownFolder && onlyUnknown) continue;
        const folderIgnored = insideIgnored || isIgnored(here, topPath, true);
        if (!knownFolder) {
          if (folderIgnored) {
            const facts = lstatQuiet(join(projectRoot, path));
            if (facts !== undefined) ignored.set(`${path}/`, factsOf(facts));
            continue;
          }
          if (existsSync(join(projectRoot, path, '.git'))) continue;
        }
        visit(path, here, folderIgnored, onlyUnknown && knownFolder);
        continue;
      }
      if (isKnown(path, false)) continue;
      const facts = lstatQuiet(join(projectRoot, path));
      if (facts === undefined || facts.isDirectory()) continue;
      if (insideIgnored || isIgnored(here, topPath, false)) ignored.set(path, factsOf(facts));
      else own.set(path, factsOf(facts));
    }
  };
  visit(folder, inherited, false, shallow);
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

/** `lstat`, undefined when nothing is there (or a folder on the way is a file). */
function lstatQuiet(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** Whether `stats` is the kind of file `gitMode` names (and, for a regular file, has its executable bit). */
function typeMatches(gitMode: number, stats: Stats): boolean {
  if (gitMode === 0o120000) return stats.isSymbolicLink();
  if (gitMode !== 0o100644 && gitMode !== 0o100755) return false;
  return stats.isFile() && ((stats.mode & 0o100) !== 0) === (gitMode === 0o100755);
}

/** Git's stat check: the index's stat data equals the file's (times to the nanosecond). */
function statMatches(entry: IndexFileEntry, stats: Stats): boolean {
  return (
    stats.mtimeMs === entry.mtimeSec * 1e3 + entry.mtimeNsec / 1e6 &&
    stats.ctimeMs === entry.ctimeSec * 1e3 + entry.ctimeNsec / 1e6 &&
    stats.size % 2 ** 32 === entry.size &&
    stats.ino % 2 ** 32 === entry.ino &&
    stats.uid === entry.uid &&
    stats.gid === entry.gid &&
    typeMatches(entry.gitMode, stats)
  );
}

/** The git object id of the file's bytes (a symlink: its target), or undefined when it cannot be read. */
function contentOid(absolute: string, stats: Stats, oidBytes: number): string | undefined {
  const hash = createHash(oidBytes === 32 ? 'sha256' : 'sha1');
  try {
    if (stats.isSymbolicLink()) {
      const target = readlinkSync(absolute, { encoding: 'buffer' });
      return hash.update(`blob ${target.length}\0`).update(target).digest('hex');
    }
    if (!stats.isFile()) return undefined;
    const fd = openSync(absolute, 'r');
    try {
      const buffer = Buffer.allocUnsafe(Math.min(HASH_CHUNK, Math.max(stats.size, 1)));
      hash.update(`blob ${stats.size}\0`);
      let total = 0;
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, null);
        if (read === 0) break;
        hash.update(buffer.subarray(0, read));
        total += read;
      }
      // A file that changed size while being read is not the blob.
      return total === stats.size ? hash.digest('hex') : undefined;
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
 * padding to 8, six float64 per row (type, size, mode, mtime, ctime, inode: clean rows then
 * folders), then the clean paths, folder paths and object ids joined by NUL.
 */
export function writeTree(file: string, tree: ScanTree): void {
  const rows = [...tree.clean, ...tree.folders];
  const numbers = new Float64Array(rows.length * 6);
  rows.forEach(({ facts }, index) => {
    numbers.set([TYPES.indexOf(facts.type), facts.size, facts.mode, facts.mtimeMs, facts.ctimeMs, facts.ino], index * 6);
  });
  const header = Buffer.from(JSON.stringify({ version: TREE_FILE_VERSION, beginMs: tree.beginMs, clean: tree.clean.length, folders: tree.folders.length, gitModes: tree.gitModes, known: tree.known, ignored: tree.ignored }));
  const headerEnd = 4 + header.length;
  const numbersStart = (headerEnd + 7) & ~7;
  const text = Buffer.from([...tree.clean.map((row) => row.path), ...tree.folders.map((row) => row.path), ...tree.oids].join('\0'));
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
    const header = JSON.parse(bytes.toString('utf8', 4, 4 + headerLength)) as { version: number; beginMs: number; clean: number; folders: number; gitModes: number[]; known: string[]; ignored: string[] };
    if (header.version !== TREE_FILE_VERSION) throw new Error(`version ${header.version}`);
    const numbersStart = (4 + headerLength + 7) & ~7;
    const rows = header.clean + header.folders;
    const numbers = new Float64Array(bytes.buffer.slice(bytes.byteOffset + numbersStart, bytes.byteOffset + numbersStart + rows * 48));
    const text = bytes.toString('utf8', numbersStart + rows * 48).split('\0');
    const row = (index: number): TreeRow => {
      const at = index * 6;
      return { path: text[index] as string, facts: { type: TYPES[numbers[at] as number] as EntryFacts['type'], size: numbers[at + 1] as number, mode: numbers[at + 2] as number, mtimeMs: numbers[at + 3] as number, ctimeMs: numbers[at + 4] as number, ino: numbers[at + 5] as number } };
    };
    const clean = Array.from({ length: header.clean }, (_, index) => row(index));
    const folders = Array.from({ length: header.folders }, (_, index) => row(header.clean + index));
    const oids = text.slice(rows, rows + header.clean);
    if (oids.length !== header.clean || header.gitModes.length !== header.clean) throw new Error('the counts do not match');
    return { beginMs: header.beginMs, clean, oids, gitModes: header.gitModes, folders, known: header.known, ignored: header.ignored };
  } catch (error) {
    throw new Error(`command window tree file ${file} is not one fh wrote (${error instanceof Error ? error.message : String(error)}): end the window again after removing it, or begin a new one`);
  }
}

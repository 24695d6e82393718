/**
 * `NodeCommandProbe`: the `CommandProbe` of `@fh/core`'s command window for real projects.
 *
 * In a git work tree (`git rev-parse` succeeds in the project folder):
 * - `begin` copies the index (`git rev-parse --git-path index`) to `{stateDir}/{windowId}.index`
 *   and runs `git status --porcelain=v2 -z --untracked-files=all --ignored=matching` against that
 *   copy (`GIT_INDEX_FILE`), limited to the project folder: dirty and untracked files are the
 *   ones fh backs up itself, ignored ones are listed for the report; clean files are not touched;
 * - `end` runs the same status against the same saved copy, so files whose bytes, executable bit
 *   or presence differ from the index *as it was before the command* are named with their blob
 *   id, whatever the command did to the real index (`checkout`, `stash`, `reset --hard`, `commit`);
 * - `materializeBlobs` writes the blobs of files the command really changed to
 *   `{stateDir}/{windowId}.blob-{n}` with one `git cat-file --batch`.
 * Outside a git work tree, `begin` and `end` walk the project folder with `.gitignore` rules
 * (every `.gitignore` on the way, through the `ignore` package; `.git` folders always skipped).
 *
 * Layout of `stateDir` (one folder per session): `{windowId}.index`, `{windowId}.blob-{n}`; all
 * removed by `release`. Nothing is written into the project or its `.git`.
 */
import type { BlobRequest, CommandProbe, EntryFacts, JsonValue, MaterializedBlob, ProbeBegin, ProbeEnd } from '@fh/core';
import { factsOf, MISSING_FACTS } from '@fh/core';
import { lstatSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { parseStatus, readBlobs, runGit, type StatusEntry } from './git.js';

/** Options of {@link NodeCommandProbe}. */
export interface NodeCommandProbeOptions {
  /** Absolute folder for the saved index and written blobs (created when needed). */
  stateDir: string;
  /** The git binary. Default `git` (from PATH). */
  gitBinary?: string;
  /** The umask files are checked out with, for {@link NodeCommandProbe.checkoutMode}. Default: this process's. */
  umask?: number;
}

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

/** Folders a walk never enters, whatever the ignore files say. */
const ALWAYS_SKIPPED = new Set(['.git']);

/** See the top of this file. */
export class NodeCommandProbe implements CommandProbe {
  private readonly stateDir: string;
  private readonly gitBinary: string;
  private readonly umask: number;

  constructor(options: NodeCommandProbeOptions) {
    if (typeof options?.stateDir !== 'string' || !isAbsolute(options.stateDir)) {
      throw new Error(`NodeCommandProbe needs an absolute stateDir, got ${JSON.stringify(options?.stateDir)}`);
    }
    this.stateDir = options.stateDir;
    this.gitBinary = options.gitBinary ?? 'git';
    this.umask = options.umask ?? process.umask();
  }

  async begin(projectRoot: string, windowId: string): Promise<ProbeBegin> {
    const located = this.locateRepository(projectRoot);
    if (located === undefined) return { kind: 'walk', state: { kind: 'walk' }, ...walkProject(projectRoot) };
    await mkdir(this.stateDir, { recursive: true });
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
      const listing = listingOf(projectRoot, state, entries);
      return { kind: 'git', state: state as unknown as JsonValue, own: listing.own, ignored: listing.ignored };
    } catch (error) {
      await rm(indexCopy, { force: true });
      throw error;
    }
  }

  async end(projectRoot: string, _windowId: string, state: JsonValue): Promise<ProbeEnd> {
    const saved = state as unknown as GitState | { kind: 'walk' };
    if (saved.kind === 'walk') return { ...walkProject(projectRoot), indexChanged: new Map() };
    const entries = await this.status(projectRoot, saved);
    const listing = listingOf(projectRoot, saved, entries);
    const indexChanged = new Map<string, { blobId: string; gitMode: number }>();
    for (const entry of entries) {
      if (entry.kind !== 'changed' || entry.worktree === '.' || entry.indexMode === 0) continue;
      const path = projectPath(saved, entry.path);
      if (path !== undefined) indexChanged.set(path, { blobId: entry.indexBlob, gitMode: entry.indexMode });
    }
    for (const path of indexChanged.keys()) if (listing.own.get(path)?.type === 'missing') listing.own.delete(path);
    return { own: listing.own, ignored: listing.ignored, indexChanged };
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
   * submodules have), found without starting git. The index is `index` in that git folder.
   */
  private locateRepository(projectRoot: string): { top: string; prefix: string; index: string } | undefined {
    let top = projectRoot;
    for (;;) {
      const dotGit = join(top, '.git');
      const stats = lstatSync(dotGit, { throwIfNoEntry: false });
      if (stats?.isDirectory() === true) return { top, prefix: prefixOf(top, projectRoot), index: join(dotGit, 'index') };
      if (stats?.isFile() === true) {
        const match = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'));
        if (match !== null) return { top, prefix: prefixOf(top, projectRoot), index: join(resolve(top, (match[1] as string).trim()), 'index') };
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

/** The facts of `path` (lstat), or undefined when nothing is there. */
function lstatFacts(path: string): EntryFacts | undefined {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  return stats === undefined ? undefined : factsOf(stats);
}

/** One folder's ignore rules: the folder (relative to the project, `''` at the top) and its `.gitignore`. */
interface Rules {
  base: string;
  rules: Ignore;
}

/**
 * Walk the project: every file (regular files and symlinks, never followed) that no `.gitignore`
 * on the way ignores goes to `own`; ignored files and folders to `ignored` (folders are not
 * entered; their key ends with `/`).
 */
export function walkProject(projectRoot: string): { own: Map<string, EntryFacts>; ignored: Map<string, EntryFacts> } {
  const own = new Map<string, EntryFacts>();
  const ignored = new Map<string, EntryFacts>();
  const visit = (folder: string, inherited: readonly Rules[]): void => {
    const absoluteFolder = folder === '' ? projectRoot : join(projectRoot, folder);
    let entries: Dirent[];
    try {
      entries = readdirSync(absoluteFolder, { withFileTypes: true });
    } catch {
      return;
    }
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
  return { own, ignored };
}

/**
 * Whether the rule sets on the way ignore `path` (a folder is tested with a trailing `/`): as in
 * git, a deeper `.gitignore` overrides a shallower one, and a `!pattern` there un-ignores.
 */
function isIgnored(rules: readonly Rules[], path: string, directory: boolean): boolean {
  let ignored = false;
  for (const { base, rules: set } of rules) {
    const relativePath = base === '' ? path : path.slice(base.length + 1);
    const verdict = set.test(directory ? `${relativePath}/` : relativePath);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}

/**
 * Every file and folder of a project with its `lstat`, for the command window's git scan
 * (`git-scan.ts`): one GNU `find -printf` run where the system has one (the `lstat`s of a whole
 * tree run in C, several times faster than as many `lstatSync` calls, which each build a `Stats`
 * object with four `Date`s), else a walk in-process (`readdirSync` + `lstatSync`, BigInt times).
 * Both give the same facts, to the nanosecond, and neither follows a symbolic link.
 *
 * Folders named `.git` (the repository's own, a nested repository's) are never entered; the
 * folders they sit in are reported in `nestedRepositories`. Folders in `prune` are listed
 * (with their facts) but not entered.
 */
import type { EntryFacts } from '@fh/core';
import { execFile } from 'node:child_process';
import { lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';

/** One listed path: its facts (as `factsOf` gives them) and the raw stat fields git's index keeps. */
export interface ListedEntry {
  facts: EntryFacts;
  uid: number;
  gid: number;
  mtimeSec: number;
  mtimeNsec: number;
  ctimeSec: number;
  ctimeNsec: number;
}

/** {@link listTree}'s answer. Paths are relative to the project folder, `/` separators, parents before children. */
export interface TreeListing {
  entries: Map<string, ListedEntry>;
  /** Folders holding a `.git` (the project folder itself is `''`). */
  nestedRepositories: Set<string>;
  /** The folders of `prune` that were found (listed, not entered). */
  pruned: Set<string>;
}

/** File type bits of `st_mode` by `find`'s `%y` letter. */
const TYPE_BITS: Record<string, number> = { f: 0o100000, d: 0o040000, l: 0o120000, p: 0o010000, s: 0o140000, c: 0o020000, b: 0o060000 };

/** `find` output of one entry: type, size, permission bits, uid, gid, mtime, ctime, inode. */
const FIND_FORMAT = '%P\\0%y %s %m %U %G %T@ %C@ %i\\0';

/** Whether GNU find is usable here; undefined until the first listing tried it. */
let findWorks: boolean | undefined;

/** List `projectRoot` (see the top of this file). Throws only when the project folder cannot be read. */
export async function listTree(projectRoot: string, prune: ReadonlySet<string>): Promise<TreeListing> {
  if (findWorks !== false) {
    const listed = await listWithFind(projectRoot, prune);
    if (listed !== undefined) {
      findWorks = true;
      return listed;
    }
    findWorks = false;
  }
  return listInProcess(projectRoot, prune);
}

/** A `find` pattern matching exactly `path` (glob characters escaped). */
function literalPattern(path: string): string {
  return `./${path.replace(/[\\*?[\]]/g, '\\$&')}`;
}

/** The listing by GNU find, or undefined when find is missing, is not GNU, or failed. */
function listWithFind(projectRoot: string, prune: ReadonlySet<string>): Promise<TreeListing | undefined> {
  const pruneClause = prune.size === 0 ? [] : ['(', ...[...prune].flatMap((path, index) => [...(index === 0 ? [] : ['-o']), '-path', literalPattern(path)]), ')', '-printf', `P\\0${FIND_FORMAT}`, '-prune', '-o'];
  const args = ['.', '-mindepth', '1', '(', '-name', '.git', '-printf', 'G\\0%h\\0', '-prune', ')', '-o', ...pruneClause, '-printf', `E\\0${FIND_FORMAT}`];
  return new Promise((resolve) => {
    execFile('find', args, { cwd: projectRoot, encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024, env: { ...process.env, LC_ALL: 'C' } }, (error, stdout) => {
      if (error !== null) {
        resolve(undefined);
        return;
      }
      resolve(parseFind(stdout.toString('utf8')));
    });
  });
}

/** Parse {@link listWithFind}'s output; undefined when it is not what GNU find prints. */
function parseFind(text: string): TreeListing | undefined {
  const entries = new Map<string, ListedEntry>();
  const nestedRepositories = new Set<string>();
  const pruned = new Set<string>();
  const parts = text.split('\0');
  let index = 0;
  while (index < parts.length - 1) {
    const tag = parts[index];
    if (tag === 'G') {
      const folder = parts[index + 1] as string;
      nestedRepositories.add(folder === '.' ? '' : folder.startsWith('./') ? folder.slice(2) : folder);
      index += 2;
      continue;
    }
    if (tag !== 'E' && tag !== 'P') return undefined;
    const path = parts[index + 1] as string;
    const fields = (parts[index + 2] ?? '').split(' ');
    index += 3;
    if (fields.length !== 8) return undefined;
    const [type, size, mode, uid, gid, mtime, ctime, ino] = fields as [string, string, string, string, string, string, string, string];
    const bits = TYPE_BITS[type];
    const m = splitTime(mtime);
    const c = splitTime(ctime);
    if (m === undefined || c === undefined) return undefined;
    const facts: EntryFacts = {
      type: type === 'f' ? 'file' : type === 'l' ? 'symlink' : type === 'd' ? 'folder' : 'other',
      size: Number(size),
      mode: (bits ?? 0) | Number.parseInt(mode, 8),
      mtimeMs: m.sec * 1e3 + m.nsec / 1e6,
      ctimeMs: c.sec * 1e3 + c.nsec / 1e6,
      ino: Number(ino),
    };
    entries.set(path, { facts, uid: Number(uid), gid: Number(gid), mtimeSec: m.sec, mtimeNsec: m.nsec, ctimeSec: c.sec, ctimeNsec: c.nsec });
    if (tag === 'P') pruned.add(path);
  }
  return { entries, nestedRepositories, pruned };
}

/** `%T@` (`seconds.fraction`, up to 10 digits) as seconds and nanoseconds. */
function splitTime(text: string): { sec: number; nsec: number } | undefined {
  const dot = text.indexOf('.');
  if (dot === -1) return undefined;
  const sec = Number(text.slice(0, dot));
  const nsec = Number(text.slice(dot + 1, dot + 10).padEnd(9, '0'));
  return Number.isFinite(sec) && Number.isFinite(nsec) ? { sec, nsec } : undefined;
}

/** The same listing with `readdirSync` and BigInt `lstatSync`. */
function listInProcess(projectRoot: string, prune: ReadonlySet<string>): TreeListing {
  const entries = new Map<string, ListedEntry>();
  const nestedRepositories = new Set<string>();
  const pruned = new Set<string>();
  const visit = (folder: string): void => {
    let names: string[];
    try {
      names = readdirSync(folder === '' ? projectRoot : join(projectRoot, folder));
    } catch {
      return;
    }
    for (const name of names) {
      if (name === '.git') {
        nestedRepositories.add(folder);
        continue;
      }
      const path = folder === '' ? name : `${folder}/${name}`;
      let stats: BigIntStats | undefined;
      try {
        stats = lstatSync(join(projectRoot, path), { bigint: true, throwIfNoEntry: false });
      } catch {
        stats = undefined;
      }
      if (stats === undefined) continue;
      entries.set(path, listedOf(stats));
      if (!stats.isDirectory()) continue;
      if (prune.has(path)) pruned.add(path);
      else visit(path);
    }
  };
  visit('');
  return { entries, nestedRepositories, pruned };
}

/** A {@link ListedEntry} from BigInt `lstat` fields (facts equal to `factsOf` of a plain `lstat`). */
function listedOf(stats: BigIntStats): ListedEntry {
  const mtimeSec = Number(stats.mtimeNs / 1_000_000_000n);
  const mtimeNsec = Number(stats.mtimeNs % 1_000_000_000n);
  const ctimeSec = Number(stats.ctimeNs / 1_000_000_000n);
  const ctimeNsec = Number(stats.ctimeNs % 1_000_000_000n);
  const type = stats.isSymbolicLink() ? 'symlink' : stats.isFile() ? 'file' : stats.isDirectory() ? 'folder' : 'other';
  return {
    facts: { type, size: Number(stats.size), mode: Number(stats.mode), mtimeMs: mtimeSec * 1e3 + mtimeNsec / 1e6, ctimeMs: ctimeSec * 1e3 + ctimeNsec / 1e6, ino: Number(stats.ino) },
    uid: Number(stats.uid),
    gid: Number(stats.gid),
    mtimeSec,
    mtimeNsec,
    ctimeSec,
    ctimeNsec,
  };
}

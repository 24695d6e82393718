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
      resolve(parseFind(stdout));
    });
  });
}

/**
 * Parse {@link listWithFind}'s output, byte by byte (no substring per field: a listing of 100,000
 * files is parsed without building a million small strings); undefined when it is not what GNU
 * find prints.
 */
function parseFind(bytes: Buffer): TreeListing | undefined {
  const entries = new Map<string, ListedEntry>();
  const nestedRepositories = new Set<string>();
  const pruned = new Set<string>();
  const length = bytes.length;
  let at = 0;
  /** The NUL-terminated string at `at` (moves past the NUL). */
  const text = (): string | undefined => {
    const end = bytes.indexOf(0, at);
    if (end === -1) return undefined;
    const value = bytes.toString('utf8', at, end);
    at = end + 1;
    return value;
  };
  /** A decimal integer at `at`, then one separator byte (moves past it); NaN when there is none. */
  const integer = (): number => {
    let value = 0;
    let digits = 0;
    for (; at < length; at += 1) {
      const code = bytes[at] as number;
      if (code < 48 || code > 57) break;
      value = value * 10 + (code - 48);
      digits += 1;
    }
    at += 1;
    return digits === 0 ? Number.NaN : value;
  };
  /** `%T@` at `at`: whole seconds, then up to 10 fraction digits read as nanoseconds (9 used). */
  const time = (): { sec: number; nsec: number } => {
    const sec = integer();
    let nsec = 0;
    let digits = 0;
    for (; at < length; at += 1) {
      const code = bytes[at] as number;
      if (code < 48 || code > 57) break;
      if (digits < 9) nsec = nsec * 10 + (code - 48);
      digits += 1;
    }
    for (; digits < 9; digits += 1) nsec *= 10;
    at += 1;
    return { sec, nsec };
  };
  while (at < length) {
    const tag = bytes[at];
    at += 2;
    if (tag === 0x47 /* G */) {
      const folder = text();
      if (folder === undefined) return undefined;
      nestedRepositories.add(folder === '.' ? '' : folder.startsWith('./') ? folder.slice(2) : folder);
      continue;
    }
    if (tag !== 0x45 /* E */ && tag !== 0x50 /* P */) return undefined;
    const path = text();
    if (path === undefined || at >= length) return undefined;
    const letter = String.fromCharCode(bytes[at] as number);
    at += 2;
    const size = integer();
    let permissions = 0;
    for (; at < length && (bytes[at] as number) >= 48 && (bytes[at] as number) <= 55; at += 1) permissions = permissions * 8 + ((bytes[at] as number) - 48);
    at += 1;
    const uid = integer();
    const gid = integer();
    const m = time();
    const c = time();
    const ino = integer();
    if (bytes[at - 1] !== 0 || Number.isNaN(size + uid + gid + ino + m.sec + c.sec)) return undefined;
    const facts: EntryFacts = {
      type: letter === 'f' ? 'file' : letter === 'l' ? 'symlink' : letter === 'd' ? 'folder' : 'other',
      size,
      mode: (TYPE_BITS[letter] ?? 0) | permissions,
      mtimeMs: m.sec * 1e3 + m.nsec / 1e6,
      ctimeMs: c.sec * 1e3 + c.nsec / 1e6,
      ino,
    };
    entries.set(path, { facts, uid, gid, mtimeSec: m.sec, mtimeNsec: m.nsec, ctimeSec: c.sec, ctimeNsec: c.nsec });
    if (tag === 0x50) pruned.add(path);
  }
  return { entries, nestedRepositories, pruned };
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

/**
 * Every file and folder of a project with its `lstat`, for the command window's git scan
 * (`git-scan.ts`): one GNU `find -printf` run where the system has one (the `lstat`s of a whole
 * tree run in C, in another process, several times faster than as many `lstatSync` calls, which
 * each build a `Stats` object with four `Date`s), else a walk in-process (`readdirSync` +
 * `lstatSync`, BigInt times). Both give the same facts, to the nanosecond, and neither follows a
 * symbolic link.
 *
 * `find`'s output is parsed as it arrives (while find goes on listing), byte by byte, into flat
 * typed arrays: per entry one path string and one `Map` slot, no object and no substring per
 * field, so a listing of 100,000 files costs a few allocations per file.
 *
 * Folders named `.git` (the repository's own, a nested repository's) are never entered; the
 * folders they sit in are reported in `nestedRepositories`. Folders in `prune` are listed
 * (with their facts) but not entered.
 *
 * A listing stops with {@link ScanLimitError} once it has more entries than `limits.maxEntries`
 * or runs past `limits.deadline`, so a project folder of `/` or a home folder never blocks a
 * hook for minutes.
 */
import { SCAN_LIMIT_CODE, type EntryFacts } from '@fh/core';
import { spawn } from 'node:child_process';
import { lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';

/** Type codes of {@link TreeListing.types}. */
export const TYPE_FILE = 0;
export const TYPE_SYMLINK = 1;
export const TYPE_FOLDER = 2;
export const TYPE_OTHER = 3;

/** The {@link EntryFacts} type of each type code. */
export const TYPE_NAMES: ReadonlyArray<EntryFacts['type']> = ['file', 'symlink', 'folder', 'other'];

/** Numbers per entry in {@link TreeListing.numbers}, and the offset of each. */
export const STRIDE = 11;
export const N_SIZE = 0;
export const N_MODE = 1;
export const N_MTIME_MS = 2;
export const N_CTIME_MS = 3;
export const N_INO = 4;
export const N_UID = 5;
export const N_GID = 6;
export const N_MTIME_SEC = 7;
export const N_MTIME_NSEC = 8;
export const N_CTIME_SEC = 9;
export const N_CTIME_NSEC = 10;

/**
 * {@link listTree}'s answer. Paths are relative to the project folder, `/` separators, parents
 * before children. Entry `i` has path `paths[i]`, type `types[i]` and the numbers
 * `numbers[i * STRIDE + N_…]` (size in bytes, `st_mode`, mtime and ctime in ms since the epoch as
 * `factsOf` gives them, inode, uid, gid, and the times as git's index keeps them: seconds and
 * nanoseconds).
 */
export interface TreeListing {
  count: number;
  paths: string[];
  types: Uint8Array;
  numbers: Float64Array;
  /** Entry number by path. */
  indexOf: Map<string, number>;
  /** Folders holding a `.git` (the project folder itself is `''`). */
  nestedRepositories: Set<string>;
  /** The folders of `prune` that were found (listed, not entered). */
  pruned: Set<string>;
}

/** How far a listing may go before it stops with {@link ScanLimitError}. */
export interface ListingLimits {
  /** Most entries (files and folders) listed. */
  maxEntries: number;
  /** Time (ms since the epoch) past which the listing stops. */
  deadline: number;
}

/** A listing stopped at {@link ListingLimits}: the project folder is too large to scan. */
export class ScanLimitError extends Error {
  readonly code = SCAN_LIMIT_CODE;
  constructor(
    message: string,
    /** Entries listed before the listing stopped. */
    readonly listed: number,
  ) {
    super(message);
    this.name = 'ScanLimitError';
  }
}

/** The facts of entry `i` (a new object, as `factsOf` of its `lstat` would give). */
export function factsAt(listing: TreeListing, i: number): EntryFacts {
  const at = i * STRIDE;
  const numbers = listing.numbers;
  return {
    type: TYPE_NAMES[listing.types[i] as number] as EntryFacts['type'],
    size: numbers[at + N_SIZE] as number,
    mode: numbers[at + N_MODE] as number,
    mtimeMs: numbers[at + N_MTIME_MS] as number,
    ctimeMs: numbers[at + N_CTIME_MS] as number,
    ino: numbers[at + N_INO] as number,
  };
}

/** File type bits of `st_mode` for `find`'s `%y` letter (a byte). */
function typeBits(letter: number): number {
  switch (letter) {
    case 0x66 /* f */:
      return 0o100000;
    case 0x64 /* d */:
      return 0o040000;
    case 0x6c /* l */:
      return 0o120000;
    case 0x70 /* p */:
      return 0o010000;
    case 0x73 /* s */:
      return 0o140000;
    case 0x63 /* c */:
      return 0o020000;
    case 0x62 /* b */:
      return 0o060000;
    default:
      return 0;
  }
}

/** `find` output of one entry: type, size, permission bits, uid, gid, mtime, ctime, inode. */
const FIND_FORMAT = '%P\\0%y %s %m %U %G %T@ %C@ %i\\0';

/** The numbers of the record being parsed (see {@link parseFind}). */
export const fields = new Float64Array(9);

/** Whether GNU find is usable here; undefined until the first listing tried it. */
let findWorks: boolean | undefined;

/**
 * List `projectRoot` (see the top of this file). `expected`: about how many entries there will
 * be (sizes the arrays). Throws {@link ScanLimitError} past `limits`, and only otherwise when
 * the project folder cannot be read.
 */
export async function listTree(projectRoot: string, prune: ReadonlySet<string>, limits: ListingLimits, expected = 1024): Promise<TreeListing> {
  if (findWorks !== false) {
    const builder = new Builder(expected);
    if (await streamFind(projectRoot, prune, limits, builder)) {
      findWorks = true;
      return builder.done();
    }
    findWorks = false;
  }
  return listInProcess(projectRoot, prune, limits, expected);
}

/** The error of a listing of `projectRoot` past `limits` after `listed` entries. */
export function limitError(projectRoot: string, listed: number, limits: ListingLimits): ScanLimitError {
  const why = listed > limits.maxEntries ? `it holds more than ${limits.maxEntries} files and folders (maxScanEntries)` : `listing it took longer than the scan's time limit (maxScanMs; ${listed} files and folders listed by then)`;
  return new ScanLimitError(`the project folder ${projectRoot} is too large to scan for a command window: ${why}; the command's changes are not captured: run the agent in a smaller project folder, or raise the limit`, listed);
}

/**
 * Where {@link streamFind} puts each record: `entry` for a file or folder (`tag` `E`, or `P` for a
 * pruned folder), its type code, and its path as `bytes[pathStart, pathEnd)` (valid only during
 * the call); its numbers are in {@link fields} (size, `st_mode`, uid, gid, mtime seconds and
 * nanoseconds, ctime seconds and nanoseconds, inode). `nested`: a folder holding a `.git`.
 * `count`: entries taken so far (checked against the limits).
 */
export interface FindSink {
  count: number;
  entry(tag: number, type: number, bytes: Buffer, pathStart: number, pathEnd: number): void;
  nested(folder: string): void;
}

/** Tag of a listed entry, and of a pruned folder (listed, not entered). */
export const TAG_ENTRY = 0x45;
export const TAG_PRUNED = 0x50;

/** A growing listing (the {@link FindSink} of {@link listTree}). */
export class Builder implements FindSink {
  count = 0;
  paths: string[] = [];
  types: Uint8Array;
  numbers: Float64Array;
  indexOf = new Map<string, number>();
  nestedRepositories = new Set<string>();
  pruned = new Set<string>();

  constructor(expected: number) {
    const capacity = Math.max(64, expected);
    this.types = new Uint8Array(capacity);
    this.numbers = new Float64Array(capacity * STRIDE);
  }

  /** Make room for one more entry; returns its number. */
  next(): number {
    const i = this.count;
    if (i === this.types.length) {
      const types = new Uint8Array(i * 2);
      types.set(this.types);
      this.types = types;
      const numbers = new Float64Array(i * 2 * STRIDE);
      numbers.set(this.numbers);
      this.numbers = numbers;
    }
    this.count = i + 1;
    return i;
  }

  add(i: number, path: string): void {
    this.paths.push(path);
    this.indexOf.set(path, i);
  }

  entry(tag: number, type: number, bytes: Buffer, pathStart: number, pathEnd: number): void {
    this.entryAt(tag, type, bytes.toString('utf8', pathStart, pathEnd));
  }

  /** {@link entry} with the path already decoded. */
  entryAt(tag: number, type: number, path: string): void {
    const i = this.next();
    this.types[i] = type;
    storeFields(this.numbers, i * STRIDE, type);
    this.add(i, path);
    if (tag === TAG_PRUNED) this.pruned.add(path);
  }

  nested(folder: string): void {
    this.nestedRepositories.add(folder);
  }

  done(): TreeListing {
    return { count: this.count, paths: this.paths, types: this.types, numbers: this.numbers, indexOf: this.indexOf, nestedRepositories: this.nestedRepositories, pruned: this.pruned };
  }
}

/** A `find` pattern matching exactly `path` (glob characters escaped). */
function literalPattern(path: string): string {
  return `./${path.replace(/[\\*?[\]]/g, '\\$&')}`;
}

/** The type code of `find`'s `%y` letter. */
function typeCode(letter: number): number {
  return letter === 0x66 /* f */ ? TYPE_FILE : letter === 0x6c /* l */ ? TYPE_SYMLINK : letter === 0x64 /* d */ ? TYPE_FOLDER : TYPE_OTHER;
}

/**
 * Run GNU find over `projectRoot` and parse its output as it streams in, into `sink`. Resolves
 * true when the whole listing went into `sink`, false when find is missing, is not GNU, printed
 * something else, or failed (what `sink` got is then partial: discard it). Rejects with
 * {@link ScanLimitError} past `limits` (find is killed).
 */
export function streamFind(projectRoot: string, prune: ReadonlySet<string>, limits: ListingLimits, sink: FindSink): Promise<boolean> {
  const pruneClause = prune.size === 0 ? [] : ['(', ...[...prune].flatMap((path, index) => [...(index === 0 ? [] : ['-o']), '-path', literalPattern(path)]), ')', '-printf', `P\\0${FIND_FORMAT}`, '-prune', '-o'];
  const args = ['.', '-mindepth', '1', '(', '-name', '.git', '-printf', 'G\\0%h\\0', '-prune', ')', '-o', ...pruneClause, '-printf', `E\\0${FIND_FORMAT}`];
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn('find', args, { cwd: projectRoot, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      resolve(false);
      return;
    }
    let carry: Buffer | undefined;
    let failed = false;
    let stopped: ScanLimitError | undefined;
    const timer = setTimeout(() => stop(), Math.max(0, limits.deadline - Date.now()));
    const stop = (): void => {
      if (stopped !== undefined || failed) return;
      stopped = limitError(projectRoot, sink.count, limits);
      child.kill('SIGKILL');
    };
    child.on('error', () => {
      failed = true;
      clearTimeout(timer);
      resolve(false);
    });
    const fail = (): void => {
      failed = true;
      child.kill('SIGKILL');
    };
    child.stdout.on('data', (data: Buffer) => {
      if (failed || stopped !== undefined) return;
      let chunk = data;
      // The record cut by the last chunk's end: joined with just enough of this chunk to end it
      // (not the whole chunk, which would copy the listing once more).
      for (let take = 1024; carry !== undefined; take *= 4) {
        const joined = Buffer.concat([carry, chunk.subarray(0, take)]);
        const at = parseFind(joined, sink);
        if (at < 0) return fail();
        if (at > carry.length) {
          chunk = chunk.subarray(at - carry.length);
          carry = undefined;
        } else if (take >= chunk.length) {
          carry = joined;
          return undefined;
        }
      }
      const at = parseFind(chunk, sink);
      if (at < 0) return fail();
      carry = at === chunk.length ? undefined : Buffer.from(chunk.subarray(at));
      if (sink.count > limits.maxEntries || Date.now() > limits.deadline) stop();
      return undefined;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      // A listing that ends past the deadline is refused as one stopped there (the timer may not have run yet).
      if (stopped === undefined && !failed && Date.now() > limits.deadline) stopped = limitError(projectRoot, sink.count, limits);
      if (stopped !== undefined) reject(stopped);
      else resolve(!failed && code === 0 && carry === undefined);
    });
  });
}

/**
 * List `projectRoot` into a sink `makeSink` makes: by {@link streamFind} where find works, else
 * in-process (each entry fed to a fresh sink as find would give it). Throws
 * {@link ScanLimitError} past `limits`.
 */
export async function listInto<S extends FindSink>(projectRoot: string, prune: ReadonlySet<string>, limits: ListingLimits, makeSink: () => S): Promise<S> {
  if (findWorks !== false) {
    const sink = makeSink();
    if (await streamFind(projectRoot, prune, limits, sink)) {
      findWorks = true;
      return sink;
    }
    findWorks = false;
  } else {
    // Let the caller finish what it prepares while find would be starting (the begin parses the
    // index its sink reads) before the in-process listing feeds the sink.
    await null;
  }
  const listing = listInProcess(projectRoot, prune, limits, 1024);
  const sink = makeSink();
  for (const folder of listing.nestedRepositories) sink.nested(folder);
  for (let i = 0; i < listing.count; i += 1) {
    const base = i * STRIDE;
    const numbers = listing.numbers;
    fields[0] = numbers[base + N_SIZE] as number;
    fields[1] = numbers[base + N_MODE] as number;
    fields[2] = numbers[base + N_UID] as number;
    fields[3] = numbers[base + N_GID] as number;
    fields[4] = numbers[base + N_MTIME_SEC] as number;
    fields[5] = numbers[base + N_MTIME_NSEC] as number;
    fields[6] = numbers[base + N_CTIME_SEC] as number;
    fields[7] = numbers[base + N_CTIME_NSEC] as number;
    fields[8] = numbers[base + N_INO] as number;
    const path = listing.paths[i] as string;
    const bytes = Buffer.from(path);
    sink.entry(listing.pruned.has(path) ? TAG_PRUNED : TAG_ENTRY, listing.types[i] as number, bytes, 0, bytes.length);
  }
  return sink;
}

/** Put {@link fields} (of an entry of type code `type`) into `numbers` from `base` on, in the order of `N_…`. */
export function storeFields(numbers: Float64Array, base: number, type: number): void {
  numbers[base + N_SIZE] = fields[0] as number;
  numbers[base + N_MODE] = fields[1] as number;
  numbers[base + N_UID] = fields[2] as number;
  numbers[base + N_GID] = fields[3] as number;
  numbers[base + N_MTIME_SEC] = fields[4] as number;
  numbers[base + N_MTIME_NSEC] = fields[5] as number;
  numbers[base + N_CTIME_SEC] = fields[6] as number;
  numbers[base + N_CTIME_NSEC] = fields[7] as number;
  numbers[base + N_INO] = fields[8] as number;
  numbers[base + N_MTIME_MS] = (fields[4] as number) * 1e3 + (fields[5] as number) / 1e6;
  numbers[base + N_CTIME_MS] = (fields[6] as number) * 1e3 + (fields[7] as number) / 1e6;
}

/** {@link fields}' mtime in ms since the epoch, as {@link storeFields} computes it. */
export function fieldsMtimeMs(): number {
  return (fields[4] as number) * 1e3 + (fields[5] as number) / 1e6;
}

/** {@link fields}' ctime in ms since the epoch, as {@link storeFields} computes it. */
export function fieldsCtimeMs(): number {
  return (fields[6] as number) * 1e3 + (fields[7] as number) / 1e6;
}

/**
 * Parse the whole records of `bytes` (find's output, see {@link streamFind}) into `sink`.
 * Returns where the first incomplete record starts (`bytes.length` when none), or -1 when the
 * bytes are not what GNU find prints.
 */
function parseFind(bytes: Buffer, sink: FindSink): number {
  const length = bytes.length;
  let record = 0;
  while (record < length) {
    if (record + 2 > length) return record;
    const tag = bytes[record];
    if (bytes[record + 1] !== 0) return -1;
    const pathStart = record + 2;
    const pathEnd = bytes.indexOf(0, pathStart);
    if (pathEnd === -1) return record;
    if (tag === 0x47 /* G */) {
      const folder = bytes.toString('utf8', pathStart, pathEnd);
      sink.nested(folder === '.' ? '' : folder.startsWith('./') ? folder.slice(2) : folder);
      record = pathEnd + 1;
      continue;
    }
    if (tag !== 0x45 /* E */ && tag !== 0x50 /* P */) return -1;
    const end = bytes.indexOf(0, pathEnd + 1);
    if (end === -1) return record;
    // Fields: %y %s %m %U %G %T@ %C@ %i, between pathEnd + 1 and end.
    let at = pathEnd + 1;
    const letter = bytes[at] as number;
    const type = typeCode(letter);
    if (bytes[at + 1] !== 0x20) return -1;
    at += 2;
    // size, permissions (octal), uid, gid, mtime sec, mtime nsec, ctime sec, ctime nsec, inode
    for (let field = 0; field < 9; field += 1) {
      const octal = field === 1;
      const fraction = field === 5 || field === 7;
      let value = 0;
      let digits = 0;
      for (; at < end; at += 1) {
        const code = bytes[at] as number;
        if (code < 48 || code > (octal ? 55 : 57)) break;
        if (fraction) {
          if (digits < 9) value = value * 10 + (code - 48);
        } else {
          value = octal ? value * 8 + (code - 48) : value * 10 + (code - 48);
        }
        digits += 1;
      }
      if (fraction) {
        for (; digits < 9; digits += 1) value *= 10;
      } else if (digits === 0) {
        return -1;
      }
      fields[field] = value;
      const separator = bytes[at];
      const timeSeconds = field === 4 || field === 6;
      if (timeSeconds) {
        if (separator === 0x2e /* . */) {
          at += 1;
          continue;
        }
        // No fraction printed: nanoseconds 0.
        field += 1;
        fields[field] = 0;
      }
      if (field < 8 ? separator !== 0x20 : at !== end) return -1;
      at += 1;
    }
    fields[1] = typeBits(letter) | (fields[1] as number);
    sink.entry(tag as number, type, bytes, pathStart, pathEnd);
    record = end + 1;
  }
  return record;
}

/** The same listing with `readdirSync` and BigInt `lstatSync`. */
function listInProcess(projectRoot: string, prune: ReadonlySet<string>, limits: ListingLimits, expected: number): TreeListing {
  const builder = new Builder(expected);
  const visit = (folder: string): void => {
    let names: string[];
    try {
      names = readdirSync(folder === '' ? projectRoot : join(projectRoot, folder));
    } catch {
      return;
    }
    if (Date.now() > limits.deadline) throw limitError(projectRoot, builder.count, limits);
    for (const name of names) {
      if (name === '.git') {
        builder.nestedRepositories.add(folder);
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
      const i = builder.next();
      if (builder.count > limits.maxEntries) throw limitError(projectRoot, builder.count, limits);
      store(builder, i, stats);
      builder.add(i, path);
      if (!stats.isDirectory()) continue;
      if (prune.has(path)) builder.pruned.add(path);
      else visit(path);
    }
  };
  visit('');
  if (Date.now() > limits.deadline) throw limitError(projectRoot, builder.count, limits);
  return builder.done();
}

/** Entry `i` from BigInt `lstat` fields (facts equal to `factsOf` of a plain `lstat`). */
function store(builder: Builder, i: number, stats: BigIntStats): void {
  const mtimeSec = Number(stats.mtimeNs / 1_000_000_000n);
  const mtimeNsec = Number(stats.mtimeNs % 1_000_000_000n);
  const ctimeSec = Number(stats.ctimeNs / 1_000_000_000n);
  const ctimeNsec = Number(stats.ctimeNs % 1_000_000_000n);
  builder.types[i] = stats.isSymbolicLink() ? TYPE_SYMLINK : stats.isFile() ? TYPE_FILE : stats.isDirectory() ? TYPE_FOLDER : TYPE_OTHER;
  const numbers = builder.numbers;
  const base = i * STRIDE;
  numbers[base + N_SIZE] = Number(stats.size);
  numbers[base + N_MODE] = Number(stats.mode);
  numbers[base + N_MTIME_MS] = mtimeSec * 1e3 + mtimeNsec / 1e6;
  numbers[base + N_CTIME_MS] = ctimeSec * 1e3 + ctimeNsec / 1e6;
  numbers[base + N_INO] = Number(stats.ino);
  numbers[base + N_UID] = Number(stats.uid);
  numbers[base + N_GID] = Number(stats.gid);
  numbers[base + N_MTIME_SEC] = mtimeSec;
  numbers[base + N_MTIME_NSEC] = mtimeNsec;
  numbers[base + N_CTIME_SEC] = ctimeSec;
  numbers[base + N_CTIME_NSEC] = ctimeNsec;
}

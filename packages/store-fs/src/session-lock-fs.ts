/**
 * The file system `proper-lockfile` takes session locks through (issue 10): a lock folder appears
 * with its holder record already inside, so no moment exists at which a lock has no owner.
 *
 * proper-lockfile takes a lock with `mkdir(lockPath)`. Here that `mkdir` makes a temp folder beside
 * it (`.{name}.fh-tmp-{hex}`), writes `holder.json` (`{"pid":…,"host":…}`) into it and renames it
 * to `lockPath`: the rename is the moment the lock is taken, and it either lands whole (folder and
 * holder) or not at all. A process killed before the rename leaves only the temp folder (removed by
 * a later lock of the same folder once older than {@link STALE_LOCK_TEMP_MS}); one killed after it
 * leaves a lock whose holder is known to be gone, which the next command takes over at once. A
 * rename onto an existing lock folder fails (`EEXIST`/`ENOTEMPTY`, reported to proper-lockfile as
 * `EEXIST`: held). A lock folder without a holder (made by an fh before this one, which wrote the
 * holder beside the folder after taking it) is checked with `lstat` just before the rename, which
 * leaves a window of microseconds in which such a legacy empty folder could be replaced.
 *
 * `rmdir` (proper-lockfile's stale takeover and release) renames the lock folder aside, then removes
 * it with its holder record: the lock goes in one step, so a process killed while releasing leaves
 * either its whole lock (holder gone: taken over at once) or none, never a folder without a holder.
 *
 * A lock that goes without its holder's own release (the exit handler of a process that ends with
 * the session still open, or a stale or dead holder's lock taken over) leaves an unclean mark
 * beside it ({@link uncleanMarkPath}) before the lock folder goes: the holder may have been
 * writing a backup, so the next holder tidies the session folder's temp files. A holder's own
 * release (`FileHistory.close`, which waits for every write) leaves none, so opening a session
 * that was closed cleanly does not list its folder.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { STORE_FILE_MODE } from './names.js';

/** Name of the holder record inside a lock folder. */
export const LOCK_HOLDER_FILE = 'holder.json';

/** A lock's temp folder older than this (ms) is a leftover of a killed process and is removed. */
export const STALE_LOCK_TEMP_MS = 60_000;

type Callback = (error: NodeJS.ErrnoException | null) => void;

/**
 * The mark beside lock folder `lockPath` saying its last holder did not release it itself (see the
 * module comment): the session folder may hold that holder's temp files.
 */
export function uncleanMarkPath(lockPath: string): string {
  return `${lockPath}.unclean`;
}

/** Leave the unclean mark of `lockPath` (errors ignored: the mark only asks for tidying). */
export function markUnclean(lockPath: string): void {
  try {
    fs.writeFileSync(uncleanMarkPath(lockPath), '', { mode: STORE_FILE_MODE });
  } catch {
    // Tidying only.
  }
}

/** Lock folders this process is releasing itself (see {@link releasingOwnLock}). */
const releasing = new Set<string>();

/**
 * Say that this process's next removal of lock folder `lockPath` is its own release (no unclean
 * mark); proper-lockfile's other removals (a stale lock taken over) leave the mark. Returns the
 * function to call once the release is over (whether or not it removed the folder).
 */
export function releasingOwnLock(lockPath: string): () => void {
  releasing.add(lockPath);
  return () => {
    releasing.delete(lockPath);
  };
}

/** Whether `name` is the temp folder of lock folder `lockName` (see the module comment). */
export function isLockTemp(name: string, lockName: string): boolean {
  return name.startsWith(`.${lockName}.fh-tmp-`);
}

/** A new temp folder name beside lock folder `lockPath`. */
export function tempBeside(lockPath: string): string {
  return join(dirname(lockPath), `.${basename(lockPath)}.fh-tmp-${randomBytes(6).toString('hex')}`);
}

function exists(error: NodeJS.ErrnoException | null): NodeJS.ErrnoException {
  return Object.assign(new Error(`EEXIST: lock folder exists${error === null ? '' : ` (${error.message})`}`), { code: 'EEXIST' });
}

/**
 * The `fs` option for proper-lockfile: `node:fs` with `mkdir` taking a lock folder together with
 * the holder record `holder` (a JSON line), and `rmdir`/`rmdirSync` removing a lock folder with
 * its record. Every other call is `node:fs`'s own.
 */
export function lockFileSystem(holder: string): typeof fs {
  const mkdir = (lockPath: string, callback: Callback) => {
    // A held lock costs one lstat, as proper-lockfile's own mkdir would: no temp folder is made.
    fs.lstat(lockPath, (held) => {
      if (held === null) return callback(exists(null));
      if (held.code !== 'ENOENT') return callback(held);
      const temp = tempBeside(lockPath);
      const fail = (error: NodeJS.ErrnoException) => fs.rm(temp, { recursive: true, force: true }, () => callback(error));
      fs.mkdir(temp, (made) => {
        if (made !== null) return callback(made);
        fs.writeFile(join(temp, LOCK_HOLDER_FILE), holder, { flag: 'wx', mode: STORE_FILE_MODE }, (written) => {
          if (written !== null) return fail(written);
          fs.lstat(lockPath, (statError) => {
            if (statError === null) return fail(exists(null));
            if (statError.code !== 'ENOENT') return fail(statError);
            // Dated now, so a process that stalled since making the folder does not put up a lock
            // that others already take for stale.
            const now = new Date();
            fs.utimes(temp, now, now, (dated) => {
              if (dated !== null) return fail(dated);
              fs.rename(temp, lockPath, (renamed) => {
                if (renamed === null) return callback(null);
                fail(renamed.code === 'EEXIST' || renamed.code === 'ENOTEMPTY' || renamed.code === 'EISDIR' ? exists(renamed) : renamed);
              });
            });
          });
        });
      });
    });
  };
  // proper-lockfile removes a lock with rmdir both on its holder's release and when it takes over
  // a stale lock: a takeover (not announced by releasingOwnLock) leaves the unclean mark first.
  const rmdir = (lockPath: string, callback: Callback) => {
    if (!releasing.delete(lockPath)) markUnclean(lockPath);
    const aside = tempBeside(lockPath);
    fs.rename(lockPath, aside, (renamed) => {
      if (renamed !== null) return callback(renamed);
      // The folder holds its holder record alone: two calls remove it (a recursive rm lists and
      // stats it first); anything else in it falls back to the recursive removal.
      fs.unlink(join(aside, LOCK_HOLDER_FILE), () => {
        fs.rmdir(aside, (removed) => {
          if (removed === null) return callback(null);
          fs.rm(aside, { recursive: true, force: true }, () => callback(null));
        });
      });
    });
  };
  // Only proper-lockfile's exit handler calls rmdirSync: the process ends with the session open.
  const rmdirSync = (lockPath: string) => {
    markUnclean(lockPath);
    const aside = tempBeside(lockPath);
    fs.renameSync(lockPath, aside);
    fs.rmSync(aside, { recursive: true, force: true });
  };
  return { ...fs, mkdir, rmdir, rmdirSync } as unknown as typeof fs;
}

/**
 * Remove the temp folders of lock folder `lockPath` (see {@link isLockTemp}) older than
 * {@link STALE_LOCK_TEMP_MS}: left by a process killed while it took the lock. Tidying only.
 */
export async function removeStaleLockTemps(lockPath: string, now = Date.now()): Promise<void> {
  const folder = dirname(lockPath);
  let names: string[];
  try {
    names = await fs.promises.readdir(folder);
  } catch {
    return;
  }
  await Promise.all(
    names
      .filter((name) => isLockTemp(name, basename(lockPath)))
      .map(async (name) => {
        const path = join(folder, name);
        const stats = await fs.promises.lstat(path).catch(() => undefined);
        if (stats?.isDirectory() === true && stats.mtimeMs < now - STALE_LOCK_TEMP_MS) await fs.promises.rm(path, { recursive: true, force: true }).catch(() => undefined);
      }),
  );
}

/**
 * Writes into the project that a symbolic link cannot redirect (issue 10). Every write, rename,
 * unlink, rmdir, mkdir and symlink of a rewind or an undo goes through a {@link ProjectFolder}: a
 * folder of the project opened from the project root down, one component at a time, never
 * following a link below the root. A folder swapped for a link at any moment then makes the
 * operations on the files in it fail (and the caller reports them); nothing lands elsewhere.
 *
 * Two modes, chosen by what the workspace file system offers:
 *
 * - `dirfd` (Linux, the real file system): each folder is opened with
 *   `O_RDONLY | O_DIRECTORY | O_NOFOLLOW` through its parent's descriptor
 *   (`/proc/self/fd/<parent>/<name>`), and every operation names `/proc/self/fd/<fd>/<name>`: a
 *   single component under a folder held open, resolved by the kernel without a path walk. A
 *   folder renamed away and replaced by a link keeps its descriptor, so writes still land in the
 *   real folder (inside the project unless the folder itself was moved out of it); the link is never
 *   followed. A component that is a link fails the open (`ENOTDIR`/`ELOOP`).
 * - `checked-paths` (memfs, platforms without `/proc/self/fd`, such as macOS and Windows): plain
 *   absolute paths, with every folder from the root down checked by `lstat` right before each
 *   operation. This narrows the window a swap needs to the time between that check and the call;
 *   it does not close it. (macOS could close it with `openat(2)` and friends, which Node does not
 *   expose.)
 *
 * New files are written under a temp name (`.name.fh-<12 hex>.tmp`, see `temporary-files.ts`),
 * created exclusively (`O_EXCL`: a link planted at the temp name is not followed), given their
 * mode and fsynced through a descriptor opened with `O_NOFOLLOW`, then renamed over the target; the
 * folders changed are fsynced once each by {@link ProjectWriter.flush}.
 */
import { basename, join } from 'node:path';
import { ConflictError, errnoCode, FhError, NotFoundError, OutsideRootError } from '../errors.js';
import { translateFsError } from '../fs-errors.js';
import type { FsFileHandle, FsStats, WorkspaceFs } from '../store.js';
import { isTemporaryName, temporaryNameFor } from './temporary-files.js';

/** How a {@link ProjectWriter} keeps links out (see the file comment). */
export type ProjectWriterMode = 'dirfd' | 'checked-paths';

/** One folder of the project, held for writing. Names are single path components. */
export interface ProjectFolder {
  /** Tracking path of the folder (`''` for the project root, `/` separators). */
  readonly relativePath: string;
  /** Absolute path of the folder, for messages. */
  readonly absolutePath: string;
  /** `lstat` of `name` in this folder; undefined when nothing is there. */
  lstat(name: string): Promise<FsStats | undefined>;
  /**
   * A path that reads `name` in this very folder now (to copy it): in `dirfd` mode through the
   * folder's descriptor, so a folder above it swapped for a link since it was opened is never
   * followed; in `checked-paths` mode the absolute path, after checking its folders again.
   */
  sourcePath(name: string): Promise<string>;
  /** Names in this folder. */
  readdir(): Promise<string[]>;
  /** Unlink the file or link `name` (a link is removed, never followed). Errno errors as thrown. */
  unlink(name: string): Promise<void>;
  /** Remove the empty folder `name` (`ENOTEMPTY` when it holds anything). */
  rmdir(name: string): Promise<void>;
  /** Create the folder `name` (`EEXIST` when something is there). */
  mkdir(name: string): Promise<void>;
  /**
   * Put a new regular file at `name`: `write` creates a new file exclusively at the path it is
   * given (for example `store.restoreBackup`), which then gets permission bits `mode`, is fsynced
   * and renamed over `name`. On failure the temp file is removed and `name` is untouched.
   */
  replaceFile(name: string, write: (destination: string) => Promise<void>, mode: number): Promise<void>;
  /**
   * {@link replaceFile} in two steps: the temp file is written, given `mode` and fsynced now; the
   * returned `commit` renames it over `name` (`discard` removes it instead; both idempotent after
   * the first). On failure of `write` the temp is removed and the error thrown. Lets a rewind
   * check every copy before it changes any file.
   */
  stageFile(name: string, write: (destination: string) => Promise<void>, mode: number): Promise<StagedFile>;
  /** Put a symbolic link to `target` at `name` (temp link renamed over it). */
  replaceWithSymlink(name: string, target: string): Promise<void>;
  /**
   * Remove fh's temp files (`.name.fh-<12 hex>.tmp`, regular files only) from this folder: all of
   * them, or with `olderThanMs`, only those whose mtime is older than that (ms since the epoch).
   * Tidying: failures are ignored. Returns the names removed.
   */
  removeTemporaryFiles(olderThanMs?: number): Promise<string[]>;
}

/** A new file written beside its target, not yet renamed over it (`ProjectFolder.stageFile`). */
export interface StagedFile {
  /** Rename the file over its target. */
  commit(): Promise<void>;
  /** Remove the file; never throws. */
  discard(): Promise<void>;
}

/** Opens project folders for writing; see the file comment. */
export interface ProjectWriter {
  readonly mode: ProjectWriterMode;
  /** Absolute project root. */
  readonly projectRoot: string;
  /**
   * The folder at tracking path `relativeFolder` (`''`: the root). With `create`, missing folders
   * are made one at a time. Throws `OutsideRootError` when a component below the root is a
   * symbolic link, `ConflictError` when one is not a folder, `NotFoundError` when one is missing and
   * `create` is not set; `InvalidArgumentError`-like `FhError` for `..` components.
   */
  folder(relativeFolder: string, options?: { create?: boolean }): Promise<ProjectFolder>;
  /** fsync every folder changed since the last flush (new, renamed or removed entries durable). */
  flush(): Promise<void>;
  /** Flush, then close every folder held. Idempotent. */
  close(): Promise<void>;
}

type HandleWithExtras = FsFileHandle & {
  fd?: number;
  sync?: () => Promise<void>;
  chmod?: (mode: number) => Promise<void>;
};

type LinkFs = WorkspaceFs & { symlink?: (target: string, path: string) => Promise<void> };

const PROC_FD = '/proc/self/fd';

/**
 * Open a writer for `projectRoot` (absolute; the root itself may be a link, the user's choice).
 * Uses `dirfd` mode when `fs` offers `constants.O_DIRECTORY`/`O_NOFOLLOW`, numeric open flags,
 * descriptors and `/proc/self/fd`; `checked-paths` otherwise (or when `options.mode` asks).
 */
export async function openProjectWriter(
  fs: WorkspaceFs,
  projectRoot: string,
  options: { mode?: ProjectWriterMode } = {},
): Promise<ProjectWriter> {
  const flags = directoryFlags(fs);
  if (options.mode !== 'checked-paths' && flags !== undefined) {
    let root: HandleWithExtras | undefined;
    try {
      root = (await fs.open(projectRoot, flags.directory)) as HandleWithExtras;
      if (typeof root.fd === 'number') {
        const proc = `${PROC_FD}/${root.fd}`;
        if (typeof fs.lstatSync === 'function') fs.lstatSync.call(fs, proc);
        else await fs.lstat(proc);
        return new DirfdWriter(fs as LinkFs, projectRoot, flags, root);
      }
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' && root === undefined) throw new NotFoundError(`the project folder ${projectRoot} does not exist`, { cause: error });
    }
    await root?.close().catch(() => undefined);
  }
  return new CheckedPathsWriter(fs as LinkFs, projectRoot);
}

/** The open flags of `dirfd` mode, when the fs has them. */
function directoryFlags(fs: WorkspaceFs): { directory: number; noFollowFile: number } | undefined {
  const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants ?? {};
  if (typeof O_RDONLY !== 'number' || typeof O_DIRECTORY !== 'number' || typeof O_NOFOLLOW !== 'number' || O_DIRECTORY === 0 || O_NOFOLLOW === 0) return undefined;
  return { directory: O_RDONLY | O_DIRECTORY | O_NOFOLLOW, noFollowFile: O_RDONLY | O_NOFOLLOW };
}

/** The components of a tracking folder path; throws for `.`/`..`/empty components. */
function components(relativeFolder: string): string[] {
  if (relativeFolder === '' || relativeFolder === '.') return [];
  const parts = relativeFolder.split('/');
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..' || part.includes('\\') || part.includes('\0')) {
      throw new OutsideRootError(`${relativeFolder} is not a folder path inside the project (component ${JSON.stringify(part)}); nothing was written`);
    }
  }
  return parts;
}

function checkName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw new OutsideRootError(`${JSON.stringify(name)} is not a file name inside a project folder; nothing was written`);
  }
}

function linkRefusal(absolutePath: string, cause?: unknown): OutsideRootError {
  return new OutsideRootError(
    `${absolutePath} is a symbolic link (or was swapped for one while fh ran): fh never writes through a link, so nothing was written there; replace the link by the folder it should be and run the command again`,
    cause === undefined ? undefined : { cause },
  );
}

function notAFolder(absolutePath: string, cause?: unknown): FhError {
  return new ConflictError(`${absolutePath} is not a folder, so nothing could be written inside it`, cause === undefined ? undefined : { cause });
}

async function lstatOrUndefined(fs: WorkspaceFs, path: string): Promise<FsStats | undefined> {
  try {
    return await fs.lstat(path);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** Shared behaviour; subclasses say how a name in a folder becomes a path and how folders open. */
abstract class BaseFolder implements ProjectFolder {
  constructor(
    protected readonly writer: BaseWriter,
    readonly relativePath: string,
    readonly absolutePath: string,
  ) {}

  /** A path naming `name` in this folder, safe to hand to the fs right now. */
  protected abstract entry(name: string): Promise<string>;

  /** Set `mode` on and fsync the new file at `path` (never following a link). */
  protected abstract finishFile(path: string, mode: number): Promise<void>;

  async lstat(name: string): Promise<FsStats | undefined> {
    checkName(name);
    return lstatOrUndefined(this.writer.fs, await this.entry(name));
  }

  async sourcePath(name: string): Promise<string> {
    checkName(name);
    return this.entry(name);
  }

  async readdir(): Promise<string[]> {
    return (await this.writer.fs.readdir(await this.entry('.'))).map(String);
  }

  async unlink(name: string): Promise<void> {
    checkName(name);
    await this.writer.fs.unlink(await this.entry(name));
    this.writer.changed(this);
  }

  async rmdir(name: string): Promise<void> {
    checkName(name);
    await this.writer.fs.rmdir(await this.entry(name));
    this.writer.forget(this.child(name));
    this.writer.changed(this);
  }

  async mkdir(name: string): Promise<void> {
    checkName(name);
    await this.writer.mkdirAt(await this.entry(name));
    this.writer.changed(this);
  }

  async replaceFile(name: string, write: (destination: string) => Promise<void>, mode: number): Promise<void> {
    await (await this.stageFile(name, write, mode)).commit();
  }

  async stageFile(name: string, write: (destination: string) => Promise<void>, mode: number): Promise<StagedFile> {
    checkName(name);
    const temporary = await this.entry(temporaryNameFor(name));
    const remove = () => this.writer.fs.unlink(temporary).catch(() => undefined);
    try {
      await write(temporary);
      await this.finishFile(temporary, mode);
    } catch (error) {
      await remove();
      throw error;
    }
    let settled = false;
    return {
      commit: async () => {
        if (settled) return;
        settled = true;
        try {
          await this.writer.fs.rename(temporary, await this.entry(name));
        } catch (error) {
          await remove();
          throw error;
        }
        this.writer.changed(this);
      },
      discard: async () => {
        if (settled) return;
        settled = true;
        await remove();
      },
    };
  }

  async replaceWithSymlink(name: string, target: string): Promise<void> {
    checkName(name);
    const fs = this.writer.fs;
    if (typeof fs.symlink !== 'function') throw new FhError(`restoring the symbolic link ${join(this.absolutePath, name)} needs a workspace fs with symlink`);
    const temporary = await this.entry(temporaryNameFor(name));
    try {
      await fs.symlink(target, temporary);
      await fs.rename(temporary, await this.entry(name));
    } catch (error) {
      await fs.unlink(temporary).catch(() => undefined);
      throw error;
    }
    this.writer.changed(this);
  }

  async removeTemporaryFiles(olderThanMs?: number): Promise<string[]> {
    let names: string[];
    try {
      names = await this.readdir();
    } catch {
      return [];
    }
    const removed: string[] = [];
    for (const name of names) {
      if (!isTemporaryName(name)) continue;
      try {
        const path = await this.entry(name);
        const stats = await this.writer.fs.lstat(path);
        if (!stats.isFile() || (olderThanMs !== undefined && Number(stats.mtimeMs) >= olderThanMs)) continue;
        await this.writer.fs.unlink(path);
        removed.push(name);
      } catch {
        // Gone already, or not ours to remove: tidying never fails the operation.
      }
    }
    if (removed.length > 0) this.writer.changed(this);
    return removed;
  }

  /** Tracking path of `name` in this folder. */
  protected child(name: string): string {
    return this.relativePath === '' ? name : `${this.relativePath}/${name}`;
  }

  /** fsync this folder (its entries durable). */
  abstract sync(): Promise<void>;
  /** Release what the folder holds. */
  abstract close(): Promise<void>;
}

abstract class BaseWriter implements ProjectWriter {
  abstract readonly mode: ProjectWriterMode;
  protected readonly folders = new Map<string, Promise<BaseFolder>>();
  private readonly dirty = new Set<BaseFolder>();
  private closed = false;

  constructor(
    readonly fs: LinkFs,
    readonly projectRoot: string,
  ) {}

  async folder(relativeFolder: string, options: { create?: boolean } = {}): Promise<ProjectFolder> {
    return this.open(components(relativeFolder), options.create === true);
  }

  /** The folder of `parts`, opened once per writer (concurrent callers share the open). */
  protected open(parts: readonly string[], create: boolean): Promise<BaseFolder> {
    const key = parts.join('/');
    const known = this.folders.get(key);
    if (known !== undefined) return known;
    const opening = this.openUncached(parts, create);
    this.folders.set(key, opening);
    opening.catch(() => {
      if (this.folders.get(key) === opening) this.folders.delete(key);
    });
    return opening;
  }

  protected abstract openUncached(parts: readonly string[], create: boolean): Promise<BaseFolder>;

  /** A plain (never recursive) mkdir: `EEXIST` when anything, a link included, is at `path`. */
  async mkdirAt(path: string): Promise<void> {
    await (this.fs.mkdir as unknown as (path: string) => Promise<unknown>)(path);
  }

  /** Note that `folder`'s entries changed (fsynced by the next flush). */
  changed(folder: BaseFolder): void {
    this.dirty.add(folder);
  }

  /** Drop the cached folder at tracking path `relativePath` and everything under it (removed). */
  forget(relativePath: string): void {
    for (const [key, opening] of this.folders) {
      if (key !== relativePath && !key.startsWith(`${relativePath}/`)) continue;
      this.folders.delete(key);
      opening.then((folder) => {
        this.dirty.delete(folder);
        return folder.close();
      }).catch(() => undefined);
    }
  }

  async flush(): Promise<void> {
    const folders = [...this.dirty];
    this.dirty.clear();
    await Promise.all(
      folders.map((folder) =>
        folder.sync().catch((error: unknown) => {
          const where = folder.relativePath === '' ? 'the project folder' : `folder ${folder.relativePath}`;
          throw translateFsError(error, `make the files written in ${where} of ${this.projectRoot} durable (fsync)`);
        }),
      ),
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.flush();
    } finally {
      const opened = await Promise.allSettled(this.folders.values());
      this.folders.clear();
      await Promise.all(opened.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.close().catch(() => undefined) : undefined)));
      await this.closeRoot();
    }
  }

  protected abstract closeRoot(): Promise<void>;
}

class DirfdFolder extends BaseFolder {
  constructor(
    writer: DirfdWriter,
    relativePath: string,
    absolutePath: string,
    readonly handle: HandleWithExtras,
    private readonly owned: boolean,
  ) {
    super(writer, relativePath, absolutePath);
  }

  get fd(): number {
    return this.handle.fd as number;
  }

  protected async entry(name: string): Promise<string> {
    return name === '.' ? `${PROC_FD}/${this.fd}` : `${PROC_FD}/${this.fd}/${name}`;
  }

  protected async finishFile(path: string, mode: number): Promise<void> {
    const writer = this.writer as DirfdWriter;
    const handle = (await writer.fs.open(path, writer.flags.noFollowFile)) as HandleWithExtras;
    try {
      const fstatSync = writer.fs.fstatSync;
      const stats = typeof fstatSync === 'function' && typeof handle.fd === 'number' ? fstatSync.call(writer.fs, handle.fd) : await handle.stat();
      if ((stats.mode & 0o7777) !== mode) {
        if (typeof handle.chmod === 'function') await handle.chmod(mode);
        else await writer.fs.chmod(path, mode);
      }
      await handle.sync?.();
    } finally {
      await handle.close();
    }
  }

  async sync(): Promise<void> {
    await this.handle.sync?.();
  }

  async close(): Promise<void> {
    if (this.owned) await this.handle.close();
  }
}

class DirfdWriter extends BaseWriter {
  readonly mode = 'dirfd' as const;
  private readonly root: DirfdFolder;

  constructor(
    fs: LinkFs,
    projectRoot: string,
    readonly flags: { directory: number; noFollowFile: number },
    rootHandle: HandleWithExtras,
  ) {
    super(fs, projectRoot);
    this.root = new DirfdFolder(this, '', projectRoot, rootHandle, false);
    this.folders.set('', Promise.resolve(this.root));
  }

  protected async openUncached(parts: readonly string[], create: boolean): Promise<BaseFolder> {
    const parent = (await this.open(parts.slice(0, -1), create)) as DirfdFolder;
    const name = parts[parts.length - 1] as string;
    const relativePath = parts.join('/');
    const absolutePath = join(this.projectRoot, ...parts);
    const path = `${PROC_FD}/${parent.fd}/${name}`;
    const openIt = async () => (await this.fs.open(path, this.flags.directory)) as HandleWithExtras;
    let handle: HandleWithExtras;
    try {
      handle = await openIt();
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' && create) {
        try {
          await this.mkdirAt(path);
        } catch (mkdirError) {
          if (errnoCode(mkdirError) !== 'EEXIST') throw mkdirError;
        }
        this.changed(parent);
        handle = await openIt().catch(async (again: unknown) => {
          throw await this.explain(again, path, absolutePath);
        });
      } else {
        throw await this.explain(error, path, absolutePath);
      }
    }
    return new DirfdFolder(this, relativePath, absolutePath, handle, true);
  }

  /** Turn an open failure into the error a caller reports. */
  private async explain(error: unknown, path: string, absolutePath: string): Promise<unknown> {
    const code = errnoCode(error);
    if (code === 'ELOOP') return linkRefusal(absolutePath, error);
    if (code === 'ENOTDIR') {
      // O_DIRECTORY | O_NOFOLLOW on a link gives ENOTDIR: say which it is (the answer is only for the message).
      const stats = await lstatOrUndefined(this.fs, path).catch(() => undefined);
      return stats?.isSymbolicLink() === true ? linkRefusal(absolutePath, error) : notAFolder(absolutePath, error);
    }
    if (code === 'ENOENT') return new NotFoundError(`the folder ${absolutePath} does not exist`, { cause: error });
    return error;
  }

  protected async closeRoot(): Promise<void> {
    await this.root.handle.close();
  }
}

class CheckedFolder extends BaseFolder {
  protected async entry(name: string): Promise<string> {
    await (this.writer as CheckedPathsWriter).verify(this.relativePath);
    return name === '.' ? this.absolutePath : join(this.absolutePath, name);
  }

  protected async finishFile(path: string, mode: number): Promise<void> {
    const fs = this.writer.fs;
    const stats = await fs.lstat(path);
    if (!stats.isFile()) throw new FhError(`${path} is not the file fh just wrote; nothing was renamed into place`);
    if ((stats.mode & 0o7777) !== mode) await fs.chmod(path, mode);
    await syncPath(fs, path);
  }

  async sync(): Promise<void> {
    await syncPath(this.writer.fs, this.absolutePath);
  }

  async close(): Promise<void> {}
}

/** fsync `path` through a read-only open where the fs allows (folders cannot be opened everywhere). */
async function syncPath(fs: WorkspaceFs, path: string): Promise<void> {
  let handle: HandleWithExtras;
  try {
    handle = (await fs.open(path, 'r')) as HandleWithExtras;
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'EISDIR' || code === 'EPERM' || code === 'EACCES') return;
    throw error;
  }
  try {
    await handle.sync?.();
  } finally {
    await handle.close();
  }
}

class CheckedPathsWriter extends BaseWriter {
  readonly mode = 'checked-paths' as const;

  constructor(fs: LinkFs, projectRoot: string) {
    super(fs, projectRoot);
    this.folders.set('', Promise.resolve(new CheckedFolder(this, '', projectRoot)));
  }

  protected async openUncached(parts: readonly string[], create: boolean): Promise<BaseFolder> {
    const parent = await this.open(parts.slice(0, -1), create);
    const absolutePath = join(this.projectRoot, ...parts);
    const stats = await parent.lstat(parts[parts.length - 1] as string);
    if (stats === undefined) {
      if (!create) throw new NotFoundError(`the folder ${absolutePath} does not exist`);
      await parent.mkdir(parts[parts.length - 1] as string).catch((error: unknown) => {
        if (errnoCode(error) !== 'EEXIST') throw error;
      });
    }
    const folder = new CheckedFolder(this, parts.join('/'), absolutePath);
    await this.verify(folder.relativePath);
    return folder;
  }

  /** Check every folder from the root down to `relativePath` is a folder, not a link. */
  async verify(relativePath: string): Promise<void> {
    let path = this.projectRoot;
    for (const part of components(relativePath)) {
      path = join(path, part);
      const stats = await lstatOrUndefined(this.fs, path);
      if (stats === undefined) throw new NotFoundError(`the folder ${path} does not exist`);
      if (stats.isSymbolicLink()) throw linkRefusal(path);
      if (!stats.isDirectory()) throw notAFolder(path);
    }
  }

  protected async closeRoot(): Promise<void> {}
}

/** The tracking folder and file name of a tracking path (`a/b/c.ts` → `a/b`, `c.ts`). */
export function splitTrackingPath(trackingPath: string): { folder: string; name: string } {
  const index = trackingPath.lastIndexOf('/');
  return index < 0 ? { folder: '', name: trackingPath } : { folder: trackingPath.slice(0, index), name: basename(trackingPath) };
}

/**
 * Whether the symbolic link at tracking path `linkPath` with target `target` (as `readlink` gives
 * it) points inside `projectRoot`, judged by its text: an absolute target must lie under the root,
 * a relative one must not climb above it from the link's folder. A record naming a link that
 * leads outside is refused before anything is written (issue 10, records checked).
 */
export function symlinkTargetInside(projectRoot: string, linkPath: string, target: string): boolean {
  if (target === '' || target.includes('\0')) return false;
  if (target.startsWith('/')) {
    const resolved = normalizeParts(target.split('/'));
    const root = normalizeParts(projectRoot.split('/'));
    return resolved !== undefined && root !== undefined && root.length <= resolved.length && root.every((part, index) => resolved[index] === part);
  }
  const { folder } = splitTrackingPath(linkPath);
  return normalizeParts([...(folder === '' ? [] : folder.split('/')), ...target.split('/')]) !== undefined;
}

/** The parts with `.`/`..` applied, or undefined when `..` climbs above the start. */
function normalizeParts(parts: readonly string[]): string[] | undefined {
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out;
}

/**
 * A crash-simulating file system over a memfs volume (issue 10). Every call a store, the core or
 * a project writer makes goes through a {@link CrashVolume}: it counts the calls that change
 * anything (writes, copies, renames, links, unlinks, mkdir/rmdir, symlink, chmod, fsync), can
 * "crash" at call number N (that call and every later one throw {@link CrashError}, so nothing
 * more reaches the volume), and keeps a second, durable picture of the volume built only from
 * fsyncs: a file's bytes and mode when the file was fsynced, a folder's entries when the folder
 * was fsynced. {@link CrashVolume.afterPowerLoss} rebuilds a volume from that picture alone (what
 * a disk keeps when the power goes), {@link CrashVolume.afterKill} keeps everything written (what
 * a killed process leaves).
 *
 * Model: the worst case a POSIX file system allows. A new entry, rename or unlink that its folder
 * was not fsynced after is lost; a file whose data was not fsynced comes back empty (ext4 with
 * delayed allocation); a folder never fsynced comes back empty. Both names of a hard link share
 * one inode's data.
 */
import { Volume } from 'memfs';
import { posix } from 'node:path';

/** Thrown by every call from the crash point on: the simulated process is dead. */
export class CrashError extends Error {
  constructor(readonly call: number, readonly operation: string) {
    super(`simulated crash at mutating call ${call} (${operation})`);
    this.name = 'CrashError';
  }
}

/** A folder entry as the durable picture keeps it; `gen` tells a reused inode number's files apart. */
type Entry = { ino: number; gen: number; kind: 'file' | 'folder' | 'symlink'; target?: string };

/** Calls that may create a new inode at their (first or last) path argument. */
const CREATING = new Set(['writeFile', 'appendFile', 'copyFile', 'symlink', 'mkdir']);

/** Members of `volume.promises` that change the volume (or make something durable). */
const MUTATING_PROMISES = new Set(['writeFile', 'appendFile', 'copyFile', 'rename', 'unlink', 'rmdir', 'rm', 'mkdir', 'symlink', 'link', 'chmod', 'utimes', 'truncate']);
/** Synchronous members the fs store calls that change the volume. */
const MUTATING_SYNC = new Set(['linkSync', 'unlinkSync', 'renameSync', 'writeFileSync', 'mkdirSync', 'rmdirSync', 'symlinkSync', 'chmodSync']);
/** FileHandle members that change the file (or make it durable). */
const MUTATING_HANDLE = new Set(['write', 'writeFile', 'appendFile', 'truncate', 'chmod', 'sync', 'datasync', 'writev']);

/** A memfs volume with call counting, a crash point and a durable picture; see the file comment. */
export class CrashVolume {
  /** The live volume every call reaches (until the crash). */
  readonly volume: Volume;
  /** Mutating calls made so far (1-based numbers of the calls). */
  calls = 0;
  /** The mutating calls in order (`rename /a → /b`), for reports. */
  readonly trace: string[] = [];
  /** Crash when `calls` reaches this number (the call is not made). Infinity: never. */
  crashAt = Number.POSITIVE_INFINITY;
  /** True once the crash happened. */
  crashed = false;
  private readonly durableFiles = new Map<string, { data: Buffer; mode: number }>();
  /** Generation of the file each inode number holds now (memfs reuses numbers of removed files). */
  private readonly generations = new Map<number, number>();
  private nextGeneration = 1;
  private readonly durableFolders = new Map<number, Map<string, Entry>>();
  private rootIno = 0;
  /** The volume as the store and workspace see it: `promises` plus the sync calls, all wrapped. */
  readonly fs: Record<string, unknown>;

  constructor(volume: Volume) {
    this.volume = volume;
    this.markAllDurable();
    this.fs = this.wrap();
  }

  /** Take everything on the volume as durable (the state before the operation under test). */
  markAllDurable(): void {
    this.durableFiles.clear();
    this.durableFolders.clear();
    this.rootIno = Number(this.volume.statSync('/').ino);
    this.captureFolder('/', true);
  }

  private captureFolder(path: string, recursive: boolean): void {
    const stats = this.volume.lstatSync(path);
    const entries = new Map<string, Entry>();
    for (const name of this.volume.readdirSync(path).map(String)) {
      const child = posix.join(path, name);
      const childStats = this.volume.lstatSync(child);
      const ino = Number(childStats.ino);
      const gen = this.generations.get(ino) ?? 0;
      if (childStats.isSymbolicLink()) entries.set(name, { ino, gen, kind: 'symlink', target: String(this.volume.readlinkSync(child)) });
      else if (childStats.isDirectory()) {
        entries.set(name, { ino, gen, kind: 'folder' });
        if (recursive) this.captureFolder(child, true);
      } else {
        entries.set(name, { ino, gen, kind: 'file' });
        if (recursive) this.durableFiles.set(`${ino}:${gen}`, { data: Buffer.from(this.volume.readFileSync(child) as Buffer), mode: Number(childStats.mode) & 0o7777 });
      }
    }
    this.durableFolders.set(Number(stats.ino), entries);
  }

  /** Run a call that may create `path`; a new inode there gets a new generation. */
  private async creating<T>(path: unknown, call: () => Promise<T>): Promise<T> {
    const existed = typeof path === 'string' && this.exists(path);
    const result = await call();
    if (typeof path === 'string' && !existed) {
      try {
        this.generations.set(Number(this.volume.lstatSync(path).ino), (this.nextGeneration += 1));
      } catch {
        // Not created after all.
      }
    }
    return result;
  }

  private exists(path: string): boolean {
    try {
      this.volume.lstatSync(path);
      return true;
    } catch {
      return false;
    }
  }

  /** A call is about to change the volume: count it, crash when due. */
  private step(operation: string): void {
    if (this.crashed) throw new CrashError(this.calls, operation);
    this.calls += 1;
    if (this.calls >= this.crashAt) {
      this.crashed = true;
      throw new CrashError(this.calls, operation);
    }
    this.trace.push(operation);
  }

  /** Every call after the crash throws too (reads included): the process is gone. */
  private alive(operation: string): void {
    if (this.crashed) throw new CrashError(this.calls, operation);
  }

  /** fsync of the file or folder at `path` (or open descriptor `fd`): update the durable picture. */
  private syncPath(path: string | undefined, fd: number | undefined): void {
    const stats = fd !== undefined ? this.volume.fstatSync(fd) : this.volume.lstatSync(path as string);
    const ino = Number(stats.ino);
    if (stats.isDirectory()) {
      this.captureFolder(path as string, false);
      return;
    }
    const data = fd !== undefined ? readAll(this.volume, fd, Number(stats.size)) : Buffer.from(this.volume.readFileSync(path as string) as Buffer);
    this.durableFiles.set(`${ino}:${this.generations.get(ino) ?? 0}`, { data, mode: Number(stats.mode) & 0o7777 });
  }

  private wrap(): Record<string, unknown> {
    const volume = this.volume;
    const promises = volume.promises as unknown as Record<string, unknown>;
    const wrapped: Record<string, unknown> = {};
    for (const key of Object.keys(Object.getPrototypeOf(promises)).concat(Object.keys(promises))) {
      const member = promises[key];
      if (typeof member !== 'function') {
        wrapped[key] = member;
        continue;
      }
      const call = (member as (...args: unknown[]) => unknown).bind(promises);
      if (key === 'open') wrapped.open = (path: string, flags?: string | number, mode?: number) => this.open(call, path, flags, mode);
      else if (MUTATING_PROMISES.has(key)) {
        wrapped[key] = async (...args: unknown[]) => {
          this.step(`${key} ${args.filter((arg) => typeof arg === 'string').join(' → ')}`);
          if (!CREATING.has(key)) return call(...args);
          return this.creating(key === 'copyFile' || key === 'symlink' ? args[1] : args[0], async () => call(...args));
        };
      } else {
        wrapped[key] = async (...args: unknown[]) => {
          this.alive(key);
          return call(...args);
        };
      }
    }
    wrapped.constants = (promises as { constants?: unknown }).constants;
    for (const key of ['statSync', 'lstatSync', 'linkSync', 'unlinkSync', 'renameSync', 'realpathSync', 'readFileSync']) {
      const member = (volume as unknown as Record<string, (...args: unknown[]) => unknown>)[key]?.bind(volume);
      if (member === undefined) continue;
      wrapped[key] = (...args: unknown[]) => {
        if (MUTATING_SYNC.has(key)) this.step(`${key} ${args.filter((arg) => typeof arg === 'string').join(' → ')}`);
        else this.alive(key);
        const result = member(...args);
        return key === 'realpathSync' ? String(result) : result;
      };
    }
    return wrapped;
  }

  /** `open`: a folder gets a handle whose `sync` records its entries; files get wrapped handles. */
  private async open(call: (...args: unknown[]) => unknown, path: string, flags?: string | number, mode?: number): Promise<unknown> {
    this.alive(`open ${path}`);
    let isFolder = false;
    try {
      isFolder = this.volume.statSync(path).isDirectory();
    } catch {
      isFolder = false;
    }
    if (isFolder) {
      return {
        fd: -1,
        sync: async () => {
          this.step(`fsync folder ${path}`);
          this.syncPath(path, undefined);
        },
        datasync: async () => {
          this.step(`fsync folder ${path}`);
          this.syncPath(path, undefined);
        },
        stat: async () => this.volume.statSync(path),
        close: async () => undefined,
        read: async () => ({ bytesRead: 0 }),
      };
    }
    const creates = typeof flags === 'string' ? /[wa+x]/.test(flags) : typeof flags === 'number' && (flags & 0o3) !== 0;
    if (creates) this.step(`open for writing ${path}`);
    const handle = (await (creates ? this.creating(path, async () => call(path, flags, mode)) : call(path, flags, mode))) as Record<string, unknown> & { fd: number };
    return new Proxy(handle, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        const bound = (value as (...args: unknown[]) => unknown).bind(target);
        const name = String(property);
        if (name === 'sync' || name === 'datasync') {
          return async () => {
            this.step(`fsync ${path}`);
            await bound();
            this.syncPath(path, target.fd);
          };
        }
        if (MUTATING_HANDLE.has(name)) {
          return async (...args: unknown[]) => {
            this.step(`${name} ${path}`);
            return bound(...args);
          };
        }
        if (name === 'close' || name === 'createReadStream') return bound;
        return async (...args: unknown[]) => {
          this.alive(`${name} ${path}`);
          return bound(...args);
        };
      },
    });
  }

  /** What a killed process leaves: the live volume as it is (a fresh, uncrashed view of it). */
  afterKill(): CrashVolume {
    return new CrashVolume(this.volume);
  }

  /** What the disk holds after a power loss: a new volume built from fsynced data and entries only. */
  afterPowerLoss(): CrashVolume {
    const volume = new Volume();
    const build = (folderIno: number, path: string) => {
      const entries = this.durableFolders.get(folderIno);
      if (entries === undefined) return;
      for (const [name, entry] of entries) {
        const child = posix.join(path, name);
        if (entry.kind === 'folder') {
          volume.mkdirSync(child);
          build(entry.ino, child);
        } else if (entry.kind === 'symlink') {
          volume.symlinkSync(entry.target as string, child);
        } else {
          const durable = this.durableFiles.get(`${entry.ino}:${entry.gen}`);
          volume.writeFileSync(child, durable?.data ?? Buffer.alloc(0));
          volume.chmodSync(child, durable?.mode ?? 0o644);
        }
      }
    };
    build(this.rootIno, '/');
    return new CrashVolume(volume);
  }
}

function readAll(volume: Volume, fd: number, size: number): Buffer {
  const buffer = Buffer.alloc(size);
  let filled = 0;
  while (filled < size) {
    const read = volume.readSync(fd, buffer, filled, size - filled, filled);
    if (read === 0) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}

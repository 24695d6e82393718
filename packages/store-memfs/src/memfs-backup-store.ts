/**
 * MemfsBackupStore: the fs store's layout and code over one memfs volume that holds both the
 * workspace and the backups, for tests and local development.
 *
 * Layout inside the volume (the same as `FsBackupStore` on disk):
 *   {root}/file-history/{sessionId}/{backupFileName}   one immutable file per backup
 *   {root}/file-history/{sessionId}/.fh-tmp-*          a backup being written (linked into place)
 *   {root}/sessions/{sessionId}.jsonl                  the session's records, one JSON per line
 * Locks are held in process memory, per volume, instead of lock folders.
 *
 * memfs has no umask: files it creates are 0o666 and folders 0o777 until chmod'ed.
 */
import { InvalidArgumentError, LockedError, type SessionLock } from '@fh/core';
import { FsBackupStore, validateName, type FsBackupStoreFileSystem } from '@fh/store-fs';
import { Volume } from 'memfs';
import { posix } from 'node:path';

/** Options of {@link MemfsBackupStore}. */
export interface MemfsBackupStoreOptions {
  /** The memfs volume holding both the workspace and the store. Default: a new, empty `Volume`. */
  volume?: Volume;
  /** Absolute folder of the store inside the volume. Default: `'/.fh'`. */
  root?: string;
}

/** Session locks held per volume: `{root}\0{sessionId}` keys. */
const heldLocks = new WeakMap<Volume, Set<string>>();

/** A BackupStore over one memfs volume (workspace and backups together). */
export class MemfsBackupStore extends FsBackupStore {
  override readonly kind: string = 'memfs';
  /** The memfs volume; tests read and seed it directly (`volume.toJSON()`, `volume.fromJSON()`). */
  readonly volume: Volume;

  /** Throws `InvalidArgumentError` if `root` is not an absolute path. */
  constructor(options: MemfsBackupStoreOptions = {}) {
    const root = options.root ?? '/.fh';
    if (!posix.isAbsolute(root)) throw new InvalidArgumentError(`root must be an absolute path: ${JSON.stringify(root)}`);
    const volume = options.volume ?? new Volume();
    const fileSystem = Object.assign({ ...volume.promises }, {
      statSync: volume.statSync.bind(volume),
      lstatSync: volume.lstatSync.bind(volume),
      linkSync: volume.linkSync.bind(volume),
      unlinkSync: volume.unlinkSync.bind(volume),
      renameSync: volume.renameSync.bind(volume),
      realpathSync: (path: string) => String(volume.realpathSync(path)),
      // Small backups are read synchronously (diff stats: `readBackupSync`).
      openSync: volume.openSync.bind(volume),
      fstatSync: volume.fstatSync.bind(volume),
      readSync: volume.readSync.bind(volume),
      closeSync: volume.closeSync.bind(volume),
    }) as unknown as FsBackupStoreFileSystem;
    super({ root: posix.resolve(root), fileSystem });
    this.volume = volume;
  }

  /**
   * Take the session's in-memory lock, shared by every store on this volume and root. Throws
   * `LockedError` naming the session if another handle holds it.
   */
  override async lockSession(sessionId: string): Promise<SessionLock> {
    validateName('sessionId', sessionId);
    const key = `${this.root}\0${sessionId}`;
    let held = heldLocks.get(this.volume);
    if (held === undefined) {
      held = new Set();
      heldLocks.set(this.volume, held);
    }
    if (held.has(key)) throw new LockedError(`session "${sessionId}" is locked: another handle has it open`);
    held.add(key);
    const locks = held;
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        locks.delete(key);
      },
    };
  }

  /** Whether the session's in-memory lock is held. */
  override async isSessionLocked(sessionId: string): Promise<boolean> {
    validateName('sessionId', sessionId);
    return heldLocks.get(this.volume)?.has(`${this.root}\0${sessionId}`) ?? false;
  }
}

import { createHash } from 'node:crypto';
import { ConflictError, CorruptError, InvalidArgumentError, NotFoundError, PermissionError } from '@fh/core';
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile, stat, symlink, truncate, utimes, writeFile } from 'node:fs/promises';
import { linkSync, writeFileSync } from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { errnoError, faultyFileSystem, listTree, temporaryFolder } from './helpers.js';

async function setup() {
  const folder = await temporaryFolder();
  const root = join(folder, 'store');
  const workspace = join(folder, 'work');
  await mkdir(workspace);
  return { folder, root, workspace, store: new FsBackupStore({ root }) };
}

async function collect(iterable: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of iterable) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('FsBackupStore construction', () => {
  it('resolves the root and declares its capabilities', async () => {
    const { root, store } = await setup();
    expect(store.root).toBe(root);
    expect(store.kind).toBe('fs');
    expect(store.capabilities).toEqual({ hardLinks: true, serverSideCopy: false, locking: true, sha256: false });
    expect(store.workspaceFs.readFile).toBe(fsPromises.readFile);
  });

  it('rejects a file system without the sync metadata calls, naming what it lacks', () => {
    const error = (() => {
      try {
        return new FsBackupStore({ root: '/tmp/x', fileSystem: fsPromises as never });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toBe(
      'fileSystem must be node:fs/promises plus statSync, lstatSync, linkSync, unlinkSync, renameSync and realpathSync of node:fs (nodeFileSystem); it lacks statSync, lstatSync, linkSync, unlinkSync, renameSync, realpathSync',
    );
  });

  it('rejects node:fs (callbacks) and a lockStaleMs below 2000 ms or not a number, naming the value', async () => {
    const nodeFs = await import('node:fs');
    expect(() => new FsBackupStore({ root: '/tmp/x', fileSystem: nodeFs as never })).toThrow(
      new InvalidArgumentError('fileSystem must be promise-based: pass nodeFileSystem (node:fs/promises plus the sync metadata calls), not node:fs'),
    );
    expect(() => new FsBackupStore({ root: '/tmp/x', lockStaleMs: 0 })).toThrow(new InvalidArgumentError('lockStaleMs must be a number of milliseconds >= 2000, got 0'));
    expect(() => new FsBackupStore({ root: '/tmp/x', lockStaleMs: Number.NaN })).toThrow('lockStaleMs must be a number of milliseconds >= 2000, got NaN');
    expect(() => new FsBackupStore({ root: '/tmp/x', lockStaleMs: '5000' as never })).toThrow('lockStaleMs must be a number of milliseconds >= 2000, got "5000"');
    expect(new FsBackupStore({ root: '/tmp/x', lockStaleMs: 2000 }).root).toBe('/tmp/x');
  });

  it('rejects a missing or empty root', () => {
    expect(() => new FsBackupStore({ root: '' })).toThrow(InvalidArgumentError);
    expect(() => new FsBackupStore({ root: '' })).toThrow('root must be the store folder path: ""');
    expect(() => new FsBackupStore(undefined as never)).toThrow('root must be the store folder path: undefined');
  });
});

describe('putBackup', () => {
  it('copies the exact bytes and permission bits to file-history/{session}/{name}', async () => {
    const { root, workspace, store } = await setup();
    const content = randomBytes(100_003);
    await writeFile(join(workspace, 'tool.bin'), content);
    await chmod(join(workspace, 'tool.bin'), 0o751);
    expect(await store.putBackup('s1', '0123456789abcdef@v1', join(workspace, 'tool.bin'))).toEqual({ size: 100_003, mode: 0o751, sha256: createHash('sha256').update(content).digest('hex') });
    const backup = join(root, 'file-history', 's1', '0123456789abcdef@v1');
    expect((await readFile(backup)).equals(content)).toBe(true);
    expect((await stat(backup)).mode & 0o7777).toBe(0o751);
    expect(await listTree(root)).toEqual(['file-history', 'file-history/s1', 'file-history/s1/0123456789abcdef@v1']);
  });

  it('keeps a backup unchanged when the source is modified later (a copy, not a link)', async () => {
    const { root, workspace, store } = await setup();
    const source = join(workspace, 'a.txt');
    await writeFile(source, 'before\n');
    await store.putBackup('s1', 'a@v1', source);
    await writeFile(source, 'after, and longer\n');
    await chmod(source, 0o600);
    const backup = join(root, 'file-history', 's1', 'a@v1');
    expect(await readFile(backup, 'utf8')).toBe('before\n');
    const [backupStats, sourceStats] = await Promise.all([stat(backup), stat(source)]);
    expect(backupStats.nlink).toBe(1);
    expect(backupStats.ino).not.toBe(sourceStats.ino);
    expect(backupStats.mode & 0o7777).toBe(0o644);
  });

  it('retries a copy that found the session folder missing when a concurrent backup created it meanwhile, never reading it as a missing source', async () => {
    const { root, workspace } = await setup();
    let first = true;
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        copyFile: async (source, target, mode) => {
          if (first) {
            first = false;
            await mkdir(dirname(String(target)), { recursive: true });
            throw errnoError('ENOENT', 'copyfile', String(source));
          }
          return copyFile(source, target, mode);
        },
      }),
    });
    await writeFile(join(workspace, 'a.txt'), 'first backup of the session\n');
    expect(await store.putBackup('fresh', 'a@v1', join(workspace, 'a.txt'))).toEqual({ size: 28, mode: 0o644, sha256: createHash('sha256').update('first backup of the session\n').digest('hex') });
    expect(await readFile(join(root, 'file-history', 'fresh', 'a@v1'), 'utf8')).toBe('first backup of the session\n');
  });

  it('putBackups: an fsync that fails removes every backup of the batch (each item gets the error), leaving no temp', async () => {
    const { root } = await setup();
    let syncs = 0;
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        open: (async (...args: Parameters<typeof fsPromises.open>) => {
          const handle = await fsPromises.open(...args);
          handle.sync = async () => {
            syncs += 1;
            throw errnoError('EIO', 'fsync', String(args[0]));
          };
          return handle;
        }) as typeof fsPromises.open,
      }),
    });
    const results = await store.putBackups('s1', [
      { backupFileName: 'a@v1', bytes: Buffer.from('a\n'), mode: 0o644 },
      { backupFileName: 'b@v1', bytes: Buffer.from('b\n'), mode: 0o600 },
    ]);
    expect(results.map((result) => (result instanceof Error ? result.message : result))).toEqual([
      'make the new backups of session "s1" durable: EIO (file system temporarily unavailable)',
      'make the new backups of session "s1" durable: EIO (file system temporarily unavailable)',
    ]);
    expect(syncs).toBe(3);
    expect(await listTree(join(root, 'file-history', 's1'))).toEqual([]);
  });

  it('throws ConflictError for a second backup of one name and keeps the first', async () => {
    const { root, workspace, store } = await setup();
    await writeFile(join(workspace, 'a.txt'), 'first');
    await writeFile(join(workspace, 'b.txt'), 'second');
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'));
    const error = await store.putBackup('s1', 'a@v1', join(workspace, 'b.txt')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as Error).message).toBe(`back up "${join(workspace, 'b.txt')}" as "a@v1" (session "s1"): backup already exists`);
    expect(await readFile(join(root, 'file-history', 's1', 'a@v1'), 'utf8')).toBe('first');
    expect(await listTree(join(root, 'file-history', 's1'))).toEqual(['a@v1']);
  });

  it('throws ConflictError when another writer links the name first, leaving no temp file', async () => {
    const { root, workspace, store: plain } = await setup();
    const finalPath = join(root, 'file-history', 's1', 'a@v1');
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        linkSync: (existing, target) => {
          writeFileSync(finalPath, 'the other writer');
          return linkSync(existing, target);
        },
      }),
    });
    await writeFile(join(workspace, 'a.txt'), 'mine');
    await expect(store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'))).rejects.toThrow(ConflictError);
    expect(await readFile(finalPath, 'utf8')).toBe('the other writer');
    expect(await listTree(join(root, 'file-history', 's1'))).toEqual(['a@v1']);
    expect(await plain.listBackups('s1')).toEqual(['a@v1']);
  });

  it('throws NotFoundError naming a missing source and writes nothing', async () => {
    const { root, workspace, store } = await setup();
    const missing = join(workspace, 'missing.txt');
    const error = await store.putBackup('s1', 'a@v1', missing).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toBe(`back up "${missing}" as "a@v1" (session "s1"): ENOENT (does not exist)`);
    expect(await listTree(root)).toEqual([]);
  });

  it('throws InvalidArgumentError for a directory source', async () => {
    const { workspace, store } = await setup();
    await mkdir(join(workspace, 'dir'));
    await expect(store.putBackup('s1', 'a@v1', join(workspace, 'dir'))).rejects.toThrow(
      `back up "${join(workspace, 'dir')}" as "a@v1" (session "s1"): not a regular file`,
    );
  });

  it('removes the temp file and leaves the source untouched when linking the copy into place fails', async () => {
    const { root, workspace } = await setup();
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        linkSync: (from, to) => {
          throw errnoError('EACCES', 'link', String(to));
        },
      }),
    });
    const source = join(workspace, 'a.txt');
    await writeFile(source, 'precious');
    await chmod(source, 0o640);
    const before = await stat(source);
    await expect(store.putBackup('s1', 'a@v1', source)).rejects.toThrow(PermissionError);
    expect(await listTree(join(root, 'file-history', 's1'))).toEqual([]);
    const after = await stat(source);
    expect(await readFile(source, 'utf8')).toBe('precious');
    expect([after.mode, after.mtimeMs, after.ino]).toEqual([before.mode, before.mtimeMs, before.ino]);
  });

  it('renames into place where the file system has no hard links (link gives EPERM)', async () => {
    const { root, workspace } = await setup();
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        linkSync: (existing) => {
          throw errnoError('EPERM', 'link', String(existing));
        },
      }),
    });
    await writeFile(join(workspace, 'a.txt'), 'no links here');
    expect(await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'))).toEqual({ size: 13, mode: 0o644, sha256: createHash('sha256').update('no links here').digest('hex') });
    expect(await readFile(join(root, 'file-history', 's1', 'a@v1'), 'utf8')).toBe('no links here');
    expect(await listTree(join(root, 'file-history', 's1'))).toEqual(['a@v1']);
  });

  it.each(['', '.', '..', 'a/b', 'a\\b', 'a\0b', '.fh-tmp-x'])('rejects the name %j', async (name) => {
    const { root, workspace, store } = await setup();
    await writeFile(join(workspace, 'a.txt'), 'x');
    await expect(store.putBackup(name, 'a@v1', join(workspace, 'a.txt'))).rejects.toThrow(/^sessionId must/);
    await expect(store.putBackup('s1', name, join(workspace, 'a.txt'))).rejects.toThrow(InvalidArgumentError);
    expect(() => store.sessionLog(name)).toThrow(InvalidArgumentError);
    await expect(store.deleteSession(name)).rejects.toThrow(InvalidArgumentError);
    expect(await listTree(root)).toEqual([]);
  });
});

describe('statBackup, openBackup, deleteBackup, listBackups', () => {
  it('stats a backup, or returns null when it is missing', async () => {
    const { workspace, store } = await setup();
    await writeFile(join(workspace, 'a.txt'), '12345');
    await chmod(join(workspace, 'a.txt'), 0o600);
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'));
    expect(await store.statBackup('s1', 'a@v1')).toEqual({ size: 5, mode: 0o600 });
    expect(await store.statBackup('s1', 'a@v2')).toBeNull();
    expect(await store.statBackup('other', 'a@v1')).toBeNull();
  });

  it('streams a backup’s exact bytes', async () => {
    const { workspace, store } = await setup();
    const content = randomBytes(1_000_001);
    await writeFile(join(workspace, 'big.bin'), content);
    await store.putBackup('s1', 'big@v1', join(workspace, 'big.bin'));
    expect((await collect(await store.openBackup('s1', 'big@v1'))).equals(content)).toBe(true);
  });

  it('throws NotFoundError from openBackup for a missing backup', async () => {
    const { store } = await setup();
    await expect(store.openBackup('s1', 'a@v1')).rejects.toThrow(NotFoundError);
  });

  it('deletes one backup; deleting a missing one is fine', async () => {
    const { workspace, store } = await setup();
    await writeFile(join(workspace, 'a.txt'), 'x');
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'));
    await store.putBackup('s1', 'a@v2', join(workspace, 'a.txt'));
    await store.deleteBackup('s1', 'a@v1');
    await store.deleteBackup('s1', 'a@v1');
    await store.deleteBackup('nobody', 'a@v1');
    expect(await store.listBackups('s1')).toEqual(['a@v2']);
    expect(await store.listBackups('nobody')).toEqual([]);
  });

  it('does not list a temp file left by a crash', async () => {
    const { root, store } = await setup();
    await mkdir(join(root, 'file-history', 's1'), { recursive: true });
    await writeFile(join(root, 'file-history', 's1', '.fh-tmp-00ff'), 'partial');
    await writeFile(join(root, 'file-history', 's1', 'a@v1'), 'done');
    expect(await store.listBackups('s1')).toEqual(['a@v1']);
  });
});

describe('restoreBackup', () => {
  it('writes the backup’s exact bytes to a new file', async () => {
    const { workspace, store } = await setup();
    const content = randomBytes(70_000);
    await writeFile(join(workspace, 'a.bin'), content);
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.bin'));
    await store.restoreBackup('s1', 'a@v1', join(workspace, 'restored.bin'));
    expect((await readFile(join(workspace, 'restored.bin'))).equals(content)).toBe(true);
  });

  it('never overwrites: an existing destination gives ConflictError and keeps its bytes', async () => {
    const { workspace, store } = await setup();
    await writeFile(join(workspace, 'a.txt'), 'backup');
    await writeFile(join(workspace, 'b.txt'), 'keep me');
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'));
    await expect(store.restoreBackup('s1', 'a@v1', join(workspace, 'b.txt'))).rejects.toThrow(
      `restoreBackup "a@v1" of session "s1" to "${join(workspace, 'b.txt')}": destination already exists`,
    );
    expect(await readFile(join(workspace, 'b.txt'), 'utf8')).toBe('keep me');
  });

  it('does not write through a symlink at the destination', async () => {
    const { folder, workspace, store } = await setup();
    await writeFile(join(workspace, 'a.txt'), 'backup');
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'));
    await symlink(join(folder, 'outside.txt'), join(workspace, 'link.txt'));
    await expect(store.restoreBackup('s1', 'a@v1', join(workspace, 'link.txt'))).rejects.toThrow(ConflictError);
    expect(await listTree(folder)).not.toContain('outside.txt');
  });

  it('keeps a destination that appears during the copy (EEXIST from copyFile)', async () => {
    const { root, workspace } = await setup();
    const destination = join(workspace, 'late.txt');
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        copyFile: async (source, target, mode) => {
          if (String(target) === destination) await writeFile(destination, 'arrived first');
          return copyFile(source, target, mode);
        },
      }),
    });
    await writeFile(join(workspace, 'a.txt'), 'backup');
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'));
    await expect(store.restoreBackup('s1', 'a@v1', destination)).rejects.toThrow(ConflictError);
    expect(await readFile(destination, 'utf8')).toBe('arrived first');
  });

  it('throws NotFoundError for a missing backup and creates nothing', async () => {
    const { workspace, store } = await setup();
    await expect(store.restoreBackup('s1', 'a@v1', join(workspace, 'out.txt'))).rejects.toThrow(
      `restoreBackup "a@v1" of session "s1" to "${join(workspace, 'out.txt')}": backup does not exist`,
    );
    expect(await listTree(workspace)).toEqual([]);
  });

  it('throws NotFoundError when the destination folder is missing', async () => {
    const { workspace, store } = await setup();
    await writeFile(join(workspace, 'a.txt'), 'x');
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'));
    await expect(store.restoreBackup('s1', 'a@v1', join(workspace, 'gone', 'out.txt'))).rejects.toThrow(NotFoundError);
  });

  it('throws CorruptError and removes the destination when the copy comes out short', async () => {
    const { root, workspace } = await setup();
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        copyFile: async (source, target, mode) => {
          await copyFile(source, target, mode);
          if (String(target).endsWith('out.txt')) await truncate(target, 2);
        },
      }),
    });
    await writeFile(join(workspace, 'a.txt'), 'eight by');
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'));
    const error = await store.restoreBackup('s1', 'a@v1', join(workspace, 'out.txt')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CorruptError);
    expect((error as Error).message).toBe(
      `restoreBackup "a@v1" of session "s1" to "${join(workspace, 'out.txt')}": wrote 2 bytes, the backup has 8`,
    );
    expect(await listTree(workspace)).toEqual(['a.txt']);
  });
});

describe('carryBackup', () => {
  it('hard-links the backup into the new session', async () => {
    const { root, workspace, store } = await setup();
    await writeFile(join(workspace, 'a.txt'), 'carried');
    await store.putBackup('old', 'a@v1', join(workspace, 'a.txt'));
    expect(await store.carryBackup('old', 'new', 'a@v1')).toBe('linked');
    const [from, to] = await Promise.all([
      stat(join(root, 'file-history', 'old', 'a@v1')),
      stat(join(root, 'file-history', 'new', 'a@v1')),
    ]);
    expect(to.ino).toBe(from.ino);
    expect(to.nlink).toBe(2);
    expect(await readFile(join(root, 'file-history', 'new', 'a@v1'), 'utf8')).toBe('carried');
  });

  it.each(['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP'])('copies instead when link fails with %s', async (code) => {
    const { root, workspace } = await setup();
    const from = join(root, 'file-history', 'old', 'a@v1');
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        linkSync: (existing, target) => {
          if (String(existing) === from) throw errnoError(code, 'link', String(existing));
          return linkSync(existing, target);
        },
      }),
    });
    await writeFile(join(workspace, 'a.txt'), 'carried by copy');
    await chmod(join(workspace, 'a.txt'), 0o640);
    await store.putBackup('old', 'a@v1', join(workspace, 'a.txt'));
    expect(await store.carryBackup('old', 'new', 'a@v1')).toBe('copied');
    const to = join(root, 'file-history', 'new', 'a@v1');
    expect(await readFile(to, 'utf8')).toBe('carried by copy');
    const [fromStats, toStats] = await Promise.all([stat(from), stat(to)]);
    expect(toStats.ino).not.toBe(fromStats.ino);
    expect([fromStats.nlink, toStats.nlink, toStats.mode & 0o7777]).toEqual([1, 1, 0o640]);
    expect(await listTree(join(root, 'file-history', 'new'))).toEqual(['a@v1']);
  });

  it("returns 'exists' and leaves an existing target alone", async () => {
    const { root, workspace, store } = await setup();
    await writeFile(join(workspace, 'a.txt'), 'old');
    await writeFile(join(workspace, 'b.txt'), 'already there');
    await store.putBackup('old', 'a@v1', join(workspace, 'a.txt'));
    await store.putBackup('new', 'a@v1', join(workspace, 'b.txt'));
    expect(await store.carryBackup('old', 'new', 'a@v1')).toBe('exists');
    expect(await readFile(join(root, 'file-history', 'new', 'a@v1'), 'utf8')).toBe('already there');
  });

  it("returns 'exists' when the copy fallback finds the target taken", async () => {
    const { root, workspace, store: plain } = await setup();
    const to = join(root, 'file-history', 'new', 'a@v1');
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        linkSync: (existing, target) => {
          if (String(existing).endsWith('a@v1')) throw errnoError('EXDEV', 'link', String(existing));
          writeFileSync(target, 'raced in');
          return linkSync(existing, target);
        },
      }),
    });
    await writeFile(join(workspace, 'a.txt'), 'old');
    await plain.putBackup('old', 'a@v1', join(workspace, 'a.txt'));
    expect(await store.carryBackup('old', 'new', 'a@v1')).toBe('exists');
    expect(await readFile(to, 'utf8')).toBe('raced in');
    expect(await listTree(join(root, 'file-history', 'new'))).toEqual(['a@v1']);
  });

  it('throws NotFoundError for a missing source backup', async () => {
    const { store } = await setup();
    const error = await store.carryBackup('old', 'new', 'a@v1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toBe('carryBackup "a@v1" from session "old" to "new": source backup does not exist');
    expect(await store.listBackups('new')).toEqual([]);
  });

  it('translates other link errors (EACCES → PermissionError)', async () => {
    const { root, workspace } = await setup();
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        linkSync: (existing, target) => {
          if (String(target).includes('/new/')) throw errnoError('EACCES', 'link', String(existing));
          return linkSync(existing, target);
        },
      }),
    });
    await writeFile(join(workspace, 'a.txt'), 'x');
    await store.putBackup('old', 'a@v1', join(workspace, 'a.txt'));
    await expect(store.carryBackup('old', 'new', 'a@v1')).rejects.toThrow(PermissionError);
  });
});

describe('listSessions and deleteSession', () => {
  it('lists each session with its bytes, backups and the latest mtime of its files', async () => {
    const { root, workspace, store } = await setup();
    await writeFile(join(workspace, 'a.txt'), '12345');
    await writeFile(join(workspace, 'b.txt'), '123');
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'));
    await store.putBackup('s1', 'b@v1', join(workspace, 'b.txt'));
    await store.sessionLog('s1').append([{ type: 'x' }]);
    await store.sessionLog('s2').append([{ type: 'y' }, { type: 'z' }]);
    await utimes(join(root, 'file-history', 's1', 'a@v1'), new Date('2025-01-01T00:00:00Z'), new Date('2025-01-01T00:00:00Z'));
    await utimes(join(root, 'file-history', 's1', 'b@v1'), new Date('2025-03-01T00:00:00Z'), new Date('2025-03-01T00:00:00Z'));
    await utimes(join(root, 'sessions', 's1.jsonl'), new Date('2025-02-01T00:00:00Z'), new Date('2025-02-01T00:00:00Z'));
    await utimes(join(root, 'sessions', 's2.jsonl'), new Date('2024-06-01T00:00:00Z'), new Date('2024-06-01T00:00:00Z'));
    const sessions = (await store.listSessions()).sort((left, right) => left.sessionId.localeCompare(right.sessionId));
    expect(sessions).toEqual([
      { sessionId: 's1', bytes: 8 + '{"type":"x"}\n'.length, backups: 2, lastModified: new Date('2025-03-01T00:00:00Z') },
      { sessionId: 's2', bytes: '{"type":"y"}\n{"type":"z"}\n'.length, backups: 0, lastModified: new Date('2024-06-01T00:00:00Z') },
    ]);
  });

  it('lists an emptied session folder with its own mtime', async () => {
    const { root, store } = await setup();
    await mkdir(join(root, 'file-history', 'empty'), { recursive: true });
    await utimes(join(root, 'file-history', 'empty'), new Date('2024-01-01T00:00:00Z'), new Date('2024-01-01T00:00:00Z'));
    expect(await store.listSessions()).toEqual([
      { sessionId: 'empty', bytes: 0, backups: 0, lastModified: new Date('2024-01-01T00:00:00Z') },
    ]);
  });

  it('lists nothing when the store folder does not exist', async () => {
    const { store } = await setup();
    expect(await store.listSessions()).toEqual([]);
  });

  it('deletes a session’s backups, records and lock, leaving other sessions', async () => {
    const { root, workspace, store } = await setup();
    await writeFile(join(workspace, 'a.txt'), 'x');
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'));
    await store.putBackup('s2', 'a@v1', join(workspace, 'a.txt'));
    await store.sessionLog('s1').append([{ type: 'x' }]);
    await mkdir(join(root, 'commands', 's1'), { recursive: true });
    await writeFile(join(root, 'commands', 's1', 'window-toolu_1.json'), '{}');
    await mkdir(join(root, 'commands', 's2'), { recursive: true });
    const lock = await store.lockSession('s1');
    await store.deleteSession('s1');
    await store.deleteSession('s1');
    await lock.release();
    expect(await listTree(root)).toEqual(['.gitignore', 'commands', 'commands/s2', 'file-history', 'file-history/s2', 'file-history/s2/a@v1', 'locks', 'sessions']);
  });
});

describe('containsPath', () => {
  it('is true for the root and the folders the store writes, and nothing else', async () => {
    const { folder, root, store } = await setup();
    expect(store.containsPath(root)).toBe(true);
    expect(store.containsPath(join(root, 'file-history', 's1', 'a@v1'))).toBe(true);
    expect(store.containsPath(join(root, 'file-history'))).toBe(true);
    expect(store.containsPath(join(root, 'sessions', 's1.jsonl'))).toBe(true);
    expect(store.containsPath(`${root}/../store/locks/s1.lock`)).toBe(true);
    expect(store.containsPath(join(root, '..foo'))).toBe(false);
    expect(store.containsPath(join(root, 'project', 'a.txt'))).toBe(false);
    expect(store.containsPath(join(root, 'file-historyx'))).toBe(false);
    expect(store.containsPath(`${root}x/a`)).toBe(false);
    expect(store.containsPath(join(folder, 'work', 'a.txt'))).toBe(false);
    expect(store.containsPath(folder)).toBe(false);
  });

  it('recognises the real path of a root reached through a symlink, even before the root exists', async () => {
    const folder = await temporaryFolder();
    await mkdir(join(folder, 'real'));
    await symlink(join(folder, 'real'), join(folder, 'alias'));
    const store = new FsBackupStore({ root: join(folder, 'alias', 'store') });
    expect(store.containsPath(join(folder, 'real', 'store', 'file-history'))).toBe(true);
    expect(store.containsPath(join(folder, 'alias', 'store', 'file-history'))).toBe(true);
    expect(store.containsPath(join(folder, 'real', 'store', 'sessions', 's1.jsonl'))).toBe(true);
    expect(store.containsPath(join(folder, 'real', 'store', 'notes.txt'))).toBe(false);
    expect(store.containsPath(join(folder, 'real', 'other'))).toBe(false);
  });
});

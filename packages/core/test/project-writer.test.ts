import * as fsPromises from 'node:fs/promises';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFsFromVolume, Volume } from 'memfs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openProjectWriter, symlinkTargetInside, type ProjectWriter } from '../src/rewind/project-writer.js';
import { restoredMode } from '../src/rewind/restored-mode.js';
import type { WorkspaceFs } from '../src/store.js';

const realFs = fsPromises as unknown as WorkspaceFs;
let base: string;
let project: string;
let elsewhere: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'fh-writer-'));
  project = join(base, 'project');
  elsewhere = join(base, 'elsewhere');
  await mkdir(join(project, 'sub', 'deep'), { recursive: true });
  await mkdir(elsewhere);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const writeBytes = (bytes: string) => (destination: string) => writeFile(destination, bytes, { flag: 'wx' });

describe('project writer on the real file system (dirfd mode)', () => {
  it('uses folder descriptors on Linux and writes a file with its mode through them', async () => {
    const writer = await openProjectWriter(realFs, project);
    try {
      expect(writer.mode).toBe(process.platform === 'linux' ? 'dirfd' : 'checked-paths');
      const folder = await writer.folder('sub/deep');
      await folder.replaceFile('a.txt', writeBytes('new bytes\n'), 0o640);
    } finally {
      await writer.close();
    }
    expect(await readFile(join(project, 'sub/deep/a.txt'), 'utf8')).toBe('new bytes\n');
    expect((await stat(join(project, 'sub/deep/a.txt'))).mode & 0o7777).toBe(0o640);
    expect(await readdir(join(project, 'sub/deep'))).toEqual(['a.txt']);
  });

  it('refuses a folder that is a symbolic link when it is opened, writing nothing through it', async () => {
    await rename(join(project, 'sub'), join(project, 'sub.real'));
    await symlink(elsewhere, join(project, 'sub'));
    const writer = await openProjectWriter(realFs, project);
    try {
      await expect(writer.folder('sub')).rejects.toMatchObject({ code: 'FH_OUTSIDE_ROOT', message: expect.stringContaining(`${join(project, 'sub')} is a symbolic link`) });
      await expect(writer.folder('sub/new', { create: true })).rejects.toMatchObject({ code: 'FH_OUTSIDE_ROOT' });
    } finally {
      await writer.close();
    }
    expect(await readdir(elsewhere)).toEqual([]);
  });

  it.runIf(process.platform === 'linux')('a folder swapped for a link after it was opened still receives the writes; the link target gets nothing', async () => {
    const writer = await openProjectWriter(realFs, project);
    try {
      const folder = await writer.folder('sub/deep');
      await rename(join(project, 'sub'), join(project, 'sub.real'));
      await symlink(elsewhere, join(project, 'sub'));
      await mkdir(join(elsewhere, 'deep'));
      await folder.replaceFile('a.txt', writeBytes('A\n'), 0o644);
      await folder.mkdir('made');
      await folder.replaceWithSymlink('link', 'a.txt');
      // 'sub' is held open too (as the parent of 'sub/deep'): a folder made there lands in the real folder.
      await writer.folder('sub/other', { create: true });
    } finally {
      await writer.close();
    }
    const fresh = await openProjectWriter(realFs, project);
    await expect(fresh.folder('sub/more', { create: true })).rejects.toMatchObject({ code: 'FH_OUTSIDE_ROOT' });
    await fresh.close();
    expect((await readdir(join(project, 'sub.real'))).sort()).toEqual(['deep', 'other']);
    expect((await readdir(join(project, 'sub.real/deep'))).sort()).toEqual(['a.txt', 'link', 'made']);
    expect(await readdir(join(elsewhere, 'deep'))).toEqual([]);
  });

  it('creates missing folders one at a time and refuses a file standing where a folder should be', async () => {
    await writeFile(join(project, 'plain'), 'a file\n');
    const writer = await openProjectWriter(realFs, project);
    try {
      const folder = await writer.folder('x/y/z', { create: true });
      await folder.replaceFile('f', writeBytes('f\n'), 0o600);
      await expect(writer.folder('plain/inner', { create: true })).rejects.toMatchObject({ code: 'FH_CONFLICT', message: `${join(project, 'plain')} is not a folder, so nothing could be written inside it` });
      await expect(writer.folder('nope')).rejects.toMatchObject({ code: 'FH_NOT_FOUND' });
      await expect(writer.folder('../elsewhere')).rejects.toMatchObject({ code: 'FH_OUTSIDE_ROOT' });
    } finally {
      await writer.close();
    }
    expect(await readFile(join(project, 'x/y/z/f'), 'utf8')).toBe('f\n');
  });

  it('removes every fh temp file of a folder, or only old ones, and never other files', async () => {
    const dir = join(project, 'sub');
    await writeFile(join(dir, '.a.txt.fh-0123456789ab.tmp'), 'old temp');
    await writeFile(join(dir, '.b.txt.fh-abcdefabcdef.tmp'), 'young temp');
    await writeFile(join(dir, '.notes.fh-draft.tmp'), 'user file');
    await mkdir(join(dir, '.c.fh-0123456789ab.tmp'));
    const old = new Date(Date.now() - 120_000);
    await fsPromises.utimes(join(dir, '.a.txt.fh-0123456789ab.tmp'), old, old);
    const writer = await openProjectWriter(realFs, project);
    try {
      const folder = await writer.folder('sub');
      expect(await folder.removeTemporaryFiles(Date.now() - 60_000)).toEqual(['.a.txt.fh-0123456789ab.tmp']);
      expect(await folder.removeTemporaryFiles()).toEqual(['.b.txt.fh-abcdefabcdef.tmp']);
    } finally {
      await writer.close();
    }
    expect((await readdir(dir)).sort()).toEqual(['.c.fh-0123456789ab.tmp', '.notes.fh-draft.tmp', 'deep']);
  });

  it('a failed write leaves no temp file and the target untouched', async () => {
    await writeFile(join(project, 'sub/a.txt'), 'kept\n');
    const writer = await openProjectWriter(realFs, project);
    try {
      const folder = await writer.folder('sub');
      await expect(
        folder.replaceFile('a.txt', async (destination) => {
          await writeFile(destination, 'half', { flag: 'wx' });
          throw new Error('disk full');
        }, 0o644),
      ).rejects.toThrow('disk full');
    } finally {
      await writer.close();
    }
    expect((await readdir(join(project, 'sub'))).sort()).toEqual(['a.txt', 'deep']);
    expect(await readFile(join(project, 'sub/a.txt'), 'utf8')).toBe('kept\n');
  });
});

describe('project writer: a folder fsync that fails', () => {
  it.runIf(process.platform === 'linux')('close names the folder, the project and the errno in fh words (fault injected: a folder handle whose fsync fails with EIO)', async () => {
    const eio = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', errno: -5, syscall: 'fsync' });
    const failingFs = {
      ...realFs,
      open: async (path: string, flags: number, mode?: number) => {
        const handle = await fsPromises.open(path, flags, mode);
        const isFolder = (flags & fsPromises.constants.O_DIRECTORY) !== 0 && path.endsWith('/deep');
        return isFolder ? Object.assign(handle, { sync: () => Promise.reject(eio) }) : handle;
      },
    } as unknown as WorkspaceFs;
    const writer = await openProjectWriter(failingFs, project);
    const folder = await writer.folder('sub/deep');
    await folder.replaceFile('a.txt', writeBytes('new bytes\n'), 0o644);
    await expect(writer.close()).rejects.toMatchObject({
      code: 'FH_UNAVAILABLE',
      message: `make the files written in folder sub/deep of ${project} durable (fsync): EIO (file system temporarily unavailable)`,
    });
    expect(await readFile(join(project, 'sub/deep/a.txt'), 'utf8')).toBe('new bytes\n');
  });
});

describe('project writer without descriptors (checked-paths mode)', () => {
  async function memfsProject(): Promise<{ fs: WorkspaceFs; writer: ProjectWriter }> {
    const volume = Volume.fromJSON({ '/p/sub/a.txt': 'old\n', '/elsewhere/.keep': '' });
    const fs = createFsFromVolume(volume).promises as unknown as WorkspaceFs;
    return { fs, writer: await openProjectWriter(fs, '/p') };
  }

  it('falls back on memfs and refuses a folder swapped for a link before each operation', async () => {
    const { fs, writer } = await memfsProject();
    expect(writer.mode).toBe('checked-paths');
    const folder = await writer.folder('sub');
    await fs.rename('/p/sub', '/p/sub.real');
    await (fs as unknown as { symlink(target: string, path: string): Promise<void> }).symlink('/elsewhere', '/p/sub');
    await expect(folder.replaceFile('a.txt', async (destination) => fs.writeFile(destination, 'new\n', { flag: 'wx' }), 0o644)).rejects.toMatchObject({ code: 'FH_OUTSIDE_ROOT' });
    await expect(folder.unlink('a.txt')).rejects.toMatchObject({ code: 'FH_OUTSIDE_ROOT' });
    await writer.close();
    expect(await fs.readdir('/elsewhere')).toEqual(['.keep']);
    expect(String(await fs.readFile('/p/sub.real/a.txt'))).toBe('old\n');
  });
});

describe('record checks', () => {
  it('a symlink target must stay inside the project', () => {
    expect(symlinkTargetInside('/p', 'a/link', 'b.txt')).toBe(true);
    expect(symlinkTargetInside('/p', 'a/link', '../b.txt')).toBe(true);
    expect(symlinkTargetInside('/p', 'a/link', '../../b.txt')).toBe(false);
    expect(symlinkTargetInside('/p', 'link', '/p/x/y')).toBe(true);
    expect(symlinkTargetInside('/p', 'link', '/p')).toBe(true);
    expect(symlinkTargetInside('/p', 'link', '/p2/x')).toBe(false);
    expect(symlinkTargetInside('/p', 'link', '/p/../etc/passwd')).toBe(false);
    expect(symlinkTargetInside('/p', 'link', '/etc/passwd')).toBe(false);
    expect(symlinkTargetInside('/p', 'link', '')).toBe(false);
  });

  it('restored modes lose setuid/setgid unless the store holds them on the backup too', () => {
    expect(restoredMode(0o100755)).toBe(0o755);
    expect(restoredMode(0o4755)).toBe(0o755);
    expect(restoredMode(0o6755, 0o644)).toBe(0o755);
    expect(restoredMode(0o4755, 0o4755)).toBe(0o4755);
    expect(restoredMode(0o1777)).toBe(0o1777);
  });
});

/** Issue 2 rules 4 and 5: rewind restores exactly, validates first, never writes outside the root. */
import { BackupMissingError, NotFoundError, InvalidArgumentError, emptyFileHistoryState, type FileHistoryState } from '@fh/core';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../workspace.js';

export function rewindTests(workspace: () => Workspace): void {
  describe('rewind (rules 4 and 5)', () => {
    it('puts every tracked file back to its exact bytes and mode and reports what it did', async () => {
      const w = workspace();
      await w.write('src/index.ts', 'export {};\n', 0o644);
      await w.write('bin/tool', '#!/bin/sh\nexit 0\n', 0o755);
      await w.write('docs/readme.md', 'docs\n', 0o600);
      const history = await w.open();
      await history.makeSnapshot('m1');
      for (const file of ['src/index.ts', 'bin/tool', 'docs/readme.md']) await history.trackEdit(file);
      await w.write('src/index.ts', 'export const changed = true;\n', 0o644);
      await w.write('bin/tool', '#!/bin/sh\nexit 1\n', 0o700);
      await history.makeSnapshot('m2');

      expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: ['bin/tool', 'src/index.ts'], deleted: [], skipped: [], failed: [] });
      expect(await w.text('src/index.ts')).toBe('export {};\n');
      expect(await w.text('bin/tool')).toBe('#!/bin/sh\nexit 0\n');
      expect(await w.mode('bin/tool')).toBe(0o755);
      expect(await w.mode('docs/readme.md')).toBe(0o600);

      expect(await history.rewind('m2')).toEqual({ messageId: 'm2', restored: ['bin/tool', 'src/index.ts'], deleted: [], skipped: [], failed: [] });
      expect(await w.text('bin/tool')).toBe('#!/bin/sh\nexit 1\n');
      expect(await w.mode('bin/tool')).toBe(0o700);
      expect(await history.rewind('m2')).toEqual({ messageId: 'm2', restored: [], deleted: [], skipped: [], failed: [] });
    });

    it('writes only files that differ: an unchanged file keeps its inode and mtime', async () => {
      const w = workspace();
      await w.write('untouched.txt', 'untouched\n');
      await w.write('touched.txt', 'touched\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('untouched.txt');
      await history.trackEdit('touched.txt');
      await w.write('touched.txt', 'edited\n');
      const before = await w.fs.stat(w.path('untouched.txt'));
      const result = await history.rewind('m1');
      const after = await w.fs.stat(w.path('untouched.txt'));
      expect(result.restored).toEqual(['touched.txt']);
      expect(after.ino).toBe(before.ino);
      expect(after.mtimeMs).toBe(before.mtimeMs);
      expect(after.ctimeMs).toBe(before.ctimeMs);
    });

    it('brings back a tracked file deleted together with its folder', async () => {
      const w = workspace();
      await w.write('deep/nested/folder/file.txt', 'deep content\n', 0o640);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('deep/nested/folder/file.txt');
      await w.fs.rm(w.path('deep'), { recursive: true, force: true });
      await history.makeSnapshot('m2');
      expect(history.state.snapshots[1]?.trackedFileBackups['deep/nested/folder/file.txt']).toMatchObject({ backupFileName: null, version: 2 });

      expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: ['deep/nested/folder/file.txt'], deleted: [], skipped: [], failed: [] });
      expect(await w.text('deep/nested/folder/file.txt')).toBe('deep content\n');
      expect(await w.mode('deep/nested/folder/file.txt')).toBe(0o640);
    });

    it('deletes a file created after the checkpoint', async () => {
      const w = workspace();
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('created-later.txt');
      await w.write('created-later.txt', 'new\n');
      await history.makeSnapshot('m2');
      expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: [], deleted: ['created-later.txt'], skipped: [], failed: [] });
      expect(await w.bytes('created-later.txt')).toBeNull();
      expect(await history.rewind('m2')).toEqual({ messageId: 'm2', restored: ['created-later.txt'], deleted: [], skipped: [], failed: [] });
      expect(await w.text('created-later.txt')).toBe('new\n');
    });

    it('puts files first tracked after the snapshot back to how they were before their first edit', async () => {
      const w = workspace();
      await w.write('early.txt', 'early v1\n');
      await w.write('late.txt', 'late original\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('early.txt');
      await w.write('early.txt', 'early v2\n');
      await history.makeSnapshot('m2');
      await history.makeSnapshot('m3');
      await history.trackEdit('late.txt');
      await history.trackEdit('late-new.txt');
      await w.write('late.txt', 'late edited\n');
      await w.write('late-new.txt', 'late created\n');
      await history.makeSnapshot('m4');

      expect(await history.rewind('m1')).toEqual({
        messageId: 'm1',
        restored: ['early.txt', 'late.txt'],
        deleted: ['late-new.txt'],
        skipped: [],
        failed: [],
      });
      expect(await w.tree()).toEqual({ 'early.txt': 'early v1\n', 'late.txt': 'late original\n' });
    });

    it('leaves a folder standing at a path whose entry is null, and reports it', async () => {
      const w = workspace();
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('out');
      await w.write('out/inner.txt', 'inside a folder\n');
      await history.makeSnapshot('m2');
      expect(await history.rewind('m1')).toEqual({
        messageId: 'm1',
        restored: [],
        deleted: [],
        skipped: [{ path: 'out', reason: 'a folder is at this path' }],
        failed: [],
      });
      expect(await w.text('out/inner.txt')).toBe('inside a folder\n');
    });

    it('replaces a symlink at a tracked path instead of writing through it', async () => {
      const w = workspace();
      const outside = `${w.root}-outside`;
      await w.fs.mkdir(outside, { recursive: true });
      try {
        await w.write('linked.txt', 'project content\n');
        const history = await w.open();
        await history.makeSnapshot('m1');
        await history.trackEdit('linked.txt');
        await w.fs.writeFile(`${outside}/target.txt`, 'outside content\n');
        await w.fs.unlink(w.path('linked.txt'));
        await symlink(w, `${outside}/target.txt`, w.path('linked.txt'));

        expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: ['linked.txt'], deleted: [], skipped: [], failed: [] });
        expect((await w.fs.lstat(w.path('linked.txt'))).isFile()).toBe(true);
        expect(await w.text('linked.txt')).toBe('project content\n');
        expect(Buffer.from(await w.fs.readFile(`${outside}/target.txt`)).toString()).toBe('outside content\n');
      } finally {
        await w.fs.rm(outside, { recursive: true, force: true });
      }
    });

    it('skips a path reached through a symlinked parent folder and writes nothing outside the root', async () => {
      const w = workspace();
      const outside = `${w.root}-outside`;
      await w.fs.mkdir(outside, { recursive: true });
      try {
        await w.write('real/config.txt', 'inside\n');
        const history = await w.open();
        await history.makeSnapshot('m1');
        await history.trackEdit('real/config.txt');
        await history.trackEdit('real/created.txt');
        await w.fs.rm(w.path('real'), { recursive: true, force: true });
        await w.fs.writeFile(`${outside}/config.txt`, 'outside\n');
        await w.fs.writeFile(`${outside}/created.txt`, 'outside created\n');
        await symlink(w, outside, w.path('real'));

        const result = await history.rewind('m1');
        expect(result).toEqual({
          messageId: 'm1',
          restored: [],
          deleted: [],
          skipped: [
            { path: 'real/config.txt', reason: `reached through the symbolic link ${w.path('real')}` },
            { path: 'real/created.txt', reason: `reached through the symbolic link ${w.path('real')}` },
          ],
          failed: [],
        });
        expect((await w.fs.readdir(outside)).map(String).sort()).toEqual(['config.txt', 'created.txt']);
        expect(Buffer.from(await w.fs.readFile(`${outside}/config.txt`)).toString()).toBe('outside\n');
        expect(Buffer.from(await w.fs.readFile(`${outside}/created.txt`)).toString()).toBe('outside created\n');
      } finally {
        await w.fs.rm(outside, { recursive: true, force: true });
      }
    });

    it('replaces a hard-linked file by rename, leaving the other name untouched', async () => {
      const w = workspace();
      await w.write('primary.txt', 'original\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('primary.txt');
      await w.write('primary.txt', 'edited through both names\n');
      await hardLink(w, w.path('primary.txt'), w.path('other-name.txt'));
      expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: ['primary.txt'], deleted: [], skipped: [], failed: [] });
      expect(await w.text('primary.txt')).toBe('original\n');
      expect(await w.text('other-name.txt')).toBe('edited through both names\n');
    });

    it('refuses with BackupMissingError listing each missing backup, and changes nothing', async () => {
      const w = workspace();
      await w.write('a.txt', 'a original\n');
      await w.write('b.txt', 'b original\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('a.txt');
      await history.trackEdit('b.txt');
      await history.trackEdit('c.txt');
      await w.write('a.txt', 'a edited\n');
      await w.write('b.txt', 'b edited\n');
      await w.write('c.txt', 'c created\n');
      await w.harness.removeBackupObject(w.sessionId, w.backupName('b.txt', 1));
      const before = await w.tree();

      const error = await history.rewind('m1').then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(BackupMissingError);
      expect((error as BackupMissingError).missing).toEqual([
        { path: 'b.txt', backupFileName: w.backupName('b.txt', 1), reason: 'the backup does not exist in the store' },
      ]);
      expect((error as Error).message).toBe(
        `rewind refused, nothing was changed: 1 backup(s) missing or damaged: b.txt (${w.backupName('b.txt', 1)}: the backup does not exist in the store)`,
      );
      expect(await w.tree()).toEqual(before);
    });

    it('rewinds only the files named in paths', async () => {
      const w = workspace();
      await w.write('one.txt', 'one\n');
      await w.write('two.txt', 'two\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('one.txt');
      await history.trackEdit('two.txt');
      await w.write('one.txt', 'one edited\n');
      await w.write('two.txt', 'two edited\n');
      expect(await history.rewind('m1', { paths: [w.path('two.txt')] })).toEqual({ messageId: 'm1', restored: ['two.txt'], deleted: [], skipped: [], failed: [] });
      expect(await w.tree()).toEqual({ 'one.txt': 'one edited\n', 'two.txt': 'two\n' });
      await expect(history.rewind('m1', { paths: ['never-tracked.txt'] })).rejects.toThrow(InvalidArgumentError);
      await expect(history.rewind('m1', { paths: ['never-tracked.txt'] })).rejects.toThrow('never-tracked.txt is not a tracked file');
    });

    it('throws NotFoundError for a message without a snapshot', async () => {
      const w = workspace();
      const history = await w.open();
      await history.makeSnapshot('m1');
      await expect(history.rewind('no-such-message')).rejects.toThrow(NotFoundError);
      await expect(history.rewind('no-such-message')).rejects.toThrow('no snapshot for message "no-such-message"');
    });

    it('skips a state key that points outside the project root instead of writing there', async () => {
      const w = workspace();
      const state: FileHistoryState = emptyFileHistoryState();
      state.snapshots.push({
        messageId: 'm1',
        timestamp: new Date(),
        trackedFileBackups: { '../escape.txt': { backupFileName: null, version: 1, backupTime: new Date() } },
      });
      state.trackedFiles.add('../escape.txt');
      const outsideFile = `${w.root}-escape.txt`;
      await w.fs.writeFile(outsideFile, 'must survive\n');
      try {
        const history = await w.open({ initialState: state, log: false });
        expect(await history.rewind('m1')).toEqual({
          messageId: 'm1',
          restored: [],
          deleted: [],
          skipped: [{ path: '../escape.txt', reason: `tracked path "../escape.txt" is outside the project root ${w.root}` }],
          failed: [],
        });
        expect(Buffer.from(await w.fs.readFile(outsideFile)).toString()).toBe('must survive\n');
      } finally {
        await w.fs.rm(outsideFile, { force: true });
      }
    });
  });
}

async function symlink(w: Workspace, target: string, path: string): Promise<void> {
  await (w.fs as unknown as { symlink(target: string, path: string): Promise<void> }).symlink(target, path);
}

async function hardLink(w: Workspace, existing: string, path: string): Promise<void> {
  await (w.fs as unknown as { link(existing: string, path: string): Promise<void> }).link(existing, path);
}

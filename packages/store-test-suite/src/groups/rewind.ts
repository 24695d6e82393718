/** Issue 2 rules 4 and 5: rewind restores exactly, validates first, never writes outside the root. */
import { BackupMissingError, NotFoundError, InvalidArgumentError, RewindSession, emptyFileHistoryState, type FileHistoryState } from '@fh/core';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../workspace.js';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

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

    it('rewinds a file that became a folder: deletes its files, removes the emptied folder, restores the file; undo and redo', async () => {
      const w = workspace();
      await w.write('docs', 'docs as one file\n', 0o640);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('docs');
      await history.trackEdit('docs/index.md');
      await w.fs.unlink(w.path('docs'));
      await w.write('docs/index.md', '# index\n', 0o600);
      await history.makeSnapshot('m2');
      expect(history.state.snapshots[1]?.trackedFileBackups['docs']).toMatchObject({ backupFileName: null, version: 2 });
      expect(await history.getDiffStats('m1')).toEqual({
        filesChanged: ['docs', 'docs/index.md'],
        insertions: 1,
        deletions: 1,
        files: [
          { path: 'docs', status: 'deleted', insertions: 1, deletions: 0, binary: false },
          { path: 'docs/index.md', status: 'created', insertions: 0, deletions: 1, binary: false },
        ],
        skipped: [],
        failed: [],
        missing: [],
      });

      const session = new RewindSession({ history });
      const rewound = await session.restore({ messageId: 'm1', mode: 'code' });
      expect(rewound.code).toEqual({ messageId: 'm1', restored: ['docs'], deleted: ['docs/index.md'], skipped: [], failed: [] });
      expect(rewound.undoPoint?.entries).toEqual([
        { path: 'docs', kind: 'folder', backupFileName: null, mode: null },
        { path: 'docs/index.md', kind: 'file', backupFileName: expect.any(String), mode: 0o600, size: 8, sha256: sha256('# index\n') },
      ]);
      expect(await w.tree()).toEqual({ docs: 'docs as one file\n' });
      expect(await w.mode('docs')).toBe(0o640);

      const undone = await session.undo();
      expect(undone).toEqual({ operation: 'undo', target: rewound.undoPoint?.undoId, pointId: expect.any(String), restored: ['docs', 'docs/index.md'], deleted: [], skipped: [], failed: [], recovered: [] });
      expect(await w.tree()).toEqual({ 'docs/index.md': '# index\n' });
      expect(await w.mode('docs/index.md')).toBe(0o600);

      expect(await session.redo()).toEqual({ operation: 'redo', target: rewound.undoPoint?.undoId, pointId: expect.any(String), restored: ['docs'], deleted: ['docs/index.md'], skipped: [], failed: [], recovered: [] });
      expect(await w.tree()).toEqual({ docs: 'docs as one file\n' });
      expect(await w.mode('docs')).toBe(0o640);

      expect(await history.rewind('m2')).toEqual({ messageId: 'm2', restored: ['docs/index.md'], deleted: ['docs'], skipped: [], failed: [] });
      expect(await w.tree()).toEqual({ 'docs/index.md': '# index\n' });
      expect(await w.mode('docs/index.md')).toBe(0o600);
    });

    it('rewinds a folder that became a file: deletes the tracked file, recreates the folder and its files; undo and redo', async () => {
      const w = workspace();
      await w.write('lib/a.ts', 'export const a = 1;\n', 0o644);
      await w.write('lib/b.sh', '#!/bin/sh\nexit 0\n', 0o755);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('lib/a.ts');
      await history.trackEdit('lib/b.sh');
      await w.fs.rm(w.path('lib'), { recursive: true, force: true });
      await history.trackEdit('lib');
      await w.write('lib', 'lib is one file now\n', 0o600);
      await history.makeSnapshot('m2');
      expect(history.state.snapshots[1]?.trackedFileBackups['lib/a.ts']).toMatchObject({ backupFileName: null, version: 2 });

      const paths: string[][] = [];
      const beforeWrite = async (touched: readonly string[]) => {
        paths.push([...touched]);
      };
      expect(await history.rewind('m1', { beforeWrite })).toEqual({ messageId: 'm1', restored: ['lib/a.ts', 'lib/b.sh'], deleted: ['lib'], skipped: [], failed: [] });
      expect(paths).toEqual([['lib', 'lib/a.ts', 'lib/b.sh']]);
      expect(await w.tree()).toEqual({ 'lib/a.ts': 'export const a = 1;\n', 'lib/b.sh': '#!/bin/sh\nexit 0\n' });
      expect(await w.mode('lib/a.ts')).toBe(0o644);
      expect(await w.mode('lib/b.sh')).toBe(0o755);

      expect(await history.rewind('m2')).toEqual({ messageId: 'm2', restored: ['lib'], deleted: ['lib/a.ts', 'lib/b.sh'], skipped: [], failed: [] });
      expect(await w.tree()).toEqual({ lib: 'lib is one file now\n' });
      expect(await w.mode('lib')).toBe(0o600);

      const session = new RewindSession({ history });
      const rewound = await session.restore({ messageId: 'm1', mode: 'code' });
      expect(rewound.code).toEqual({ messageId: 'm1', restored: ['lib/a.ts', 'lib/b.sh'], deleted: ['lib'], skipped: [], failed: [] });
      expect(rewound.undoPoint?.entries).toEqual([
        { path: 'lib', kind: 'file', backupFileName: expect.any(String), mode: 0o600, size: 20, sha256: sha256('lib is one file now\n') },
        { path: 'lib/a.ts', kind: 'missing', backupFileName: null, mode: null },
        { path: 'lib/b.sh', kind: 'missing', backupFileName: null, mode: null },
      ]);
      const undone = await session.undo();
      expect(undone).toEqual({ operation: 'undo', target: rewound.undoPoint?.undoId, pointId: expect.any(String), restored: ['lib'], deleted: ['lib/a.ts', 'lib/b.sh'], skipped: [], failed: [], recovered: [] });
      expect(await w.tree()).toEqual({ lib: 'lib is one file now\n' });
      expect(await w.mode('lib')).toBe(0o600);

      expect(await session.redo()).toEqual({ operation: 'redo', target: rewound.undoPoint?.undoId, pointId: expect.any(String), restored: ['lib', 'lib/a.ts', 'lib/b.sh'], deleted: [], skipped: [], failed: [], recovered: [] });
      expect(await w.tree()).toEqual({ 'lib/a.ts': 'export const a = 1;\n', 'lib/b.sh': '#!/bin/sh\nexit 0\n' });
      expect(await w.mode('lib/b.sh')).toBe(0o755);
    });

    it('never removes a folder holding untracked files: the file it replaced is skipped, the user files stay; undo', async () => {
      const w = workspace();
      await w.write('docs', 'docs as one file\n', 0o640);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('docs');
      await history.trackEdit('docs/index.md');
      await w.fs.unlink(w.path('docs'));
      await w.write('docs/index.md', '# index\n', 0o600);
      await w.write('docs/notes.txt', 'the user\'s own notes\n', 0o600);
      await history.makeSnapshot('m2');

      const session = new RewindSession({ history });
      const rewound = await session.restore({ messageId: 'm1', mode: 'code' });
      expect(rewound.code).toEqual({
        messageId: 'm1',
        restored: [],
        deleted: ['docs/index.md'],
        skipped: [{ path: 'docs', reason: 'a folder is at this path and holds what this rewind does not delete: notes.txt' }],
        failed: [],
      });
      expect(rewound.undoPoint?.entries.map((entry) => entry.path)).toEqual(['docs/index.md']);
      expect(await w.tree()).toEqual({ 'docs/notes.txt': "the user's own notes\n" });
      expect(await w.mode('docs/notes.txt')).toBe(0o600);

      expect(await session.undo()).toEqual({ operation: 'undo', target: rewound.undoPoint?.undoId, pointId: expect.any(String), restored: ['docs/index.md'], deleted: [], skipped: [], failed: [], recovered: [] });
      expect(await w.tree()).toEqual({ 'docs/index.md': '# index\n', 'docs/notes.txt': "the user's own notes\n" });
      expect(await w.mode('docs/index.md')).toBe(0o600);
    });

    it('an undo blocked by a folder holding user files fails that file, stays pending, and the next undo rolls it back and completes', async () => {
      const w = workspace();
      await w.write('lib/a.ts', 'export const a = 1;\n', 0o644);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('lib/a.ts');
      await w.fs.rm(w.path('lib'), { recursive: true, force: true });
      await history.trackEdit('lib');
      await w.write('lib', 'lib is one file now\n', 0o600);
      await history.makeSnapshot('m2');
      const session = new RewindSession({ history });
      const rewound = await session.restore({ messageId: 'm1', mode: 'code' });
      expect(rewound.code).toEqual({ messageId: 'm1', restored: ['lib/a.ts'], deleted: ['lib'], skipped: [], failed: [] });
      const undoId = rewound.undoPoint?.undoId as string;
      await w.write('lib/user.txt', 'written by the user after the rewind\n', 0o600);

      const blocked = await session.undo();
      expect(blocked.deleted).toEqual(['lib/a.ts']);
      expect(blocked.failed.map((failure) => [failure.path, failure.error.message])).toEqual([
        ['lib', 'lib: a folder that is not empty is at this path; move its files away and undo again'],
      ]);
      expect(await w.tree()).toEqual({ 'lib/user.txt': 'written by the user after the rewind\n' });
      expect((await session.timeline()).pending.map((point) => point.undoId)).toEqual([blocked.pointId]);

      await w.fs.unlink(w.path('lib/user.txt'));
      const retried = await session.undo(undoId.slice(0, 8));
      expect(retried).toMatchObject({ operation: 'undo', target: undoId, restored: ['lib'], deleted: ['lib/a.ts'], skipped: [], failed: [] });
      expect(retried.recovered).toEqual([{ pointId: blocked.pointId, operation: 'undo', outcome: 'rolled-back', recoverPointId: expect.any(String), restored: ['lib/a.ts'], deleted: [] }]);
      expect(await w.tree()).toEqual({ lib: 'lib is one file now\n' });
      expect(await w.mode('lib')).toBe(0o600);
      const timeline = await session.timeline();
      expect([timeline.pending, timeline.steps, timeline.cursor]).toEqual([[], [undoId], 0]);
    });

    it('removes every temp file a killed process left in the folders it writes to while it holds the session lock, and nothing else', async () => {
      const w = workspace();
      await w.write('src/a.txt', 'before\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('src/a.txt');
      await w.write('src/a.txt', 'after\n');
      const longAgo = new Date(Date.now() - 5 * 60_000);
      await w.write('src/.a.txt.fh-0123456789ab.tmp', 'left by a killed rewind\n');
      await w.fs.utimes(w.path('src/.a.txt.fh-0123456789ab.tmp'), longAgo, longAgo);
      await w.write('src/.b.txt.fh-abcdefabcdef.tmp', 'left a second ago\n');
      await w.write('src/.notes.fh-draft.tmp', 'a user file\n');
      await w.fs.utimes(w.path('src/.notes.fh-draft.tmp'), longAgo, longAgo);

      expect(history.holdsLock).toBe(history.store.capabilities.locking);
      expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: ['src/a.txt'], deleted: [], skipped: [], failed: [] });
      expect(await w.tree()).toEqual({
        ...(history.holdsLock ? {} : { 'src/.b.txt.fh-abcdefabcdef.tmp': 'left a second ago\n' }),
        'src/.notes.fh-draft.tmp': 'a user file\n',
        'src/a.txt': 'before\n',
      });
    });

    it('without the session lock, removes only temp files older than 60 s (another process may be writing the young ones)', async () => {
      const w = workspace();
      await w.write('src/a.txt', 'before\n');
      const history = await w.open({ lock: false });
      await history.makeSnapshot('m1');
      await history.trackEdit('src/a.txt');
      await w.write('src/a.txt', 'after\n');
      const longAgo = new Date(Date.now() - 5 * 60_000);
      await w.write('src/.a.txt.fh-0123456789ab.tmp', 'left by a killed rewind\n');
      await w.fs.utimes(w.path('src/.a.txt.fh-0123456789ab.tmp'), longAgo, longAgo);
      await w.write('src/.b.txt.fh-abcdefabcdef.tmp', 'being written right now\n');

      expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: ['src/a.txt'], deleted: [], skipped: [], failed: [] });
      expect(await w.tree()).toEqual({ 'src/.b.txt.fh-abcdefabcdef.tmp': 'being written right now\n', 'src/a.txt': 'before\n' });
    });

    it('deletes undo backups no undo point refers to (left by a killed save) when it saves the next point', async () => {
      const w = workspace();
      await w.write('a.txt', 'v1\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('a.txt');
      await w.write('a.txt', 'v2\n');
      const session = new RewindSession({ history });
      const first = await session.restore({ messageId: 'm1', mode: 'code' });
      const orphan = `${'0'.repeat(16)}@undo-0123456789ab`;
      await w.store.putBackup(w.sessionId, orphan, w.path('a.txt'));
      await w.write('a.txt', 'v3\n');
      const second = await session.restore({ messageId: 'm1', mode: 'code' });
      const undoBackups = (await w.store.listBackups(w.sessionId)).filter((name) => name.includes('@undo-')).sort();
      expect(undoBackups).toEqual(
        [first.undoPoint?.entries[0]?.backupFileName, second.undoPoint?.entries[0]?.backupFileName].sort(),
      );
      expect(await session.undo()).toMatchObject({ restored: ['a.txt'], failed: [] });
      expect(await w.text('a.txt')).toBe('v3\n');
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
        `rewind refused, nothing was changed: 1 backup is missing or damaged: b.txt (${w.backupName('b.txt', 1)}: the backup does not exist in the store)`,
      );
      expect(await w.tree()).toEqual(before);
      expect((await history.getDiffStats('m1')).missing).toEqual([
        { path: 'b.txt', backupFileName: w.backupName('b.txt', 1), reason: 'the backup does not exist in the store' },
      ]);
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
      await expect(history.rewind('m1', { paths: 'a.txt' as never })).rejects.toThrow('paths must be an array of paths, got "a.txt"');
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

/** Issue 2 rule 6: getDiffStats / hasAnyChanges / canRestore, a dry run that writes nothing. */
import { NotFoundError } from '@fh/core';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../workspace.js';

export function diffStatsTests(workspace: () => Workspace): void {
  describe('diff stats and change checks (rule 6)', () => {
    it('counts the lines a rewind would add back and remove, per file, and writes nothing', async () => {
      const w = workspace();
      await w.write('edited.txt', 'one\ntwo\nthree\n');
      await w.write('removed.txt', 'r1\nr2\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      for (const file of ['edited.txt', 'removed.txt', 'added.txt']) await history.trackEdit(file);
      await w.write('edited.txt', 'one\nTWO\nthree\nfour\n');
      await w.fs.unlink(w.path('removed.txt'));
      await w.write('added.txt', 'a1\na2\na3\n');
      const treeBefore = await w.tree();
      const backupsBefore = await w.backups();

      expect(await history.getDiffStats('m1')).toEqual({
        filesChanged: ['added.txt', 'edited.txt', 'removed.txt'],
        insertions: 3,
        deletions: 5,
        files: [
          { path: 'added.txt', status: 'created', insertions: 0, deletions: 3, binary: false },
          { path: 'edited.txt', status: 'modified', insertions: 1, deletions: 2, binary: false },
          { path: 'removed.txt', status: 'deleted', insertions: 2, deletions: 0, binary: false },
        ],
        skipped: [],
        failed: [],
        missing: [],
      });
      expect(await w.tree()).toEqual(treeBefore);
      expect(await w.backups()).toEqual(backupsBefore);
    });

    it('marks binary files (a NUL byte in the first 8 KiB) as changed with no line counts', async () => {
      const w = workspace();
      await w.write('image.bin', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0a, 0x01]));
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('image.bin');
      await w.write('image.bin', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0a, 0x02, 0x0a]));
      expect(await history.getDiffStats('m1')).toEqual({
        filesChanged: ['image.bin'],
        insertions: 0,
        deletions: 0,
        files: [{ path: 'image.bin', status: 'modified', insertions: 0, deletions: 0, binary: true }],
        skipped: [],
        failed: [],
        missing: [],
      });
    });

    it('counts files above the size cap as changed without a line diff', async () => {
      const w = workspace();
      await w.write('big.txt', 'line\n'.repeat(100));
      const history = await w.open({ diffSizeCapBytes: 256 });
      await history.makeSnapshot('m1');
      await history.trackEdit('big.txt');
      await w.write('big.txt', 'line\n'.repeat(99));
      expect((await history.getDiffStats('m1')).files).toEqual([
        { path: 'big.txt', status: 'modified', insertions: 0, deletions: 0, binary: false, tooLarge: true },
      ]);
    });

    it('counts a file whose every line changed as changed without line counts when the diff outlasts its budget', async () => {
      const w = workspace();
      await w.write('generated.txt', Array.from({ length: 30_000 }, (_, index) => `line ${index}\n`).join(''));
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('generated.txt');
      await w.write('generated.txt', Array.from({ length: 30_000 }, (_, index) => `line ${index}\r\n`).join(''));
      expect((await history.getDiffStats('m1')).files).toEqual([
        { path: 'generated.txt', status: 'modified', insertions: 0, deletions: 0, binary: false, tooManyChanges: true },
      ]);
    });

    it('reports a mode-only difference with no line counts', async () => {
      const w = workspace();
      await w.write('mode.sh', 'echo\n', 0o644);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('mode.sh');
      await w.fs.chmod(w.path('mode.sh'), 0o755);
      expect((await history.getDiffStats('m1')).files).toEqual([
        { path: 'mode.sh', status: 'modified', insertions: 0, deletions: 0, binary: false, modeOnly: true },
      ]);
    });

    it('compares bytes when size and mode match but the timestamps cannot tell: rewritten with the same bytes is no change, same size with other bytes is', async () => {
      const w = workspace();
      await w.write('same.txt', 'keep\n');
      await w.write('swapped.txt', 'abcd\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('same.txt');
      await history.trackEdit('swapped.txt');
      await w.write('same.txt', 'keep\n');
      await w.write('swapped.txt', 'wxyz\n');
      expect(await history.getDiffStats('m1')).toEqual({
        filesChanged: ['swapped.txt'],
        insertions: 1,
        deletions: 1,
        files: [{ path: 'swapped.txt', status: 'modified', insertions: 1, deletions: 1, binary: false }],
        skipped: [],
        failed: [],
        missing: [],
      });
      expect(await history.hasAnyChanges('m1')).toBe(true);
    });

    it('lists failed backups and missing backups instead of counting them', async () => {
      const w = workspace();
      await w.write('lost.txt', 'lost\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('lost.txt');
      await w.write('lost.txt', 'changed\n');
      await w.harness.removeBackupObject(w.sessionId, w.backupName('lost.txt', 1));
      const stats = await history.getDiffStats('m1');
      expect(stats.files).toEqual([]);
      expect(stats.failed).toEqual([{ path: 'lost.txt', reason: `backup ${w.backupName('lost.txt', 1)} missing: the backup does not exist in the store` }]);
    });

    it('hasAnyChanges answers whether a rewind would change anything', async () => {
      const w = workspace();
      await w.write('x.txt', 'x\n');
      await w.write('y.txt', 'y\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('x.txt');
      await history.trackEdit('y.txt');
      expect(await history.hasAnyChanges('m1')).toBe(false);
      await w.write('y.txt', 'y!\n');
      expect(await history.hasAnyChanges('m1')).toBe(true);
      await history.makeSnapshot('m2');
      expect(await history.hasAnyChanges('m2')).toBe(false);
      await expect(history.hasAnyChanges('unknown')).rejects.toThrow(NotFoundError);
    });

    it('canRestore is true exactly for messages with a snapshot', async () => {
      const w = workspace();
      const history = await w.open();
      expect(history.canRestore('m1')).toBe(false);
      await history.makeSnapshot('m1');
      expect(history.canRestore('m1')).toBe(true);
      expect(history.canRestore('m2')).toBe(false);
    });
  });
}

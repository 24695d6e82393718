/**
 * Issue 10: every backup a session references carries the content hash recorded when it was made;
 * `verifySession` reports damaged ones (missing, truncated, a flipped byte) with what they break,
 * old backups without a hash as unverifiable; a rewind or undo whose backups fail refuses before
 * it writes anything.
 */
import { createHash } from 'node:crypto';
import { BackupMissingError, RewindSession, undoBackupFileName, verifySession, type FileHistory, type TimelinePoint } from '@fh/core';
import { describe, expect, it } from 'vitest';
import { utf8, type Workspace } from '../workspace.js';

const FILES = ['a.txt', 'b.txt', 'c.txt', 'd.txt'] as const;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Four files tracked at `m1` (v1), edited and snapshotted at `m2` (v2), then rewound to `m1`
 * through a RewindSession: the point's pre-images hold the v2 bytes. The files are at v1.
 */
async function rewoundSession(w: Workspace): Promise<{ history: FileHistory; session: RewindSession; point: TimelinePoint }> {
  for (const file of FILES) await w.write(file, `${file} v1\n`);
  const history = await w.open();
  await history.makeSnapshot('m1');
  for (const file of FILES) await history.trackEdit(file);
  for (const file of FILES) await w.write(file, `${file} v2, longer\n`);
  await history.makeSnapshot('m2');
  const session = new RewindSession({ history });
  const rewound = await session.restore({ messageId: 'm1', mode: 'code' });
  return { history, session, point: rewound.undoPoint as TimelinePoint };
}

function preImage(point: TimelinePoint, path: string): string {
  return point.entries.find((entry) => entry.path === path)?.backupFileName as string;
}

export function backupIntegrityTests(workspace: () => Workspace): void {
  describe('backup integrity: content hashes, verify, refusing damaged backups (issue 10)', () => {
    it('records the sha256 of every checkpoint backup and every undo pre-image as it is made', async () => {
      const w = workspace();
      const { history, point } = await rewoundSession(w);
      expect(history.state.snapshots.map((snapshot) => snapshot.trackedFileBackups['a.txt']?.sha256)).toEqual([sha256('a.txt v1\n'), sha256('a.txt v2, longer\n')]);
      expect(point.entries.map((entry) => [entry.path, entry.sha256, entry.size])).toEqual(FILES.map((file) => [file, sha256(`${file} v2, longer\n`), `${file} v2, longer\n`.length]));
    });

    it('verifySession reports a missing, a truncated and a flipped backup with what each breaks, and an old one without a hash as unverifiable', async () => {
      const w = workspace();
      const { point } = await rewoundSession(w);
      // An undo point recorded by an older fh: its entry has no content hash.
      const legacyBackup = undoBackupFileName(w.path('d.txt'), 'legacy-point');
      await w.store.putBackup(w.sessionId, legacyBackup, w.path('d.txt'));
      await w.store.sessionLog(w.sessionId).append([
        {
          type: 'fh-undo-point',
          undoId: 'legacy-point',
          sessionId: w.sessionId,
          createdAt: '2026-01-01T00:00:00.000Z',
          operation: 'rewind',
          messageId: 'm2',
          entries: [{ path: 'd.txt', kind: 'file', backupFileName: legacyBackup, mode: 0o644, size: 'd.txt v1\n'.length }],
        },
      ]);
      await w.harness.removeBackupObject(w.sessionId, w.backupName('a.txt', 1));
      await w.harness.replaceBackupBytes(w.sessionId, w.backupName('b.txt', 2), utf8('b.txt v2'));
      await w.harness.replaceBackupBytes(w.sessionId, preImage(point, 'c.txt'), utf8('c.txt v2, lOnger\n'));

      const report = await verifySession({ store: w.store, sessionId: w.sessionId, projectRoot: w.root });
      const damaged = [
        { backupFileName: w.backupName('a.txt', 1), status: 'missing', problem: 'the backup does not exist in the store', paths: ['a.txt'], checkpoints: ['m1'], points: [] },
        { backupFileName: w.backupName('b.txt', 2), status: 'size', problem: 'the backup has 8 bytes, not the 17 recorded when it was made', paths: ['b.txt'], checkpoints: ['m2'], points: [] },
        {
          backupFileName: preImage(point, 'c.txt'),
          status: 'hash',
          problem: `its bytes do not match the content hash recorded when it was made (sha256 ${sha256('c.txt v2, longer\n').slice(0, 12)}…, now ${sha256('c.txt v2, lOnger\n').slice(0, 12)}…)`,
          paths: ['c.txt'],
          checkpoints: [],
          points: [point.undoId],
        },
      ].sort((x, y) => (x.backupFileName < y.backupFileName ? -1 : 1));
      expect(report).toEqual({
        sessionId: w.sessionId,
        checked: 13,
        ok: 9,
        unverifiable: 1,
        damaged,
        brokenCheckpoints: ['m1', 'm2'],
        brokenPoints: [point.undoId],
        // The 9 sound backups, and the flipped one, which was read whole to find the flip.
        bytesHashed: 3 * 'a.txt v1\n'.length + 6 * 'a.txt v2, longer\n'.length + 'c.txt v2, longer\n'.length,
      });

      expect(await verifySession({ store: w.store, sessionId: 'no-such-session', projectRoot: w.root })).toEqual({
        sessionId: 'no-such-session', checked: 0, ok: 0, unverifiable: 0, damaged: [], brokenCheckpoints: [], brokenPoints: [], bytesHashed: 0,
      });
    });

    it('a rewind whose checkpoint backup has a flipped byte refuses before writing any file, naming it; the other files rewind by path', async () => {
      const w = workspace();
      const { history, session } = await rewoundSession(w);
      await history.makeSnapshot('m3');
      const before = await w.tree();
      // The rewind saves its timeline point, copies every file beside its target checking each
      // copy's hash, and on a damaged one removes the copies and abandons the point (no step, its
      // pre-image backups deleted): nothing changed.
      const steps = async () => (await session.undoPoints()).filter((point) => point.status !== 'abandoned').map((point) => point.undoId);
      const undoBackups = async () => (await w.store.listBackups(w.sessionId)).filter((name) => name.includes('@undo-')).sort();
      const [stepsBefore, undoBackupsBefore] = [await steps(), await undoBackups()];
      await w.harness.replaceBackupBytes(w.sessionId, w.backupName('b.txt', 2), utf8('b.txt v2, lOnger\n'));

      const error = await session.restore({ messageId: 'm2', mode: 'code' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BackupMissingError);
      expect((error as Error).message).toBe(
        `rewind refused, nothing was changed: 1 backup is missing or damaged: b.txt (${w.backupName('b.txt', 2)}: its bytes do not match the content hash recorded when it was made (sha256 ${sha256('b.txt v2, longer\n').slice(0, 12)}…, now ${sha256('b.txt v2, lOnger\n').slice(0, 12)}…)). Rewind the other files by naming them (the paths option, fh rewind --paths), and run fh verify to see which checkpoints and undo points the damage breaks`,
      );
      expect((error as BackupMissingError).missing.map((entry) => [entry.path, entry.backupFileName])).toEqual([['b.txt', w.backupName('b.txt', 2)]]);
      expect(await w.tree()).toEqual(before);
      expect([await steps(), await undoBackups()]).toEqual([stepsBefore, undoBackupsBefore]);

      const others = await session.restore({ messageId: 'm2', mode: 'code', paths: ['a.txt', 'c.txt', 'd.txt'] });
      expect(others.code?.restored).toEqual(['a.txt', 'c.txt', 'd.txt']);
      expect(await w.tree()).toEqual({ ...before, 'a.txt': 'a.txt v2, longer\n', 'c.txt': 'c.txt v2, longer\n', 'd.txt': 'd.txt v2, longer\n' });
    });

    it('the dry run of that rewind lists the flipped backup as one the rewind cannot use, not as the bytes it would write', async () => {
      const w = workspace();
      const { history } = await rewoundSession(w);
      await w.harness.replaceBackupBytes(w.sessionId, w.backupName('b.txt', 2), utf8('b.txt v2, lOnger\n'));
      const stats = await history.getDiffStats('m2');
      expect(stats.filesChanged).toEqual(['a.txt', 'c.txt', 'd.txt']);
      expect(stats.missing).toEqual([
        {
          path: 'b.txt',
          backupFileName: w.backupName('b.txt', 2),
          reason: 'its bytes do not match the content hash recorded when it was made; run fh verify',
        },
      ]);
    });

    it('an undo whose pre-image backup has a flipped byte refuses before writing any file, naming it', async () => {
      const w = workspace();
      const { session, point } = await rewoundSession(w);
      const before = await w.tree();
      await w.harness.replaceBackupBytes(w.sessionId, preImage(point, 'c.txt'), utf8('c.txt v2, lOnger\n'));

      const error = await session.undo().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BackupMissingError);
      expect((error as Error).message).toBe(
        `undo refused, nothing was changed: 1 backup is damaged: c.txt (${preImage(point, 'c.txt')}: its bytes do not match the content hash recorded when it was made (sha256 ${sha256('c.txt v2, longer\n').slice(0, 12)}…, now ${sha256('c.txt v2, lOnger\n').slice(0, 12)}…)). Run fh verify to see which undo points the damage breaks`,
      );
      expect(await w.tree()).toEqual(before);
      expect((await session.timeline()).points.map((entry) => [entry.operation, entry.status])).toEqual([['rewind', 'done']]);
    });
  });
}

/** Issue 2 rule 3: change detection never misses a change (size, mode, ctime, bytes). */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sleep, type Workspace } from '../workspace.js';

export function changeDetectionTests(workspace: () => Workspace): void {
  describe('change detection (rule 3)', () => {
    it('detects a same-size edit whose mtime was set back (cp -p, touch -r), long after the backup', async () => {
      const w = workspace();
      await w.write('config.json', '{"port": 8080}\n');
      const before = await w.fs.stat(w.path('config.json'));
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('config.json');
      await sleep(w.granularityMs * 3 + 50);
      await w.write('config.json', '{"port": 9090}\n');
      await w.fs.utimes(w.path('config.json'), new Date(before.mtimeMs - 60_000), new Date(before.mtimeMs - 60_000));
      await history.makeSnapshot('m2');

      expect(history.state.snapshots[1]?.trackedFileBackups['config.json']).toMatchObject({ version: 2, size: 15 });
      expect((await w.backups())[w.backupName('config.json', 2)]).toEqual({ text: '{"port": 9090}\n', mode: 0o644 });
      await history.rewind('m1');
      expect(await w.text('config.json')).toBe('{"port": 8080}\n');
    });

    it('detects a same-size edit made in the same clock tick as the backup', async () => {
      const w = workspace();
      await w.write('tick.txt', 'AAAA');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('tick.txt');
      const backupTime = history.state.snapshots[0]?.trackedFileBackups['tick.txt']?.backupTime as Date;
      await w.write('tick.txt', 'BBBB');
      await w.fs.utimes(w.path('tick.txt'), backupTime, backupTime);
      await history.makeSnapshot('m2');

      expect(history.state.snapshots[1]?.trackedFileBackups['tick.txt']?.version).toBe(2);
      expect((await w.backups())[w.backupName('tick.txt', 2)]?.text).toBe('BBBB');
    });

    it('detects a same-size edit of invalid UTF-8 bytes that decode to the same text, and restores the exact bytes', async () => {
      const w = workspace();
      const original = new Uint8Array([0x00, 0xff, 0xfe, 0x80, 0x41, 0x0a]);
      const edited = new Uint8Array([0x00, 0xff, 0xfe, 0x81, 0x41, 0x0a]);
      expect(new TextDecoder().decode(original)).toBe(new TextDecoder().decode(edited));
      await w.write('blob.bin', original);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('blob.bin');
      await w.write('blob.bin', edited);
      await history.makeSnapshot('m2');
      expect(history.state.snapshots[1]?.trackedFileBackups['blob.bin']?.version).toBe(2);

      expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: ['blob.bin'], deleted: [], skipped: [], failed: [] });
      expect(await w.bytes('blob.bin')).toEqual(original);
      expect(await history.rewind('m2')).toEqual({ messageId: 'm2', restored: ['blob.bin'], deleted: [], skipped: [], failed: [] });
      expect(await w.bytes('blob.bin')).toEqual(edited);
    });

    it('detects a mode-only change and rewind restores the mode without touching the bytes', async () => {
      const w = workspace();
      await w.write('run.sh', '#!/bin/sh\necho hi\n', 0o644);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('run.sh');
      await w.fs.chmod(w.path('run.sh'), 0o755);
      await history.makeSnapshot('m2');
      expect(history.state.snapshots[1]?.trackedFileBackups['run.sh']).toMatchObject({ version: 2, mode: 0o755 });
      expect((await w.backups())[w.backupName('run.sh', 2)]).toEqual({ text: '#!/bin/sh\necho hi\n', mode: 0o755 });

      expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: ['run.sh'], deleted: [], skipped: [], failed: [] });
      expect(await w.mode('run.sh')).toBe(0o644);
      expect(await w.text('run.sh')).toBe('#!/bin/sh\necho hi\n');
    });

    it('detects a change in the last byte of a file larger than one read chunk', async () => {
      const w = workspace();
      const large = new Uint8Array(3 * 1024 * 1024 + 7).fill(0x61);
      await w.write('large.txt', large);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('large.txt');
      const edited = large.slice();
      edited[edited.length - 1] = 0x62;
      await w.write('large.txt', edited);
      await history.makeSnapshot('m2');
      expect(history.state.snapshots[1]?.trackedFileBackups['large.txt']?.version).toBe(2);
      await history.rewind('m1');
      expect(sha256(await w.bytes('large.txt'))).toBe(sha256(large));
    });

    it('keeps reusing the backup of an unchanged file, also once its timestamps are older than the backup', async () => {
      const w = workspace();
      await w.write('stable.txt', 'stable\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('stable.txt');
      await history.makeSnapshot('m2');
      await sleep(w.granularityMs * 3 + 50);
      await history.makeSnapshot('m3');
      await history.makeSnapshot('m4');

      const entries = history.state.snapshots.map((snapshot) => snapshot.trackedFileBackups['stable.txt']);
      expect(entries.map((entry) => entry?.backupFileName)).toEqual(Array(4).fill(w.backupName('stable.txt', 1)));
      expect(entries.map((entry) => entry?.version)).toEqual([1, 1, 1, 1]);
      expect(Object.keys(await w.backups())).toEqual([w.backupName('stable.txt', 1)]);
    });

    it('a file rewritten with the same bytes keeps its backup', async () => {
      const w = workspace();
      await w.write('rewritten.txt', 'same bytes\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('rewritten.txt');
      await w.write('rewritten.txt', 'same bytes\n');
      await history.makeSnapshot('m2');
      expect(history.state.snapshots[1]?.trackedFileBackups['rewritten.txt']?.version).toBe(1);
      expect(Object.keys(await w.backups())).toEqual([w.backupName('rewritten.txt', 1)]);
    });
  });
}

function sha256(bytes: Uint8Array | null): string | null {
  return bytes === null ? null : createHash('sha256').update(bytes).digest('hex');
}

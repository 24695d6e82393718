/** Issue 2 rule 2: makeSnapshot reuses, versions, nulls, marks failures, evicts, counts. */
import { MAX_SNAPSHOTS, UnavailableError, type BackupStore, type FileHistory } from '@fh/core';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../workspace.js';

/** A store whose putBackup fails for backup names `shouldFail` accepts (fault injection). */
export function storeFailingPuts(store: BackupStore, shouldFail: (backupFileName: string) => boolean): BackupStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'putBackup') {
        return async (sessionId: string, backupFileName: string, sourcePath: string) => {
          if (shouldFail(backupFileName)) throw new UnavailableError('injected fault: the disk is full');
          return target.putBackup(sessionId, backupFileName, sourcePath);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function versions(history: FileHistory): Array<Record<string, string>> {
  return history.state.snapshots.map((snapshot) =>
    Object.fromEntries(
      Object.entries(snapshot.trackedFileBackups).map(([path, backup]) => [path, backup.backupFileName === null ? `null@v${backup.version}` : `v${backup.version}`]),
    ),
  );
}

export function makeSnapshotTests(workspace: () => Workspace): void {
  describe('makeSnapshot (rule 2)', () => {
    it('marks a tracked file that became a symlink leading nowhere as failed, never as gone, so a rewind leaves the link', async () => {
      const w = workspace();
      await w.write('config.txt', 'real file\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('config.txt');
      await w.fs.unlink(w.path('config.txt'));
      await (w.fs as unknown as { symlink(target: string, path: string): Promise<void> }).symlink('missing-target.txt', w.path('config.txt'));
      await history.makeSnapshot('m2');
      expect(history.state.snapshots[1]?.trackedFileBackups['config.txt']).toMatchObject({
        version: 2,
        error: 'config.txt is a symbolic link that leads nowhere (its target does not exist), so it has no content to back up',
      });
      const result = await history.rewind('m2');
      expect(result.failed.map((failure) => [failure.path, failure.error.message])).toEqual([
        ['config.txt', 'config.txt: its backup at this snapshot failed: config.txt is a symbolic link that leads nowhere (its target does not exist), so it has no content to back up'],
      ]);
      expect((await w.fs.lstat(w.path('config.txt'))).isSymbolicLink()).toBe(true);
      expect(await history.rewind('m1')).toMatchObject({ restored: ['config.txt'], failed: [] });
      expect(await w.tree()).toEqual({ 'config.txt': 'real file\n' });
    });

    it('reuses unchanged backups and makes a new version only for changed files (seed 004 §3.2 example)', async () => {
      const w = workspace();
      await w.write('A', 'a1\n');
      await w.write('B', 'b1\n');
      await w.write('C', 'c1\n');
      const history = await w.open();
      await history.makeSnapshot('m0');
      for (const file of ['A', 'B', 'C']) await history.trackEdit(file);
      await history.makeSnapshot('m1');
      expect(Object.keys(await w.backups())).toHaveLength(3);
      await w.write('A', 'a2 changed\n');
      await history.makeSnapshot('m2');
      expect(Object.keys(await w.backups())).toHaveLength(4);
      await w.write('C', 'c2 changed\n');
      await history.makeSnapshot('m3');
      expect(Object.keys(await w.backups())).toHaveLength(5);
      await history.makeSnapshot('m4');

      expect(versions(history).slice(1)).toEqual([
        { A: 'v1', B: 'v1', C: 'v1' },
        { A: 'v2', B: 'v1', C: 'v1' },
        { A: 'v2', B: 'v1', C: 'v2' },
        { A: 'v2', B: 'v1', C: 'v2' },
      ]);
      expect(await w.backups()).toEqual({
        [w.backupName('A', 1)]: { text: 'a1\n', mode: 0o644 },
        [w.backupName('A', 2)]: { text: 'a2 changed\n', mode: 0o644 },
        [w.backupName('B', 1)]: { text: 'b1\n', mode: 0o644 },
        [w.backupName('C', 1)]: { text: 'c1\n', mode: 0o644 },
        [w.backupName('C', 2)]: { text: 'c2 changed\n', mode: 0o644 },
      });
    });

    it('records a deleted tracked file as null and a file brought back as a new version', async () => {
      const w = workspace();
      await w.write('gone.txt', 'here\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('gone.txt');
      await w.fs.unlink(w.path('gone.txt'));
      await history.makeSnapshot('m2');
      await history.makeSnapshot('m3');
      await w.write('gone.txt', 'back again\n');
      await history.makeSnapshot('m4');

      expect(versions(history)).toEqual([{ 'gone.txt': 'v1' }, { 'gone.txt': 'null@v2' }, { 'gone.txt': 'null@v2' }, { 'gone.txt': 'v3' }]);
      expect(await w.backups()).toEqual({
        [w.backupName('gone.txt', 1)]: { text: 'here\n', mode: 0o644 },
        [w.backupName('gone.txt', 3)]: { text: 'back again\n', mode: 0o644 },
      });
    });

    it('marks a failed backup on the entry instead of reusing the older version, and rewind reports it as failed', async () => {
      const w = workspace();
      await w.write('fragile.txt', 'version one\n');
      await w.write('sturdy.txt', 'sturdy one\n');
      const failing = storeFailingPuts(w.store, (name) => name === w.backupName('fragile.txt', 2));
      const history = await w.open({ store: failing });
      await history.makeSnapshot('m1');
      await history.trackEdit('fragile.txt');
      await history.trackEdit('sturdy.txt');
      await w.write('fragile.txt', 'version two, longer\n');
      await w.write('sturdy.txt', 'sturdy two, longer\n');
      await history.makeSnapshot('m2');

      const entry = history.state.snapshots[1]?.trackedFileBackups['fragile.txt'];
      expect(entry).toMatchObject({ backupFileName: w.backupName('fragile.txt', 2), version: 2, error: 'injected fault: the disk is full' });
      expect(history.state.snapshots[1]?.trackedFileBackups['sturdy.txt']).toMatchObject({ version: 2 });
      expect(entry?.error).toBeDefined();

      await w.write('fragile.txt', 'version three\n');
      await w.write('sturdy.txt', 'sturdy three\n');
      const result = await history.rewind('m2');
      expect(result.restored).toEqual(['sturdy.txt']);
      expect(result.failed.map((failure) => failure.path)).toEqual(['fragile.txt']);
      expect(result.failed[0]?.error.message).toBe('fragile.txt: its backup at this snapshot failed: injected fault: the disk is full');
      expect(await w.text('fragile.txt')).toBe('version three\n');
      expect(await w.text('sturdy.txt')).toBe('sturdy two, longer\n');

      await history.makeSnapshot('m3');
      expect(history.state.snapshots[2]?.trackedFileBackups['fragile.txt']).toMatchObject({ backupFileName: w.backupName('fragile.txt', 3), version: 3 });
      expect(history.state.snapshots[2]?.trackedFileBackups['fragile.txt']?.error).toBeUndefined();
    });

    it(`keeps the newest ${MAX_SNAPSHOTS} snapshots and snapshotSequence keeps counting past the cap`, async () => {
      const w = workspace();
      await w.write('counter.txt', '0\n');
      const history = await w.open({ log: false });
      await history.makeSnapshot('m1');
      await history.trackEdit('counter.txt');
      for (let turn = 2; turn <= 105; turn += 1) {
        if (turn % 10 === 0) await w.write('counter.txt', `${turn}\n`);
        await history.makeSnapshot(`m${turn}`);
      }
      expect(history.state.snapshots).toHaveLength(MAX_SNAPSHOTS);
      expect(history.state.snapshots[0]?.messageId).toBe('m6');
      expect(history.state.snapshots.at(-1)?.messageId).toBe('m105');
      expect(history.state.snapshotSequence).toBe(105);
      expect(history.canRestore('m5')).toBe(false);
      expect(history.canRestore('m6')).toBe(true);
      await expect(history.rewind('m5')).rejects.toThrow(`no snapshot for message "m5" (a session keeps its newest ${MAX_SNAPSHOTS} snapshots; older ones are dropped)`);

      await history.rewind('m15');
      expect(await w.text('counter.txt')).toBe('10\n');
    });

    it('writes the first snapshot as a full fh-snapshot record and the next as a diff holding only what changed', async () => {
      const w = workspace();
      await w.write('logged.txt', 'x\n');
      await w.write('same.txt', 'same\n');
      const history = await w.open();
      const first = await history.makeSnapshot('m1');
      await history.trackEdit('same.txt');
      await history.trackEdit('logged.txt');
      await w.write('logged.txt', 'xy\n');
      const snapshot = await history.makeSnapshot('m2');
      const { records, skipped } = await w.store.sessionLog(w.sessionId).read();
      expect(skipped).toEqual([]);
      const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
      const changed = Object.fromEntries(Object.entries(snapshot?.trackedFileBackups ?? {}).filter(([path, entry]) => first?.trackedFileBackups[path] !== entry));
      expect(records.filter((record) => record.type !== 'fh-session')).toEqual([
        { type: 'fh-snapshot', version: 2, kind: 'full', sequence: 1, messageId: 'm1', timestamp: json(first?.timestamp), entries: {} },
        { type: 'file-history-delta', messageId: 'm1', snapshotMessageId: 'm1', trackingPath: 'same.txt', backup: json(first?.trackedFileBackups['same.txt']), timestamp: expect.any(String) },
        { type: 'file-history-delta', messageId: 'm1', snapshotMessageId: 'm1', trackingPath: 'logged.txt', backup: expect.objectContaining({ version: 1 }), timestamp: expect.any(String) },
        {
          type: 'fh-snapshot',
          version: 2,
          kind: 'diff',
          sequence: 2,
          messageId: 'm2',
          timestamp: json(snapshot?.timestamp),
          base: 1,
          entries: json(changed),
        },
      ]);
      // Only the entries that differ from m1's: logged.txt's new version, and same.txt only if its
      // bytes had to be compared (written within the timestamp margin, so its backupTime moved).
      expect(Object.keys(changed)).toContain('logged.txt');
      expect(snapshot?.trackedFileBackups['logged.txt']?.version).toBe(2);
    });

    it('emits snapshotFilesChanged with the old and new bytes of each changed file', async () => {
      const w = workspace();
      await w.write('seen.txt', 'old text\n');
      await w.write('same.txt', 'same\n');
      const history = await w.open();
      const events: unknown[] = [];
      const unsubscribe = history.on('snapshotFilesChanged', (event) => {
        events.push(event);
      });
      await history.makeSnapshot('m1');
      await history.trackEdit('seen.txt');
      await history.trackEdit('same.txt');
      await history.trackEdit('born.txt');
      await w.write('seen.txt', 'new text\n');
      await w.write('born.txt', 'born\n');
      await history.makeSnapshot('m2');
      unsubscribe();
      await w.write('seen.txt', 'unobserved\n');
      await history.makeSnapshot('m3');

      expect(events).toEqual([
        {
          messageId: 'm2',
          previousMessageId: 'm1',
          files: [
            { path: 'born.txt', oldContent: null, newContent: new Uint8Array(Buffer.from('born\n')) },
            { path: 'seen.txt', oldContent: new Uint8Array(Buffer.from('old text\n')), newContent: new Uint8Array(Buffer.from('new text\n')) },
          ],
        },
      ]);
    });
  });
}

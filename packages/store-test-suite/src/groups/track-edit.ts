/** Issue 2 rule 1: trackEdit is three-phase, keeps v1, records null for new files, leaves no orphan. */
import { InvalidArgumentError, NotFoundError, OutsideRootError, restoreStateFromLog } from '@fh/core';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../workspace.js';

export function trackEditTests(workspace: () => Workspace): void {
  describe('trackEdit (rule 1)', () => {
    it('backs a file up before its first edit and attaches the backup to the latest snapshot', async () => {
      const w = workspace();
      await w.write('src/app.ts', 'export const a = 1;\n', 0o640);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('src/app.ts');

      const entry = history.state.snapshots[0]?.trackedFileBackups['src/app.ts'];
      expect(entry).toMatchObject({ backupFileName: w.backupName('src/app.ts', 1), version: 1, size: 20, mode: 0o640 });
      expect(entry?.backupTime).toBeInstanceOf(Date);
      expect([...history.state.trackedFiles]).toEqual(['src/app.ts']);
      expect(await w.backups()).toEqual({ [w.backupName('src/app.ts', 1)]: { text: 'export const a = 1;\n', mode: 0o640 } });
    });

    it('never overwrites v1 when the file is edited again in the same turn', async () => {
      const w = workspace();
      await w.write('notes.md', 'original\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('notes.md');
      await w.write('notes.md', 'first agent edit\n');
      await history.trackEdit('notes.md');
      await w.write('notes.md', 'second agent edit\n');

      expect(await w.backups()).toEqual({ [w.backupName('notes.md', 1)]: { text: 'original\n', mode: 0o644 } });
      expect(history.state.snapshots[0]?.trackedFileBackups['notes.md']?.version).toBe(1);
    });

    it('records null for a file that does not exist yet, so rewind deletes the file the agent creates', async () => {
      const w = workspace();
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('src/new-file.ts');
      expect(history.state.snapshots[0]?.trackedFileBackups['src/new-file.ts']).toMatchObject({ backupFileName: null, version: 1 });
      expect(await w.backups()).toEqual({});

      await w.write('src/new-file.ts', 'created by the agent\n');
      const result = await history.rewind('m1');
      expect(result).toEqual({ messageId: 'm1', restored: [], deleted: ['src/new-file.ts'], skipped: [], failed: [] });
      expect(await w.bytes('src/new-file.ts')).toBeNull();
    });

    it('records null for a path under a regular file (a file about to become a folder)', async () => {
      const w = workspace();
      await w.write('docs', 'a file named docs\n', 0o644);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('docs');
      await history.trackEdit('docs/index.md');
      expect(history.state.snapshots[0]?.trackedFileBackups['docs/index.md']).toMatchObject({ backupFileName: null, version: 1 });
      expect(await w.backups()).toEqual({ [w.backupName('docs', 1)]: { text: 'a file named docs\n', mode: 0o644 } });
    });

    it('two concurrent trackEdit calls on one file make exactly one v1 and leave no orphan', async () => {
      const w = workspace();
      await w.write('race.txt', 'before the race\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await Promise.all([history.trackEdit('race.txt'), history.trackEdit(w.path('race.txt')), history.trackEdit('./race.txt')]);

      expect(await w.backups()).toEqual({ [w.backupName('race.txt', 1)]: { text: 'before the race\n', mode: 0o644 } });
      expect(history.state.snapshots[0]?.trackedFileBackups['race.txt']).toMatchObject({ backupFileName: w.backupName('race.txt', 1), version: 1 });
    });

    it('refuses before the first snapshot with NotFoundError (there is no turn to attach to) and writes nothing', async () => {
      const w = workspace();
      await w.write('early.txt', 'early\n');
      const history = await w.open();
      await expect(history.trackEdit('early.txt')).rejects.toThrow(NotFoundError);
      await expect(history.trackEdit('early.txt')).rejects.toThrow(
        `session "${w.sessionId}" has no snapshot yet, so early.txt cannot be backed up: make the turn's snapshot (makeSnapshot) before tracking edits`,
      );
      expect(history.state).toEqual({ snapshots: [], trackedFiles: new Set(), snapshotSequence: 0 });
      expect(await w.backups()).toEqual({});
      await expect(history.forSubagent({ agentId: 'a1' }).trackEdit('early.txt')).rejects.toThrow(NotFoundError);
      expect(await w.backups()).toEqual({});
    });

    it('rejects a path outside the project root with an error naming it, and writes nothing', async () => {
      const w = workspace();
      const history = await w.open();
      await history.makeSnapshot('m1');
      await expect(history.trackEdit('../escape.txt')).rejects.toThrow(OutsideRootError);
      await expect(history.trackEdit('../escape.txt')).rejects.toThrow(`../escape.txt is outside the project root ${w.root}`);
      await expect(history.trackEdit('/etc/passwd')).rejects.toThrow(`/etc/passwd is outside the project root ${w.root}`);
      await expect(history.trackEdit(w.root)).rejects.toThrow(OutsideRootError);
      expect(await w.backups()).toEqual({});
      expect(history.state.trackedFiles.size).toBe(0);
    });

    it('tracks the file a symlink inside the project leads to: a rewind restores that file and keeps the link', async () => {
      const w = workspace();
      await w.write('src/real.txt', 'before the agent\n', 0o600);
      await linkTo(w, 'src/real.txt', 'link.txt');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('link.txt');
      expect([...history.state.trackedFiles]).toEqual(['src/real.txt']);
      expect(await w.backups()).toEqual({ [w.backupName('src/real.txt', 1)]: { text: 'before the agent\n', mode: 0o600 } });

      await w.fs.writeFile(w.path('link.txt'), 'written through the link\n');
      await history.trackEdit('src/real.txt');
      await history.trackEdit(w.path('link.txt'));
      expect(Object.keys(await w.backups())).toEqual([w.backupName('src/real.txt', 1)]);

      expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: ['src/real.txt'], deleted: [], skipped: [], failed: [] });
      expect(await w.text('src/real.txt')).toBe('before the agent\n');
      expect(await w.mode('src/real.txt')).toBe(0o600);
      expect((await w.fs.lstat(w.path('link.txt'))).isSymbolicLink()).toBe(true);
      expect(await readLink(w, 'link.txt')).toBe('src/real.txt');
    });

    it('tracks a file created under a symlinked folder inside the project at its real path; a rewind deletes it there', async () => {
      const w = workspace();
      await w.write('real/kept.txt', 'kept\n');
      await linkTo(w, 'real', 'alias');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('alias/new.txt');
      expect(history.state.snapshots[0]?.trackedFileBackups).toEqual({ 'real/new.txt': expect.objectContaining({ backupFileName: null, version: 1 }) });

      await w.fs.writeFile(w.path('alias/new.txt'), 'created through the link\n');
      expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: [], deleted: ['real/new.txt'], skipped: [], failed: [] });
      expect(await w.tree()).toEqual({ alias: '-> symlink', 'real/kept.txt': 'kept\n' });
    });

    it('maps a path given by the real location of a project opened through a symlink into the project', async () => {
      const w = workspace();
      const alias = `${w.root}-alias`;
      await (w.fs as unknown as { symlink(target: string, path: string): Promise<void> }).symlink(w.root, alias);
      try {
        await w.write('src/a.txt', 'before\n');
        const history = await w.open({ projectRoot: alias });
        await history.makeSnapshot('m1');
        await history.trackEdit(w.path('src/a.txt'));
        await history.trackEdit(w.path('src/new.txt'));
        expect([...history.state.trackedFiles].sort()).toEqual(['src/a.txt', 'src/new.txt']);
        await w.write('src/a.txt', 'after\n');
        await w.write('src/new.txt', 'created\n');
        expect(await history.rewind('m1')).toEqual({ messageId: 'm1', restored: ['src/a.txt'], deleted: ['src/new.txt'], skipped: [], failed: [] });
        expect(await w.tree()).toEqual({ 'src/a.txt': 'before\n' });
        await expect(history.trackEdit(`${w.root}-elsewhere/x.txt`)).rejects.toThrow(`${w.root}-elsewhere/x.txt is outside the project root ${alias}`);
      } finally {
        await w.fs.unlink(alias);
      }
    });

    it('refuses a symlink that leads nowhere instead of recording it as absent, so no rewind deletes it', async () => {
      const w = workspace();
      await linkTo(w, 'missing-target.txt', 'dangling.txt');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await expect(history.trackEdit('dangling.txt')).rejects.toThrow(
        new InvalidArgumentError(`${w.path('dangling.txt')} is a symbolic link that leads nowhere (its target does not exist), so it has no content to back up`),
      );
      expect(history.state.trackedFiles.size).toBe(0);
      expect(await w.backups()).toEqual({});
    });

    it('tracks a symlink leading outside the project under its own path, by content', async () => {
      const w = workspace();
      const outside = `${w.root}-outside`;
      await w.fs.mkdir(outside, { recursive: true });
      try {
        await w.fs.writeFile(`${outside}/shared.txt`, 'outside\n');
        await (w.fs as unknown as { symlink(target: string, path: string): Promise<void> }).symlink(`${outside}/shared.txt`, w.path('shared.txt'));
        const history = await w.open();
        await history.makeSnapshot('m1');
        await history.trackEdit('shared.txt');
        expect([...history.state.trackedFiles]).toEqual(['shared.txt']);
        expect(await w.backups()).toEqual({ [w.backupName('shared.txt', 1)]: { text: 'outside\n', mode: expect.any(Number) } });
      } finally {
        await w.fs.rm(outside, { recursive: true, force: true });
      }
    });

    it('keys files relative to the project root with / separators, whatever form the path is given in', async () => {
      const w = workspace();
      await w.write('a/b/c.txt', 'c\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit(w.path('a/b/c.txt'));
      await history.trackEdit('a/./b/../b/c.txt');
      expect(Object.keys(history.state.snapshots[0]?.trackedFileBackups ?? {})).toEqual(['a/b/c.txt']);
      expect(Object.keys(await w.backups())).toEqual([w.backupName('a/b/c.txt', 1)]);
    });

    it('makes a first-edit backup durable in the session log before it resolves, so it survives a restart', async () => {
      const w = workspace();
      await w.write('keep.txt', 'before the first edit\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('keep.txt');
      await w.write('keep.txt', 'after the first edit\n');

      const { records } = await w.store.sessionLog(w.sessionId).read();
      await history.close();
      expect(records.filter((record) => record.type === 'fh-snapshot' || record.type === 'file-history-delta').map((record) => [record.type, record.messageId, record.kind ?? record.trackingPath])).toEqual([
        ['fh-snapshot', 'm1', 'full'],
        ['file-history-delta', 'm1', 'keep.txt'],
      ]);
      const restarted = await w.open({ initialState: restoreStateFromLog(records, { projectRoot: w.root }) });
      expect(await restarted.rewind('m1')).toEqual({ messageId: 'm1', restored: ['keep.txt'], deleted: [], skipped: [], failed: [] });
      expect(await w.text('keep.txt')).toBe('before the first edit\n');
    });

    it('close waits for a running trackEdit and its record, and later calls are refused', async () => {
      const w = workspace();
      await w.write('late.txt', 'late\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      const tracking = history.trackEdit('late.txt');
      await history.close();
      await tracking;
      const { records } = await w.store.sessionLog(w.sessionId).read();
      expect(records.at(-1)).toMatchObject({ type: 'file-history-delta', messageId: 'm1', snapshotMessageId: 'm1', trackingPath: 'late.txt' });
      await expect(history.trackEdit('late.txt')).rejects.toThrow(`the file history of session "${w.sessionId}" is closed`);
    });
  });
}

/** A relative symlink at `path` to `target` (both relative to the project root). */
async function linkTo(w: Workspace, target: string, path: string): Promise<void> {
  const fs = w.fs as unknown as { symlink(target: string, path: string): Promise<void> };
  const depth = path.split('/').length - 1;
  await fs.symlink(`${'../'.repeat(depth)}${target}`, w.path(path));
}

async function readLink(w: Workspace, path: string): Promise<string> {
  return String(await (w.fs as unknown as { readlink(path: string): Promise<string> }).readlink(w.path(path)));
}

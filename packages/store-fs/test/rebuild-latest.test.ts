import { FileHistory, InvalidArgumentError, LOG_HEAD_BYTES, LOG_TAIL_BYTES_STEPS } from '@fh/core';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { temporaryFolder } from './helpers.js';

/**
 * A session of 60 turns over 200 tracked files, with a long prompt record after the first turn: a
 * log larger than the two ends `rebuild: 'latest'` reads.
 */
async function longSession() {
  const folder = await temporaryFolder();
  const projectRoot = join(folder, 'project');
  await mkdir(join(projectRoot, 'src'), { recursive: true });
  const paths = Array.from({ length: 200 }, (_, index) => `src/f${index}.ts`);
  await Promise.all(paths.map((path, index) => writeFile(join(projectRoot, path), `export const v${index} = 0;\n`)));
  const store = new FsBackupStore({ root: join(folder, 'store') });
  const history = await FileHistory.open({ projectRoot, sessionId: 's1', store, timestampGranularityMs: 0, env: {} });
  await history.makeSnapshot('turn-0');
  await Promise.all(paths.map((path) => history.trackEdit(path)));
  await store.sessionLog('s1').append([{ type: 'user', uuid: 'long', message: { role: 'user', content: 'x'.repeat(LOG_HEAD_BYTES + (LOG_TAIL_BYTES_STEPS[0] as number)) } }]);
  for (let turn = 1; turn < 60; turn += 1) {
    await writeFile(join(projectRoot, paths[turn] as string), `export const v${turn} = ${turn};\n`);
    await history.makeSnapshot(`turn-${turn}`);
  }
  const whole = history.state;
  await history.close();
  return { folder, projectRoot, store, whole };
}

describe("FileHistory.open({ rebuild: 'latest' })", () => {
  it('rebuilds the newest snapshots from the log ends; trackEdit and makeSnapshot work and a whole open sees the result', async () => {
    const { projectRoot, store, whole } = await longSession();
    const logPath = join(store.root, 'sessions', 's1.jsonl');
    expect((await stat(logPath)).size).toBeGreaterThan(LOG_HEAD_BYTES + (LOG_TAIL_BYTES_STEPS[0] as number));

    const latest = await FileHistory.open({ projectRoot, sessionId: 's1', store, rebuild: 'latest', env: {} });
    // From the newest full record on (turn 1: the 200 first backups filled the diff budget), not the first turn.
    expect(latest.state.snapshots).toEqual(whole.snapshots.slice(1));
    expect(latest.state.snapshotSequence).toBe(60);
    expect(latest.state.trackedFiles).toEqual(whole.trackedFiles);
    await writeFile(join(projectRoot, 'src/new.ts'), 'export const created = true;\n');
    await latest.trackEdit('src/new.ts');
    await latest.trackEdit('src/f3.ts');
    await writeFile(join(projectRoot, 'src/f150.ts'), 'changed in turn 60\n');
    const made = await latest.makeSnapshot('turn-60');
    expect(made?.trackedFileBackups['src/f150.ts']).toMatchObject({ version: 2 });
    expect(latest.state.snapshotSequence).toBe(61);
    const refused = new InvalidArgumentError(`rewind needs the whole session: this history of session "s1" was opened with rebuild: 'latest', for trackEdit and makeSnapshot only`);
    await expect(latest.rewind('turn-0')).rejects.toThrow(refused);
    await expect(latest.getDiffStats('turn-0')).rejects.toThrow(InvalidArgumentError);
    await expect(latest.hasAnyChanges('turn-0')).rejects.toThrow(InvalidArgumentError);
    expect(() => latest.canRestore('turn-0')).toThrow(InvalidArgumentError);
    await latest.close();

    const reopened = await FileHistory.open({ projectRoot, sessionId: 's1', store, env: {} });
    expect(reopened.state.snapshots).toHaveLength(61);
    expect(reopened.state.snapshotSequence).toBe(61);
    expect(reopened.state.snapshots.at(-1)).toEqual(made);
    const newest = reopened.state.snapshots.at(-2);
    expect(newest?.messageId).toBe('turn-59');
    expect(newest?.trackedFileBackups['src/new.ts']).toMatchObject({ version: 1, size: 29 });
    // The same backup, now naming the main agent as the one who changed it in this turn.
    expect(newest?.trackedFileBackups['src/f3.ts']).toEqual({
      ...whole.snapshots.at(-1)?.trackedFileBackups['src/f3.ts'],
      changedBy: [{ by: 'main', at: expect.any(Date) }],
    });
    await writeFile(join(projectRoot, 'src/new.ts'), 'changed\n');
    expect(await reopened.rewind('turn-59')).toMatchObject({ restored: ['src/f150.ts', 'src/new.ts'], failed: [] });
    expect(await readFile(join(projectRoot, 'src/new.ts'), 'utf8')).toBe('export const created = true;\n');
    await reopened.close();
  });

  it('reads the whole log when it is small, so the history can do everything', async () => {
    const folder = await temporaryFolder();
    const projectRoot = join(folder, 'project');
    await mkdir(projectRoot);
    await writeFile(join(projectRoot, 'a.txt'), 'a\n');
    const store = new FsBackupStore({ root: join(folder, 'store') });
    const first = await FileHistory.open({ projectRoot, sessionId: 's1', store, env: {} });
    await first.makeSnapshot('m1');
    await first.trackEdit('a.txt');
    await first.close();
    const latest = await FileHistory.open({ projectRoot, sessionId: 's1', store, rebuild: 'latest', env: {} });
    expect(latest.canRestore('m1')).toBe(true);
    await latest.makeSnapshot('m2');
    expect(latest.state.snapshots.map((snapshot) => snapshot.messageId)).toEqual(['m1', 'm2']);
    await latest.close();
  });
});

describe("makeSnapshot in a history opened with rebuild: 'latest'", () => {
  it('past 100 turns keeps the snapshot count and deletes exactly the backups only the dropped snapshots referenced, as a whole open does', async () => {
    const folder = await temporaryFolder();
    const projectRoot = join(folder, 'project');
    await mkdir(projectRoot);
    const files = ['a.txt', 'b.txt', 'c.txt'];
    for (const file of files) await writeFile(join(projectRoot, file), `${file} 0\n`);
    const store = new FsBackupStore({ root: join(folder, 'store') });
    const first = await FileHistory.open({ projectRoot, sessionId: 's1', store, timestampGranularityMs: 0, env: {} });
    await first.makeSnapshot('turn-1');
    for (const file of files) await first.trackEdit(file);
    await store.sessionLog('s1').append([{ type: 'user', uuid: 'long', message: { role: 'user', content: 'x'.repeat(LOG_HEAD_BYTES + (LOG_TAIL_BYTES_STEPS[0] as number)) } }]);
    for (let turn = 2; turn <= 95; turn += 1) {
      await writeFile(join(projectRoot, files[turn % 3] as string), `turn ${turn}\n`);
      await first.makeSnapshot(`turn-${turn}`);
    }
    await first.close();
    for (let turn = 96; turn <= 110; turn += 1) {
      await writeFile(join(projectRoot, files[turn % 3] as string), `turn ${turn}\n`);
      const hook = await FileHistory.open({ projectRoot, sessionId: 's1', store, rebuild: 'latest', timestampGranularityMs: 0, env: {} });
      expect(hook.state.snapshots.length).toBeLessThan(100);
      await hook.makeSnapshot(`turn-${turn}`);
      expect(hook.state.snapshotSequence).toBe(turn);
      await hook.close();
    }
    const whole = await FileHistory.open({ projectRoot, sessionId: 's1', store, env: {} });
    expect(whole.state.snapshots.map((snapshot) => snapshot.messageId)).toEqual(Array.from({ length: 100 }, (_, index) => `turn-${index + 11}`));
    expect(whole.state.snapshotSequence).toBe(110);
    const referenced = new Set<string>();
    for (const snapshot of whole.state.snapshots) for (const entry of Object.values(snapshot.trackedFileBackups)) if (entry.backupFileName !== null) referenced.add(entry.backupFileName);
    const firsts = files.map((file) => whole.state.snapshots.at(-1)?.trackedFileBackups[file]?.backupFileName?.replace(/@v\d+$/, '@v1'));
    expect((await store.listBackups('s1')).sort()).toEqual([...new Set([...referenced, ...firsts])].sort());
    expect(await whole.rewind('turn-11')).toMatchObject({ failed: [] });
    await whole.close();
  });
});

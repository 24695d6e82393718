import { FileHistory, InvalidArgumentError, LOG_HEAD_BYTES, LOG_TAIL_BYTES_STEPS } from '@fh/core';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { temporaryFolder } from './helpers.js';

/** A session of 60 turns over 200 tracked files: a log larger than the two ends `rebuild: 'latest'` reads. */
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
  for (let turn = 1; turn < 60; turn += 1) {
    await writeFile(join(projectRoot, paths[turn] as string), `export const v${turn} = ${turn};\n`);
    await history.makeSnapshot(`turn-${turn}`);
  }
  const whole = history.state;
  await history.close();
  return { folder, projectRoot, store, whole };
}

describe("FileHistory.open({ rebuild: 'latest' })", () => {
  it('rebuilds only the newest snapshot from the log ends; trackEdit works and a whole open sees the result', async () => {
    const { projectRoot, store, whole } = await longSession();
    const logPath = join(store.root, 'sessions', 's1.jsonl');
    expect((await stat(logPath)).size).toBeGreaterThan(LOG_HEAD_BYTES + (LOG_TAIL_BYTES_STEPS[0] as number));

    const latest = await FileHistory.open({ projectRoot, sessionId: 's1', store, rebuild: 'latest', env: {} });
    expect(latest.state.snapshots).toEqual([whole.snapshots.at(-1)]);
    expect(latest.state.trackedFiles).toEqual(whole.trackedFiles);
    await writeFile(join(projectRoot, 'src/new.ts'), 'export const created = true;\n');
    await latest.trackEdit('src/new.ts');
    await latest.trackEdit('src/f3.ts');
    const refused = new InvalidArgumentError(`makeSnapshot needs the whole session: this history of session "s1" was opened with rebuild: 'latest', for trackEdit only`);
    await expect(latest.makeSnapshot('turn-60')).rejects.toThrow(refused);
    await expect(latest.rewind('turn-0')).rejects.toThrow(InvalidArgumentError);
    await expect(latest.getDiffStats('turn-0')).rejects.toThrow(InvalidArgumentError);
    await expect(latest.hasAnyChanges('turn-0')).rejects.toThrow(InvalidArgumentError);
    expect(() => latest.canRestore('turn-0')).toThrow(InvalidArgumentError);
    await latest.close();

    const reopened = await FileHistory.open({ projectRoot, sessionId: 's1', store, env: {} });
    expect(reopened.state.snapshots).toHaveLength(60);
    const newest = reopened.state.snapshots.at(-1);
    expect(newest?.messageId).toBe('turn-59');
    expect(newest?.trackedFileBackups['src/new.ts']).toMatchObject({ version: 1, size: 29 });
    expect(newest?.trackedFileBackups['src/f3.ts']).toEqual(whole.snapshots.at(-1)?.trackedFileBackups['src/f3.ts']);
    await writeFile(join(projectRoot, 'src/new.ts'), 'changed\n');
    expect(await reopened.rewind('turn-59')).toMatchObject({ restored: ['src/new.ts'], failed: [] });
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

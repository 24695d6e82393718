import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileHistory, rebuildStateFromLog, type FileHistorySnapshot } from '@fh/core';
import { describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { temporaryFolder } from './helpers.js';

/** The session log's records of one kind, parsed. */
async function snapshotRecords(root: string, sessionId: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(join(root, 'sessions', `${sessionId}.jsonl`), 'utf8');
  return text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>).filter((record) => record.type === 'fh-snapshot');
}

describe('makeSnapshot on a real file system (the synchronous first pass)', () => {
  it('reuses the entries that timestamps prove unchanged, backs up the changed files, and records exactly what changed (attribution dropped, a new file, a deleted one)', async () => {
    const root = join(await temporaryFolder(), 'store');
    const project = await temporaryFolder();
    const files = Array.from({ length: 40 }, (_, index) => `src/file-${index}.txt`);
    await mkdir(join(project, 'src'), { recursive: true });
    await Promise.all(files.map((path) => writeFile(join(project, path), `${path}\n`)));
    const history = await FileHistory.open({ projectRoot: project, sessionId: 's1', store: new FsBackupStore({ root }), timestampGranularityMs: 0 });
    await history.makeSnapshot('turn-1');
    await Promise.all(files.map((path) => history.trackEdit(join(project, path))));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await history.makeSnapshot('turn-2');
    const second = history.state.snapshots.at(-1) as FileHistorySnapshot;
    await history.forSubagent({ agentId: 'helper-1', agentType: 'helper' }).trackEdit(join(project, 'src/file-3.txt'));
    await appendFile(join(project, 'src/file-1.txt'), 'edited\n');
    await writeFile(join(project, 'src/new.txt'), 'new\n');
    await history.trackEdit(join(project, 'src/new.txt'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeFile(join(project, 'src/file-2.txt'), 'same size!!!!!!!!!\n');
    const { unlink } = await import('node:fs/promises');
    await unlink(join(project, 'src/file-5.txt'));
    await history.makeSnapshot('turn-3');
    const third = history.state.snapshots.at(-1) as FileHistorySnapshot;
    await history.close();

    const changed = ['src/file-1.txt', 'src/file-2.txt', 'src/file-3.txt', 'src/file-5.txt', 'src/new.txt'];
    for (const path of files.filter((file) => !changed.includes(file))) expect(third.trackedFileBackups[path]).toBe(second.trackedFileBackups[path]);
    expect(third.trackedFileBackups['src/file-1.txt']?.version).toBe(2);
    expect(third.trackedFileBackups['src/file-2.txt']?.version).toBe(2);
    expect(third.trackedFileBackups['src/file-3.txt']?.backupFileName).toBe(second.trackedFileBackups['src/file-3.txt']?.backupFileName);
    expect(second.trackedFileBackups['src/file-3.txt']?.changedBy).toHaveLength(1);
    expect(third.trackedFileBackups['src/file-3.txt']?.changedBy).toBeUndefined();
    expect(third.trackedFileBackups['src/file-5.txt']).toMatchObject({ backupFileName: null, version: 2 });
    expect(third.trackedFileBackups['src/new.txt']?.changedBy).toBeUndefined();
    expect(await readFile(join(root, 'file-history', 's1', third.trackedFileBackups['src/file-1.txt']?.backupFileName as string), 'utf8')).toBe('src/file-1.txt\nedited\n');

    const records = await snapshotRecords(root, 's1');
    const last = records.at(-1) as { kind: string; sequence: number; base: number; entries: Record<string, unknown> };
    expect([last.kind, last.sequence, last.base]).toEqual(['diff', 3, 2]);
    expect(Object.keys(last.entries)).toEqual(changed);
    const rebuilt = await rebuildStateFromLog(new FsBackupStore({ root }).sessionLog('s1'), { projectRoot: project });
    expect(JSON.parse(JSON.stringify(rebuilt.state.snapshots.at(-1)))).toEqual(JSON.parse(JSON.stringify(third)));
  });

  it('back to back, reads the newest snapshot by position, yet sees an attribution added to it since and a file edited since; the log rebuilds each snapshot exactly', async () => {
    const root = join(await temporaryFolder(), 'store');
    const project = await temporaryFolder();
    const files = Array.from({ length: 30 }, (_, index) => `lib/f-${String(index).padStart(2, '0')}.txt`);
    await mkdir(join(project, 'lib'), { recursive: true });
    await Promise.all(files.map((path) => writeFile(join(project, path), `${path}\n`)));
    const history = await FileHistory.open({ projectRoot: project, sessionId: 's2', store: new FsBackupStore({ root }), timestampGranularityMs: 0 });
    await history.makeSnapshot('t1');
    await Promise.all(files.map((path) => history.trackEdit(join(project, path))));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await history.makeSnapshot('t2');
    await history.makeSnapshot('t3');
    const t3 = history.state.snapshots.at(-1) as FileHistorySnapshot;
    await history.forSubagent({ agentId: 'helper-2', agentType: 'helper' }).trackEdit(join(project, 'lib/f-04.txt'));
    expect(t3.trackedFileBackups['lib/f-04.txt']?.changedBy).toHaveLength(1);
    await history.makeSnapshot('t4');
    const t4 = history.state.snapshots.at(-1) as FileHistorySnapshot;
    await appendFile(join(project, 'lib/f-07.txt'), 'edited\n');
    await history.makeSnapshot('t5');
    const t5 = history.state.snapshots.at(-1) as FileHistorySnapshot;
    await history.close();

    expect(t4.trackedFileBackups['lib/f-04.txt']?.changedBy).toBeUndefined();
    expect(t4.trackedFileBackups['lib/f-04.txt']?.backupFileName).toBe(t3.trackedFileBackups['lib/f-04.txt']?.backupFileName);
    expect(t5.trackedFileBackups['lib/f-07.txt']).toMatchObject({ version: 2, size: 'lib/f-07.txt\nedited\n'.length });
    for (const path of files.filter((file) => file !== 'lib/f-07.txt')) expect(t5.trackedFileBackups[path]).toBe(t4.trackedFileBackups[path]);
    expect(Object.keys(t5.trackedFileBackups).sort()).toEqual(files);
    const records = await snapshotRecords(root, 's2');
    expect(records.slice(-2).map((record) => [record.kind, Object.keys(record.entries as object)])).toEqual([
      ['diff', ['lib/f-04.txt']],
      ['diff', ['lib/f-07.txt']],
    ]);
    const rebuilt = await rebuildStateFromLog(new FsBackupStore({ root }).sessionLog('s2'), { projectRoot: project });
    expect(rebuilt.state.snapshots.map((snapshot) => JSON.parse(JSON.stringify(snapshot)))).toEqual(history.state.snapshots.map((snapshot) => JSON.parse(JSON.stringify(snapshot))));
  });
});

import { FileHistory, readStateRecord, rebuildFromTail, rebuildStateFromLog, type FileHistoryState } from '@fh/core';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { temporaryFolder } from './helpers.js';

describe('retention past 100 turns over chained snapshots', () => {
  it('keeps 100 snapshots, keeps every backup a kept snapshot names, and a reopen rebuilds the same state', async () => {
    const folder = await temporaryFolder();
    const project = join(folder, 'project');
    const names = ['a.txt', 'b.txt', 'c.txt', 'd/e.txt', 'f.txt'];
    await mkdir(join(project, 'd'), { recursive: true });
    for (const name of names) await writeFile(join(project, name), `${name} 0\n`);
    const store = new FsBackupStore({ root: join(folder, 'store') });
    const history = await FileHistory.open({ projectRoot: project, sessionId: 's', store, env: {}, timestampGranularityMs: 0 });
    await history.makeSnapshot('t0');
    for (const name of names) await history.trackEdit(name);
    for (let turn = 1; turn <= 130; turn += 1) {
      const name = names[turn % names.length] as string;
      await history.trackEdit(name);
      await writeFile(join(project, name), `${name} ${turn}\n`);
      await history.makeSnapshot(`t${turn}`);
    }
    const view = (state: FileHistoryState) => state.snapshots.map((snapshot) => [snapshot.messageId, Object.keys(snapshot.trackedFileBackups), { ...snapshot.trackedFileBackups }]);
    const live = history.state;
    expect(live.snapshots.length).toBe(100);
    expect(live.snapshots[0]?.messageId).toBe('t31');
    expect(Object.keys(live.snapshots[0]?.trackedFileBackups ?? {})).toEqual(names);
    await history.close();
    const stored = new Set(await store.listBackups('s'));
    const held = live.snapshots.flatMap((snapshot) => Object.values(snapshot.trackedFileBackups).map((entry) => entry.backupFileName));
    expect(held.filter((name) => name !== null && !stored.has(name))).toEqual([]);
    // What is left beside them is each file's first backup (a version 1 is never deleted): every later version only dropped snapshots named is gone.
    expect([...stored].filter((name) => !held.includes(name)).map((name) => name.slice(name.lastIndexOf('@')))).toEqual(names.map(() => '@v1'));
    const reopened = await FileHistory.open({ projectRoot: project, sessionId: 's', store, env: {} });
    // Read newest first, so each chained map is built through its links.
    for (let index = reopened.state.snapshots.length - 1; index >= 0; index -= 1) void reopened.state.snapshots[index]?.trackedFileBackups;
    expect(view(reopened.state)).toEqual(view(live));
    expect(reopened.state.snapshotSequence).toBe(live.snapshotSequence);
    await reopened.close();
  });
});

describe('the state record beside the log (fh-state version 1)', () => {
  it('is written past 100 turns naming the line after the oldest kept snapshot, lets the open start there with the same state, is rewritten after a reopen, and goes with the session', async () => {
    const folder = await temporaryFolder();
    const project = join(folder, 'project');
    const names = ['a.txt', 'b.txt', 'c.txt', 'd/e.txt'];
    await mkdir(join(project, 'd'), { recursive: true });
    for (const name of names) await writeFile(join(project, name), `${name} 0\n`);
    const store = new FsBackupStore({ root: join(folder, 'store') });
    const statePath = join(folder, 'store', 'sessions', 's.fh-state');
    const turns = async (history: FileHistory, from: number, to: number) => {
      for (let turn = from; turn <= to; turn += 1) {
        const name = names[turn % names.length] as string;
        await history.trackEdit(name);
        await writeFile(join(project, name), `${name} ${turn}\n`);
        await history.makeSnapshot(`t${turn}`);
      }
    };
    const history = await FileHistory.open({ projectRoot: project, sessionId: 's', store, env: {}, timestampGranularityMs: 0 });
    await history.makeSnapshot('t0');
    for (const name of names) await history.trackEdit(name);
    await turns(history, 1, 98);
    await history.close();
    // 99 snapshots: retention has not started, so there is no state record yet.
    await expect(stat(statePath)).rejects.toThrow(/ENOENT/);
    const again = await FileHistory.open({ projectRoot: project, sessionId: 's', store, env: {}, timestampGranularityMs: 0 });
    await turns(again, 99, 120);
    const live = again.state;
    await again.close();
    // Written after every turn here (1 changed entry per turn ≥ 4 tracked / 8), by the reopened
    // history (its anchors came from the lines it read): the newest names snapshot t21, the oldest kept.
    const state = readStateRecord(await readFile(statePath));
    expect(state?.anchor).toMatchObject({ sequence: live.snapshotSequence - 98, base: live.snapshotSequence - 99, messageId: 't22' });
    expect((state?.body as { messageId?: string }).messageId).toBe('t21');
    const log = store.sessionLog('s');
    // A tail that holds the anchor but not the log's first full record (the log is not read whole).
    const options = { projectRoot: project, headBytes: 1024, tailBytesSteps: [(await stat(join(folder, 'store', 'sessions', 's.jsonl'))).size - 8192] };
    const fromState = await rebuildFromTail(log, options);
    expect(fromState?.anchorLines?.[0]?.sequence).toBe(state?.anchor.sequence);
    const whole = await rebuildStateFromLog(log, { projectRoot: project });
    const view = (value: FileHistoryState) => ({ snapshots: value.snapshots.map((snapshot) => ({ ...snapshot })), tracked: [...value.trackedFiles].sort(), sequence: value.snapshotSequence, superseded: value.superseded });
    expect(view(fromState?.state as FileHistoryState)).toEqual(view(whole.state));
    expect(view(whole.state)).toEqual(view(live));
    await store.deleteSession('s');
    await expect(stat(statePath)).rejects.toThrow(/ENOENT/);
  });
});

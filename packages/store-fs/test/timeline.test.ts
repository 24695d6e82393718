/**
 * The rewind timeline on real files (issue 11): the sequence from the issue (three turns, a hand
 * edit, two rewinds, walking back to "my edit"), a property test over random sequences of
 * rewinds, undos, redos and hand edits (every earlier state fh saw is reached again, byte-exact,
 * by `undo <point>`), `undo-to` as a step of its own, prune, and the mode rule.
 */
import { chmod, lstat, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileHistory, NotFoundError, RewindSession, pointRecord, snapshotRecord, type LogRecord, type UndoResult } from '@fh/core';
import { afterEach, describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { listTree, temporaryFolder } from './helpers.js';

const SESSION = 'timeline-0000-4000-8000-000000000001';
const FILES = ['a.txt', 'b.txt', 'sub/c.txt'];

const opened: FileHistory[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((history) => history.close()));
});

/** Every regular file under the project as `mode text` (missing files absent). */
async function tree(projectRoot: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const path of await listTree(projectRoot)) {
    const stats = await lstat(join(projectRoot, path));
    if (stats.isFile()) files[path] = `${(stats.mode & 0o7777).toString(8)} ${await readFile(join(projectRoot, path), 'utf8')}`;
  }
  return files;
}

async function write(projectRoot: string, path: string, text: string): Promise<void> {
  await mkdir(join(projectRoot, path, '..'), { recursive: true });
  await writeFile(join(projectRoot, path), text);
}

/** A project with turns t1..t4: t1 sees nothing, each turn writes the files, t4 is the end of turn 3. */
async function threeTurns() {
  const base = await temporaryFolder();
  const projectRoot = join(base, 'project');
  await mkdir(projectRoot, { recursive: true });
  const store = new FsBackupStore({ root: join(base, 'store') });
  const history = await FileHistory.open({ projectRoot, sessionId: SESSION, store, env: {} });
  opened.push(history);
  for (const [turn, version] of [['t1', 'v1'], ['t2', 'v2'], ['t3', 'v3']] as const) {
    await history.makeSnapshot(turn);
    for (const path of FILES) {
      await history.trackEdit(path);
      await write(projectRoot, path, `${path} ${version}\n`);
    }
  }
  await history.makeSnapshot('t4');
  return { projectRoot, store, history, session: new RewindSession({ history }) };
}

describe('the rewind timeline', () => {
  it('three turns, a hand edit, rewind to turn 1, rewind to turn 3, then undo twice reaches "my edit" byte-exact; redo goes forward', async () => {
    const { projectRoot, session } = await threeTurns();
    await writeFile(join(projectRoot, 'a.txt'), 'my edit\n');
    const mine = await tree(projectRoot);
    const first = await session.restore({ messageId: 't2', mode: 'code' });
    const atTurn1 = await tree(projectRoot);
    expect(atTurn1).toEqual({ 'a.txt': '644 a.txt v1\n', 'b.txt': '644 b.txt v1\n', 'sub/c.txt': '644 sub/c.txt v1\n' });
    const second = await session.restore({ messageId: 't4', mode: 'code' });
    expect(await tree(projectRoot)).toEqual({ 'a.txt': '644 a.txt v3\n', 'b.txt': '644 b.txt v3\n', 'sub/c.txt': '644 sub/c.txt v3\n' });

    expect(await session.undo()).toMatchObject({ operation: 'undo', target: second.undoPoint?.undoId, failed: [] });
    expect(await tree(projectRoot)).toEqual(atTurn1);
    expect(await session.undo()).toMatchObject({ operation: 'undo', target: first.undoPoint?.undoId, restored: FILES, failed: [] });
    expect(await tree(projectRoot)).toEqual(mine);
    expect(await readFile(join(projectRoot, 'a.txt'))).toEqual(Buffer.from('my edit\n'));
    await expect(session.undo()).rejects.toThrow(NotFoundError);

    await session.redo();
    expect(await tree(projectRoot)).toEqual(atTurn1);
    await session.redo();
    expect((await tree(projectRoot))['a.txt']).toBe('644 a.txt v3\n');
    const timeline = await session.timeline();
    expect(timeline.points.map((point) => point.operation)).toEqual(['rewind', 'rewind', 'undo', 'undo', 'redo', 'redo']);
    expect([timeline.steps.length, timeline.cursor, timeline.pending]).toEqual([2, 2, []]);
  });

  it('undo <point> goes back to just before any point, as a new step that undo takes back; a new rewind after undos keeps the old points by id', async () => {
    const { projectRoot, session } = await threeTurns();
    const start = await tree(projectRoot);
    const first = await session.restore({ messageId: 't1', mode: 'code' });
    expect(await tree(projectRoot)).toEqual({});
    const second = await session.restore({ messageId: 't3', mode: 'code' });
    const atTurn2 = await tree(projectRoot);
    await session.undo();
    await session.restore({ messageId: 't2', mode: 'code' });
    const timeline = await session.timeline();
    expect(timeline.steps).toEqual([first.undoPoint?.undoId, timeline.points.at(-1)?.undoId]);

    const back = await session.undo((second.undoPoint?.undoId as string).slice(0, 6));
    expect(back).toMatchObject({ operation: 'undo-to', target: second.undoPoint?.undoId });
    expect(await tree(projectRoot)).toEqual({});
    await session.undo((first.undoPoint?.undoId as string).slice(0, 6));
    expect(await tree(projectRoot)).toEqual(start);
    expect((await session.undo()).operation).toBe('undo');
    expect(await tree(projectRoot)).toEqual({});
    expect(atTurn2['a.txt']).toBe('644 a.txt v2\n');
  });

  it('prune removes old points and their backups, never pending ones; cleanup-style size report counts what is left', async () => {
    const { projectRoot, store, session } = await threeTurns();
    await session.restore({ messageId: 't2', mode: 'code' });
    await session.restore({ messageId: 't4', mode: 'code' });
    const { prunePoints, timelineSize } = await import('@fh/core');
    const undo = { store, sessionId: SESSION };
    expect(await timelineSize(undo)).toEqual({ points: 2, backups: 6, bytes: 2 * ('a.txt v1\n'.length + 'b.txt v1\n'.length + 'sub/c.txt v1\n'.length) });
    expect(await prunePoints(undo, new Date(Date.now() + 1000))).toHaveLength(2);
    expect((await store.listBackups(SESSION)).filter((name) => name.includes('@undo-'))).toEqual([]);
    expect(await timelineSize(undo)).toEqual({ points: 0, backups: 0, bytes: 0 });
    await expect(session.undo()).rejects.toThrow(NotFoundError);
    expect(Object.keys(await tree(projectRoot))).toEqual(FILES);
  });
});

/** mulberry32: a small seeded PRNG, so a failing sequence can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Operation = 'rewind' | 'undo' | 'redo' | 'edit';

describe('property: walking the timeline back reaches every earlier state byte-exact', () => {
  it('10 random sequences (seeds 1-10) of up to 20 rewinds, undos, redos and hand edits', async () => {
    for (let seed = 1; seed <= 10; seed += 1) {
      const next = random(seed);
      const { projectRoot, session } = await threeTurns();
      const length = 1 + Math.floor(next() * 20);
      /** Per point made: its id, the tree just before it, the paths it changed (from the trees). */
      const made: Array<{ pointId: string; before: Record<string, string>; touched: Set<string>; trace: string }> = [];
      const trace: string[] = [];
      for (let step = 0; step < length; step += 1) {
        const operation = (['rewind', 'undo', 'redo', 'edit'] as const)[Math.floor(next() * 4)] as Operation;
        const before = await tree(projectRoot);
        let pointId: string | null = null;
        if (operation === 'edit') {
          const path = FILES[Math.floor(next() * FILES.length)] as string;
          await write(projectRoot, path, `hand edit ${seed}.${step}\n`);
          trace.push(`edit ${path}`);
          continue;
        }
        if (operation === 'rewind') {
          const turn = ['t1', 't2', 't3', 't4'][Math.floor(next() * 4)] as string;
          pointId = (await session.restore({ messageId: turn, mode: 'code' })).undoPoint?.undoId ?? null;
          trace.push(`rewind ${turn}`);
        } else {
          const result: UndoResult | undefined = await (operation === 'undo' ? session.undo() : session.redo()).catch((error: unknown) => {
            if (error instanceof NotFoundError) return undefined;
            throw error;
          });
          pointId = result?.pointId ?? null;
          trace.push(result === undefined ? `${operation} (nothing)` : operation);
        }
        const after = await tree(projectRoot);
        if (pointId === null) continue;
        const touched = new Set([...Object.keys(before), ...Object.keys(after)].filter((path) => before[path] !== after[path]));
        made.push({ pointId, before, touched, trace: trace.join(', ') });
      }
      const final = await tree(projectRoot);
      // The state just before point i, as fh saw it: each path as it was just before the earliest
      // point at or after i that changed it; a path no such point changed stays as it is now.
      const expected = made.map((_, index) => {
        const state: Record<string, string | undefined> = { ...final };
        for (const path of new Set([...FILES, ...Object.keys(final)])) {
          const first = made.slice(index).find((point) => point.touched.has(path));
          if (first !== undefined) state[path] = first.before[path];
        }
        return Object.fromEntries(Object.entries(state).filter((entry): entry is [string, string] => entry[1] !== undefined));
      });
      for (let index = made.length - 1; index >= 0; index -= 1) {
        const point = made[index] as (typeof made)[number];
        await session.undo(point.pointId);
        expect({ seed, trace: point.trace, tree: await tree(projectRoot) }).toEqual({ seed, trace: point.trace, tree: expected[index] });
      }
      await Promise.all(opened.splice(0).map((history) => history.close()));
    }
  }, 120_000);
});

describe('restored modes', () => {
  it('a crafted checkpoint record with mode 3583 (0o6777) is restored as 0o777: setuid/setgid need the backup file to carry them', async () => {
    const { projectRoot, store, history } = await threeTurns();
    const latest = history.state.snapshots.at(-1) as NonNullable<ReturnType<typeof history.state.snapshots.at>>;
    await history.close();
    const a = latest.trackedFileBackups['a.txt'] as NonNullable<(typeof latest.trackedFileBackups)[string]>;
    const crafted = { ...latest, messageId: 'crafted', trackedFileBackups: { ...latest.trackedFileBackups, 'a.txt': { ...a, mode: 3583 } } };
    await store.sessionLog(SESSION).append([snapshotRecord(crafted, false) as unknown as LogRecord]);
    await writeFile(join(projectRoot, 'a.txt'), 'changed\n');
    const reopened = await FileHistory.open({ projectRoot, sessionId: SESSION, store, env: {} });
    opened.push(reopened);
    await new RewindSession({ history: reopened }).restore({ messageId: 'crafted', mode: 'code' });
    expect((await stat(join(projectRoot, 'a.txt'))).mode & 0o7777).toBe(0o777);
  });

  it('an undo brings back a setuid file backed up on this machine with its bits; a crafted point record cannot add them', async () => {
    const { projectRoot, store, history, session } = await threeTurns();
    await chmod(join(projectRoot, 'a.txt'), 0o4755);
    const rewound = await session.restore({ messageId: 't2', mode: 'code' });
    expect((await stat(join(projectRoot, 'a.txt'))).mode & 0o7777).toBe(0o644);
    await session.undo();
    expect((await stat(join(projectRoot, 'a.txt'))).mode & 0o7777).toBe(0o4755);

    // A point record naming the 0o644 pre-image of b.txt as 0o6755 restores it as 0o755.
    const point = rewound.undoPoint as NonNullable<typeof rewound.undoPoint>;
    const entry = point.entries.find((candidate) => candidate.path === 'b.txt') as (typeof point.entries)[number];
    await store.sessionLog(SESSION).append([
      pointRecord({ ...point, undoId: 'crafted-point', operation: 'rewind', target: null, entries: [{ ...entry, mode: 0o6755 }], plan: [] }),
      { type: 'fh-point-done', v: 1, pointId: 'crafted-point', outcome: 'done', by: null, timestamp: new Date().toISOString() },
    ]);
    await writeFile(join(projectRoot, 'b.txt'), 'changed\n');
    await session.undo('crafted-point');
    expect(await readFile(join(projectRoot, 'b.txt'), 'utf8')).toBe('b.txt v3\n');
    expect((await stat(join(projectRoot, 'b.txt'))).mode & 0o7777).toBe(0o755);
    expect(history.holdsLock).toBe(true);
  });
});

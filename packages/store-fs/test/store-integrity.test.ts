import { lstatSync, openSync, renameSync, symlinkSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BackupMissingError, FileHistory, NotFoundError, prepareTrackEdit, RewindSession, verifySession } from '@fh/core';
import { FsBackupStore } from '../src/index.js';
import { errnoError, faultyFileSystem, listTree, temporaryFolder } from './helpers.js';

/** A store whose fsyncs are recorded in order (`file:` or `folder:` plus the path under the root). */
async function recordingStore(failSync?: (path: string) => boolean) {
  const base = await temporaryFolder();
  const root = join(base, 'store');
  const workspace = join(base, 'project');
  await mkdir(workspace);
  const events: string[] = [];
  const store = new FsBackupStore({
    root,
    fileSystem: faultyFileSystem({
      open: (async (path: string, flags?: string | number) => {
        const handle = await open(path, flags as string);
        const sync = handle.sync.bind(handle);
        handle.sync = async () => {
          const name = String(path).slice(root.length);
          if (failSync?.(name) === true) throw errnoError('EIO', 'fsync', String(path));
          await sync();
          events.push(`sync ${name}`);
        };
        return handle;
      }) as never,
    }),
  });
  return { base, root, workspace, store, events };
}

describe('durable order: backups before the records that name them', () => {
  it('fsyncs each new backup and its folder (once) before the next record, and nothing without a record', async () => {
    const { workspace, store, events } = await recordingStore();
    await writeFile(join(workspace, 'a.txt'), 'a');
    await writeFile(join(workspace, 'b.txt'), 'b');
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'));
    await store.putBackup('s1', 'b@v1', join(workspace, 'b.txt'));
    expect(events).toEqual([]);
    await store.sessionLog('s1').append([{ type: 'names-a-and-b' }]);
    expect(events.slice(0, 2).sort()).toEqual(['sync /file-history/s1/a@v1', 'sync /file-history/s1/b@v1']);
    expect(events.slice(2)).toEqual(['sync /file-history/s1', 'sync /sessions/s1.jsonl', 'sync /sessions']);
    await store.sessionLog('s1').append([{ type: 'names-nothing-new' }]);
    expect(events.slice(5)).toEqual(['sync /sessions/s1.jsonl']);
  });

  it('a backup whose fsync fails fails the append with no record written, and the next append syncs it first', async () => {
    let failing = true;
    const { root, workspace, store, events } = await recordingStore((path) => failing && path.endsWith('a@v1'));
    await writeFile(join(workspace, 'a.txt'), 'a');
    await store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'));
    await expect(store.sessionLog('s1').append([{ type: 'names-a' }])).rejects.toMatchObject({ message: expect.stringContaining('make the new backups of session "s1" durable before its next record') });
    expect(await listTree(join(root, 'sessions'))).toEqual([]);
    failing = false;
    await store.sessionLog('s1').append([{ type: 'names-a' }]);
    expect(events).toEqual(['sync /file-history/s1/a@v1', 'sync /file-history/s1', 'sync /sessions/s1.jsonl', 'sync /sessions']);
    expect(await readFile(join(root, 'sessions', 's1.jsonl'), 'utf8')).toBe('{"type":"names-a"}\n');
  });
});

describe('no links inside the store', () => {
  it('refuses a backup that is a symbolic link: stat, restore and open never read the outside file', async () => {
    const { base, root, store } = await recordingStore();
    await writeFile(join(base, 'outside.txt'), 'outside bytes');
    await mkdir(join(root, 'file-history', 's1'), { recursive: true });
    await symlink(join(base, 'outside.txt'), join(root, 'file-history', 's1', 'a@v1'));
    const refusal = { code: 'FH_CORRUPT', message: expect.stringContaining(`${join(root, 'file-history', 's1', 'a@v1')} is a symbolic link: fh never follows a link inside its store`) };
    await expect(store.statBackup('s1', 'a@v1')).rejects.toMatchObject(refusal);
    await expect(store.restoreBackup('s1', 'a@v1', join(base, 'restored.txt'))).rejects.toMatchObject(refusal);
    await expect(store.openBackup('s1', 'a@v1')).rejects.toMatchObject(refusal);
    expect((await readdir(base)).sort()).toEqual(['outside.txt', 'project', 'store']);
  });

  // The store opens a backup to copy with openSync where its file system has the sync calls, else with open.
  it.each(['openSync', 'open'] as const)('a backup swapped for a link after it was opened (%s) is never read: the open file is copied, not the link', async (opener) => {
    const base = await temporaryFolder();
    const root = join(base, 'store');
    const backup = join(root, 'file-history', 's1', 'a@v1');
    await writeFile(join(base, 'outside.txt'), 'outside bytes');
    await mkdir(join(base, 'project'));
    let swap = false;
    const swapIfAsked = (path: string) => {
      if (!swap || path !== backup) return;
      swap = false;
      renameSync(backup, join(base, 'moved-away'));
      symlinkSync(join(base, 'outside.txt'), backup);
    };
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem(
        opener === 'open'
          ? {
              openSync: undefined,
              open: (async (path: string, flags?: string | number) => {
                const handle = await open(path, flags as string);
                swapIfAsked(path);
                return handle;
              }) as never,
            }
          : {
              openSync: ((path: string, flags?: string | number) => {
                const fd = openSync(path, flags as string);
                swapIfAsked(path);
                return fd;
              }) as never,
            },
      ),
    });
    await writeFile(join(base, 'project', 'a.txt'), 'backup bytes!');
    await store.putBackup('s1', 'a@v1', join(base, 'project', 'a.txt'));
    swap = true;
    await store.restoreBackup('s1', 'a@v1', join(base, 'project', 'restored.txt'));
    expect(await readFile(join(base, 'project', 'restored.txt'), 'utf8')).toBe('backup bytes!');
    expect(lstatSync(backup).isSymbolicLink()).toBe(true);
    await expect(store.restoreBackup('s1', 'a@v1', join(base, 'project', 'again.txt'))).rejects.toMatchObject({
      code: 'FH_CORRUPT',
      message: expect.stringContaining(`${backup} is a symbolic link: fh never follows a link inside its store`),
    });
    await expect(stat(join(base, 'project', 'again.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a session folder that is a symbolic link: no backup is written through it', async () => {
    const { base, root, workspace, store } = await recordingStore();
    await mkdir(join(base, 'elsewhere'));
    await mkdir(join(root, 'file-history'), { recursive: true });
    await symlink(join(base, 'elsewhere'), join(root, 'file-history', 's1'));
    await writeFile(join(workspace, 'a.txt'), 'a');
    await expect(store.putBackup('s1', 'a@v1', join(workspace, 'a.txt'))).rejects.toMatchObject({
      code: 'FH_CORRUPT',
      message: expect.stringContaining(`${join(root, 'file-history', 's1')} is a symbolic link`),
    });
    expect(await readdir(join(base, 'elsewhere'))).toEqual([]);
  });

  it('refuses a session log that is a symbolic link: nothing is appended to or read from the outside file (read, readEnds, readTail, readStream)', async () => {
    const { base, root, store } = await recordingStore();
    await writeFile(join(base, 'outside.jsonl'), '{"type":"outside"}\n');
    await mkdir(join(root, 'sessions'), { recursive: true });
    await symlink(join(base, 'outside.jsonl'), join(root, 'sessions', 's1.jsonl'));
    const refusal = { code: 'FH_CORRUPT', message: expect.stringContaining('is a symbolic link: fh never follows a link inside its store') };
    await expect(store.sessionLog('s1').append([{ type: 'x' }])).rejects.toMatchObject(refusal);
    await expect(store.sessionLog('s1').read()).rejects.toMatchObject(refusal);
    await expect(store.sessionLog('s1').readEnds?.(1024, 1024)).rejects.toMatchObject(refusal);
    await expect(store.sessionLog('s1').readTail?.(1024, 1024)).rejects.toMatchObject(refusal);
    const stream = store.sessionLog('s1').readStream?.();
    await expect(stream?.[Symbol.asyncIterator]().next()).rejects.toMatchObject(refusal);
    expect(await readFile(join(base, 'outside.jsonl'), 'utf8')).toBe('{"type":"outside"}\n');
  });
});

describe('prepared copies of killed hooks', () => {
  it('every lock taker removes the prepared copies whose process is gone, keeping a running process\'s and a fresh one of another machine', async () => {
    const { root, store } = await recordingStore();
    const folder = join(root, 'file-history', 's1', '.fh-tmp-prepared');
    await mkdir(folder, { recursive: true });
    const host = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
    const gone = spawnSync(process.execPath, ['-e', '']).pid as number;
    await writeFile(join(folder, `.fh-tmp-${host}.${gone}.00ff00ff00ff00ff-1`), 'a killed hook\'s copy');
    await writeFile(join(folder, `.fh-tmp-${host}.${process.ppid}.00ff00ff00ff00ff-2`), 'a waiting hook\'s copy');
    await writeFile(join(folder, '.fh-tmp-0badc0de.1.00ff00ff00ff00ff-3'), 'another machine, fresh');
    const lock = await store.lockSession('s1');
    try {
      expect((await readdir(folder)).sort()).toEqual(['.fh-tmp-0badc0de.1.00ff00ff00ff00ff-3', `.fh-tmp-${host}.${process.ppid}.00ff00ff00ff00ff-2`]);
    } finally {
      await lock.release();
    }
  });
});

describe('prepareBackup', () => {
  it('copies the bytes durably under a temp name, gives them a backup name on commit (a taken name is refused, another works) and leaves no temp', async () => {
    const { root, store } = await recordingStore();
    const source = join(root, '..', 'work.txt');
    await writeFile(source, 'before the edit\n', { mode: 0o640 });
    await store.putBackup('s1', 'a@v1', source);
    const prepared = await store.prepareBackup('s1', source);
    expect(prepared.info).toEqual({ size: 16, mode: 0o640, sha256: createHash('sha256').update('before the edit\n').digest('hex') });
    const folder = join(root, 'file-history', 's1');
    expect(await readdir(join(folder, '.fh-tmp-prepared'))).toHaveLength(1);
    await expect(prepared.commit('a@v1')).rejects.toMatchObject({ code: 'FH_CONFLICT' });
    await prepared.commit('a@v2');
    await expect(prepared.commit('a@v3')).rejects.toMatchObject({ code: 'FH_INVALID_ARGUMENT' });
    await prepared.discard();
    expect((await readdir(folder)).sort()).toEqual(['a@v1', 'a@v2']);
    expect(await readFile(join(folder, 'a@v2'), 'utf8')).toBe('before the edit\n');
    const unused = await store.prepareBackup('s1', source);
    await unused.discard();
    expect((await readdir(folder)).sort()).toEqual(['a@v1', 'a@v2']);
    await expect(store.prepareBackup('s1', join(root, '..', 'missing.txt'))).rejects.toMatchObject({ code: 'FH_NOT_FOUND' });
  });

  it('trackEdit names a prepared copy as the backup, and removes a second one for a file the turn tracked meanwhile', async () => {
    const { root, workspace, store } = await recordingStore();
    await writeFile(join(workspace, 'a.txt'), 'first\n');
    const history = await FileHistory.open({ projectRoot: workspace, sessionId: 's1', store, env: {} });
    try {
      await history.makeSnapshot('m1');
      const first = await prepareTrackEdit(store, 's1', join(workspace, 'a.txt'));
      const second = await prepareTrackEdit(store, 's1', join(workspace, 'a.txt'));
      await history.trackEdit('a.txt', first === undefined ? {} : { prepared: first });
      await history.trackEdit('a.txt', second === undefined ? {} : { prepared: second });
      const entry = history.state.snapshots.at(-1)?.trackedFileBackups['a.txt'];
      expect([entry?.backupFileName?.slice(16), entry?.version, entry?.backupTime]).toEqual(['@v1', 1, first?.startedAt]);
      expect((await readdir(join(root, 'file-history', 's1'))).map((name) => name.slice(16))).toEqual(['@v1']);
      expect(await readFile(join(root, 'file-history', 's1', entry?.backupFileName as string), 'utf8')).toBe('first\n');
    } finally {
      await history.close();
    }
  });
});

/** a.txt and b.txt tracked at m1 (`a0`, `b0`), edited and snapshotted at m2 (`a1`, `b1`), in a real fs store. */
async function twoCheckpoints() {
  const base = await temporaryFolder();
  const root = join(base, 'store');
  const workspace = join(base, 'project');
  await mkdir(workspace);
  const store = new FsBackupStore({ root });
  await writeFile(join(workspace, 'a.txt'), 'a0\n');
  await writeFile(join(workspace, 'b.txt'), 'b0\n');
  const history = await FileHistory.open({ projectRoot: workspace, sessionId: 's1', store, env: {} });
  await history.makeSnapshot('m1');
  await history.trackEdit('a.txt');
  await history.trackEdit('b.txt');
  await writeFile(join(workspace, 'a.txt'), 'a1\n');
  await writeFile(join(workspace, 'b.txt'), 'b1\n');
  await history.makeSnapshot('m2');
  const backup = (messageId: string, path: string) => history.state.snapshots.find((snapshot) => snapshot.messageId === messageId)?.trackedFileBackups[path]?.backupFileName as string;
  return { base, root, workspace, store, history, folder: join(root, 'file-history', 's1'), backup };
}

describe('fh verify over a real fs store', () => {
  it('skips the pre-images of a rewind refused for a flipped backup (abandoned, deleted on purpose); undo of that point says there is nothing to undo', async () => {
    const { workspace, store, history, folder, backup } = await twoCheckpoints();
    try {
      const session = new RewindSession({ history });
      await writeFile(join(folder, backup('m1', 'a.txt')), 'a9\n');
      await expect(session.restore({ messageId: 'm1', mode: 'code' })).rejects.toBeInstanceOf(BackupMissingError);
      const [point] = (await session.timeline()).points;
      expect([point?.operation, point?.status, point?.entries.length]).toEqual(['rewind', 'abandoned', 2]);
      expect((await readdir(folder)).filter((name) => name.includes('@undo-'))).toEqual([]);
      await writeFile(join(folder, backup('m1', 'a.txt')), 'a0\n');

      expect(await verifySession({ store, sessionId: 's1', projectRoot: workspace })).toEqual({
        sessionId: 's1', checked: 4, ok: 4, unverifiable: 0, damaged: [], brokenCheckpoints: [], brokenPoints: [], bytesHashed: 12,
      });
      const undone = await session.undo(point?.undoId).catch((error: unknown) => error);
      expect(undone).toBeInstanceOf(NotFoundError);
      expect((undone as Error).message).toBe(
        `timeline point ${point?.undoId} of session s1 was abandoned: its rewind was refused before any file changed, so there is nothing to undo (fh undo --list shows the points)`,
      );
      expect([await readFile(join(workspace, 'a.txt'), 'utf8'), await readFile(join(workspace, 'b.txt'), 'utf8')]).toEqual(['a1\n', 'b1\n']);
    } finally {
      await history.close();
    }
  });

  it('an undo over an abandoned point does not need its deleted pre-images', async () => {
    const { workspace, history, folder, backup } = await twoCheckpoints();
    try {
      const session = new RewindSession({ history });
      const rewound = await session.restore({ messageId: 'm1', mode: 'code', paths: ['b.txt'] });
      await writeFile(join(folder, backup('m1', 'a.txt')), 'a9\n');
      await expect(session.restore({ messageId: 'm1', mode: 'code' })).rejects.toBeInstanceOf(BackupMissingError);
      expect((await session.timeline()).points.map((point) => [point.operation, point.status, point.entries.map((entry) => entry.path)])).toEqual([
        ['rewind', 'done', ['b.txt']],
        ['rewind', 'abandoned', ['a.txt']],
      ]);
      expect((await session.undo()).target).toBe(rewound.undoPoint?.undoId);
      expect([await readFile(join(workspace, 'a.txt'), 'utf8'), await readFile(join(workspace, 'b.txt'), 'utf8')]).toEqual(['a1\n', 'b1\n']);
    } finally {
      await history.close();
    }
  });

  it('reports a backup that is a symbolic link in the store as damaged, with every other result, never reading the outside file', async () => {
    const { base, root, workspace, store, history, folder, backup } = await twoCheckpoints();
    try {
      await writeFile(join(base, 'outside.txt'), 'b1\n');
      const linked = backup('m2', 'b.txt');
      await rm(join(folder, linked));
      await symlink(join(base, 'outside.txt'), join(folder, linked));
      expect(await verifySession({ store, sessionId: 's1', projectRoot: workspace })).toEqual({
        sessionId: 's1',
        checked: 4,
        ok: 3,
        unverifiable: 0,
        damaged: [
          {
            backupFileName: linked,
            status: 'refused',
            problem: `${join(folder, linked)} is a symbolic link: fh never follows a link inside its store (${root}), so it was not read or written; replace it by what fh wrote there (or remove it) and run the command again`,
            paths: ['b.txt'],
            checkpoints: ['m2'],
            points: [],
          },
        ],
        brokenCheckpoints: ['m2'],
        brokenPoints: [],
        bytesHashed: 9,
      });
    } finally {
      await history.close();
    }
  });
});

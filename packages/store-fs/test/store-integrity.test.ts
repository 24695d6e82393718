import { mkdir, open, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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

import { FileHistory, InvalidArgumentError } from '@fh/core';
import * as fsPromises from 'node:fs/promises';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Volume } from 'memfs';
import { afterEach, describe, expect, it } from 'vitest';
import { MemfsBackupStore } from '../src/index.js';

let folder: string | undefined;
afterEach(async () => {
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  folder = undefined;
});

/**
 * A history whose `fs` (the real disk) is not the file system the store reads (a memfs volume): the
 * store finds no source, but the file exists. That must never be recorded as "did not exist",
 * which would make a rewind delete the file.
 */
describe('a workspace fs other than the store\'s', () => {
  it('fails the backup with a clear error instead of recording an existing file as absent, and a rewind deletes nothing', async () => {
    folder = await mkdtemp(join(tmpdir(), 'fh-mismatch-'));
    const precious = join(folder, 'a.txt');
    await writeFile(precious, 'precious\n');
    const store = new MemfsBackupStore({ volume: new Volume() });
    const history = await FileHistory.open({ projectRoot: folder, sessionId: 's1', store, fs: fsPromises as never, env: {} });
    await history.makeSnapshot('m1');
    await expect(history.trackEdit('a.txt')).rejects.toThrow(
      new InvalidArgumentError(`${precious} exists in the workspace file system but the store cannot read it: the history's fs must be the file system the store reads (store.workspaceFs)`),
    );
    expect(history.state.trackedFiles.size).toBe(0);

    await history.trackEdit('b.txt');
    await writeFile(join(folder, 'b.txt'), 'created\n');
    await history.makeSnapshot('m2');
    expect(history.state.snapshots[1]?.trackedFileBackups['b.txt']?.error).toBe(
      `${join(folder, 'b.txt')} exists in the workspace file system but the store cannot read it: the history's fs must be the file system the store reads (store.workspaceFs)`,
    );
    const result = await history.rewind('m2');
    expect(result.deleted).toEqual([]);
    expect(result.failed.map((failure) => failure.path)).toEqual(['b.txt']);
    expect(await readFile(precious, 'utf8')).toBe('precious\n');
    expect(await readFile(join(folder, 'b.txt'), 'utf8')).toBe('created\n');
    await history.close();
  });
});

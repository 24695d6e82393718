import { FileHistory, OutsideRootError } from '@fh/core';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { temporaryFolder } from './helpers.js';

describe('fh never tracks its own files', () => {
  it('rejects trackEdit of a path inside the store folder, even when the store lives in the project', async () => {
    const projectRoot = await temporaryFolder();
    const store = new FsBackupStore({ root: join(projectRoot, '.fh') });
    const history = await FileHistory.open({ projectRoot, sessionId: 's1', store, env: {} });
    try {
      await history.makeSnapshot('m1');
      const log = '.fh/sessions/s1.jsonl';
      await expect(history.trackEdit(log)).rejects.toThrow(new OutsideRootError(`${log} is inside fh's own storage and is never tracked`));
      await expect(history.trackEdit(join(projectRoot, '.fh'))).rejects.toThrow(OutsideRootError);
      await mkdir(join(projectRoot, 'src'));
      await writeFile(join(projectRoot, 'src/a.txt'), 'a\n');
      await history.trackEdit('src/a.txt');
      expect([...history.state.trackedFiles]).toEqual(['src/a.txt']);
    } finally {
      await history.close();
    }
  });

  it('tracks the project when the store folder holds it (a store at ~ with the project under ~)', async () => {
    const home = await temporaryFolder();
    const projectRoot = join(home, 'project');
    await mkdir(join(projectRoot, 'src'), { recursive: true });
    await writeFile(join(projectRoot, 'src/a.txt'), 'a\n');
    const store = new FsBackupStore({ root: home });
    const history = await FileHistory.open({ projectRoot, sessionId: 's1', store, env: {} });
    try {
      await history.makeSnapshot('m1');
      await history.trackEdit('src/a.txt');
      expect([...history.state.trackedFiles]).toEqual(['src/a.txt']);
      await writeFile(join(projectRoot, 'src/a.txt'), 'changed\n');
      expect(await history.rewind('m1')).toMatchObject({ restored: ['src/a.txt'], failed: [] });
      await expect(history.trackEdit(join(home, 'sessions', 's1.jsonl'))).rejects.toThrow(OutsideRootError);
    } finally {
      await history.close();
    }
  });
});

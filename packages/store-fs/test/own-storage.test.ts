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

describe('a store inside a git work tree', () => {
  it('writes a .gitignore of * into its root: git status does not list it, git add -A skips it, git clean -fd keeps it', async () => {
    const { execFileSync } = await import('node:child_process');
    const { readFile } = await import('node:fs/promises');
    const project = join(await temporaryFolder(), 'project');
    await mkdir(project, { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-C', project, ...args], { encoding: 'utf8' });
    git('init', '-q');
    await writeFile(join(project, 'a.txt'), 'dirty only in the store\n');
    const history = await FileHistory.open({ projectRoot: project, sessionId: 's1', store: new FsBackupStore({ root: join(project, '.fhstore') }) });
    await history.makeSnapshot('m1');
    await history.trackEdit(join(project, 'a.txt'));
    await history.close();
    expect(await readFile(join(project, '.fhstore', '.gitignore'), 'utf8')).toBe('*\n');
    expect(git('status', '--porcelain', '--untracked-files=all')).toBe('?? a.txt\n');
    git('clean', '-fdq');
    const reopened = await FileHistory.open({ projectRoot: project, sessionId: 's1', store: new FsBackupStore({ root: join(project, '.fhstore') }) });
    expect(Object.keys(reopened.state.snapshots.at(-1)?.trackedFileBackups ?? {})).toEqual(['a.txt']);
    await reopened.close();
  });
});

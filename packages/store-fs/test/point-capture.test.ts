/**
 * A rewind's timeline point saves each file's pre-image through the project folders it opened
 * without following links (issue 10's journal; the same folders the rewind writes through): a
 * folder swapped for a link to a folder outside the project before the copy is never read through,
 * so no outside bytes become a pre-image that a later rollback would write into the project.
 */
import { mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { capturePoint, type BackupStore } from '@fh/core';
import { describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { temporaryFolder } from './helpers.js';

describe('capturePoint on a real project', () => {
  it('copies the file in the folder it opened, not through a link swapped in for that folder', async () => {
    const base = await temporaryFolder();
    const projectRoot = join(base, 'project');
    await mkdir(join(projectRoot, 'sub'), { recursive: true });
    await writeFile(join(projectRoot, 'sub', 'f.txt'), 'project bytes\n');
    await mkdir(join(base, 'victim'));
    await writeFile(join(base, 'victim', 'f.txt'), 'VICTIM\n');
    const real = new FsBackupStore({ root: join(base, 'store') });
    let swapped = false;
    const store: BackupStore = Object.create(real, {
      putBackup: {
        value: async (sessionId: string, backupFileName: string, sourcePath: string) => {
          if (!swapped) {
            swapped = true;
            await rename(join(projectRoot, 'sub'), join(projectRoot, 'sub.real'));
            await symlink(join(base, 'victim'), join(projectRoot, 'sub'));
          }
          return real.putBackup(sessionId, backupFileName, sourcePath);
        },
      },
    });
    const point = await capturePoint({ projectRoot, fs: await import('node:fs/promises') }, { store, sessionId: 's' }, { paths: ['sub/f.txt'], operation: 'rewind', messageId: 't1' });
    expect(swapped).toBe(true);
    const [entry] = point.entries;
    expect(entry).toMatchObject({ path: 'sub/f.txt', kind: 'file', size: 14 });
    expect(await readFile(join(base, 'store', 'file-history', 's', entry?.backupFileName as string), 'utf8')).toBe('project bytes\n');
    expect(await readFile(join(base, 'victim', 'f.txt'), 'utf8')).toBe('VICTIM\n');
  });
});

import { runConformanceSuite } from '@fh/store-test-suite';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsBackupStore } from '../src/index.js';

runConformanceSuite({
  name: 'fs',
  realFileSystem: true,
  syncRead: true,
  async createHarness() {
    const base = await mkdtemp(join(tmpdir(), 'fh-conformance-fs-'));
    const root = join(base, 'store');
    const projectRoot = join(base, 'project');
    await mkdir(projectRoot);
    const sessionFolder = (sessionId: string) => join(root, 'file-history', sessionId);
    return {
      store: new FsBackupStore({ root }),
      projectRoot,
      async listBackupObjects(sessionId) {
        const objects: Record<string, { bytes: Uint8Array; mode: number }> = {};
        const names = await readdir(sessionFolder(sessionId)).catch(() => []);
        for (const name of names) {
          const path = join(sessionFolder(sessionId), name);
          objects[name] = { bytes: new Uint8Array(await readFile(path)), mode: (await stat(path)).mode & 0o7777 };
        }
        return objects;
      },
      async removeBackupObject(sessionId, backupFileName) {
        await unlink(join(sessionFolder(sessionId), backupFileName));
      },
      async replaceBackupBytes(sessionId, backupFileName, bytes) {
        await writeFile(join(sessionFolder(sessionId), backupFileName), bytes);
      },
      async linkBackupObject(sessionId, backupFileName, target) {
        await symlink(target, join(sessionFolder(sessionId), backupFileName));
      },
      async cleanup() {
        await rm(base, { recursive: true, force: true });
      },
    };
  },
});

import { runConformanceSuite } from '@fh/store-test-suite';
import { posix } from 'node:path';
import { MemfsBackupStore } from '../src/index.js';

runConformanceSuite({
  name: 'memfs',
  realFileSystem: false,
  syncRead: true,
  async createHarness() {
    const store = new MemfsBackupStore();
    const volume = store.volume;
    const projectRoot = '/work/project';
    volume.mkdirSync(projectRoot, { recursive: true });
    const sessionFolder = (sessionId: string) => posix.join(store.root, 'file-history', sessionId);
    return {
      store,
      projectRoot,
      async listBackupObjects(sessionId) {
        const objects: Record<string, { bytes: Uint8Array; mode: number }> = {};
        if (!volume.existsSync(sessionFolder(sessionId))) return objects;
        for (const name of volume.readdirSync(sessionFolder(sessionId)).map(String)) {
          const path = posix.join(sessionFolder(sessionId), name);
          objects[name] = { bytes: new Uint8Array(volume.readFileSync(path) as Buffer), mode: Number(volume.statSync(path).mode) & 0o7777 };
        }
        return objects;
      },
      async removeBackupObject(sessionId, backupFileName) {
        volume.unlinkSync(posix.join(sessionFolder(sessionId), backupFileName));
      },
      async replaceBackupBytes(sessionId, backupFileName, bytes) {
        volume.writeFileSync(posix.join(sessionFolder(sessionId), backupFileName), bytes);
      },
      async linkBackupObject(sessionId, backupFileName, target) {
        volume.symlinkSync(target, posix.join(sessionFolder(sessionId), backupFileName));
      },
      async cleanup() {
        volume.reset();
      },
    };
  },
});

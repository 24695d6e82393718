/**
 * `BackupStore.readBackupSync` (optional; the stores whose backups are local files offer it): the
 * exact bytes of a small backup, read synchronously, refusing everything `openBackup` refuses — a
 * bad name, a missing backup, a backup that is a symbolic link (never reading where it leads) —
 * and reading nothing past `maxBytes`. A store that does not declare it (`syncRead`) must not offer it.
 */
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../workspace.js';

export function syncReadTests(workspace: () => Workspace, offered: boolean): void {
  describe('readBackupSync: a small backup read synchronously, refusing what openBackup refuses', () => {
    it.runIf(!offered)('is not offered by a store that does not run these tests (it streams every backup)', () => {
      expect(workspace().store.readBackupSync).toBeUndefined();
    });

    it.runIf(offered)('returns the exact bytes, undefined over maxBytes, and refuses a missing backup, a bad name and a symlinked backup', async () => {
      const w = workspace();
      const read = (name: string, maxBytes = 1024) => (w.store.readBackupSync as NonNullable<typeof w.store.readBackupSync>).call(w.store, w.sessionId, name, maxBytes);
      const bytes = new Uint8Array([0, 1, 2, 255, 10, 13, 0x68, 0x69]);
      await w.write('a.bin', bytes);
      await w.store.putBackup(w.sessionId, 'a@v1', w.path('a.bin'));
      expect(new Uint8Array(read('a@v1') as Uint8Array)).toEqual(bytes);
      expect(read('a@v1', bytes.length)).toBeDefined();
      expect(read('a@v1', bytes.length - 1)).toBeUndefined();
      await w.write('empty.txt', '');
      await w.store.putBackup(w.sessionId, 'empty@v1', w.path('empty.txt'));
      expect(read('empty@v1')?.length).toBe(0);

      expect(() => read('missing@v1')).toThrow(expect.objectContaining({ code: 'FH_NOT_FOUND' }));
      for (const name of ['../a@v1', '..', 'a/b', '']) expect(() => read(name)).toThrow(expect.objectContaining({ code: 'FH_INVALID_ARGUMENT' }));
      expect(() => (w.store.readBackupSync as NonNullable<typeof w.store.readBackupSync>).call(w.store, '../other', 'a@v1', 1024)).toThrow(expect.objectContaining({ code: 'FH_INVALID_ARGUMENT' }));

      expect(w.harness.linkBackupObject, 'a store offering readBackupSync must let the suite plant a symlinked backup').toBeTypeOf('function');
      await w.write('outside-secret.txt', 'not a backup\n');
      await w.harness.linkBackupObject?.(w.sessionId, 'linked@v1', w.path('outside-secret.txt'));
      expect(() => read('linked@v1')).toThrow(expect.objectContaining({ code: 'FH_CORRUPT', message: expect.stringContaining('is a symbolic link') }));
    });
  });
}

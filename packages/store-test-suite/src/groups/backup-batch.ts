/**
 * Issue 12: `putBackups`, the optional batch put from bytes the command window stores a
 * command's before-images with: each item's exact bytes and permission bits, its sha256, a taken
 * or bad name failing only that item (nothing overwritten, nothing left of it). A store without
 * `putBackups` skips these (the command window then uses `putBackup`).
 */
import { createHash } from 'node:crypto';
import { ConflictError, InvalidArgumentError } from '@fh/core';
import { describe, expect, it } from 'vitest';
import { utf8, type Workspace } from '../workspace.js';

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function backupBatchTests(workspace: () => Workspace): void {
  describe('putBackups: several backups from bytes in one call (issue 12)', () => {
    it("stores each item's exact bytes and mode with its sha256; a taken or bad name fails only that item", async ({ skip }) => {
      const w = workspace();
      const putBackups = w.store.putBackups?.bind(w.store);
      if (putBackups === undefined) return skip();
      await w.write('old.txt', 'old bytes\n', 0o644);
      await w.store.putBackup(w.sessionId, 'taken@v1', w.path('old.txt'));
      const binary = new Uint8Array(Array.from({ length: 256 }, (_, index) => 255 - index));
      const items = [
        { backupFileName: 'alpha@v1', bytes: utf8('alpha\n'), mode: 0o644 },
        { backupFileName: 'taken@v1', bytes: utf8('must not replace\n'), mode: 0o600 },
        { backupFileName: 'empty@v1', bytes: new Uint8Array(0), mode: 0o755 },
        { backupFileName: 'bad/name', bytes: utf8('x'), mode: 0o644 },
        { backupFileName: 'binary@v2', bytes: binary, mode: 0o600 },
      ];
      const results = await putBackups(w.sessionId, items);
      expect(results.map((result) => (result instanceof Error ? result.constructor.name : result))).toEqual([
        { size: 6, mode: 0o644, sha256: sha256(utf8('alpha\n')) },
        ConflictError.name,
        { size: 0, mode: 0o755, sha256: sha256(new Uint8Array(0)) },
        InvalidArgumentError.name,
        { size: 256, mode: 0o600, sha256: sha256(binary) },
      ]);
      expect(results[1]).toBeInstanceOf(ConflictError);
      const objects = await w.harness.listBackupObjects(w.sessionId);
      expect(Object.fromEntries(Object.entries(objects).map(([name, object]) => [name, { text: Buffer.from(object.bytes).toString('latin1'), mode: object.mode }]))).toEqual({
        'alpha@v1': { text: 'alpha\n', mode: 0o644 },
        'taken@v1': { text: 'old bytes\n', mode: 0o644 },
        'empty@v1': { text: '', mode: 0o755 },
        'binary@v2': { text: Buffer.from(binary).toString('latin1'), mode: 0o600 },
      });
      expect((await w.store.listBackups(w.sessionId)).sort()).toEqual(['alpha@v1', 'binary@v2', 'empty@v1', 'taken@v1']);
      expect(await w.store.statBackup(w.sessionId, 'binary@v2')).toMatchObject({ size: 256, mode: 0o600 });
      await expect(putBackups('bad/session', items.slice(0, 1))).rejects.toBeInstanceOf(InvalidArgumentError);
    });
  });
}

/**
 * A tracked file over the diff size cap (8 MiB) that has not changed since its backup is not a
 * change: `fh diff` and `fh list` compare it as the rewind does, even when its timestamps cannot
 * settle it (backed up within the timestamp margin of its last write).
 */
import { randomBytes } from 'node:crypto';
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './helpers.js';

describe('a tracked file over the diff size cap', () => {
  it('unchanged: no change in fh diff and fh list; changed: modified, too large to count', async () => {
    const box = await sandbox();
    expect((await box.fh(['--session', 's', 'snapshot', 'l1'])).exitCode).toBe(0);
    await writeFile(join(box.project, 'big.bin'), randomBytes(9 * 1024 * 1024));
    expect((await box.fh(['--session', 's', 'track', 'big.bin'])).exitCode).toBe(0);
    const unchanged = await box.fh(['--session', 's', 'diff', 'l1']);
    expect([unchanged.exitCode, unchanged.stdout.split('\n')[0]]).toEqual([0, 'Rewinding to l1 would change no files']);
    const list = await box.fhJson<{ checkpoints: Array<{ filesChanged: string[] }> }>(['--session', 's', 'list']);
    expect(list.json.checkpoints.map((checkpoint) => checkpoint.filesChanged)).toEqual([[]]);

    await appendFile(join(box.project, 'big.bin'), 'more');
    const changed = await box.fhJson<{ files: Array<{ path: string; status: string; tooLarge?: boolean }> }>(['--session', 's', 'diff', 'l1']);
    expect(changed.json.files.map((file) => [file.path, file.status, file.tooLarge])).toEqual([['big.bin', 'modified', true]]);
  });
});

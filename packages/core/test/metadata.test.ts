import { lstatSync, statSync } from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMetadataReader, SLOW_SYNC_CALLS_ALLOWED, SLOW_SYNC_CALL_MS, SLOW_SYNC_CALL_SHARE, SYNC_SLICE_MS } from '../src/metadata.js';
import type { WorkspaceFs } from '../src/index.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'fh-metadata-'));
  await writeFile(join(folder, 'a.txt'), 'twelve bytes');
  await symlink('a.txt', join(folder, 'link'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The real fs, counting which of stat / lstat / statSync / lstatSync were called. */
function countingFs(options: { sync: boolean; statSyncDelayMs?: number }) {
  const calls = { stat: 0, lstat: 0, statSync: 0, lstatSync: 0 };
  const fs: Record<string, unknown> = {
    ...fsPromises,
    stat: (path: string) => {
      calls.stat += 1;
      return fsPromises.stat(path);
    },
    lstat: (path: string) => {
      calls.lstat += 1;
      return fsPromises.lstat(path);
    },
  };
  if (options.sync) {
    fs['statSync'] = (path: string) => {
      calls.statSync += 1;
      const until = performance.now() + (options.statSyncDelayMs ?? 0);
      while (performance.now() < until) {
        // Busy-wait: a sync call as slow as one on a cold cache or a network file system.
      }
      return statSync(path);
    };
    fs['lstatSync'] = (path: string) => {
      calls.lstatSync += 1;
      return lstatSync(path);
    };
  }
  return { fs: fs as unknown as WorkspaceFs, calls };
}

describe('createMetadataReader', () => {
  it('uses statSync and lstatSync when the file system has them, with the same results and errors as the async calls', async () => {
    const { fs, calls } = countingFs({ sync: true });
    const reader = createMetadataReader(fs);
    expect((await reader.stat(join(folder, 'link'))).size).toBe(12);
    expect((await reader.lstat(join(folder, 'link'))).isSymbolicLink()).toBe(true);
    const missing = join(folder, 'missing.txt');
    await expect(reader.stat(missing)).rejects.toMatchObject({ code: 'ENOENT', path: missing });
    await expect(reader.lstat(missing)).rejects.toMatchObject({ code: 'ENOENT', path: missing });
    expect(calls).toEqual({ stat: 0, lstat: 0, statSync: 2, lstatSync: 2 });
  });

  it('uses the async calls when the file system has no sync ones (memfs promises, a custom fs)', async () => {
    const { fs, calls } = countingFs({ sync: false });
    const reader = createMetadataReader(fs);
    expect((await reader.stat(join(folder, 'a.txt'))).size).toBe(12);
    expect((await reader.lstat(join(folder, 'link'))).isSymbolicLink()).toBe(true);
    expect(calls).toEqual({ stat: 1, lstat: 1, statSync: 0, lstatSync: 0 });
  });

  it(`keeps the sync calls when the slow ones are fewer than 1 in ${SLOW_SYNC_CALL_SHARE} (a busy machine's odd preempted call), and statNow answers with them`, async () => {
    // A clock of its own, so only the planted calls are slow, whatever else the machine runs.
    let clock = 0;
    let calls = 0;
    const fs = {
      ...fsPromises,
      statSync: (path: string) => {
        calls += 1;
        if (calls % 100 === 0) clock += SLOW_SYNC_CALL_MS + 1; // every 100th call is slow
        return statSync(path);
      },
      lstatSync,
    } as unknown as WorkspaceFs;
    const reader = createMetadataReader(fs, () => clock);
    for (let call = 0; call < 500; call += 1) {
      await reader.pause();
      expect(reader.statNow(join(folder, 'a.txt'))?.size).toBe(12);
    }
    expect(calls).toBe(500);
    expect((await reader.stat(join(folder, 'a.txt'))).size).toBe(12);
    expect(calls).toBe(501);
  });

  it(`switches to the async calls after ${SLOW_SYNC_CALLS_ALLOWED} sync calls slower than ${SLOW_SYNC_CALL_MS} ms`, async () => {
    const { fs, calls } = countingFs({ sync: true, statSyncDelayMs: SLOW_SYNC_CALL_MS + 1 });
    const reader = createMetadataReader(fs);
    for (let call = 0; call < SLOW_SYNC_CALLS_ALLOWED + 2; call += 1) {
      expect((await reader.stat(join(folder, 'a.txt'))).size).toBe(12);
    }
    expect(calls).toEqual({ stat: 2, lstat: 0, statSync: SLOW_SYNC_CALLS_ALLOWED, lstatSync: 0 });
    await reader.lstat(join(folder, 'a.txt'));
    expect(calls.lstat).toBe(1);
    expect(createMetadataReader(fs)).not.toBe(reader);
    await createMetadataReader(fs).stat(join(folder, 'a.txt'));
    expect(calls.statSync).toBe(SLOW_SYNC_CALLS_ALLOWED + 1);
  });

  it(`yields to the event loop after ${SYNC_SLICE_MS} ms of back-to-back sync calls`, async () => {
    const delayMs = SLOW_SYNC_CALL_MS / 2;
    const { fs } = countingFs({ sync: true, statSyncDelayMs: delayMs });
    const reader = createMetadataReader(fs);
    let immediateRanAfterCall: number | undefined;
    let completed = 0;
    setImmediate(() => {
      immediateRanAfterCall = completed;
    });
    const calls = Math.ceil((4 * SYNC_SLICE_MS) / delayMs);
    for (let call = 0; call < calls; call += 1) {
      await reader.stat(join(folder, 'a.txt'));
      completed += 1;
    }
    expect(immediateRanAfterCall).toBeDefined();
    expect(immediateRanAfterCall).toBeLessThanOrEqual(Math.ceil(SYNC_SLICE_MS / delayMs) + 1);
  });
});

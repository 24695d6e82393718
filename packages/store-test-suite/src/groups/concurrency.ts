/** Issue 2 rule 7: per-file I/O runs with bounded concurrency; 5,000 files work under ulimit -n 256. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { DEFAULT_CONCURRENCY, type BackupStore } from '@fh/core';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../workspace.js';

/** Open files allowed while the many-files test runs on a real file system (like `ulimit -n 256`). */
const OPEN_FILES_LIMIT = 256;

/** A store that counts how many of its per-file operations run at once (an observer, no fault). */
function countingStore(store: BackupStore): { store: BackupStore; maxInFlight: () => number } {
  let inFlight = 0;
  let highest = 0;
  const counted = new Set<PropertyKey>(['putBackup', 'statBackup', 'restoreBackup', 'openBackup', 'deleteBackup']);
  const proxy = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (!counted.has(property)) return value.bind(target);
      return async (...args: unknown[]) => {
        inFlight += 1;
        highest = Math.max(highest, inFlight);
        try {
          return await (value as (...parameters: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          inFlight -= 1;
        }
      };
    },
  });
  return { store: proxy, maxInFlight: () => highest };
}

/** The soft open-files limit of this process, from /proc/self/limits. */
function openFilesSoftLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('Max open files'));
  return Number(line?.split(/\s{2,}/)[1]);
}

/** Set this process's soft open-files limit (util-linux prlimit), returning a function that restores it. */
function limitOpenFiles(limit: number): () => void {
  const previous = openFilesSoftLimit();
  execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${limit}:`]);
  return () => {
    execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${previous}:`]);
  };
}

export function concurrencyTests(workspace: () => Workspace, options: { realFileSystem: boolean; manyFilesCount: number }): void {
  const count = options.manyFilesCount;
  const limitNote = options.realFileSystem ? ` with at most ${OPEN_FILES_LIMIT} open files` : '';
  describe('bounded concurrency (rule 7)', () => {
    it(`tracks, snapshots, previews and rewinds ${count} files${limitNote}, ${DEFAULT_CONCURRENCY} store operations at a time`, { timeout: 240_000 }, async () => {
      const w = workspace();
      const files = Array.from({ length: count }, (_, index) => `pkg-${index % 50}/file-${index}.txt`);
      const edited = files.filter((_, index) => index % 10 === 0);
      for (let start = 0; start < files.length; start += 64) {
        await Promise.all(files.slice(start, start + 64).map((file) => w.write(file, `original ${file}\n`)));
      }
      const counting = countingStore(w.store);
      const history = await w.open({ store: counting.store });

      const restoreLimit = options.realFileSystem ? limitOpenFiles(OPEN_FILES_LIMIT) : undefined;
      let result;
      let stats;
      try {
        if (options.realFileSystem) expect(openFilesSoftLimit()).toBe(OPEN_FILES_LIMIT);
        await history.makeSnapshot('m1');
        await Promise.all(files.map((file) => history.trackEdit(file)));
        for (let start = 0; start < edited.length; start += 32) {
          await Promise.all(edited.slice(start, start + 32).map((file) => w.write(file, `edited ${file}!\n`)));
        }
        await history.makeSnapshot('m2');
        stats = await history.getDiffStats('m1');
        result = await history.rewind('m1');
      } finally {
        restoreLimit?.();
      }

      expect(counting.maxInFlight()).toBeLessThanOrEqual(DEFAULT_CONCURRENCY);
      expect(stats.filesChanged).toEqual([...edited].sort());
      expect(stats.insertions).toBe(edited.length);
      expect(stats.deletions).toBe(edited.length);
      expect(result).toEqual({ messageId: 'm1', restored: [...edited].sort(), deleted: [], skipped: [], failed: [] });
      expect(history.state.snapshots[1]?.trackedFileBackups[edited[0] as string]?.version).toBe(2);
      expect(Object.keys(await w.harness.listBackupObjects(w.sessionId))).toHaveLength(files.length + edited.length);
      for (const file of [files[0], files[1], files.at(-1)] as string[]) expect(await w.text(file)).toBe(`original ${file}\n`);
    });
  });
}

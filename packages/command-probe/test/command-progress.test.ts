/**
 * The command window's progress (issue 15, `progress.ts`): `beginCommand` reports a `backing-up`
 * phase over the files it copies (files and bytes, totals known at the start); `endCommand` a
 * `checking` phase over the files it compares, then a `backing-up` phase over the blobs of clean
 * files it copies into the store. With the real git and bash.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ProgressEvent } from '@fh/core';
import { gitRepository, openWorld, sh, type World } from './helpers.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('command window progress', () => {
  it('rm -rf of one clean, one dirty and one untracked file: 2 backed up at begin, 3 checked and 1 blob backed up at end', async () => {
    world = await openWorld((project) => gitRepository(project, "mkdir -p src && printf 'one\\n' > src/a.txt && printf 'lib\\n' > src/b.txt"));
    sh(world.project, "printf 'dirty\\n' >> src/a.txt && printf 'new!\\n' > src/c.txt");
    const begun: ProgressEvent[] = [];
    const window = await world.history.beginCommand({ probe: world.probe, journal: world.journal, onProgress: (event) => void begun.push(event) });
    // a.txt is 'one\ndirty\n' (10 bytes), c.txt 'new!\n' (5 bytes), copied in either order.
    expect(begun[0]).toEqual({ phase: 'backing-up', files: 0, totalFiles: 2, bytes: 0, totalBytes: 15 });
    expect(begun.at(-1)).toEqual({ phase: 'backing-up', files: 2, totalFiles: 2, bytes: 15, totalBytes: 15 });
    expect(begun).toHaveLength(3);
    sh(world.project, 'rm -rf src');
    const ended: ProgressEvent[] = [];
    const capture = await world.history.endCommand(window.windowId, { probe: world.probe, journal: world.journal, onProgress: (event) => void ended.push(event) });
    expect(capture.captured.map((entry) => `${entry.path}:${entry.source}`)).toEqual(['src/a.txt:backup', 'src/b.txt:git', 'src/c.txt:backup']);
    const checking = ended.filter((event) => event.phase === 'checking');
    expect(checking[0]).toEqual({ phase: 'checking', files: 0, totalFiles: 3, bytes: 0, totalBytes: 0 });
    expect(checking.at(-1)).toEqual({ phase: 'checking', files: 3, totalFiles: 3, bytes: 0, totalBytes: 0 });
    expect(ended.filter((event) => event.phase === 'backing-up')).toEqual([
      { phase: 'backing-up', files: 0, totalFiles: 1, bytes: 0, totalBytes: 0 },
      { phase: 'backing-up', files: 1, totalFiles: 1, bytes: 4, totalBytes: 0 },
    ]);
    expect(ended.findIndex((event) => event.phase === 'backing-up')).toBeGreaterThan(ended.findLastIndex((event) => event.phase === 'checking'));
  });
});

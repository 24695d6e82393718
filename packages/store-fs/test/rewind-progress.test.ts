/**
 * RewindSession's `onProgress` on real files (issue 15): a rewind reports `checking`, `saving`
 * (the undo point's pre-images) and `writing`, an undo and a redo the same, a preview `checking`
 * and `counting` (with the bytes of both sides read); each phase starts at 0 and ends at its exact file and byte totals.
 */
import { FileHistory, RewindSession, type ProgressEvent } from '@fh/core';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { temporaryFolder } from './helpers.js';

/** The phases in the order they started, each with its first and last event. */
function phases(events: readonly ProgressEvent[]): Array<{ phase: string; first: ProgressEvent; last: ProgressEvent; calls: number }> {
  const result: Array<{ phase: string; first: ProgressEvent; last: ProgressEvent; calls: number }> = [];
  for (const event of events) {
    const current = result.at(-1);
    if (current === undefined || current.phase !== event.phase || event.files === 0) result.push({ phase: event.phase, first: event, last: event, calls: 1 });
    else Object.assign(current, { last: event, calls: current.calls + 1 });
  }
  return result;
}

const at = (phase: ProgressEvent['phase'], files: number, totalFiles: number, bytes: number, totalBytes: number): ProgressEvent => ({ phase, files, totalFiles, bytes, totalBytes });

describe('RewindSession onProgress', () => {
  it('counts files and bytes of a rewind, its undo and its redo, and of a preview', async () => {
    const base = await temporaryFolder();
    const projectRoot = join(base, 'project');
    await mkdir(projectRoot);
    const FILES = 12;
    // File i holds i+1 lines of 10 bytes at the checkpoint, then 3 lines more.
    const before = (index: number) => 'line 0001\n'.repeat(index + 1);
    const after = (index: number) => `${before(index)}${'added 001\n'.repeat(3)}`;
    for (let index = 0; index < FILES; index += 1) await writeFile(join(projectRoot, `f${index}.txt`), before(index));
    const store = new FsBackupStore({ root: join(base, 'store') });
    const history = await FileHistory.open({ projectRoot, sessionId: 'progress', store });
    try {
      await history.makeSnapshot('m1');
      for (let index = 0; index < FILES; index += 1) await history.trackEdit(join(projectRoot, `f${index}.txt`));
      for (let index = 0; index < FILES; index += 1) await writeFile(join(projectRoot, `f${index}.txt`), after(index));
      const events: ProgressEvent[] = [];
      const session = new RewindSession({ history, onProgress: (event) => events.push(event) });
      const bytesBefore = Array.from({ length: FILES }, (_, index) => before(index).length).reduce((a, b) => a + b, 0);
      const bytesAfter = bytesBefore + FILES * 30;

      const preview = await session.preview('m1');
      expect(preview.insertions + preview.deletions).toBe(FILES * 3);
      expect(phases(events).map(({ phase, first, last, calls }) => ({ phase, first, last, calls }))).toEqual([
        { phase: 'checking', first: at('checking', 0, FILES, 0, 0), last: at('checking', FILES, FILES, 0, 0), calls: FILES + 1 },
        // Counting reads both sides of every file: bytes as at the checkpoint plus as they are now.
        { phase: 'counting', first: at('counting', 0, FILES, 0, 0), last: at('counting', FILES, FILES, bytesBefore + bytesAfter, 0), calls: FILES + 1 },
        // The files changed since the latest snapshot (m1 itself): no second pass.
      ]);

      events.length = 0;
      const result = await session.restore({ messageId: 'm1', mode: 'code' });
      expect(result.code?.restored).toHaveLength(FILES);
      expect(await readFile(join(projectRoot, 'f3.txt'), 'utf8')).toBe(before(3));
      expect(phases(events).map(({ phase, last }) => ({ phase, last }))).toEqual([
        { phase: 'checking', last: at('checking', FILES, FILES, 0, 0) },
        { phase: 'saving', last: at('saving', FILES, FILES, bytesAfter, 0) },
        { phase: 'writing', last: at('writing', FILES, FILES, bytesBefore, bytesBefore) },
      ]);

      events.length = 0;
      await session.undo();
      expect(await readFile(join(projectRoot, 'f3.txt'), 'utf8')).toBe(after(3));
      expect(phases(events).map(({ phase, last }) => ({ phase, last }))).toEqual([
        { phase: 'checking', last: at('checking', FILES, FILES, 0, 0) },
        { phase: 'saving', last: at('saving', FILES, FILES, bytesBefore, 0) },
        { phase: 'writing', last: at('writing', FILES, FILES, bytesAfter, bytesAfter) },
      ]);

      events.length = 0;
      await session.redo();
      expect(await readFile(join(projectRoot, 'f3.txt'), 'utf8')).toBe(before(3));
      expect(phases(events).map(({ phase, last }) => ({ phase, last }))).toEqual([
        { phase: 'checking', last: at('checking', FILES, FILES, 0, 0) },
        { phase: 'saving', last: at('saving', FILES, FILES, bytesAfter, 0) },
        { phase: 'writing', last: at('writing', FILES, FILES, bytesBefore, bytesBefore) },
      ]);
    } finally {
      await history.close();
    }
  });

  it('a callback that throws does not fail the rewind', async () => {
    const base = await temporaryFolder();
    const projectRoot = join(base, 'project');
    await mkdir(projectRoot);
    await writeFile(join(projectRoot, 'a.txt'), 'a\n');
    const store = new FsBackupStore({ root: join(base, 'store') });
    const history = await FileHistory.open({ projectRoot, sessionId: 'throws', store });
    try {
      await history.makeSnapshot('m1');
      await history.trackEdit(join(projectRoot, 'a.txt'));
      await writeFile(join(projectRoot, 'a.txt'), 'b\n');
      const session = new RewindSession({ history, onProgress: () => { throw new Error('broken bar'); } });
      const result = await session.restore({ messageId: 'm1', mode: 'code' });
      expect(result.code?.restored).toEqual(['a.txt']);
      expect(await readFile(join(projectRoot, 'a.txt'), 'utf8')).toBe('a\n');
    } finally {
      await history.close();
    }
  });
});

import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileHistory } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { describe, expect, it } from 'vitest';
import { DEADLINE_MARGIN_MS, openCommandTools } from '../src/command-window.js';
import { tempFolder } from './helpers.js';

// fh hook's budget holds through a command window's scan, which blocks the event loop (so the
// give-up timer cannot fire during it): each listing is bounded by the time left to the deadline.
describe('openCommandTools with the hook deadline', () => {
  it('refuses a begin whose listing would run past the deadline, and begins as usual with time left', async () => {
    const root = await tempFolder();
    const project = join(root, 'project');
    await mkdir(project);
    await writeFile(join(project, 'a.txt'), 'a\n');
    execFileSync('git', ['init', '-q'], { cwd: project });
    const store = new FsBackupStore({ root: join(root, 'store') });
    const history = await FileHistory.open({ projectRoot: project, sessionId: 's1', store });
    try {
      await history.makeSnapshot('m1');
      const location = { kind: 'fs', folder: join(root, 'store') } as const;
      const late = await openCommandTools(location, {}, root, 's1', Date.now() + DEADLINE_MARGIN_MS - 5_000);
      await expect(history.beginCommand({ probe: late.probe, journal: late.journal, windowId: 'late' })).rejects.toThrow("listing it took longer than the scan's time limit (maxScanMs");
      expect(await late.journal.listWindows()).toEqual([]);
      const inTime = await openCommandTools(location, {}, root, 's1', Date.now() + 60_000);
      const window = await history.beginCommand({ probe: inTime.probe, journal: inTime.journal, windowId: 'in-time' });
      expect(window.windowId).toBe('in-time');
    } finally {
      await history.close();
    }
  });
});

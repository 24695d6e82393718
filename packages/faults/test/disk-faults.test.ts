import { describe, expect, it } from 'vitest';
import { concurrentHookTrials, fullDiskTrials, ioErrorTrials, killTrials, symlinkRaceTrials, type TrialReport } from '../src/disk-trials.js';

function summary(report: TrialReport): string {
  const outcomes = Object.entries(report.outcomes ?? {}).map(([outcome, count]) => `${count}× ${outcome}`).join('; ');
  return `${report.name}: ${report.trials} trials, ${report.violations.length} violations, ${report.bytesLost} bytes lost${report.skipped ? ` (skipped: ${report.skipped})` : ''}${outcomes ? ` [${outcomes}]` : ''}`;
}

describe('real processes on disk', () => {
  it('SIGKILL at 20 seeded moments of fh rewind: no half-written file, and fh undo brings back the state before it', async () => {
    const report = await killTrials('rewind', 20, 10, { files: 60 });
    console.log(summary(report));
    expect(report.trials).toBe(20);
    expect(report.violations).toEqual([]);
    expect(report.bytesLost).toBe(0);
  }, 300_000);

  it('SIGKILL at 16 seeded moments of fh undo: no half-written file, no temp left, and fh undo then brings back the state before the rewind (never a redo)', async () => {
    const report = await killTrials('undo', 16, 20, { files: 60 });
    console.log(summary(report));
    expect(report.trials).toBe(16);
    expect(report.violations).toEqual([]);
    expect(report.bytesLost).toBe(0);
  }, 300_000);

  it('a folder swapped for a symlink by another process while fh rewind writes it: 0 writes outside the project in every round', async () => {
    const report = await symlinkRaceTrials(3);
    console.log(summary(report));
    expect(report.trials).toBe(3);
    expect(report.violations).toEqual([]);
  }, 300_000);

  it('a disk that fills up during fh rewind (8 MiB tmpfs): no half-written file, fh undo brings back the state before it', async () => {
    const report = await fullDiskTrials(2);
    console.log(summary(report));
    if (report.skipped !== undefined) return;
    expect(report.trials).toBe(2);
    expect(report.violations).toEqual([]);
  }, 300_000);

  it('fsync failing with EIO (strace inject) during fh rewind: no half-written file, fh undo brings back the state before it', async () => {
    const report = await ioErrorTrials(3);
    console.log(summary(report));
    if (report.skipped !== undefined) return;
    expect(report.trials).toBe(3);
    expect(report.violations).toEqual([]);
  }, 300_000);

  it('20 concurrent PreToolUse hooks: every edited file is backed up', async () => {
    const report = await concurrentHookTrials(20);
    console.log(summary(report));
    expect(report.violations).toEqual([]);
  }, 300_000);
});

import { describe, expect, it } from 'vitest';
import { OPERATIONS, runCrashPoints } from '../src/crash-scenarios.js';

describe('every crash point, as a killed process and as a power loss', () => {
  for (const operation of OPERATIONS) {
    it(`${operation.name}: no half-written file, no reference to a missing backup, nothing outside the root${operation.name === 'rewind' ? ', undo reaches the pre-rewind state' : ''}`, async () => {
      const report = await runCrashPoints(operation);
      console.log(`${operation.name}: ${report.points} crash points, ${report.trials} trials, ${report.violations.length} violations`);
      expect(report.points).toBeGreaterThan(3);
      expect(report.violations).toEqual([]);
    });
  }
});

describe('an interrupted undo never turns into a redo', () => {
  // With the operation journal (issue 11), `fh undo` after an interrupted undo rolls it back.
  it('undo interrupted at any crash point, then fh undo: the project is exactly as before the rewind', async () => {
    const undo = OPERATIONS.find((operation) => operation.name === 'undo');
    const report = await runCrashPoints(undo as (typeof OPERATIONS)[number], { checkInterruptedUndo: true });
    console.log(`interrupted undo: ${report.trials} trials, ${report.violations.length} violations, ${report.bytesLost} bytes lost`);
    expect(report.violations).toEqual([]);
  });
});

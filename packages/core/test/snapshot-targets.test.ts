import { describe, expect, it } from 'vitest';
import { snapshotFileBackups, snapshotFileTargets, type FileHistoryBackup, type FileHistoryState } from '../src/index.js';

const T0 = new Date('2026-01-01T00:00:00.000Z');

function entry(name: string | null, version: number): FileHistoryBackup {
  return { backupFileName: name, version, backupTime: T0 };
}

const A1 = entry('aaaaaaaaaaaaaaaa@v1', 1);
const A2 = entry('aaaaaaaaaaaaaaaa@v2', 2);
const B1 = entry('bbbbbbbbbbbbbbbb@v1', 1);
const B2 = entry('bbbbbbbbbbbbbbbb@v2', 2);
const C1 = entry(null, 1);

/** m1 tracks a; b is first tracked at m2, c at m3; m2 appears twice (the later one counts). */
const STATE: FileHistoryState = {
  snapshots: [
    { messageId: 'm1', timestamp: T0, trackedFileBackups: { 'a.txt': A1 } },
    { messageId: 'm2', timestamp: T0, trackedFileBackups: { 'a.txt': A1 } },
    { messageId: 'm2', timestamp: T0, trackedFileBackups: { 'a.txt': A2, 'b.txt': B1 } },
    { messageId: 'm3', timestamp: T0, trackedFileBackups: { 'a.txt': A2, 'b.txt': B2, 'c.txt': C1 } },
  ],
  trackedFiles: new Set(['c.txt', 'a.txt', 'b.txt', 'later.txt']),
  snapshotSequence: 4,
};

describe('snapshotFileBackups', () => {
  it("gives each tracked file the snapshot's entry, else its first later entry, sorted by path", () => {
    expect(snapshotFileBackups(STATE, 'm1')).toEqual(
      new Map([
        ['a.txt', A1],
        ['b.txt', B1],
        ['c.txt', C1],
        ['later.txt', undefined],
      ]),
    );
    expect([...(snapshotFileBackups(STATE, 'm1')?.keys() ?? [])]).toEqual(['a.txt', 'b.txt', 'c.txt', 'later.txt']);
  });

  it('uses the last snapshot of a message id', () => {
    expect(snapshotFileBackups(STATE, 'm2')?.get('a.txt')).toBe(A2);
    expect(snapshotFileBackups(STATE, 'm2')?.get('b.txt')).toBe(B1);
    expect(snapshotFileBackups(STATE, 'm3')?.get('b.txt')).toBe(B2);
  });

  it('covers files only the snapshot has, and is undefined for an unknown message', () => {
    const state: FileHistoryState = { ...STATE, trackedFiles: new Set() };
    expect([...(snapshotFileBackups(state, 'm3')?.keys() ?? [])]).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(snapshotFileBackups(STATE, 'nope')).toBeUndefined();
  });

  it('lists the same targets in path order (snapshotFileTargets), a tracked file named __proto__ taking its first later entry', () => {
    const P1 = entry('pppppppppppppppp@v1', 1);
    const state: FileHistoryState = {
      snapshots: [...STATE.snapshots, { messageId: 'm4', timestamp: T0, trackedFileBackups: Object.assign(Object.create(null) as Record<string, FileHistoryBackup>, { ['__proto__']: P1 }) }],
      trackedFiles: new Set([...STATE.trackedFiles, '__proto__']),
      snapshotSequence: 5,
    };
    expect(snapshotFileTargets(state, 'm1')).toEqual([
      { path: '__proto__', backup: P1 },
      { path: 'a.txt', backup: A1 },
      { path: 'b.txt', backup: B1 },
      { path: 'c.txt', backup: C1 },
      { path: 'later.txt', backup: undefined },
    ]);
    expect(snapshotFileTargets(state, 'nope')).toBeUndefined();
  });
});

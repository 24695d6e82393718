import { describe, expect, it } from 'vitest';
import { backupsToDelete } from '../src/snapshot/retention.js';
import type { FileHistoryBackup, FileHistorySnapshot } from '../src/types.js';

const TIME = new Date('2026-01-01T00:00:00.000Z');

function backup(file: string, version: number): FileHistoryBackup {
  return { backupFileName: `${file.padStart(16, '0')}@v${version}`, version, backupTime: TIME };
}

function snapshot(messageId: string, backups: Record<string, FileHistoryBackup>): FileHistorySnapshot {
  return { messageId, timestamp: TIME, trackedFileBackups: backups };
}

describe('backupsToDelete', () => {
  it('deletes backups only the dropped snapshots referenced, keeping each file first backup', () => {
    const dropped = [snapshot('u1', { 'a.txt': backup('a', 1), 'b.txt': backup('b', 1) }), snapshot('u2', { 'a.txt': backup('a', 2), 'b.txt': backup('b', 1) })];
    const kept = [snapshot('u3', { 'a.txt': backup('a', 3), 'b.txt': backup('b', 1) })];
    expect(backupsToDelete({ kept, dropped })).toEqual(['000000000000000a@v2']);
  });

  it('keeps a backup still referenced by a remaining snapshot (a file never changed since an old turn)', () => {
    const dropped = [snapshot('u1', { 'old.txt': backup('0', 4) })];
    const kept = [snapshot('u2', { 'old.txt': backup('0', 4) }), snapshot('u3', { 'old.txt': backup('0', 4) })];
    expect(backupsToDelete({ kept, dropped })).toEqual([]);
  });

  it('deletes every later version of a file created by the agent (null v1: no baseline object)', () => {
    const dropped = [
      snapshot('u1', { 'new.txt': { backupFileName: null, version: 1, backupTime: TIME } }),
      snapshot('u2', { 'new.txt': backup('e', 2) }),
      snapshot('u3', { 'new.txt': backup('e', 3) }),
    ];
    expect(backupsToDelete({ kept: [snapshot('u4', { 'new.txt': backup('e', 4) })], dropped })).toEqual(['000000000000000e@v2', '000000000000000e@v3']);
  });

  it('never names an entry marked with an error', () => {
    const dropped = [snapshot('u1', { 'a.txt': { ...backup('a', 2), error: 'backup 000000000000000a@v2 missing from session s0' } })];
    expect(backupsToDelete({ kept: [], dropped })).toEqual([]);
  });

  it('returns nothing when nothing was dropped', () => {
    expect(backupsToDelete({ kept: [snapshot('u1', { 'a.txt': backup('a', 2) })], dropped: [] })).toEqual([]);
  });
});

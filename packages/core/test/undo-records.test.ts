import { describe, expect, it } from 'vitest';
import {
  liveUndoPoints,
  parseUndoEntry,
  undoBackupFileName,
  undoPointRecord,
  undoPointRemovedRecord,
  type LogRecord,
  type UndoPoint,
} from '../src/index.js';

const T = new Date('2026-04-01T08:00:00.000Z');

function point(undoId: string): UndoPoint {
  return {
    undoId,
    sessionId: 's',
    createdAt: T,
    operation: 'rewind',
    messageId: 'u1',
    entries: [
      { path: 'a.txt', kind: 'file', backupFileName: `0123456789abcdef@undo-${undoId}`, mode: 0o644, size: 3 },
      { path: 'gone.txt', kind: 'missing', backupFileName: null, mode: null },
      { path: 'link', kind: 'symlink', backupFileName: null, mode: null, symlinkTarget: 'a.txt' },
      { path: 'now-a-file', kind: 'folder', backupFileName: null, mode: null },
    ],
  };
}

describe('undo point records', () => {
  it('serialise as JSON lines and read back', () => {
    const record = JSON.parse(JSON.stringify(undoPointRecord(point('p1')))) as LogRecord;
    expect(record).toEqual({
      type: 'fh-undo-point',
      undoId: 'p1',
      sessionId: 's',
      createdAt: '2026-04-01T08:00:00.000Z',
      operation: 'rewind',
      messageId: 'u1',
      entries: [
        { path: 'a.txt', kind: 'file', backupFileName: '0123456789abcdef@undo-p1', mode: 420, size: 3 },
        { path: 'gone.txt', kind: 'missing', backupFileName: null, mode: null },
        { path: 'link', kind: 'symlink', backupFileName: null, mode: null, symlinkTarget: 'a.txt' },
        { path: 'now-a-file', kind: 'folder', backupFileName: null, mode: null },
      ],
    });
    expect(liveUndoPoints([record])).toEqual([point('p1')]);
  });

  it('a removed record ends a point; other and malformed records are skipped with warnings', () => {
    const warnings: string[] = [];
    const records: LogRecord[] = [
      undoPointRecord(point('p1')),
      { type: 'user', uuid: 'u1' },
      undoPointRecord(point('p2')),
      { type: 'fh-undo-point', undoId: 'bad', sessionId: 's', createdAt: 'never', operation: 'rewind', messageId: null, entries: [] },
      { type: 'fh-undo-point', undoId: 'bad2', sessionId: 's', createdAt: T.toISOString(), operation: 'rewind', messageId: null, entries: [{ path: 'x', kind: 'file' }] },
      undoPointRemovedRecord('p1', 'undone', T),
      undoPointRecord(point('p3')),
    ];
    expect(liveUndoPoints(records, (message) => warnings.push(message)).map((entry) => entry.undoId)).toEqual(['p2', 'p3']);
    expect(warnings).toEqual(['skipped a malformed fh-undo-point record "bad"', 'skipped a malformed fh-undo-point record "bad2"']);
    expect(undoPointRemovedRecord('p1', 'evicted', T)).toEqual({ type: 'fh-undo-point-removed', undoId: 'p1', reason: 'evicted', timestamp: '2026-04-01T08:00:00.000Z' });
  });

  it('undo backup names are the path hash, @undo- and 12 hex of the undo id', () => {
    expect(undoBackupFileName('/p/a.txt', 'id-1')).toMatch(/^[0-9a-f]{16}@undo-[0-9a-f]{12}$/);
    expect(undoBackupFileName('/p/a.txt', 'id-1').slice(0, 16)).toBe(undoBackupFileName('/p/a.txt', 'id-2').slice(0, 16));
    expect(undoBackupFileName('/p/a.txt', 'id-1')).not.toBe(undoBackupFileName('/p/a.txt', 'id-2'));
  });

  it('a file entry keeps a 64-hex sha256 and drops a malformed one (then it is not checked)', () => {
    const sha256 = 'ab'.repeat(32);
    const entry = { path: 'a.txt', kind: 'file', backupFileName: '0123456789abcdef@undo-0123456789ab', mode: 0o644, size: 3 };
    expect(parseUndoEntry({ ...entry, sha256 })).toEqual({ ...entry, sha256 });
    expect(parseUndoEntry({ ...entry, sha256: 'AB'.repeat(32) })).toEqual(entry);
    expect(parseUndoEntry({ ...entry, sha256: 42 })).toEqual(entry);
    expect(parseUndoEntry({ ...entry, sha256: 'ab' })).toEqual(entry);
  });
});

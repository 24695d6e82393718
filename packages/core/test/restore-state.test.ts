import { describe, expect, it } from 'vitest';
import { deltaRecord, fhSessionRecord, snapshotRecord } from '../src/state/records.js';
import { latestSnapshotFromLog, latestSnapshotFromTail, restoreStateFromLog } from '../src/state/restore-state.js';
import type { FileHistoryBackup, FileHistorySnapshot } from '../src/types.js';
import { random } from './random.js';

const ROOT = '/work/project';
const T0 = new Date('2026-01-01T00:00:00.000Z');

function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

function backup(hash: string, version: number, seconds = version): FileHistoryBackup {
  return { backupFileName: `${hash.padStart(16, '0')}@v${version}`, version, backupTime: at(seconds) };
}

function snapshot(messageId: string, seconds: number, backups: Record<string, FileHistoryBackup>): FileHistorySnapshot {
  return { messageId, timestamp: at(seconds), trackedFileBackups: backups };
}

/** As a session log holds it: JSON, dates as ISO strings. */
function json<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value));
}

function restore(records: unknown[], projectRoot = ROOT) {
  const warnings: string[] = [];
  const state = restoreStateFromLog(records, { projectRoot, onWarning: (message) => warnings.push(message) });
  return { state, warnings };
}

describe('restoreStateFromLog', () => {
  it('rebuilds snapshots in order with Dates, trackedFiles and the sequence, ignoring unrelated records', () => {
    const first = snapshot('u1', 1, { 'a.txt': backup('a', 1) });
    const second = snapshot('u2', 2, { 'a.txt': backup('a', 2), 'b/c.txt': { backupFileName: null, version: 1, backupTime: at(2) } });
    const { state, warnings } = restore([
      { type: 'user', uuid: 'u1', message: { role: 'user', content: 'one' } },
      json(snapshotRecord(first, false)),
      { type: 'assistant', uuid: 'x1', message: { role: 'assistant', content: [] } },
      { type: 'summary', summary: 'earlier', leafUuid: 'x1' },
      { type: 'worktree-state', worktreeSession: null },
      json(snapshotRecord(second, false)),
    ]);
    expect(state).toEqual({ snapshots: [first, second], trackedFiles: new Set(['a.txt', 'b/c.txt']), snapshotSequence: 2 });
    expect(warnings).toEqual([]);
  });

  it('appends a snapshot per non-update record and lets an update replace the latest one of its messageId', () => {
    const { state } = restore([
      json(snapshotRecord(snapshot('u1', 1, { 'a.txt': backup('a', 1) }), false)),
      json(snapshotRecord(snapshot('u2', 2, {}), false)),
      json(snapshotRecord(snapshot('u1', 3, { 'a.txt': backup('a', 2) }), false)),
      json(snapshotRecord(snapshot('u1', 3, { 'a.txt': backup('a', 2), 'b.txt': backup('b', 1, 4) }), true)),
      json({ type: 'file-history-delta', messageId: 'x', snapshotMessageId: 'u1', trackingPath: 'c.txt', backup: backup('c', 1, 5), timestamp: at(5) }),
    ]);
    expect(state.snapshots).toEqual([
      snapshot('u1', 1, { 'a.txt': backup('a', 1) }),
      snapshot('u2', 2, {}),
      snapshot('u1', 3, { 'a.txt': backup('a', 2), 'b.txt': backup('b', 1, 4), 'c.txt': backup('c', 1, 5) }),
    ]);
    expect(state.snapshotSequence).toBe(3);
  });

  it('lets the last record per messageId win, at the position of its first record', () => {
    const { state } = restore([
      json(snapshotRecord(snapshot('u1', 1, {}), false)),
      json(snapshotRecord(snapshot('u2', 2, {}), false)),
      json(snapshotRecord(snapshot('u1', 1, { 'late.txt': backup('1a7e', 1, 3) }), true)),
    ]);
    expect(state.snapshots.map((entry) => entry.messageId)).toEqual(['u1', 'u2']);
    expect(state.snapshots[0]?.trackedFileBackups).toEqual({ 'late.txt': backup('1a7e', 1, 3) });
    expect(state.snapshotSequence).toBe(2);
    expect(state.trackedFiles).toEqual(new Set(['late.txt']));
  });

  it('applies deltas and updates in order', () => {
    const { state, warnings } = restore([
      json(snapshotRecord(snapshot('u1', 1, { 'a.txt': backup('a', 1) }), false)),
      json({ type: 'file-history-delta', messageId: 'x9', snapshotMessageId: 'u1', trackingPath: 'b.txt', backup: backup('b', 1, 5), timestamp: at(5) }),
      json({ type: 'file-history-delta', messageId: 'x9', snapshotMessageId: 'u1', trackingPath: `${ROOT}/c.txt`, backup: backup('c', 1, 6), timestamp: at(6) }),
      json(snapshotRecord(snapshot('u2', 7, { 'a.txt': backup('a', 1), 'b.txt': backup('b', 2, 7), 'c.txt': backup('c', 1, 6) }), false)),
      json({ type: 'file-history-delta', messageId: 'x10', snapshotMessageId: 'u2', trackingPath: 'd.txt', backup: { backupFileName: null, version: 1, backupTime: at(8) }, timestamp: at(8) }),
      json({ type: 'file-history-delta', messageId: 'x11', snapshotMessageId: 'nope', trackingPath: 'e.txt', backup: backup('e', 1, 9), timestamp: at(9) }),
    ]);
    expect(state.snapshots).toEqual([
      snapshot('u1', 1, { 'a.txt': backup('a', 1), 'b.txt': backup('b', 1, 5), 'c.txt': backup('c', 1, 6) }),
      snapshot('u2', 7, { 'a.txt': backup('a', 1), 'b.txt': backup('b', 2, 7), 'c.txt': backup('c', 1, 6), 'd.txt': { backupFileName: null, version: 1, backupTime: at(8) } }),
    ]);
    expect(state.trackedFiles).toEqual(new Set(['a.txt', 'b.txt', 'c.txt', 'd.txt']));
    expect(warnings).toEqual(['file-history-delta for nope: no snapshot with that messageId precedes it; skipped']);
  });

  it('migrates absolute keys inside the root to relative keys and drops keys outside it with a warning', () => {
    const { state, warnings } = restore([
      json(
        snapshotRecord(
          snapshot('u1', 1, {
            [`${ROOT}/src/a.ts`]: backup('a', 1),
            './docs//b.md': backup('b', 1),
            [`${ROOT}-other/c.ts`]: backup('c', 1),
            '/etc/passwd': backup('d', 1),
            '../sibling.txt': backup('e', 1),
            'src/../../escape.txt': backup('f', 1),
            [ROOT]: backup('9', 1),
          }),
          false,
        ),
      ),
    ]);
    expect(state.snapshots[0]?.trackedFileBackups).toEqual({ 'src/a.ts': backup('a', 1), 'docs/b.md': backup('b', 1) });
    expect(state.trackedFiles).toEqual(new Set(['src/a.ts', 'docs/b.md']));
    expect(warnings).toEqual([
      `file-history-snapshot u1: path "${ROOT}-other/c.ts" is outside the project root ${ROOT}; dropped`,
      'file-history-snapshot u1: path "/etc/passwd" is outside the project root /work/project; dropped',
      'file-history-snapshot u1: path "../sibling.txt" is outside the project root /work/project; dropped',
      'file-history-snapshot u1: path "src/../../escape.txt" is outside the project root /work/project; dropped',
      'file-history-snapshot u1: path "/work/project" names the project root itself; dropped',
    ]);
  });

  it('keeps the higher version when an absolute and a relative key name the same file', () => {
    const { state } = restore([json(snapshotRecord(snapshot('u1', 1, { 'a.txt': backup('a', 2), [`${ROOT}/a.txt`]: backup('a', 1) }), false))]);
    expect(state.snapshots[0]?.trackedFileBackups).toEqual({ 'a.txt': backup('a', 2) });
  });

  it('migrates Windows keys against a Windows root to / separated keys', () => {
    const { state, warnings } = restore(
      [json(snapshotRecord(snapshot('u1', 1, { 'C:\\proj\\src\\a.ts': backup('a', 1), 'docs\\b.md': backup('b', 1), 'D:\\x.ts': backup('c', 1) }), false))],
      'C:\\proj',
    );
    expect(Object.keys(state.snapshots[0]?.trackedFileBackups ?? {})).toEqual(['src/a.ts', 'docs/b.md']);
    expect(warnings).toEqual(['file-history-snapshot u1: path "D:\\\\x.ts" is outside the project root C:\\proj; dropped']);
  });

  it('keeps the newest 100 snapshots and counts every snapshot record in the sequence', () => {
    const records = Array.from({ length: 130 }, (_, index) => json(snapshotRecord(snapshot(`u${index}`, index, { [`f${index}.txt`]: backup(`${index}`, 1, index) }), false)));
    records.push(json(snapshotRecord(snapshot('u129', 129, { 'f129.txt': backup('129', 1, 129), 'g.txt': backup('9', 1, 200) }), true)));
    const { state } = restore(records);
    expect(state.snapshots).toHaveLength(100);
    expect(state.snapshots[0]?.messageId).toBe('u30');
    expect(state.snapshots[99]?.trackedFileBackups['g.txt']).toEqual(backup('9', 1, 200));
    expect(state.snapshotSequence).toBe(130);
    expect(state.trackedFiles.size).toBe(131);
    expect(state.trackedFiles.has('f0.txt')).toBe(true);
  });

  it('adds the fh-session sequence offset of a resumed session', () => {
    const { state } = restore([
      fhSessionRecord({ sessionId: 's2', projectRoot: ROOT, createdAt: T0, resumedFrom: 's1', snapshotSequenceOffset: 40 }),
      json(snapshotRecord(snapshot('u1', 1, {}), false)),
      json(snapshotRecord(snapshot('u2', 2, {}), false)),
    ]);
    expect(state.snapshotSequence).toBe(42);
  });

  it('counts at least one per snapshot even when only updates were recorded', () => {
    const { state } = restore([json(snapshotRecord(snapshot('u1', 1, {}), true)), json(snapshotRecord(snapshot('u2', 2, {}), true))]);
    expect(state.snapshotSequence).toBe(2);
  });

  it('skips malformed records with warnings and never drops later valid ones', () => {
    const good = snapshot('u2', 2, { 'a.txt': backup('a', 1) });
    const { state, warnings } = restore([
      { type: 'file-history-snapshot', messageId: 'u1', snapshot: 'garbage' },
      42,
      null,
      json(snapshotRecord(good, false)),
    ]);
    expect(state.snapshots).toEqual([good]);
    expect(warnings).toEqual(['file-history-snapshot record without a snapshot object skipped']);
  });

  it('returns copies that share nothing with the records given', () => {
    const original = snapshot('u1', 1, { 'a.txt': backup('a', 1) });
    const { state } = restore([snapshotRecord(original, false)]);
    state.snapshots[0]!.trackedFileBackups['a.txt']!.backupTime.setTime(0);
    expect(original.trackedFileBackups['a.txt']?.backupTime).toEqual(at(1));
  });

  it('rejects a relative project root', () => {
    expect(() => restoreStateFromLog([], { projectRoot: 'project' })).toThrow('projectRoot must be an absolute path, got "project"');
  });
});

describe('restoreStateFromLog entry sharing', () => {
  it('parses an entry repeated across records once and shares it, with the same result as separate entries', () => {
    const a1 = backup('a', 1);
    const records = [1, 2, 3].map((turn) => json(snapshotRecord(snapshot(`u${turn}`, turn, { 'a.txt': a1, 'b.txt': backup('b', turn) }), false)));
    const { state, warnings } = restore(records);
    expect(warnings).toEqual([]);
    expect(state.snapshots.map((entry) => entry.trackedFileBackups)).toEqual([1, 2, 3].map((turn) => ({ 'a.txt': a1, 'b.txt': backup('b', turn) })));
    const shared = state.snapshots.map((entry) => entry.trackedFileBackups['a.txt']);
    expect(shared[1]).toBe(shared[0]);
    expect(shared[2]).toBe(shared[0]);
    expect(state.snapshots[1]?.trackedFileBackups['b.txt']).not.toBe(state.snapshots[0]?.trackedFileBackups['b.txt']);
  });

  it('warns for a malformed entry every time it appears, and never lets it borrow a good entry of the same text', () => {
    const good = { backupFileName: '000000000000000a@v1', version: 1, backupTime: at(1).toISOString() };
    const bad = { ...good, version: '1' };
    const record = (messageId: string, entry: unknown) => ({ type: 'file-history-snapshot', messageId, snapshot: { messageId, timestamp: at(1).toISOString(), trackedFileBackups: { 'a.txt': entry } }, isSnapshotUpdate: false });
    const { state, warnings } = restore([record('u1', good), record('u2', bad), record('u3', bad)]);
    expect(state.snapshots.map((entry) => entry.trackedFileBackups['a.txt']?.backupFileName)).toEqual(['000000000000000a@v1', null, null]);
    expect(warnings).toEqual([
      'file-history-snapshot u2 "a.txt": version "1" is not a positive integer; marked unavailable',
      'file-history-snapshot u3 "a.txt": version "1" is not a positive integer; marked unavailable',
    ]);
  });
});

describe('latestSnapshotFromLog', () => {
  it('returns undefined for a log without snapshots and rejects a relative root', () => {
    expect(latestSnapshotFromLog([json(fhSessionRecord({ sessionId: 's', projectRoot: ROOT, createdAt: T0 })), { type: 'user' }], { projectRoot: ROOT })).toBeUndefined();
    expect(() => latestSnapshotFromLog([], { projectRoot: 'project' })).toThrow('projectRoot must be an absolute path, got "project"');
  });

  it('equals the newest snapshot restoreStateFromLog rebuilds, on 500 random logs of snapshots, updates, deltas and malformed records; so does latestSnapshotFromTail on a random suffix whenever it answers', () => {
    let settled = 0;
    for (let seed = 1; seed <= 500; seed += 1) {
      const next = random(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
      const records: unknown[] = [];
      const length = Math.floor(next() * 12);
      for (let index = 0; index < length; index += 1) {
        const messageId = pick(['u1', 'u2', 'u3']);
        const files: Record<string, FileHistoryBackup> = {};
        for (const file of ['a.txt', 'b.txt', `${ROOT}/c.txt`, '../out.txt']) {
          if (next() < 0.5) files[file] = backup(file.length.toString(16), 1 + Math.floor(next() * 3));
        }
        const kind = next();
        if (kind < 0.4) records.push(json(snapshotRecord(snapshot(messageId, index, files), false)));
        else if (kind < 0.7) records.push(json(snapshotRecord(snapshot(messageId, index, files), true)));
        else if (kind < 0.9) records.push(json(deltaRecord(messageId, pick(['a.txt', 'd.txt']), backup('d', 1 + index), at(index))));
        else records.push(pick([{ type: 'file-history-snapshot', messageId }, { type: 'file-history-delta', snapshotMessageId: messageId }, { type: 'user', uuid: messageId }]));
      }
      const expected = restoreStateFromLog(records, { projectRoot: ROOT }).snapshots.at(-1);
      expect({ seed, latest: latestSnapshotFromLog(records, { projectRoot: ROOT }) }).toEqual({ seed, latest: expected });
      const cut = Math.floor(next() * (records.length + 1));
      const fromTail = latestSnapshotFromTail(records.slice(cut), { projectRoot: ROOT });
      if (fromTail !== undefined) {
        settled += 1;
        expect({ seed, cut, latest: fromTail }).toEqual({ seed, cut, latest: expected });
      }
    }
    expect(settled).toBeGreaterThan(100);
  });
});

describe('latestSnapshotFromTail', () => {
  const first = snapshot('u1', 1, { 'a.txt': backup('a', 1) });
  const second = snapshot('u2', 2, { 'a.txt': backup('a', 1), 'b.txt': backup('b', 1) });
  it('answers from the newest non-update record and its later updates and deltas', () => {
    const tail = [json(snapshotRecord(second, false)), json(deltaRecord('u2', 'c.txt', backup('c', 1), at(3)))];
    expect(latestSnapshotFromTail(tail, { projectRoot: ROOT })?.trackedFileBackups).toEqual({ ...second.trackedFileBackups, 'c.txt': backup('c', 1) });
  });

  it('gives no answer without a non-update record, or when a later update is for another message', () => {
    expect(latestSnapshotFromTail([json(snapshotRecord(second, true))], { projectRoot: ROOT })).toBeUndefined();
    expect(latestSnapshotFromTail([json(snapshotRecord(second, false)), json(snapshotRecord(first, true))], { projectRoot: ROOT })).toBeUndefined();
    expect(latestSnapshotFromTail([], { projectRoot: ROOT })).toBeUndefined();
  });
});

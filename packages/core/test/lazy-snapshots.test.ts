import { describe, expect, it } from 'vitest';
import { random } from './random.js';
import { attachSnapshotRecord, diffSnapshotRecord, deltaRecord, fhSessionRecord, fullSnapshotRecord, parseJsonl, rebuildStateFromLog, restoreStateFromLog, snapshotRecord, type FileHistoryBackup, type FileHistoryState, type SessionLog } from '../src/index.js';

const ROOT = '/work/project';
const T0 = new Date('2026-01-01T00:00:00.000Z');

function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

function backup(hash: string, version: number): FileHistoryBackup {
  return { backupFileName: `${hash.padStart(16, '0')}@v${version}`, version, backupTime: at(version) };
}

/** A map holding `pairs` as own properties, in order (a `__proto__` key included). */
function own(pairs: [string, FileHistoryBackup][]): Record<string, FileHistoryBackup> {
  const map: Record<string, FileHistoryBackup> = {};
  for (const [key, value] of pairs) Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
  return map;
}

function textLog(text: string): SessionLog {
  return {
    append: async () => undefined,
    read: async () => parseJsonl(text),
    readStream: async function* () {
      yield Buffer.from(text, 'utf8');
    },
  };
}

describe('a file named __proto__ at the project root', () => {
  it('is an entry of every snapshot that holds it (full, diff, delta, Claude Code record, removal), never a prototype', async () => {
    const records = [
      fhSessionRecord({ sessionId: 's', projectRoot: ROOT, createdAt: T0 }),
      fullSnapshotRecord({ messageId: 'u1', timestamp: at(1), trackedFileBackups: own([['a.txt', backup('a', 1)], ['__proto__', backup('p', 2)]]) }, 1),
      diffSnapshotRecord('u2', at(2), 2, 1, own([['__proto__', backup('p', 3)]])),
      deltaRecord('u2', '__proto__', backup('p', 4), at(2)),
      diffSnapshotRecord('u3', at(3), 3, 2, own([['b.txt', backup('b', 5)]]), ['__proto__']),
      diffSnapshotRecord('u4', at(4), 4, 3, own([['__proto__', backup('p', 6)]])),
      snapshotRecord({ messageId: 'u5', timestamp: at(5), trackedFileBackups: own([['__proto__', backup('p', 7)], ['c.txt', backup('c', 8)]]) }, false),
      deltaRecord('u5', '__proto__', backup('p', 9), at(5)),
      snapshotRecord({ messageId: `${ROOT}/x`, timestamp: at(6), trackedFileBackups: own([[`${ROOT}/__proto__`, backup('p', 10)]]) }, false),
    ];
    const text = `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
    const expected = [
      ['u1', [['a.txt', 1], ['__proto__', 2]]],
      ['u2', [['a.txt', 1], ['__proto__', 4]]],
      ['u3', [['a.txt', 1], ['b.txt', 5]]],
      ['u4', [['a.txt', 1], ['b.txt', 5], ['__proto__', 6]]],
      ['u5', [['__proto__', 9], ['c.txt', 8]]],
      [`${ROOT}/x`, [['__proto__', 10]]],
    ];
    const check = (state: FileHistoryState) => {
      for (const snapshot of state.snapshots) expect(Object.getPrototypeOf(snapshot.trackedFileBackups)).toBe(Object.prototype);
      expect(state.snapshots.map((snapshot) => [snapshot.messageId, Object.entries(snapshot.trackedFileBackups).map(([key, entry]) => [key, entry.version])])).toEqual(expected);
      expect(state.trackedFiles.has('__proto__')).toBe(true);
    };
    check(restoreStateFromLog(parseJsonl(text).records, { projectRoot: ROOT }));
    check((await rebuildStateFromLog(textLog(text), { projectRoot: ROOT })).state);
    // Read newest first too (each chained map built from the nearest one built).
    const state = (await rebuildStateFromLog(textLog(text), { projectRoot: ROOT })).state;
    for (let index = state.snapshots.length - 1; index >= 0; index -= 1) void state.snapshots[index]?.trackedFileBackups;
    check(state);
  });
});

/** One snapshot of the eager model: its whole map (copied at every snapshot, as an eager rebuild does). */
interface ModelSnapshot {
  messageId: string;
  map: Record<string, FileHistoryBackup>;
  /** Paths its own record or attachments set or removed; null for a full record (every entry parsed anew). */
  changed: Set<string> | null;
}

function copyOwn(map: Record<string, FileHistoryBackup>): Record<string, FileHistoryBackup> {
  return own(Object.keys(map).map((key) => [key, map[key] as FileHistoryBackup]));
}

/** A random fh-form log (full records every few turns, diffs, removals, attachments, deltas) and the eager model of its snapshots. */
function randomLog(next: () => number, turns: number): { text: string; model: ModelSnapshot[] } {
  const files = ['a.txt', 'b.txt', 'c/d.txt', '__proto__', 'e.txt', '10'];
  const lines = [JSON.stringify(fhSessionRecord({ sessionId: 's', projectRoot: ROOT, createdAt: T0 }))];
  const model: ModelSnapshot[] = [];
  let current: Record<string, FileHistoryBackup> = {};
  let version = 1;
  const fullEvery = 1 + Math.floor(next() * 12);
  for (let sequence = 1; sequence <= turns; sequence += 1) {
    const messageId = `u${sequence}`;
    const changes: [string, FileHistoryBackup][] = [];
    for (const file of files) if (next() < 0.3) changes.push([file, backup(file.length.toString(16), (version += 1))]);
    const removed = files.filter((file) => Object.hasOwn(current, file) && !changes.some(([key]) => key === file) && next() < 0.1);
    current = copyOwn(current);
    for (const [key, entry] of changes) Object.defineProperty(current, key, { value: entry, enumerable: true, writable: true, configurable: true });
    for (const key of removed) delete current[key];
    const full = sequence === 1 || sequence % fullEvery === 0;
    if (full) lines.push(JSON.stringify(fullSnapshotRecord({ messageId, timestamp: at(sequence), trackedFileBackups: current }, sequence)));
    else lines.push(JSON.stringify(diffSnapshotRecord(messageId, at(sequence), sequence, sequence - 1, own(changes), removed)));
    const snapshot: ModelSnapshot = { messageId, map: current, changed: full ? null : new Set([...changes.map(([key]) => key), ...removed]) };
    model.push(snapshot);
    if (next() < 0.3) {
      const path = next() < 0.5 ? `new-${sequence}.txt` : (files[Math.floor(next() * files.length)] as string);
      const entry = backup('f', (version += 1));
      Object.defineProperty(current, path, { value: entry, enumerable: true, writable: true, configurable: true });
      snapshot.changed?.add(path);
      lines.push(JSON.stringify(next() < 0.5 ? attachSnapshotRecord(messageId, sequence, own([[path, entry]])) : deltaRecord(messageId, path, entry, at(sequence))));
    }
  }
  return { text: `${lines.join('\n')}\n`, model };
}

/** The orders a reader may walk the snapshots in: oldest first, newest first, and a random one. */
function orders(next: () => number, count: number): number[][] {
  const forward = Array.from({ length: count }, (_, index) => index);
  const shuffled = [...forward];
  for (let index = shuffled.length - 1; index > 0; index -= 1) {
    const other = Math.floor(next() * (index + 1));
    [shuffled[index], shuffled[other]] = [shuffled[other] as number, shuffled[index] as number];
  }
  return [forward, [...forward].reverse(), shuffled];
}

describe('chained snapshots of a rebuild', () => {
  it('equal the eager rebuild exactly (keys in order, entries, unchanged entries shared) in any order they are read, on 100 random logs', async () => {
    for (let seed = 1; seed <= 100; seed += 1) {
      const next = random(seed);
      const { text, model } = randomLog(next, 1 + Math.floor(next() * 40));
      const maxSnapshots = [1, 3, 7, 100][Math.floor(next() * 4)] as number;
      const kept = model.slice(-maxSnapshots);
      for (const order of orders(next, kept.length)) {
        for (const state of [restoreStateFromLog(parseJsonl(text).records, { projectRoot: ROOT, maxSnapshots }), (await rebuildStateFromLog(textLog(text), { projectRoot: ROOT, maxSnapshots })).state]) {
          expect({ seed, messageIds: state.snapshots.map((snapshot) => snapshot.messageId) }).toEqual({ seed, messageIds: kept.map((snapshot) => snapshot.messageId) });
          for (const index of order) {
            const map = (state.snapshots[index] as FileHistoryState['snapshots'][number]).trackedFileBackups;
            const expected = (kept[index] as ModelSnapshot).map;
            expect({ seed, index, keys: Object.keys(map) }).toEqual({ seed, index, keys: Object.keys(expected) });
            expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
            expect({ seed, index, map }).toEqual({ seed, index, map: expected });
          }
          // An entry a diff did not change is the previous snapshot's object (one object across snapshots).
          for (let index = 1; index < kept.length; index += 1) {
            const changed = (kept[index] as ModelSnapshot).changed;
            if (changed === null) continue;
            const map = (state.snapshots[index] as FileHistoryState['snapshots'][number]).trackedFileBackups;
            const before = (state.snapshots[index - 1] as FileHistoryState['snapshots'][number]).trackedFileBackups;
            for (const key of Object.keys(map)) if (!changed.has(key)) expect(map[key]).toBe(before[key]);
          }
        }
      }
    }
  });
});

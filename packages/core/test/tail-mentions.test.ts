import { describe, expect, it } from 'vitest';
import { deltaRecord, snapshotRecord } from '../src/state/records.js';
import { latestSnapshotFromTail } from '../src/state/restore-state.js';
import { attachSnapshotRecord, diffSnapshotRecord, fullSnapshotRecord } from '../src/state/snapshot-records.js';
import { newestSnapshotTracking } from '../src/state/newest-records.js';
import { tailMayTrack } from '../src/state/tail-mentions.js';
import type { LogRecord } from '../src/store.js';
import type { FileHistoryBackup, FileHistorySnapshot } from '../src/types.js';
import { random } from './random.js';

const ROOT = '/work/project';
const T0 = new Date('2026-01-01T00:00:00.000Z');

function backup(name: string, version: number): FileHistoryBackup {
  return { backupFileName: `${name.length.toString(16).padStart(16, '0')}@v${version}`, version, backupTime: new Date(T0.getTime() + version * 1000) };
}

function snapshot(messageId: string, backups: Record<string, FileHistoryBackup>): FileHistorySnapshot {
  return { messageId, timestamp: T0, trackedFileBackups: backups };
}

/** As a session log holds it: JSON, dates as ISO strings. */
function json<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value));
}

describe('tailMayTrack', () => {
  const tracked: Record<string, FileHistoryBackup> = {};
  for (let index = 0; index < 1000; index += 1) tracked[`src/file-${index}.ts`] = backup(`src/file-${index}.ts`, 1);
  const tail = [
    json(fullSnapshotRecord(snapshot('u1', tracked), 7)),
    json(diffSnapshotRecord('u2', T0, 8, 7, { 'src/file-3.ts': backup('src/file-3.ts', 2) }, ['src/file-9.ts'])),
    json(attachSnapshotRecord('u2', 8, { 'late/a.ts': backup('late/a.ts', 1), 'late/b.ts': backup('late/b.ts', 1) })),
    json(deltaRecord('u2', 'late/c.ts', backup('late/c.ts', 1), T0)),
  ];

  it('is false for a file no record from the anchor names, true for every file the newest snapshot tracks', () => {
    const latest = latestSnapshotFromTail(tail, { projectRoot: ROOT });
    expect(Object.keys(latest?.trackedFileBackups ?? {})).toHaveLength(1002);
    for (const key of Object.keys(latest?.trackedFileBackups ?? {})) expect(tailMayTrack(tail, ROOT, key)).toBe(true);
    expect(tailMayTrack(tail, ROOT, 'src/new.ts')).toBe(false);
    expect(tailMayTrack(tail, ROOT, 'late')).toBe(false);
    // Recorded under its absolute path or with './' (Claude Code's keys): named too.
    expect(tailMayTrack([...tail, json(deltaRecord('u2', `${ROOT}/late/d.ts`, backup('late/d.ts', 1), T0)), json(deltaRecord('u2', './late/e.ts', backup('late/e.ts', 1), T0))], ROOT, 'late/d.ts')).toBe(true);
    expect(tailMayTrack([...tail, json(deltaRecord('u2', './late/e.ts', backup('late/e.ts', 1), T0))], ROOT, 'late/e.ts')).toBe(true);
    // A file a later diff removed is still named: only the full rebuild tells.
    expect(tailMayTrack(tail, ROOT, 'src/file-9.ts')).toBe(true);
    expect(latest?.trackedFileBackups['src/file-9.ts']).toBeUndefined();
  });

  it('does not answer when the tail does not settle the newest snapshot, and is true for a record of another shape', () => {
    expect(tailMayTrack(tail.slice(1), ROOT, 'src/new.ts')).toBeUndefined();
    expect(tailMayTrack([tail[0], { type: 'fh-snapshot', kind: 'attach', sequence: 7, messageId: 'u1', entries: 'bad' }], ROOT, 'src/new.ts')).toBe(true);
    expect(tailMayTrack([tail[0], { type: 'file-history-snapshot', messageId: 'u1', isSnapshotUpdate: true }], ROOT, 'src/new.ts')).toBe(true);
  });

  it('is never false for a file latestSnapshotFromTail tracks, on 500 random tails of every record kind', () => {
    let answeredFalse = 0;
    const keys = ['a.txt', 'b.txt', `${ROOT}/c.txt`, './d.txt', 'e.txt'];
    for (let seed = 1; seed <= 500; seed += 1) {
      const next = random(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
      const files = (): Record<string, FileHistoryBackup> => Object.fromEntries(keys.filter(() => next() < 0.4).map((key) => [key, backup(key, 1 + Math.floor(next() * 3))]));
      const records: unknown[] = [];
      let sequence = 1;
      const length = 1 + Math.floor(next() * 8);
      for (let index = 0; index < length; index += 1) {
        const messageId = pick(['u1', 'u2', 'u3']);
        const kind = next();
        if (kind < 0.2) records.push(json(fullSnapshotRecord(snapshot(messageId, files()), (sequence += 1))));
        else if (kind < 0.35) records.push(json(diffSnapshotRecord(messageId, T0, (sequence += 1), sequence - 1, files(), keys.filter(() => next() < 0.2))));
        else if (kind < 0.5) records.push(json(attachSnapshotRecord(messageId, sequence, files())));
        else if (kind < 0.65) records.push(json(snapshotRecord(snapshot(messageId, files()), next() < 0.5)));
        else if (kind < 0.85) records.push(json(deltaRecord(messageId, pick(keys), backup('d', 1 + index), T0)));
        else records.push(pick([{ type: 'file-history-snapshot', messageId }, { type: 'file-history-delta', snapshotMessageId: messageId }, { type: 'user', uuid: messageId }]));
      }
      const latest = latestSnapshotFromTail(records, { projectRoot: ROOT });
      for (const key of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt']) {
        const answer = tailMayTrack(records, ROOT, key);
        if (latest === undefined) {
          expect({ seed, key, answer }).toEqual({ seed, key, answer: undefined });
          continue;
        }
        if (latest.trackedFileBackups[key] !== undefined) expect({ seed, key, answer }).toEqual({ seed, key, answer: true });
        if (answer === false) answeredFalse += 1;
      }
    }
    expect(answeredFalse).toBeGreaterThan(200);
  });
});

describe('newestSnapshotTracking', () => {
  it('names the newest snapshot latestSnapshotFromTail rebuilds, and never a file it tracks as untracked, whenever it answers, on 500 random tails', () => {
    let answered = 0;
    let untracked = 0;
    const keys = ['a.txt', 'b.txt', 'c.txt', 'dir/d.txt'];
    for (let seed = 1; seed <= 500; seed += 1) {
      const next = random(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
      const files = (): Record<string, FileHistoryBackup> => Object.fromEntries(keys.filter(() => next() < 0.4).map((key) => [next() < 0.05 ? `./${key}` : key, backup(key, 1 + Math.floor(next() * 3))]));
      let sequence = 1 + Math.floor(next() * 5);
      let messageId = `u${sequence}`;
      const records: unknown[] = [json(fullSnapshotRecord(snapshot(messageId, files()), sequence))];
      const length = Math.floor(next() * 8);
      for (let index = 0; index < length; index += 1) {
        const kind = next();
        // Mostly what fh writes, now and then a record a rebuild skips or reads otherwise.
        if (kind < 0.3) {
          const base = next() < 0.9 ? sequence : sequence + 1;
          messageId = `u${(sequence += 1)}`;
          records.push(json(diffSnapshotRecord(messageId, T0, sequence, base, files(), keys.filter(() => next() < 0.2))));
        } else if (kind < 0.45) records.push(json(attachSnapshotRecord(next() < 0.9 ? messageId : 'other', sequence, files())));
        else if (kind < 0.7) records.push(json(deltaRecord(next() < 0.9 ? messageId : 'u1', pick([...keys, './a.txt', `${ROOT}/b.txt`]), backup('d', 1 + index), T0)));
        else if (kind < 0.8) records.push({ type: 'user', uuid: `p${index}` });
        else if (kind < 0.85) records.push(json(snapshotRecord(snapshot(messageId, files()), next() < 0.5)));
        else if (kind < 0.9) records.push(json(fullSnapshotRecord(snapshot((messageId = `u${(sequence += 1)}`), files()), sequence)));
        else records.push(pick([{ type: 'fh-snapshot', version: 2, kind: 'diff', sequence: sequence + 1, base: sequence, messageId: 'bad', entries: [] }, { type: 'fh-snapshot', version: 3, kind: 'full', sequence: 1, messageId: 'new', entries: {} }]));
      }
      const latest = latestSnapshotFromTail(records, { projectRoot: ROOT });
      for (const key of keys) {
        const answer = newestSnapshotTracking(records as LogRecord[], key);
        if (answer === undefined) continue;
        answered += 1;
        if (!answer.tracks) untracked += 1;
        // Never "not tracked" for a file the rebuild tracks ("tracked" only sends the caller the long way).
        const tracks = latest?.trackedFileBackups[key] !== undefined;
        expect({ seed, key, answer }).toEqual({ seed, key, answer: { messageId: latest?.messageId, tracks: tracks || answer.tracks } });
      }
    }
    expect(answered).toBeGreaterThan(400);
    expect(untracked).toBeGreaterThan(200);
  });
});

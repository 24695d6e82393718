import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  InvalidArgumentError,
  NotFoundError,
  PermissionError,
  ResumeBackupsMissingError,
  copyFileHistoryForResume,
  restoreStateFromLog,
  snapshotRecord,
  userMessageRecord,
  type FileHistoryBackup,
  type FileHistorySnapshot,
  type LogRecord,
} from '../src/index.js';
import { createRecordStore, seedBackups } from './support/record-store.js';

const ROOT = '/p';
const T0 = new Date('2026-01-01T00:00:00.000Z');
const NOW = new Date('2026-06-01T00:00:00.000Z');
const A1 = 'aaaaaaaaaaaaaaaa@v1';
const A2 = 'aaaaaaaaaaaaaaaa@v2';
const B1 = 'bbbbbbbbbbbbbbbb@v1';

function backup(name: string | null, version: number): FileHistoryBackup {
  return { backupFileName: name, version, backupTime: T0 };
}

function snapshot(messageId: string, backups: Record<string, FileHistoryBackup>): FileHistorySnapshot {
  return { messageId, timestamp: T0, trackedFileBackups: backups };
}

const SNAPSHOTS = [
  snapshot('u1', { 'a.txt': backup(A1, 1), 'new.txt': backup(null, 1) }),
  snapshot('u2', { 'a.txt': backup(A2, 2), 'new.txt': backup(null, 1), 'b.txt': backup(B1, 1) }),
];

function seedSession(store: ReturnType<typeof createRecordStore>) {
  const prompt = userMessageRecord({ uuid: 'u1', parentUuid: null, sessionId: 'old', text: 'first', timestamp: T0 });
  store.logs.set('old', JSON.parse(JSON.stringify([prompt, snapshotRecord(SNAPSHOTS[0]!, false), snapshotRecord(SNAPSHOTS[1]!, false)])) as LogRecord[]);
  seedBackups(store, 'old', [A1, A2, B1]);
  return prompt;
}

describe('copyFileHistoryForResume', () => {
  it('carries every referenced backup once and records the state in the new session', async () => {
    const store = createRecordStore();
    const prompt = seedSession(store);
    const result = await copyFileHistoryForResume({ store, fromSessionId: 'old', toSessionId: 'new', projectRoot: ROOT, now: NOW });
    expect(result).toMatchObject({ linked: [A1, A2, B1], copied: [], existed: [], missing: [], recordsWritten: 4 });
    expect(result.state.snapshots).toEqual(SNAPSHOTS);
    expect(store.backups.get('new')?.get(A2)).toBe(store.backups.get('old')?.get(A2));
    const log = store.logs.get('new') ?? [];
    expect(log.slice(0, 2)).toEqual([
      prompt,
      { type: 'fh-session', sessionId: 'new', projectRoot: ROOT, createdAt: NOW.toISOString(), resumedFrom: 'old', snapshotSequenceOffset: 0 },
    ]);
    expect(restoreStateFromLog(log, { projectRoot: ROOT })).toEqual(result.state);
    expect(store.logs.get('old')).toHaveLength(3);
  });

  it('skips backups the new session already has', async () => {
    const store = createRecordStore();
    seedSession(store);
    seedBackups(store, 'new', [A1]);
    const result = await copyFileHistoryForResume({ store, fromSessionId: 'old', toSessionId: 'new', projectRoot: ROOT, carryRecords: 'none' });
    expect(result).toMatchObject({ linked: [A2, B1], existed: [A1], recordsWritten: 3 });
  });

  it('carries a given state and keeps the sequence through the fh-session offset', async () => {
    const store = createRecordStore();
    seedBackups(store, 'old', [A1, A2, B1]);
    const state = { snapshots: SNAPSHOTS, trackedFiles: new Set(['a.txt', 'b.txt', 'new.txt']), snapshotSequence: 130 };
    const result = await copyFileHistoryForResume({ store, fromSessionId: 'old', toSessionId: 'new', projectRoot: ROOT, state, carryRecords: 'none' });
    expect(result.state.snapshotSequence).toBe(130);
    expect(store.logs.get('new')?.[0]).toMatchObject({ type: 'fh-session', snapshotSequenceOffset: 128 });
    expect(restoreStateFromLog(store.logs.get('new') ?? [], { projectRoot: ROOT }).snapshotSequence).toBe(130);
  });

  it('carries everything else, marks entries of every missing backup, records them, then throws listing all', async () => {
    const store = createRecordStore();
    seedSession(store);
    store.backups.get('old')?.delete(A1);
    store.backups.get('old')?.delete(B1);
    const error = await copyFileHistoryForResume({ store, fromSessionId: 'old', toSessionId: 'new', projectRoot: ROOT }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResumeBackupsMissingError);
    expect(error).toBeInstanceOf(NotFoundError);
    const missing = error as ResumeBackupsMissingError;
    expect(missing.message).toBe(
      `2 backups missing from session old; the snapshot entries that need them are marked unavailable in session new: ${A1} (a.txt); ${B1} (b.txt)`,
    );
    expect(missing.missing).toEqual([
      { backupFileName: A1, references: [{ messageId: 'u1', path: 'a.txt' }] },
      { backupFileName: B1, references: [{ messageId: 'u2', path: 'b.txt' }] },
    ]);
    expect(missing.result.linked).toEqual([A2]);
    const expected = [
      snapshot('u1', { 'a.txt': { ...backup(A1, 1), error: `backup ${A1} missing from session old` }, 'new.txt': backup(null, 1) }),
      snapshot('u2', { 'a.txt': backup(A2, 2), 'new.txt': backup(null, 1), 'b.txt': { ...backup(B1, 1), error: `backup ${B1} missing from session old` } }),
    ];
    expect(missing.result.state.snapshots).toEqual(expected);
    expect(restoreStateFromLog(store.logs.get('new') ?? [], { projectRoot: ROOT }).snapshots).toEqual(expected);
  });

  it('returns the marked state without throwing when throwOnMissing is false', async () => {
    const store = createRecordStore();
    seedSession(store);
    store.backups.get('old')?.delete(A2);
    const result = await copyFileHistoryForResume({ store, fromSessionId: 'old', toSessionId: 'new', projectRoot: ROOT, throwOnMissing: false });
    expect(result.missing).toEqual([{ backupFileName: A2, references: [{ messageId: 'u2', path: 'a.txt' }] }]);
    expect(result.state.snapshots[1]?.trackedFileBackups['a.txt']?.error).toBe(`backup ${A2} missing from session old`);
  });

  it('records nothing when a carry fails for another reason', async () => {
    const store = createRecordStore();
    seedSession(store);
    store.carryFaults.set(B1, new PermissionError('carryBackup: EACCES'));
    await expect(copyFileHistoryForResume({ store, fromSessionId: 'old', toSessionId: 'new', projectRoot: ROOT })).rejects.toThrow(PermissionError);
    expect(store.logs.get('new')).toBeUndefined();
  });

  it('refuses a target that already has file history, and resuming into itself', async () => {
    const store = createRecordStore();
    seedSession(store);
    await copyFileHistoryForResume({ store, fromSessionId: 'old', toSessionId: 'new', projectRoot: ROOT });
    await expect(copyFileHistoryForResume({ store, fromSessionId: 'old', toSessionId: 'new', projectRoot: ROOT })).rejects.toThrow(
      new ConflictError('session new already has file history; resume into a new session id'),
    );
    await expect(copyFileHistoryForResume({ store, fromSessionId: 'old', toSessionId: 'old', projectRoot: ROOT })).rejects.toThrow(
      new InvalidArgumentError('cannot resume session old into itself; give a new session id'),
    );
  });
});

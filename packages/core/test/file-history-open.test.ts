import { describe, expect, it } from 'vitest';
import {
  FileHistory,
  InvalidArgumentError,
  LockedError,
  UnavailableError,
  fhSessionRecord,
  snapshotRecord,
  type LogRecord,
  type SessionLog,
} from '../src/index.js';
import { createRecordStore, seedBackups } from './support/record-store.js';

const ROOT = '/project';
const T0 = new Date('2026-01-01T00:00:00.000Z');
const NAME = '00000000000000aa@v1';

function snapshotRecords(): LogRecord[] {
  return JSON.parse(
    JSON.stringify([
      snapshotRecord({ messageId: 'm1', timestamp: T0, trackedFileBackups: { 'a.txt': { backupFileName: NAME, version: 1, backupTime: T0 } } }, false),
      snapshotRecord({ messageId: 'm2', timestamp: T0, trackedFileBackups: { 'a.txt': { backupFileName: NAME, version: 1, backupTime: T0 } } }, false),
    ]),
  ) as LogRecord[];
}

describe('FileHistory.open and the session log', () => {
  it('rebuilds the state from the log, records the project once, and holds the lock until close', async () => {
    const store = createRecordStore();
    store.logs.set('s1', snapshotRecords());
    const history = await FileHistory.open({ projectRoot: ROOT, sessionId: 's1', store, env: {} });
    expect(history.state.snapshots.map((snapshot) => snapshot.messageId)).toEqual(['m1', 'm2']);
    expect(history.state.trackedFiles).toEqual(new Set(['a.txt']));
    expect(history.state.snapshotSequence).toBe(2);
    expect(store.locks).toEqual(new Set(['s1']));
    await expect(FileHistory.open({ projectRoot: ROOT, sessionId: 's1', store, env: {} })).rejects.toThrow(LockedError);
    await history.close();
    expect(store.locks).toEqual(new Set());

    await (await FileHistory.open({ projectRoot: ROOT, sessionId: 's1', store, env: {} })).close();
    const sessions = (store.logs.get('s1') ?? []).filter((record) => record.type === 'fh-session');
    expect(sessions).toEqual([{ type: 'fh-session', sessionId: 's1', projectRoot: ROOT, createdAt: expect.any(String) }]);
  });

  it('warns about skipped log lines, dropped keys and a different project root, and keeps going', async () => {
    const store = createRecordStore();
    const records = [
      fhSessionRecord({ sessionId: 's1', projectRoot: '/elsewhere', createdAt: T0 }),
      ...snapshotRecords(),
      JSON.parse(JSON.stringify(snapshotRecord({ messageId: 'm3', timestamp: T0, trackedFileBackups: { '/etc/passwd': { backupFileName: NAME, version: 1, backupTime: T0 } } }, false))),
    ];
    const log: SessionLog = {
      read: async () => ({ records, skipped: [{ line: 5, reason: 'torn last line' }] }),
      append: async () => {
        throw new Error('the fh-session record exists; nothing is appended on open');
      },
    };
    const warnings: string[] = [];
    const history = await FileHistory.open({ projectRoot: ROOT, sessionId: 's1', store, log, env: {}, onWarning: (message) => warnings.push(message) });
    await history.close();
    expect(history.state.snapshots.map((snapshot) => snapshot.messageId)).toEqual(['m1', 'm2', 'm3']);
    expect(warnings).toEqual([
      'session s1: log line 5 skipped (torn last line)',
      'session s1 was recorded for project /elsewhere and is opened for /project',
      'file-history-snapshot m3: path "/etc/passwd" is outside the project root /project; dropped',
    ]);
  });

  it('uses initialState instead of the log when given, and takes no lock with lock: false', async () => {
    const store = createRecordStore();
    store.logs.set('s1', snapshotRecords());
    const initialState = { snapshots: [], trackedFiles: new Set<string>(), snapshotSequence: 7 };
    const history = await FileHistory.open({ projectRoot: ROOT, sessionId: 's1', store, env: {}, initialState, lock: false });
    expect(history.state).toEqual(initialState);
    expect(store.locks).toEqual(new Set());
    await history.close();
  });

  it('releases the lock when reading the log fails', async () => {
    const store = createRecordStore();
    const log: SessionLog = {
      read: async () => {
        throw new UnavailableError('injected: the log cannot be read');
      },
      append: async () => undefined,
    };
    await expect(FileHistory.open({ projectRoot: ROOT, sessionId: 's1', store, log, env: {} })).rejects.toThrow('injected: the log cannot be read');
    expect(store.locks).toEqual(new Set());
  });

  it('does no I/O when tracking is off', async () => {
    const store = createRecordStore();
    store.logs.set('s1', snapshotRecords());
    const history = await FileHistory.open({ projectRoot: ROOT, sessionId: 's1', store, env: { FH_DISABLE_FILE_CHECKPOINTING: '1' } });
    expect(history.state.snapshots).toEqual([]);
    expect(store.locks).toEqual(new Set());
    expect(store.logs.get('s1')).toHaveLength(2);
    await history.close();
  });
});

describe('FileHistory.resume', () => {
  it('carries the old session into the new one and opens it, holding only the new session lock', async () => {
    const store = createRecordStore();
    store.logs.set('old', snapshotRecords());
    seedBackups(store, 'old', [NAME]);
    const history = await FileHistory.resume({ projectRoot: ROOT, sessionId: 'new', fromSessionId: 'old', store, env: {} });
    expect(history.sessionId).toBe('new');
    expect(history.resumeResult).toMatchObject({ linked: [NAME], missing: [] });
    expect(history.state.snapshots.map((snapshot) => snapshot.messageId)).toEqual(['m1', 'm2']);
    expect(store.locks).toEqual(new Set(['new']));
    await history.close();
    expect(store.locks).toEqual(new Set());
  });

  it('refuses a log option and equal ids, releasing the lock', async () => {
    const store = createRecordStore();
    const log: SessionLog = { read: async () => ({ records: [], skipped: [] }), append: async () => undefined };
    await expect(FileHistory.resume({ projectRoot: ROOT, sessionId: 'new', fromSessionId: 'old', store, log, env: {} })).rejects.toThrow(
      new InvalidArgumentError('log cannot be given to FileHistory.resume: the resumed session is recorded in store.sessionLog(sessionId)'),
    );
    await expect(FileHistory.resume({ projectRoot: ROOT, sessionId: 'same', fromSessionId: 'same', store, env: {} })).rejects.toThrow(
      new InvalidArgumentError('cannot resume session same into itself; give a new session id'),
    );
    expect(store.locks).toEqual(new Set());
  });

  it('refuses to resume into a session open elsewhere', async () => {
    const store = createRecordStore();
    store.locks.add('new');
    await expect(FileHistory.resume({ projectRoot: ROOT, sessionId: 'new', fromSessionId: 'old', store, env: {} })).rejects.toThrow(LockedError);
    expect(store.logs.get('new')).toBeUndefined();
  });

  it('carries nothing when tracking is off', async () => {
    const store = createRecordStore();
    store.logs.set('old', snapshotRecords());
    seedBackups(store, 'old', [NAME]);
    const history = await FileHistory.resume({ projectRoot: ROOT, sessionId: 'new', fromSessionId: 'old', store, enabled: false });
    expect(history.enabled).toBe(false);
    expect(history.resumeResult).toBeUndefined();
    expect(store.backups.get('new')).toBeUndefined();
    await history.close();
  });
});

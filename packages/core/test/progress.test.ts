/**
 * The `onProgress(done, total)` callbacks of the long calls (for the CLI's progress bars): resume
 * and fork count backups carried, cleanup counts sessions examined. Each reports `(0, total)`
 * first, then once per unit, ending at `(total, total)`.
 */
import { describe, expect, it } from 'vitest';
import {
  FileHistory,
  NotFoundError,
  PermissionError,
  RewindSession,
  cleanup,
  copyFileHistoryForResume,
  forkSession,
  snapshotRecord,
  userMessageRecord,
  type FileHistoryBackup,
  type LogRecord,
} from '../src/index.js';
import { createRecordStore, seedBackups, type RecordStore } from './support/record-store.js';

const ROOT = '/project';
const T0 = new Date('2026-01-01T00:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;

function name(file: number, version: number): string {
  return `${file.toString(16).padStart(16, '0')}@v${version}`;
}

function entry(file: number, version: number): FileHistoryBackup {
  return { backupFileName: name(file, version), version, backupTime: T0 };
}

/**
 * Session `old`: prompts u1..u3, each followed by its snapshot; snapshot uN holds files 0..4 at
 * version N, plus a file that did not exist (null, nothing to carry). 15 backups in all.
 */
function seedThreeTurns(store: RecordStore): void {
  const records: unknown[] = [];
  const names: string[] = [];
  for (let turn = 1; turn <= 3; turn += 1) {
    records.push(userMessageRecord({ uuid: `u${turn}`, parentUuid: turn === 1 ? null : `u${turn - 1}`, sessionId: 'old', text: `prompt ${turn}`, timestamp: T0 }));
    const trackedFileBackups: Record<string, FileHistoryBackup> = { 'gone.txt': { backupFileName: null, version: 1, backupTime: T0 } };
    for (let file = 0; file < 5; file += 1) {
      trackedFileBackups[`f${file}.txt`] = entry(file, turn);
      names.push(name(file, turn));
    }
    records.push(snapshotRecord({ messageId: `u${turn}`, timestamp: T0, trackedFileBackups }, false));
  }
  store.logs.set('old', JSON.parse(JSON.stringify(records)) as LogRecord[]);
  seedBackups(store, 'old', names);
}

/** A recorder for onProgress calls. */
function recorder() {
  const calls: Array<[number, number]> = [];
  return { calls, onProgress: (done: number, total: number) => void calls.push([done, total]) };
}

/** `(0, total)`, then one call per unit in order, up to `(total, total)`. */
function expectSequence(calls: ReadonlyArray<[number, number]>, total: number): void {
  expect(calls).toHaveLength(total + 1);
  expect(calls[0]).toEqual([0, total]);
  expect(calls.at(-1)).toEqual([total, total]);
  expect(calls).toEqual(Array.from({ length: total + 1 }, (_, done) => [done, total]));
}

describe('onProgress', () => {
  it('copyFileHistoryForResume counts every backup carried, linked or missing', async () => {
    const store = createRecordStore();
    seedThreeTurns(store);
    store.backups.get('old')?.delete(name(2, 2));
    const { calls, onProgress } = recorder();
    const result = await copyFileHistoryForResume({ store, fromSessionId: 'old', toSessionId: 'new', projectRoot: ROOT, throwOnMissing: false, concurrency: 4, onProgress });
    expect(result.linked).toHaveLength(14);
    expect(result.missing).toHaveLength(1);
    expectSequence(calls, 15);
  });

  it('copyFileHistoryForResume reports (0, 0) once when there is nothing to carry', async () => {
    const store = createRecordStore();
    await store.sessionLog('old').append([{ type: 'user', uuid: 'u1' }]);
    const { calls, onProgress } = recorder();
    await copyFileHistoryForResume({ store, fromSessionId: 'old', toSessionId: 'new', projectRoot: ROOT, onProgress });
    expect(calls).toEqual([[0, 0]]);
  });

  it('copyFileHistoryForResume refuses a session with no records at all (a mistyped id), writing nothing', async () => {
    const store = createRecordStore();
    await expect(copyFileHistoryForResume({ store, fromSessionId: 'ghost', toSessionId: 'new', projectRoot: ROOT })).rejects.toThrow(
      new NotFoundError(`session ghost has no records in the ${store.kind} store: nothing to resume (is the session id right?)`),
    );
    expect((await store.sessionLog('new').read()).records).toEqual([]);
  });

  it('copyFileHistoryForResume counts a failed carry before it throws', async () => {
    const store = createRecordStore();
    seedThreeTurns(store);
    store.carryFaults.set(name(0, 1), new PermissionError('carryBackup: EACCES'));
    const { calls, onProgress } = recorder();
    await expect(copyFileHistoryForResume({ store, fromSessionId: 'old', toSessionId: 'new', projectRoot: ROOT, onProgress })).rejects.toThrow(PermissionError);
    expectSequence(calls, 15);
  });

  it('FileHistory.resume passes it through', async () => {
    const store = createRecordStore();
    seedThreeTurns(store);
    const { calls, onProgress } = recorder();
    const history = await FileHistory.resume({ projectRoot: ROOT, sessionId: 'new', fromSessionId: 'old', store, env: {}, onProgress });
    await history.close();
    expectSequence(calls, 15);
  });

  it('forkSession counts the backups of the kept turns only', async () => {
    const store = createRecordStore();
    seedThreeTurns(store);
    const { calls, onProgress } = recorder();
    const fork = await forkSession({ store, sessionId: 'old', projectRoot: ROOT, messageId: 'u3', newSessionId: 'forked', onProgress });
    expect(fork.resume.linked).toHaveLength(10);
    expectSequence(calls, 10);
  });

  it('RewindSession.fork passes it through', async () => {
    const store = createRecordStore();
    seedThreeTurns(store);
    const history = await FileHistory.open({ projectRoot: ROOT, sessionId: 'old', store, env: {} });
    const session = new RewindSession({ history, messages: (await store.sessionLog('old').read()).records, undo: false });
    const { calls, onProgress } = recorder();
    await session.fork('u2', { sessionId: 'forked', onProgress });
    await history.close();
    expectSequence(calls, 5);
  });

  it('cleanup counts every session examined: removed, recent or locked', async () => {
    const store = createRecordStore();
    const now = new Date('2026-06-30T12:00:00.000Z');
    for (const [sessionId, ageDays] of [['fresh', 1], ['old', 31], ['ancient', 400], ['open', 60]] as const) {
      seedBackups(store, sessionId, [name(0, 1)]);
      store.lastModified.set(sessionId, new Date(now.getTime() - ageDays * DAY));
    }
    store.locks.add('open');
    const { calls, onProgress } = recorder();
    const result = await cleanup({ store, now, onProgress });
    expect(result.removed).toHaveLength(2);
    expectSequence(calls, 4);

    const dry = recorder();
    await cleanup({ store, now, dryRun: true, onProgress: dry.onProgress });
    expectSequence(dry.calls, 2);
  });
});

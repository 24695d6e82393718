/**
 * Issue 3: session records, rebuild on open, session locks, resume into a new session, retention
 * of backups past the snapshot cap, and cleanup of old sessions.
 */
import {
  FileHistory,
  LockedError,
  MAX_SNAPSHOTS,
  SNAPSHOT_UPDATE_MAX_FILES,
  ResumeBackupsMissingError,
  UnavailableError,
  cleanup,
  readLogLines,
  type FileHistoryOptions,
  type FileHistoryResumeOptions,
} from '@fh/core';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../workspace.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Open another session of the same store and project, closed after the test. */
async function openSession(w: Workspace, sessionId: string, overrides: Partial<FileHistoryOptions> = {}): Promise<FileHistory> {
  const history = await FileHistory.open({ projectRoot: w.root, sessionId, store: w.store, timestampGranularityMs: w.granularityMs, env: {}, ...overrides });
  w.histories.push(history);
  return history;
}

/** Resume this test's session into `sessionId`; the history is closed after the test. */
async function resumeSession(w: Workspace, sessionId: string, overrides: Partial<FileHistoryResumeOptions> = {}): Promise<FileHistory> {
  const history = await FileHistory.resume({
    projectRoot: w.root,
    sessionId,
    fromSessionId: w.sessionId,
    store: w.store,
    timestampGranularityMs: w.granularityMs,
    env: {},
    ...overrides,
  });
  w.histories.push(history);
  return history;
}

/** Three turns: app.ts edited twice, run.sh (0755) deleted, new.txt created by the agent. */
async function recordThreeTurns(w: Workspace): Promise<FileHistory> {
  await w.write('src/app.ts', 'version 0\n', 0o640);
  await w.write('run.sh', '#!/bin/sh\necho run\n', 0o755);
  const history = await w.open();
  await history.makeSnapshot('m1');
  await history.trackEdit('src/app.ts');
  await w.write('src/app.ts', 'version 1, longer\n', 0o640);
  await history.trackEdit('run.sh');
  await w.fs.unlink(w.path('run.sh'));
  await history.trackEdit('new.txt');
  await w.write('new.txt', 'made by the agent\n');
  await history.makeSnapshot('m2');
  await w.write('src/app.ts', 'version 2\n', 0o640);
  await history.makeSnapshot('m3');
  return history;
}

export function sessionRecordsTests(workspace: () => Workspace): void {
  describe('session records, resume and retention (issue 3)', () => {
    it('a turn that tracks many files one by one records one delta each, and reopens to the same state', async () => {
      const w = workspace();
      const count = SNAPSHOT_UPDATE_MAX_FILES + 6;
      const names = Array.from({ length: count }, (_, index) => `many/f${String(index).padStart(3, '0')}.txt`);
      for (const name of names) await w.write(name, `${name} before\n`, 0o644);
      const history = await w.open();
      await history.makeSnapshot('m1');
      for (const name of names) await history.trackEdit(name);
      for (const name of names) await w.write(name, `${name} after the agent\n`, 0o644);
      const before = history.state;
      await history.close();

      const { records } = await w.store.sessionLog(w.sessionId).read();
      const fileHistory = records.filter((record) => record.type === 'fh-snapshot' || record.type === 'file-history-delta');
      expect(fileHistory.map((record) => record.type)).toEqual(['fh-snapshot', ...Array<string>(count).fill('file-history-delta')]);
      expect(fileHistory.slice(1).map((record) => record.trackingPath)).toEqual(names);

      const reopened = await w.open();
      expect(reopened.state).toEqual(before);
      const result = await reopened.rewind('m1');
      expect(result.restored).toEqual(names);
      for (const name of names) expect(await w.text(name)).toBe(`${name} before\n`);
    });

    it('backups attached together are recorded as one fh-snapshot attach record, and reopen to the same state', async () => {
      const w = workspace();
      const names = Array.from({ length: 20 }, (_, index) => `together/f${index}.txt`);
      for (const name of names) await w.write(name, `${name} before\n`);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await Promise.all(names.map((name) => history.trackEdit(name)));
      const before = history.state;
      await history.close();
      const { records } = await w.store.sessionLog(w.sessionId).read();
      // Commits that finish together share one attach record; a commit that finished alone is a
      // single file-history-delta. Together they hold every backup exactly once.
      const attached = records.filter((record) => record.type === 'fh-snapshot' && record.kind === 'attach');
      const single = records.filter((record) => record.type === 'file-history-delta');
      expect(attached.length).toBeGreaterThanOrEqual(1);
      expect(attached.length + single.length).toBeLessThan(names.length);
      expect(
        [...attached.flatMap((record) => Object.keys(record.entries as object)), ...single.map((record) => record.trackingPath as string)].sort(),
      ).toEqual([...names].sort());
      expect(attached.every((record) => record.sequence === 1 && record.messageId === 'm1')).toBe(true);
      expect(single.every((record) => record.snapshotMessageId === 'm1')).toBe(true);
      const reopened = await w.open();
      expect(reopened.state).toEqual(before);
      for (const name of names) await w.write(name, 'changed\n');
      expect((await reopened.rewind('m1')).restored).toEqual([...names].sort());
    });

    it('reopening a session rebuilds its state from the log, and a mid-turn backup still rewinds', async () => {
      const w = workspace();
      await w.write('a.txt', 'one\n', 0o640);
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('a.txt');
      await w.write('a.txt', 'two, longer\n', 0o600);
      await history.makeSnapshot('m2');
      await history.trackEdit('b.txt');
      await w.write('b.txt', 'bee\n');
      const before = history.state;
      await history.close();

      const reopened = await w.open();
      expect(reopened.state).toEqual(before);
      expect(await reopened.rewind('m2')).toEqual({ messageId: 'm2', restored: [], deleted: ['b.txt'], skipped: [], failed: [] });
      expect(await reopened.rewind('m1')).toEqual({ messageId: 'm1', restored: ['a.txt'], deleted: [], skipped: [], failed: [] });
      expect(await w.text('a.txt')).toBe('one\n');
      expect(await w.mode('a.txt')).toBe(0o640);
      expect(await w.bytes('b.txt')).toBeNull();
    });

    it('readStream yields the log as the JSONL read() parses, in order, split anywhere, and a missing log yields nothing', async () => {
      const w = workspace();
      const log = w.store.sessionLog(`${w.sessionId}-stream`);
      expect(log.readStream).toBeTypeOf('function');
      const collect = async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of log.readStream?.() ?? []) chunks.push(Buffer.from(chunk));
        return Buffer.concat(chunks).toString('utf8');
      };
      expect(await collect()).toBe('');
      const big = 'é'.repeat(700_000);
      await log.append([{ type: 'a', n: 1 }]);
      await log.append([{ type: 'b', text: big }, { type: 'c' }]);
      const text = await collect();
      expect(text).toBe(`{"type":"a","n":1}\n${JSON.stringify({ type: 'b', text: big })}\n{"type":"c"}\n`);
      const lines: unknown[] = [];
      for await (const line of readLogLines(log)) lines.push('text' in line ? JSON.parse(line.text) : line);
      expect(lines).toEqual((await log.read()).records);
    });

    it('records which project a session belongs to once, on its first open', async () => {
      const w = workspace();
      await (await w.open()).close();
      await (await w.open()).close();
      const { records } = await w.store.sessionLog(w.sessionId).read();
      expect(records).toEqual([{ type: 'fh-session', sessionId: w.sessionId, projectRoot: w.root, createdAt: expect.any(String) }]);
      expect(Number.isNaN(Date.parse(records[0]?.createdAt as string))).toBe(false);
    });

    it('continues version numbers after a restart, past a name a crash left taken, and never rewrites an old backup', async () => {
      const w = workspace();
      await w.write('a.txt', 'one\n');
      const first = await w.open();
      await first.makeSnapshot('m1');
      await first.trackEdit('a.txt');
      await w.write('a.txt', 'two\n');
      await first.makeSnapshot('m2');
      await first.close();
      await w.write('stray.txt', 'left by a crash\n');
      await w.store.putBackup(w.sessionId, w.backupName('a.txt', 3), w.path('stray.txt'));
      const before = await w.backups();

      const second = await w.open();
      await w.write('a.txt', 'three\n');
      await second.makeSnapshot('m3');
      expect(second.state.snapshots[2]?.trackedFileBackups['a.txt']).toMatchObject({ backupFileName: w.backupName('a.txt', 4), version: 4 });
      expect(await w.backups()).toEqual({ ...before, [w.backupName('a.txt', 4)]: { text: 'three\n', mode: 0o644 } });
      expect(before[w.backupName('a.txt', 3)]).toEqual({ text: 'left by a crash\n', mode: 0o644 });
    });

    it('a second open of an open session fails with LockedError until the first is closed', async () => {
      const w = workspace();
      expect(w.store.capabilities.locking).toBe(true);
      const first = await w.open();
      const error = await w.open().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LockedError);
      expect((error as Error).message).toContain(`session "${w.sessionId}" is locked`);
      await first.close();
      const second = await w.open();
      expect(second.state.snapshots).toEqual([]);
    });

    it('resume carries every backup into a new session, rewinds there exactly, and leaves the old session untouched', async () => {
      const w = workspace();
      const history = await recordThreeTurns(w);
      const state = history.state;
      await history.close();
      const oldObjects = await w.harness.listBackupObjects(w.sessionId);
      const oldRecords = (await w.store.sessionLog(w.sessionId).read()).records;
      const newSessionId = `${w.sessionId}-resumed`;

      const resumed = await resumeSession(w, newSessionId);
      expect(resumed.sessionId).toBe(newSessionId);
      expect(resumed.state).toEqual(state);
      const carried = resumed.resumeResult;
      expect(carried?.missing).toEqual([]);
      expect([...(carried?.linked ?? []), ...(carried?.copied ?? [])].sort()).toEqual(Object.keys(oldObjects).sort());
      expect(carried?.existed).toEqual([]);

      expect(await resumed.rewind('m1')).toEqual({ messageId: 'm1', restored: ['run.sh', 'src/app.ts'], deleted: ['new.txt'], skipped: [], failed: [] });
      expect(await w.text('src/app.ts')).toBe('version 0\n');
      expect(await w.mode('src/app.ts')).toBe(0o640);
      expect(await w.text('run.sh')).toBe('#!/bin/sh\necho run\n');
      expect(await w.mode('run.sh')).toBe(0o755);
      expect(await w.bytes('new.txt')).toBeNull();

      await resumed.makeSnapshot('m4');
      const entries = resumed.state.snapshots.at(-1)?.trackedFileBackups;
      expect(entries?.['src/app.ts']).toMatchObject({ backupFileName: w.backupName('src/app.ts', 4), version: 4 });
      expect(entries?.['run.sh']).toMatchObject({ backupFileName: w.backupName('run.sh', 3), version: 3 });
      expect(entries?.['new.txt']).toMatchObject({ backupFileName: null, version: 3 });
      const newObjects = await w.harness.listBackupObjects(newSessionId);
      expect(Object.keys(newObjects).sort()).toEqual([...Object.keys(oldObjects), w.backupName('src/app.ts', 4), w.backupName('run.sh', 3)].sort());
      expect(Buffer.from(newObjects[w.backupName('src/app.ts', 4)]?.bytes ?? []).toString()).toBe('version 0\n');

      expect(await w.harness.listBackupObjects(w.sessionId)).toEqual(oldObjects);
      expect((await w.store.sessionLog(w.sessionId).read()).records).toEqual(oldRecords);
      const newRecords = (await w.store.sessionLog(newSessionId).read()).records;
      expect(newRecords.filter((record) => record.type === 'fh-session')).toEqual([
        { type: 'fh-session', sessionId: newSessionId, projectRoot: w.root, createdAt: expect.any(String), resumedFrom: w.sessionId, snapshotSequenceOffset: 0 },
      ]);
    });

    it('resume with missing backups lists every one, marks the entries, and a rewind reports those files as failed', async () => {
      const w = workspace();
      await (await recordThreeTurns(w)).close();
      const lostApp = w.backupName('src/app.ts', 1);
      const lostRun = w.backupName('run.sh', 1);
      await w.harness.removeBackupObject(w.sessionId, lostApp);
      await w.harness.removeBackupObject(w.sessionId, lostRun);
      const newSessionId = `${w.sessionId}-resumed`;

      const error = await resumeSession(w, newSessionId).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ResumeBackupsMissingError);
      const missing = error as ResumeBackupsMissingError;
      expect(missing.missing.map((entry) => entry.backupFileName).sort()).toEqual([lostApp, lostRun].sort());
      expect(missing.message).toContain(`2 backups missing from session ${w.sessionId}`);
      expect(missing.message).toContain(`${lostApp} (src/app.ts)`);
      expect(missing.message).toContain(`${lostRun} (run.sh)`);

      const opened = await openSession(w, newSessionId);
      const m1 = opened.state.snapshots[0]?.trackedFileBackups;
      expect(m1?.['src/app.ts']?.error).toBe(`backup ${lostApp} missing from session ${w.sessionId}`);
      expect(m1?.['run.sh']?.error).toBe(`backup ${lostRun} missing from session ${w.sessionId}`);
      const result = await opened.rewind('m1');
      expect(result.restored).toEqual([]);
      expect(result.deleted).toEqual(['new.txt']);
      expect(result.failed.map(({ path, error: failure }) => [path, failure.message])).toEqual([
        ['run.sh', `run.sh: its backup at this snapshot failed: backup ${lostRun} missing from session ${w.sessionId}`],
        ['src/app.ts', `src/app.ts: its backup at this snapshot failed: backup ${lostApp} missing from session ${w.sessionId}`],
      ]);
      expect(await w.text('src/app.ts')).toBe('version 2\n');
      expect(await w.bytes('run.sh')).toBeNull();
    });

    it('resume with allowMissingBackups opens the new session with the entries marked', async () => {
      const w = workspace();
      await (await recordThreeTurns(w)).close();
      await w.harness.removeBackupObject(w.sessionId, w.backupName('src/app.ts', 2));
      const resumed = await resumeSession(w, `${w.sessionId}-resumed`, { allowMissingBackups: true });
      expect(resumed.resumeResult?.missing).toEqual([
        { backupFileName: w.backupName('src/app.ts', 2), references: [{ messageId: 'm2', path: 'src/app.ts' }] },
      ]);
      expect(resumed.state.snapshots[1]?.trackedFileBackups['src/app.ts']?.error).toBe(`backup ${w.backupName('src/app.ts', 2)} missing from session ${w.sessionId}`);
      expect(await resumed.rewind('m1')).toMatchObject({ restored: ['run.sh', 'src/app.ts'], deleted: ['new.txt'], failed: [] });
    });

    it(`dropping snapshots past ${MAX_SNAPSHOTS} deletes backups no remaining snapshot references, but keeps each file's first backup and referenced ones`, async () => {
      const w = workspace();
      await w.write('busy.txt', 'turn 1\n');
      await w.write('still.txt', 'never changes\n');
      const history = await w.open();
      await history.makeSnapshot('m1');
      await history.trackEdit('busy.txt');
      await history.trackEdit('still.txt');
      const turns = MAX_SNAPSHOTS + 2;
      for (let turn = 2; turn <= turns; turn += 1) {
        await w.write('busy.txt', `turn ${turn}\n`);
        await history.makeSnapshot(`m${turn}`);
      }
      expect(history.state.snapshots[0]?.messageId).toBe('m3');
      const expected = [w.backupName('busy.txt', 1), w.backupName('still.txt', 1)];
      for (let version = 3; version <= turns; version += 1) expected.push(w.backupName('busy.txt', version));
      expect(Object.keys(await w.harness.listBackupObjects(w.sessionId)).sort()).toEqual(expected.sort());
      const state = history.state;
      await history.close();

      const reopened = await w.open();
      expect(reopened.state).toEqual(state);
      expect(reopened.state.snapshotSequence).toBe(turns);
      expect(await reopened.rewind('m3')).toEqual({ messageId: 'm3', restored: ['busy.txt'], deleted: [], skipped: [], failed: [] });
      expect(await w.text('busy.txt')).toBe('turn 3\n');
    });

    it('reports a backup retention could not delete and keeps the snapshot', async () => {
      const w = workspace();
      await w.write('busy.txt', 'turn 1\n');
      const failingDeletes = new Proxy(w.store, {
        get(target, property) {
          if (property === 'deleteBackup') {
            return async () => {
              throw new UnavailableError('injected fault: the store is read-only now');
            };
          }
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const warnings: string[] = [];
      const history = await w.open({ store: failingDeletes, log: false, onWarning: (message) => warnings.push(message) });
      await history.makeSnapshot('m1');
      await history.trackEdit('busy.txt');
      for (let turn = 2; turn <= MAX_SNAPSHOTS + 2; turn += 1) {
        await w.write('busy.txt', `turn ${turn}\n`);
        await history.makeSnapshot(`m${turn}`);
      }
      expect(history.state.snapshots).toHaveLength(MAX_SNAPSHOTS);
      expect(warnings).toEqual([
        `retention could not delete backup ${w.backupName('busy.txt', 2)} of session ${w.sessionId}: injected fault: the store is read-only now`,
      ]);
      expect(Object.keys(await w.backups())).toContain(w.backupName('busy.txt', 2));
    });

    it('cleanup removes sessions not modified for 30 days, but never one that is open', async () => {
      const w = workspace();
      await w.write('f.txt', 'x\n');
      const open = await w.open();
      await open.makeSnapshot('m1');
      await open.trackEdit('f.txt');
      const closedId = `${w.sessionId}-closed`;
      const closed = await openSession(w, closedId);
      await closed.makeSnapshot('m1');
      await closed.trackEdit('f.txt');
      await closed.close();

      expect((await cleanup({ store: w.store })).removed).toEqual([]);
      const result = await cleanup({ store: w.store, now: new Date(Date.now() + 31 * DAY_MS) });
      expect(result.removed.map((session) => session.sessionId)).toEqual([closedId]);
      expect(result.kept.map(({ session, reason }) => [session.sessionId, reason])).toEqual([[w.sessionId, 'locked']]);
      expect(await w.store.listBackups(closedId)).toEqual([]);
      expect((await w.store.sessionLog(closedId).read()).records).toEqual([]);
      expect(await w.store.listBackups(w.sessionId)).toEqual([w.backupName('f.txt', 1)]);
      await open.makeSnapshot('m2');
      expect(open.state.snapshots).toHaveLength(2);
    });
  });
}

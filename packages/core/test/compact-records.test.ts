import { describe, expect, it } from 'vitest';
import {
  FileHistory,
  attachSnapshotRecord,
  deltaRecord,
  diffSnapshotRecord,
  fhSessionRecord,
  formatJsonl,
  fullSnapshotRecord,
  parseFhSnapshotRecord,
  parseJsonl,
  readLogLines,
  rebuildStateFromLog,
  restoreStateFromLog,
  sniffByteLine,
  sniffFhSnapshotLine,
  snapshotRecord,
  type FileHistoryBackup,
  type FileHistorySnapshot,
  type LogRecord,
  type SessionLog,
} from '../src/index.js';
import { createRecordStore } from './support/record-store.js';
import { random } from './random.js';

const ROOT = '/work/project';
const T0 = new Date('2026-01-01T00:00:00.000Z');

function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

function backup(hash: string, version: number, seconds = version): FileHistoryBackup {
  return { backupFileName: `${hash.padStart(16, '0')}@v${version}`, version, backupTime: at(seconds) };
}

/** A log over JSONL text, streamed in chunks of `chunkBytes` (no `readStream` when 0). */
function textLog(text: string, chunkBytes = 7): SessionLog {
  const bytes = Buffer.from(text, 'utf8');
  const log: SessionLog = {
    append: async () => undefined,
    read: async () => parseJsonl(text),
  };
  if (chunkBytes > 0) {
    log.readStream = async function* () {
      for (let offset = 0; offset < bytes.length; offset += chunkBytes) yield bytes.subarray(offset, offset + chunkBytes);
    };
  }
  return log;
}

describe('fh-snapshot records (format version 2)', () => {
  it('round-trips a full and a diff record, and their heads are read from the first bytes of the line', () => {
    const entries = { 'a.txt': { ...backup('a', 2), size: 3, mode: 0o644 }, 'b.txt': { backupFileName: null, version: 1, backupTime: at(1) } };
    const full = JSON.parse(JSON.stringify(fullSnapshotRecord({ messageId: 'u"1', timestamp: at(5), trackedFileBackups: entries }, 7, new Map([[7, { 'a.txt': `${'a'.padStart(16, '0')}@v1` }]])))) as LogRecord;
    const diff = JSON.parse(JSON.stringify(diffSnapshotRecord('u2', at(6), 8, 7, { 'a.txt': backup('a', 3) }, ['b.txt']))) as LogRecord;
    expect(JSON.stringify(full).startsWith('{"type":"fh-snapshot","version":2,"kind":"full","sequence":7,"messageId":"u\\"1",')).toBe(true);
    expect(sniffFhSnapshotLine(JSON.stringify(full))).toEqual({ kind: 'full', sequence: 7, messageId: 'u"1' });
    expect(sniffFhSnapshotLine(JSON.stringify(diff))).toEqual({ kind: 'diff', sequence: 8, base: 7, messageId: 'u2' });
    expect(sniffFhSnapshotLine('{"type":"user","message":"fh-snapshot"}')).toBeUndefined();
    expect(parseFhSnapshotRecord(full)).toEqual({
      type: 'fh-snapshot',
      kind: 'full',
      sequence: 7,
      messageId: 'u"1',
      timestamp: at(5),
      entries,
      paths: ['a.txt', 'b.txt'],
      removed: [],
      pending: new Map([[7, { 'a.txt': `${'a'.padStart(16, '0')}@v1` }]]),
    });
    expect(parseFhSnapshotRecord(diff)).toEqual({ type: 'fh-snapshot', kind: 'diff', sequence: 8, messageId: 'u2', timestamp: at(6), base: 7, entries: { 'a.txt': backup('a', 3) }, paths: ['a.txt'], removed: ['b.txt'], pending: new Map() });
  });

  it('reads a head from a line of bytes whatever the length of its message id, and no head from a line that does not start as one', () => {
    const entries = { 'a.txt': backup('a', 3) };
    const asLine = (text: string) => {
      const bytes = Buffer.from(`${text}\n`);
      return { line: 1, bytes, start: 0, end: bytes.length - 1, terminated: true };
    };
    for (const messageId of ['u1', 'é'.repeat(90), 'm'.repeat(300), 'q"'.repeat(700)]) {
      const line = asLine(JSON.stringify(diffSnapshotRecord(messageId, at(6), 8, 7, entries)));
      expect(sniffByteLine(line)).toEqual({ kind: 'diff', sequence: 8, base: 7, messageId });
    }
    expect(sniffByteLine(asLine(JSON.stringify({ type: 'user', message: `{"type":"fh-snapshot","version":2,"kind":"full" ${'x'.repeat(600)}` })))).toBeUndefined();
    expect(sniffByteLine(asLine(` ${JSON.stringify(diffSnapshotRecord('u1', at(6), 8, 7, entries))}`))).toBeUndefined();
    expect(sniffByteLine(asLine('{"type":"fh-snap'))).toBeUndefined();
  });

  it('skips an entry with an empty path from entries and paths alike, owned or not, with one warning', () => {
    const line = JSON.stringify(diffSnapshotRecord('u2', at(6), 8, 7, { 'a.txt': backup('a', 3), '': backup('e', 2), 'b.txt': backup('b', 2) }));
    for (const owned of [false, true]) {
      const warnings: string[] = [];
      const parsed = parseFhSnapshotRecord(JSON.parse(line), (message) => warnings.push(message), undefined, owned);
      expect(parsed?.paths).toEqual(['a.txt', 'b.txt']);
      expect(Object.keys(parsed?.entries ?? {})).toEqual(['a.txt', 'b.txt']);
      expect(parsed?.entries['b.txt']).toEqual(backup('b', 2));
      expect(warnings).toEqual(['fh-snapshot u2: entry with an empty path skipped']);
    }
  });

  it('skips a record of another format version and a diff whose base is not the snapshot before it, with one warning each', () => {
    const warnings: string[] = [];
    const records = JSON.parse(
      JSON.stringify([
        fullSnapshotRecord({ messageId: 'u1', timestamp: at(1), trackedFileBackups: { 'a.txt': backup('a', 1) } }, 1),
        { ...diffSnapshotRecord('u2', at(2), 2, 1, { 'a.txt': backup('a', 2) }), version: 3 },
        diffSnapshotRecord('u3', at(3), 3, 2, { 'a.txt': backup('a', 3) }),
        diffSnapshotRecord('u4', at(4), 2, 1, { 'b.txt': backup('b', 1) }),
      ]),
    ) as unknown[];
    const state = restoreStateFromLog(records, { projectRoot: ROOT, onWarning: (message) => warnings.push(message) });
    expect(state.snapshots.map((snapshot) => [snapshot.messageId, snapshot.trackedFileBackups])).toEqual([
      ['u1', { 'a.txt': backup('a', 1) }],
      ['u4', { 'a.txt': backup('a', 1), 'b.txt': backup('b', 1) }],
    ]);
    expect(warnings).toEqual([
      'fh-snapshot record of format version 3 skipped (this fh reads version 2; a newer fh wrote it?)',
      'fh-snapshot u3: a diff against snapshot 2, which is not the snapshot before it in the log; skipped',
    ]);
  });

  it('rebuilds chained snapshots that share unchanged entries and build their maps only when read', () => {
    const a1 = backup('a', 1);
    const records: unknown[] = [JSON.parse(JSON.stringify(fullSnapshotRecord({ messageId: 'u1', timestamp: at(1), trackedFileBackups: { 'a.txt': a1, 'b.txt': backup('b', 1) } }, 1)))];
    for (let turn = 2; turn <= 5; turn += 1) records.push(JSON.parse(JSON.stringify(diffSnapshotRecord(`u${turn}`, at(turn), turn, turn - 1, { 'b.txt': backup('b', turn) }))));
    const state = restoreStateFromLog(records, { projectRoot: ROOT });
    expect(state.snapshotSequence).toBe(5);
    expect(state.snapshots.map((snapshot) => snapshot.trackedFileBackups['b.txt']?.version)).toEqual([1, 2, 3, 4, 5]);
    const shared = state.snapshots.map((snapshot) => snapshot.trackedFileBackups['a.txt']);
    for (const entry of shared) expect(entry).toBe(shared[0]);
    expect(JSON.parse(JSON.stringify(state.snapshots[2]))).toEqual({ messageId: 'u3', timestamp: at(3).toISOString(), trackedFileBackups: JSON.parse(JSON.stringify({ 'a.txt': a1, 'b.txt': backup('b', 3) })) });
    // What each snapshot replaced (a version 1 is never deleted, so snapshot 2 replaced nothing retention may drop).
    expect(state.superseded).toEqual(new Map([3, 4, 5].map((turn) => [turn, { 'b.txt': `${'b'.padStart(16, '0')}@v${turn - 1}` }])));
  });
});

describe('rebuildStateFromLog (streamed)', () => {
  it('gives what restoreStateFromLog gives for the whole log, on 300 random logs of every record kind, chunk size and snapshot cap', async () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const next = random(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
      const lines: string[] = [JSON.stringify(fhSessionRecord({ sessionId: 's', projectRoot: ROOT, createdAt: T0, ...(next() < 0.2 ? { snapshotSequenceOffset: 3 } : {}) }))];
      let sequence = 0;
      let current: Record<string, FileHistoryBackup> = {};
      let version = 1;
      let newest = 'u0';
      const length = Math.floor(next() * 40);
      for (let index = 0; index < length; index += 1) {
        const messageId = `u${Math.floor(next() * 30)}`;
        const kind = next();
        const files: Record<string, FileHistoryBackup> = {};
        for (const file of ['a.txt', 'b.txt', `${ROOT}/c.txt`, 'd.txt']) if (next() < 0.4) files[file] = backup(file.length.toString(16), (version += 1));
        if (kind < 0.15) {
          current = { ...files };
          sequence += 1;
          lines.push(JSON.stringify(fullSnapshotRecord({ messageId, timestamp: at(index), trackedFileBackups: current }, sequence, new Map([[sequence, { 'a.txt': backup('a', 9).backupFileName as string }]]))));
          newest = messageId;
        } else if (kind < 0.5) {
          const removed = next() < 0.2 ? ['b.txt'] : [];
          current = { ...current, ...files };
          for (const path of removed) delete current[path];
          lines.push(JSON.stringify(diffSnapshotRecord(messageId, at(index), sequence + 1, next() < 0.9 ? sequence : sequence + 5, files, removed)));
          sequence += 1;
          newest = messageId;
        } else if (kind < 0.6) {
          lines.push(JSON.stringify(snapshotRecord({ messageId, timestamp: at(index), trackedFileBackups: files }, false)));
        } else if (kind < 0.7) {
          lines.push(JSON.stringify(snapshotRecord({ messageId, timestamp: at(index), trackedFileBackups: files }, true)));
        } else if (kind < 0.75) {
          lines.push(JSON.stringify(attachSnapshotRecord(next() < 0.8 ? newest : messageId, next() < 0.8 ? sequence : sequence + 1, files)));
        } else if (kind < 0.85) {
          lines.push(JSON.stringify(deltaRecord(pick([messageId, 'u1']), pick(['e.txt', 'a.txt']), backup('e', (version += 1)), at(index))));
        } else {
          lines.push(pick(['{"type":"user","uuid":"x","message":"file-history-snapshot"}', '{"type":"file-history-delta"', 'not json', '{"type":"fh-snapshot","version":2}', '[1]', '']));
        }
      }
      const text = lines.join(next() < 0.2 ? '\r\n' : '\n') + (next() < 0.5 ? '\n' : '');
      const maxSnapshots = pick([1, 2, 3, 5, 100]);
      const expected = restoreStateFromLog(parseJsonl(text).records, { projectRoot: ROOT, maxSnapshots });
      const streamed = await rebuildStateFromLog(textLog(text, 1 + Math.floor(next() * 50)), { projectRoot: ROOT, maxSnapshots });
      const view = (state: typeof expected) => ({ snapshots: state.snapshots.map((snapshot) => ({ ...snapshot })), snapshotSequence: state.snapshotSequence, superseded: state.superseded });
      expect({ seed, ...view(streamed.state) }).toEqual({ seed, ...view(expected) });
      for (const snapshot of streamed.state.snapshots) for (const key of Object.keys(snapshot.trackedFileBackups)) expect(streamed.state.trackedFiles.has(key)).toBe(true);
    }
  });

  it('reads lines split across chunks, CRLF endings and a torn last line like parseJsonl, and reports a line over the size limit without holding it', async () => {
    const text = '{"type":"a"}\r\n\n{"type":"b","x":"' + 'y'.repeat(100) + '"}\nnot json\n{"type":"c"';
    const lines = [];
    for await (const line of readLogLines(textLog(text, 3), { maxLineBytes: 50 })) lines.push(line);
    expect(lines).toEqual([
      { line: 1, text: '{"type":"a"}\r', terminated: true },
      { line: 3, skipped: 'line too long' },
      { line: 4, text: 'not json', terminated: true },
      { line: 5, text: '{"type":"c"', terminated: false },
    ]);
  });
});

describe('FileHistory records in the compact form', () => {
  function journal(): { log: SessionLog; lines: string[]; failNext: () => void } {
    const lines: string[] = [];
    let fail = false;
    const log: SessionLog = {
      append: async (records) => {
        if (fail) {
          fail = false;
          throw new Error('disk full');
        }
        for (const record of records) lines.push(JSON.stringify(record));
      },
      read: async () => parseJsonl(lines.map((line) => `${line}\n`).join('')),
      readStream: async function* () {
        yield Buffer.from(lines.map((line) => `${line}\n`).join(''));
      },
    };
    return { log, lines, failNext: () => (fail = true) };
  }

  it('after a failed append records the next snapshot in full, so the log never holds a diff against a snapshot it lacks', async () => {
    const store = createRecordStore();
    const { log, lines, failNext } = journal();
    const history = await FileHistory.open({ projectRoot: ROOT, sessionId: 's1', store, log, env: {}, initialState: { snapshots: [], trackedFiles: new Set(), snapshotSequence: 0 } });
    await history.makeSnapshot('m1');
    await history.makeSnapshot('m2');
    failNext();
    await expect(history.makeSnapshot('m3')).rejects.toThrow('disk full');
    await history.makeSnapshot('m4');
    await history.makeSnapshot('m5');
    await history.close();
    const kinds = lines.map((line) => JSON.parse(line) as LogRecord).filter((record) => record.type === 'fh-snapshot').map((record) => [record.messageId, record.kind, record.sequence]);
    expect(kinds).toEqual([
      ['m1', 'full', 1],
      ['m2', 'diff', 2],
      ['m4', 'full', 4],
      ['m5', 'diff', 5],
    ]);
    const rebuilt = await rebuildStateFromLog(log, { projectRoot: ROOT });
    expect(rebuilt.state.snapshots.map((snapshot: FileHistorySnapshot) => snapshot.messageId)).toEqual(['m1', 'm2', 'm4', 'm5']);
    expect(rebuilt.state.snapshotSequence).toBe(5);
  });

  it('a crash that tore the last diff leaves the snapshot before it, and the next process records its diff against that one', async () => {
    const store = createRecordStore();
    const { log, lines } = journal();
    const first = await FileHistory.open({ projectRoot: ROOT, sessionId: 's1', store, log, env: {} });
    await first.makeSnapshot('m1');
    await first.makeSnapshot('m2');
    await first.close();
    lines[lines.length - 1] = (lines.at(-1) as string).slice(0, 30);
    const warnings: string[] = [];
    const second = await FileHistory.open({ projectRoot: ROOT, sessionId: 's1', store, log, env: {}, onWarning: (message) => warnings.push(message) });
    expect(second.state.snapshots.map((snapshot) => snapshot.messageId)).toEqual(['m1']);
    expect(warnings).toEqual(['session s1: log line 3 skipped (invalid JSON)']);
    await second.makeSnapshot('m3');
    await second.close();
    const last = JSON.parse(lines.at(-1) as string) as LogRecord;
    expect([last.messageId, last.kind, last.sequence]).toEqual(['m3', 'diff', 2]);
    const rebuilt = await rebuildStateFromLog(log, { projectRoot: ROOT });
    expect(rebuilt.state.snapshots.map((snapshot: FileHistorySnapshot) => snapshot.messageId)).toEqual(['m1', 'm3']);
  });

  it('warns once per kind of unreadable line, with the count and the first line', async () => {
    const store = createRecordStore();
    const text = formatJsonl([fhSessionRecord({ sessionId: 's1', projectRoot: ROOT, createdAt: T0 })]) + 'garbage one\n{"type":"file-history-delta" broken\n[1,2]\n{"type":"fh-snapshot"';
    const warnings: string[] = [];
    const history = await FileHistory.open({ projectRoot: ROOT, sessionId: 's1', store, log: textLog(text), env: {}, onWarning: (message) => warnings.push(message) });
    await history.close();
    expect(warnings).toEqual([
      'session s1: 2 log lines skipped (invalid JSON), the first at line 2',
      'session s1: log line 4 skipped (not an object with a type)',
      'session s1: log line 5 skipped (torn last line)',
    ]);
  });
});

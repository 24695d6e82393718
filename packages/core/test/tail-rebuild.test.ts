import { describe, expect, it } from 'vitest';
import {
  adoptBackupEntry,
  parseBackupEntry,
  attachSnapshotRecord,
  deltaRecord,
  diffSnapshotRecord,
  fhSessionRecord,
  fullSnapshotRecord,
  anchorOf,
  formatStateRecord,
  parseJsonl,
  readStateRecord,
  rebuildFromTail,
  sniffFhSnapshotLine,
  rebuildStateFromLog,
  snapshotRecord,
  type FileHistoryBackup,
  type FileHistoryState,
  type SessionLog,
} from '../src/index.js';
import { random } from './random.js';

const ROOT = '/work/project';
const T0 = new Date('2026-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const backup = (hash: string, version: number): FileHistoryBackup => ({ backupFileName: `${hash.padStart(16, '0')}@v${version}`, version, backupTime: at(version), size: 3, mode: 0o644 });

/** A log over JSONL text with `readStream` and `readTail` (as `FsSessionLog` reads a file), counting the tail bytes read. */
function textLog(text: string, withSize = false, state?: Uint8Array): SessionLog & { tailBytesRead: number; readWhole: boolean; streamed: number; tailReads: number } {
  const bytes = Buffer.from(text, 'utf8');
  const log = {
    readState: async () => state,
    tailBytesRead: 0,
    /** The last readTail returned the whole log. */
    readWhole: false,
    streamed: 0,
    append: async () => undefined,
    read: async () => parseJsonl(text),
    readStream: async function* () {
      log.streamed += 1;
      yield bytes;
    },
    tailReads: 0,
    readTail: async (headBytes: number, tailBytes: number) => {
      log.tailReads += 1;
      const size = withSize ? { size: bytes.length } : {};
      log.readWhole = bytes.length <= headBytes + tailBytes;
      if (log.readWhole) return { head: [], tail: bytes, whole: true, ...size };
      log.tailBytesRead += tailBytes;
      const head = bytes.subarray(0, headBytes);
      return { head: parseJsonl(head.subarray(0, head.lastIndexOf(0x0a) + 1).toString('utf8')).records, tail: bytes.subarray(bytes.length - tailBytes), whole: false, ...size };
    },
  };
  return log;
}

const view = (state: FileHistoryState) => ({
  snapshots: state.snapshots.map((snapshot) => ({ ...snapshot })),
  trackedFiles: [...state.trackedFiles].sort(),
  snapshotSequence: state.snapshotSequence,
  superseded: state.superseded,
  heldSnapshots: state.heldSnapshots,
});

/** An fh-form log as FileHistory writes it: a full record every `fullEvery` snapshots, diffs between, attachments, other records. */
function fhLog(next: () => number, turns: number, fullEvery: number, noise: boolean): string {
  const lines = [JSON.stringify(fhSessionRecord({ sessionId: 's', projectRoot: ROOT, createdAt: T0 }))];
  let current: Record<string, FileHistoryBackup> = {};
  let version = 1;
  const pending = new Map<number, Record<string, string>>();
  for (let sequence = 1; sequence <= turns; sequence += 1) {
    const messageId = `u${sequence}`;
    const files: Record<string, FileHistoryBackup> = {};
    for (const file of ['a.txt', 'b.txt', 'c/d.txt', 'e.txt']) if (next() < 0.4) files[file] = backup(file.length.toString(16), (version += 1));
    const removed = next() < 0.1 && current['b.txt'] !== undefined ? ['b.txt'] : [];
    const superseded: Record<string, string> = {};
    for (const path of [...Object.keys(files), ...removed]) if (current[path] !== undefined && current[path].version > 1) superseded[path] = current[path].backupFileName as string;
    if (Object.keys(superseded).length > 0) pending.set(sequence, superseded);
    pending.delete(sequence - 12);
    current = { ...current, ...files };
    for (const path of removed) delete current[path];
    if (sequence === 1 || sequence % fullEvery === 0) {
      lines.push(JSON.stringify(fullSnapshotRecord({ messageId, timestamp: at(sequence), trackedFileBackups: current }, sequence, pending)));
    } else {
      lines.push(JSON.stringify(diffSnapshotRecord(messageId, at(sequence), sequence, sequence - 1, files, removed)));
    }
    if (next() < 0.3) {
      const attached = { [`new-${sequence}.txt`]: backup('f', 1) };
      current = { ...current, ...attached };
      lines.push(JSON.stringify(next() < 0.5 ? attachSnapshotRecord(messageId, sequence, attached) : deltaRecord(messageId, `new-${sequence}.txt`, attached[`new-${sequence}.txt`] as FileHistoryBackup, at(sequence))));
    }
    if (noise && next() < 0.2) lines.push(next() < 0.5 ? '{"type":"fh-undo-point","id":"p"}' : next() < 0.5 ? 'not json' : '{"type":"user","message":"mentions file-history-snapshot"}');
  }
  return `${lines.join('\n')}\n`;
}

describe('rebuildFromTail', () => {
  it('gives exactly what rebuildStateFromLog gives for the whole log whenever it answers, on 200 random fh-form logs, and answers for long ones', async () => {
    let answered = 0;
    for (let seed = 1; seed <= 200; seed += 1) {
      const next = random(seed);
      const maxSnapshots = [1, 3, 5, 10][Math.floor(next() * 4)] as number;
      const turns = Math.floor(next() * 60);
      let text = fhLog(next, turns, 1 + Math.floor(next() * 12), next() < 0.5);
      if (next() < 0.2) text += '{"type":"fh-snapshot","version":2,"kind":"diff"';
      const options = { projectRoot: ROOT, maxSnapshots, headBytes: 300, tailBytesSteps: [500, 2000, 8000] };
      const warnings: string[] = [];
      const log = textLog(text, next() < 0.5);
      const tail = await rebuildFromTail(log, { ...options, onWarning: (message) => warnings.push(message) });
      const whole = await rebuildStateFromLog(textLog(text), options);
      if (tail === undefined) continue;
      answered += 1;
      expect({ seed, ...view(tail.state) }).toEqual({ seed, ...view(whole.state) });
      expect({ seed, diffBase: tail.diffBase, sessions: tail.sessions }).toEqual({ seed, diffBase: whole.diffBase, sessions: whole.sessions });
      expect(tail.hasRecords).toBe(whole.hasRecords);
      // Read whole (the log fits a read): every skipped line as the whole-log rebuild reports it;
      // else only those from the start record on, without their numbers.
      if (log.readWhole) expect({ seed, skipped: tail.skippedLines }).toEqual({ seed, skipped: whole.skippedLines });
      for (const [reason, { count, firstLine }] of log.readWhole ? [] : tail.skippedLines) {
        expect(firstLine).toBe(0);
        expect(count).toBeLessThanOrEqual(whole.skippedLines.get(reason)?.count ?? 0);
      }
      expect(warnings).toEqual([]);
    }
    expect(answered).toBeGreaterThan(60);
  });

  it('reads only the records from the newest full record the kept snapshots need, not the whole log', async () => {
    const text = fhLog(random(7), 400, 20, false);
    const log = textLog(text);
    const tail = await rebuildFromTail(log, { projectRoot: ROOT, maxSnapshots: 10, headBytes: 300, tailBytesSteps: [4000, 16000, 64000] });
    expect(tail).toBeDefined();
    expect(log.tailBytesRead).toBeLessThan(text.length / 4);
    expect(tail?.state.snapshots.map((snapshot) => snapshot.messageId)).toEqual(Array.from({ length: 10 }, (_, index) => `u${391 + index}`));
    expect(tail?.state.snapshotSequence).toBe(400);
    expect(tail?.diffBase).toBe(400);
  });

  it("reads a log whose end holds no snapshot record (one turn's attachments) whole in its second read, when the log gives its size", async () => {
    const lines = [JSON.stringify(fhSessionRecord({ sessionId: 's', projectRoot: ROOT, createdAt: T0 })), JSON.stringify(fullSnapshotRecord({ messageId: 'u1', timestamp: at(1), trackedFileBackups: {} }, 1))];
    for (let batch = 0; batch < 200; batch += 1) {
      const entries = Object.fromEntries(Array.from({ length: 5 }, (_, index) => [`f${batch}-${index}.txt`, backup((batch * 5 + index).toString(16), 1)]));
      lines.push(JSON.stringify(attachSnapshotRecord('u1', 1, entries)));
    }
    const text = `${lines.join('\n')}\n`;
    const options = { projectRoot: ROOT, maxSnapshots: 5, headBytes: 300, tailBytesSteps: [4000, 16000, 64000, 256000] };
    const sized = textLog(text, true);
    const tail = await rebuildFromTail(sized, options);
    expect({ reads: sized.tailReads, whole: sized.readWhole }).toEqual({ reads: 2, whole: true });
    const unsized = textLog(text);
    expect(view((await rebuildFromTail(unsized, options))?.state as FileHistoryState)).toEqual(view((tail as { state: FileHistoryState }).state));
    expect(unsized.tailReads).toBe(4);
    expect(Object.keys(tail?.state.snapshots[0]?.trackedFileBackups ?? {})).toHaveLength(1000);
  });

  it('reports a torn last line (an append cut by a crash) once, without its number, and rebuilds what the whole log gives', async () => {
    const text = `${fhLog(random(3), 100, 10, false)}{"type":"fh-snapshot","version":2,"kind":"diff","sequence":101,"base":100,"messageId":"u101","entr`;
    const tail = await rebuildFromTail(textLog(text), { projectRoot: ROOT, maxSnapshots: 5, headBytes: 300, tailBytesSteps: [8000, 32000] });
    const whole = await rebuildStateFromLog(textLog(text), { projectRoot: ROOT, maxSnapshots: 5 });
    expect(tail?.skippedLines).toEqual(new Map([['torn last line', { count: 1, firstLine: 0 }]]));
    expect(whole.skippedLines.get('torn last line')?.count).toBe(1);
    expect(view((tail as { state: FileHistoryState }).state)).toEqual(view(whole.state));
  });

  it("leaves Claude Code's transcripts (file-history-snapshot records, no fh-session record) it cannot read whole to the whole-log rebuild", async () => {
    const claude = Array.from({ length: 300 }, (_, index) => JSON.stringify(snapshotRecord({ messageId: `m${index}`, timestamp: at(index), trackedFileBackups: { 'a.txt': backup('a', index + 1) } }, false))).join('\n');
    expect(await rebuildFromTail(textLog(`${claude}\n`), { projectRoot: ROOT, maxSnapshots: 5, headBytes: 300, tailBytesSteps: [2000] })).toBeUndefined();
    const mixed = `${fhLog(random(5), 100, 10, false)}${claude}\n`;
    expect(await rebuildFromTail(textLog(mixed), { projectRoot: ROOT, maxSnapshots: 5, headBytes: 300, tailBytesSteps: [20000] })).toBeUndefined();
  });

  it('rebuilds a log one read covers whole from the bytes read, exactly as rebuildStateFromLog does (skipped lines with their numbers), without reading it again', async () => {
    const claude = Array.from({ length: 30 }, (_, index) => JSON.stringify(snapshotRecord({ messageId: `m${index}`, timestamp: at(index), trackedFileBackups: { 'a.txt': backup('a', index + 1) } }, false))).join('\n');
    const logs = [fhLog(random(9), 3, 10, false), `${fhLog(random(5), 20, 10, true)}not json\n${claude}\n{"type":"fh-snapshot","ver`, `${claude}\n`, ''];
    for (const text of logs) {
      const log = textLog(text);
      const tail = await rebuildFromTail(log, { projectRoot: ROOT, maxSnapshots: 5, headBytes: 300, tailBytesSteps: [500_000] });
      const whole = await rebuildStateFromLog(textLog(text), { projectRoot: ROOT, maxSnapshots: 5 });
      expect(tail).toBeDefined();
      expect(view((tail as { state: FileHistoryState }).state)).toEqual(view(whole.state));
      expect({ diffBase: tail?.diffBase, sessions: tail?.sessions, hasRecords: tail?.hasRecords, skippedLines: tail?.skippedLines }).toEqual({ diffBase: whole.diffBase, sessions: whole.sessions, hasRecords: whole.hasRecords, skippedLines: whole.skippedLines });
      expect({ readWhole: log.readWhole, streamed: log.streamed }).toEqual({ readWhole: true, streamed: 0 });
    }
  });
});

/**
 * The state record FileHistory would write beside `text` naming its diff line `index` as anchor:
 * the snapshot that line is a diff against, as the log's lines before it rebuild it, in full.
 * Undefined when that line is not a diff against the newest snapshot before it.
 */
async function stateBeside(text: string, index: number): Promise<{ bytes: Buffer; sequence: number } | undefined> {
  const lines = text.split('\n');
  const head = sniffFhSnapshotLine(lines[index] as string);
  if (head?.kind !== 'diff') return undefined;
  const before = await rebuildStateFromLog(textLog(`${lines.slice(0, index).join('\n')}\n`), { projectRoot: ROOT });
  const base = before.state.snapshots.at(-1);
  if (base === undefined || head.base === undefined || before.diffBase !== head.base) return undefined;
  const body = JSON.stringify(fullSnapshotRecord(base, head.base));
  return { bytes: formatStateRecord(anchorOf({ sequence: head.sequence, base: head.base, messageId: head.messageId, line: lines[index] as string }), body), sequence: head.sequence };
}

describe('rebuildFromTail with a state record beside the log (fh-state version 1)', () => {
  const options = { projectRoot: ROOT, maxSnapshots: 5, headBytes: 300, tailBytesSteps: [3000, 12000] };

  it('starts at the state record when its anchor line is in the log and gives exactly what the whole log gives, on 60 random logs with any later records', async () => {
    let used = 0;
    for (let seed = 1; seed <= 60; seed += 1) {
      const next = random(seed);
      const text = fhLog(next, 40 + Math.floor(next() * 30), 25 + Math.floor(next() * 20), next() < 0.5);
      const lines = text.split('\n');
      // The anchor: a diff line from which 4 to 12 snapshot lines follow (so its base is kept; more turns were logged after the state).
      const snapshotLines = lines.flatMap((line, index) => (sniffFhSnapshotLine(line) === undefined || sniffFhSnapshotLine(line)?.kind === 'attach' ? [] : [index]));
      const state = await stateBeside(text, snapshotLines.at(-4 - Math.floor(next() * 9)) as number);
      if (state === undefined) continue;
      const tail = await rebuildFromTail(textLog(text, false, state.bytes), options);
      const whole = await rebuildStateFromLog(textLog(text), options);
      expect(tail).toBeDefined();
      expect({ seed, ...view(tail?.state as FileHistoryState) }).toEqual({ seed, ...view(whole.state) });
      expect({ seed, diffBase: tail?.diffBase, sessions: tail?.sessions }).toEqual({ seed, diffBase: whole.diffBase, sessions: whole.sessions });
      if (tail?.anchorLines?.[0]?.sequence === state.sequence) used += 1;
    }
    expect(used).toBeGreaterThan(20);
  });

  it('ignores a state record ahead of the log (the log cut before its anchor), a torn one, and one whose anchor line differs, and rebuilds what the log alone gives', async () => {
    const text = fhLog(random(11), 60, 40, false);
    const lines = text.split('\n');
    let index = lines.length - 16;
    let state = await stateBeside(text, index);
    while (state === undefined) state = await stateBeside(text, (index -= 1));
    const good = await rebuildFromTail(textLog(text, false, state.bytes), options);
    expect(good?.anchorLines?.[0]?.sequence).toBe(state.sequence);
    // The log holds the lines before the anchor only: the state describes records it does not hold.
    const cut = `${lines.slice(0, index).join('\n')}\n`;
    const ahead = (await rebuildFromTail(textLog(cut, false, state.bytes), options)) ?? (await rebuildStateFromLog(textLog(cut, false, state.bytes), options));
    expect(view(ahead.state)).toEqual(view((await rebuildStateFromLog(textLog(cut), options)).state));
    // A torn state record (cut anywhere, as a crash while writing it leaves it) is not a state record.
    for (const length of [0, 10, state.bytes.indexOf(0x0a), state.bytes.indexOf(0x0a) + 1, state.bytes.length - 1]) {
      expect(readStateRecord(state.bytes.subarray(0, length))).toBeUndefined();
      const torn = await rebuildFromTail(textLog(text, false, state.bytes.subarray(0, length)), options);
      expect(torn?.anchorLines?.[0]?.sequence).not.toBe(state.sequence);
      expect(view((torn ?? (await rebuildStateFromLog(textLog(text), options))).state)).toEqual(view(good?.state as FileHistoryState));
    }
    // The anchor line rewritten (same head and length, another entry): its hash no longer matches.
    const changed = [...lines];
    changed[index] = (changed[index] as string).replace(/"size":3/, '"size":4');
    expect(changed[index]).not.toBe(lines[index]);
    const rewritten = `${changed.join('\n')}`;
    const other = await rebuildFromTail(textLog(rewritten, false, state.bytes), options);
    expect(other?.anchorLines?.[0]?.sequence).not.toBe(state.sequence);
    expect(view((other ?? (await rebuildStateFromLog(textLog(rewritten), options))).state)).toEqual(view((await rebuildStateFromLog(textLog(rewritten), options)).state));
  });
});

describe('adoptBackupEntry', () => {
  const wellFormed = [
    { backupFileName: '00000000000000aa@v2', version: 2, backupTime: '2026-01-01T00:00:02.000Z', size: 3, mode: 420, sha256: 'a'.repeat(64) },
    { backupFileName: null, version: 1, backupTime: '2026-01-01T00:00:02.000Z' },
    { backupFileName: '00000000000000aa@v3', version: 3, backupTime: '2026-01-01T00:00:02.000Z', error: 'EIO', changedBy: [{ by: 'main', at: '2026-01-01T00:00:01.000Z' }, { by: 'subagent', agentId: 'a1', agentType: 'helper', at: '2026-01-01T00:00:01.500Z' }] },
  ];
  it('takes a well-formed entry over in place, equal to what parseBackupEntry makes of it', () => {
    for (const entry of wellFormed) {
      const expected = parseBackupEntry(structuredClone(entry), 'test', 'a.txt', () => {});
      const raw = structuredClone(entry);
      const adopted = adoptBackupEntry(raw);
      expect(adopted).toBe(raw);
      expect(adopted).toEqual(expected);
      expect(adopted?.backupTime).toBeInstanceOf(Date);
    }
  });

  it('leaves anything else to parseBackupEntry, untouched: unknown fields, bad names, versions, times, hashes, modes, attributions', () => {
    const base = wellFormed[0] as Record<string, unknown>;
    const bad: unknown[] = [
      { ...base, extra: 1 },
      { ...base, backupFileName: '../x@v2' },
      { ...base, version: 0 },
      { ...base, backupTime: 'yesterday' },
      { ...base, sha256: 'A'.repeat(64) },
      { ...base, sha256: 'a'.repeat(63) },
      { ...base, mode: 0o10000 },
      { ...base, size: -1 },
      { ...base, changedBy: [] },
      { ...base, changedBy: [{ by: 'main', at: '2026-01-01T00:00:01.000Z', note: 'x' }] },
      { ...base, changedBy: [{ by: 'subagent', at: '2026-01-01T00:00:01.000Z' }] },
      JSON.parse('{"__proto__":{"x":1},"backupFileName":null,"version":1,"backupTime":"2026-01-01T00:00:02.000Z"}'),
      'not an object',
    ];
    for (const entry of bad) {
      const before = JSON.stringify(entry);
      expect(adoptBackupEntry(entry)).toBeUndefined();
      expect(JSON.stringify(entry)).toBe(before);
    }
  });
});

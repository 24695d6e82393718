import { describe, expect, it } from 'vitest';
import { sortedPaths } from '../src/snapshot/make-snapshot.js';
import { parseJsonlLine } from '../src/state/jsonl.js';
import { isCleanKey, parseLines, rebuildStateFromBytes, type ByteLine } from '../src/state/rebuild.js';
import { BACKUP_FILE_NAME_PATTERN, fhSessionRecord, isBackupFileName, parseRecordTime } from '../src/state/records.js';
import { copyBackupMap } from '../src/state/snapshot-chain.js';
import { attachSnapshotRecord, fullSnapshotRecord } from '../src/state/snapshot-records.js';
import { random } from './random.js';

function pick(next: () => number, alphabet: string, length: number): string {
  let text = '';
  for (let index = 0; index < length; index += 1) text += alphabet[Math.floor(next() * alphabet.length)];
  return text;
}

describe("a rebuild's character-by-character checks", () => {
  it('isCleanKey accepts exactly the keys the tracking-form pattern accepts, on 20,000 random keys', () => {
    const pattern = /^(?!\/)(?!.*\/\/)(?!(?:.*\/)?\.\.?(?:\/|$))[^\0\\]*[^\0\\/]$/;
    const next = random(1);
    const fixed = ['a.txt', 'src/a.ts', '/abs', 'a//b', 'a/', './a', '../a', 'a/./b', 'a/..', '.a', '..a', 'a..', 'C:x', 'c:/x', '1:x', 'a\\b', 'a\0b', '', '.', '..', '...'];
    for (const key of [...fixed, ...Array.from({ length: 20_000 }, () => pick(next, 'ab./\\:C\0', 1 + Math.floor(next() * 7)))]) {
      expect({ key, clean: isCleanKey(key) }).toEqual({ key, clean: pattern.test(key) && !/^[A-Za-z]:/.test(key) });
    }
  });

  it('isBackupFileName accepts exactly what BACKUP_FILE_NAME_PATTERN accepts, on 20,000 random names', () => {
    const next = random(2);
    const names = Array.from({ length: 20_000 }, () => {
      const hex = pick(next, '0123456789abcdefA', next() < 0.9 ? 16 : Math.floor(next() * 18));
      return `${hex}${next() < 0.9 ? '@v' : pick(next, '@vx', 2)}${pick(next, '0123456789a', Math.floor(next() * 17))}`;
    });
    for (const name of names) expect({ name, ok: isBackupFileName(name) }).toEqual({ name, ok: BACKUP_FILE_NAME_PATTERN.test(name) });
  });

  it('parseRecordTime gives what Date.parse gives, on 20,000 random and edge times', () => {
    const next = random(3);
    const texts = ['2026-02-29T00:00:00.000Z', '2024-02-29T23:59:59.999Z', '0099-01-01T00:00:00.000Z', '2026-13-01T00:00:00.000Z', '2026-01-01T24:00:00.000Z', '2026-01-01T00:60:00.000Z', '2026-01-01T00:00:00.000+', 'x', ''];
    for (let index = 0; index < 20_000; index += 1) {
      const time = new Date(Math.floor(next() * 8.64e15 * 2) - 8.64e15);
      texts.push(next() < 0.8 && Number.isFinite(time.getTime()) ? time.toJSON() : pick(next, '0123456789-T:.Z', 24));
    }
    for (const text of texts) expect({ text, time: parseRecordTime(text) }).toEqual({ text, time: Date.parse(text) });
  });
});

describe('parseLines (lines parsed in batches)', () => {
  const kinds = [
    () => JSON.stringify({ type: 'user', text: 'a "quoted" line \\ with ü' }),
    () => JSON.stringify({ type: 'fh-snapshot', entries: { 'a.txt': { backupFileName: null } } }),
    () => 'not json',
    () => '{"type":"user","x":[1',
    () => '{"type":"user","x":[{"a":1}',
    () => '{"type":"a"},{"type":"b"}',
    () => '{"type":"a"}}',
    () => '   ',
    () => '[1,2]',
    () => '"text"',
    () => '{"no":"type"}',
    () => `${JSON.stringify({ type: 'user' })}\r`,
    () => `{"type":"user","pad":"${'y'.repeat(150_000)}"}`,
    () => '{"type":"user","text":"cut',
  ];
  it('gives what parseJsonlLine gives for each line, in order, on 300 random logs of good, corrupt, torn and long lines (as bytes and as text)', () => {
    const next = random(5);
    for (let trial = 0; trial < 300; trial += 1) {
      const texts = Array.from({ length: Math.floor(next() * 12) }, () => (kinds[Math.floor(next() * kinds.length)] as () => string)());
      const terminated = texts.map((_, index) => index < texts.length - 1 || next() < 0.7);
      const bytes = Buffer.from(texts.map((text) => `${text}\n`).join(''), 'utf8');
      const byteLines: ByteLine[] = [];
      let start = 0;
      texts.forEach((text, index) => {
        const end = start + Buffer.byteLength(text);
        byteLines.push({ line: index + 1, bytes, start, end, terminated: terminated[index] as boolean });
        start = end + 1;
      });
      const expected = texts.map((text, index) => ({ line: index + 1, parsed: parseJsonlLine(text, terminated[index]) }));
      for (const lines of [byteLines, texts.map((text, index) => ({ text, terminated: terminated[index] as boolean, line: index + 1 }))]) {
        const got: unknown[] = [];
        parseLines(lines, (parsed, line) => got.push({ line: line.line, parsed }));
        expect({ trial, got }).toEqual({ trial, got: expected });
      }
    }
  });
});

describe('copyBackupMap', () => {
  it('gives what a spread gives: the same own keys in the same order (a "__proto__" file and number-like keys included), the same entry objects, a plain object', () => {
    const entry = (version: number) => ({ backupFileName: null, version, backupTime: new Date(0) });
    const parsed = JSON.parse('{"b.txt":1,"__proto__":2,"10":3,"a/c.txt":4,"2":5}') as Record<string, number>;
    const source: Record<string, ReturnType<typeof entry>> = {};
    for (const key of Object.keys(parsed)) Object.defineProperty(source, key, { value: entry(parsed[key] as number), enumerable: true, writable: true, configurable: true });
    for (let index = 0; index < 2000; index += 1) source[`f${index}.ts`] = entry(index + 10);
    delete source['f7.ts'];
    const copy = copyBackupMap(source);
    const spread = { ...source };
    expect(Object.keys(copy)).toEqual(Object.keys(spread));
    for (const key of Object.keys(spread)) expect(copy[key]).toBe(spread[key]);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    copy['new.ts'] = entry(1);
    expect(Object.hasOwn(source, 'new.ts')).toBe(false);
  });
});

describe("a rebuild's shared times", () => {
  it('gives entries backed up at the same time one Date, of that time, and entries at other times their own', async () => {
    const time = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
    const entry = (hex: string, ms: number, by?: number) => ({ backupFileName: `${hex.padStart(16, '0')}@v1`, version: 1, backupTime: time(ms), size: 1, mode: 0o644, ...(by === undefined ? {} : { changedBy: [{ by: 'main' as const, at: time(by) }] }) });
    const text = [
      fhSessionRecord({ sessionId: 's', projectRoot: '/p', createdAt: time(0) }),
      fullSnapshotRecord({ messageId: 'u1', timestamp: time(0), trackedFileBackups: { 'a.txt': entry('a', 5, 1), 'b.txt': entry('b', 5, 1) } }, 1),
      attachSnapshotRecord('u1', 1, { 'c.txt': entry('c', 5, 2), 'd.txt': entry('d', 7) }),
    ]
      .map((record) => `${JSON.stringify(record)}\n`)
      .join('');
    const { state } = await rebuildStateFromBytes(Buffer.from(text), { projectRoot: '/p' });
    const backups = state.snapshots[0]?.trackedFileBackups ?? {};
    const [a, b, c, d] = ['a.txt', 'b.txt', 'c.txt', 'd.txt'].map((path) => backups[path]);
    expect([a, b, c, d].map((backup) => backup?.backupTime.toISOString())).toEqual([time(5), time(5), time(5), time(7)].map((date) => date.toISOString()));
    expect(a?.backupTime).toBe(b?.backupTime);
    expect(a?.backupTime).toBe(c?.backupTime);
    expect(d?.backupTime).not.toBe(a?.backupTime);
    expect(a?.changedBy?.[0]?.at).toBe(b?.changedBy?.[0]?.at);
    expect(c?.changedBy?.[0]?.at.toISOString()).toBe(time(2).toISOString());
  });
});

describe("makeSnapshot's sorted tracked paths", () => {
  it('equal a fresh sort of the set as it grows in place, and after a path is removed and added again', () => {
    const next = random(4);
    const tracked = new Set<string>();
    for (let round = 0; round < 200; round += 1) {
      const adds = Math.floor(next() * 5);
      for (let index = 0; index < adds; index += 1) tracked.add(pick(next, 'ab/c', 1 + Math.floor(next() * 6)));
      if (next() < 0.05 && tracked.size > 0) {
        const [first] = tracked;
        tracked.delete(first as string);
        tracked.add(pick(next, 'ab/c', 3));
        tracked.add(first as string);
      }
      const sorted = sortedPaths(tracked);
      expect({ round, sorted }).toEqual({ round, sorted: [...tracked].sort() });
      sorted.reverse();
      expect(sortedPaths(tracked)).toEqual([...tracked].sort());
    }
  });
});

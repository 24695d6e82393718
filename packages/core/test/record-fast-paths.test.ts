import { describe, expect, it } from 'vitest';
import { sortedPaths } from '../src/snapshot/make-snapshot.js';
import { isCleanKey } from '../src/state/rebuild.js';
import { BACKUP_FILE_NAME_PATTERN, isBackupFileName, parseRecordTime } from '../src/state/records.js';
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

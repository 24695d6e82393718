import { describe, expect, it } from 'vitest';
import { countLineChanges } from '../src/index.js';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe('countLineChanges', () => {
  it('counts lines added and removed going from the current file to the target', () => {
    expect(countLineChanges(bytes('a\nB\nc\nd\n'), bytes('a\nb\nc\n'))).toEqual({ insertions: 1, deletions: 2, binary: false });
  });

  it('counts a missing side as empty', () => {
    expect(countLineChanges(null, bytes('x\ny\n'))).toEqual({ insertions: 2, deletions: 0, binary: false });
    expect(countLineChanges(bytes('x\ny\nz'), null)).toEqual({ insertions: 0, deletions: 3, binary: false });
  });

  it('treats a NUL byte in the first 8 KiB of either side as binary, with no counts', () => {
    expect(countLineChanges(bytes('text\n'), new Uint8Array([0x61, 0x00, 0x0a]))).toEqual({ insertions: 0, deletions: 0, binary: true });
    const lateNul = new Uint8Array(9000).fill(0x61);
    lateNul[8500] = 0;
    expect(countLineChanges(lateNul, bytes('a\n'))?.binary).toBe(false);
  });

  it('gives up (undefined) when so many lines changed that the diff outlasts its time budget, and counts within one', () => {
    const before = Array.from({ length: 20_000 }, (_, index) => `line ${index}\n`).join('');
    const after = Array.from({ length: 20_000 }, (_, index) => `line ${index}\r\n`).join('');
    expect(countLineChanges(bytes(before), bytes(after), 50)).toBeUndefined();
    expect(countLineChanges(bytes(before), bytes(`${before}one more\n`), 60_000)).toEqual({ insertions: 1, deletions: 0, binary: false });
  });

  it('counts a missing final newline as a changed line', () => {
    expect(countLineChanges(bytes('last'), bytes('last\n'))).toEqual({ insertions: 1, deletions: 1, binary: false });
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readBlobs } from '../src/git.js';
it('git cat-file --batch: big, small, empty and over-cap blobs, each blob copied once and an over-cap one never kept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'blob-'));
  execFileSync('git', ['init', '-q', dir]);
  const contents = [Buffer.alloc(5_000_000, 7), Buffer.from('small\n'), Buffer.alloc(3_000_000, 9), Buffer.from(''), Buffer.from('tail')];
  const ids = contents.map((bytes, i) => { writeFileSync(join(dir, `f${i}`), bytes); return execFileSync('git', ['hash-object', '-w', `f${i}`], { cwd: dir }).toString().trim(); });
  const got: Array<Buffer | undefined> = [];
  await readBlobs('git', dir, ids, 4_000_000, async (i, b) => { got[i] = b; });
  expect(got.map((b) => b?.length)).toEqual([undefined, 6, 3_000_000, 0, 4]);
  expect(got[2]?.equals(contents[2] as Buffer)).toBe(true);
  expect(got[4]?.toString()).toBe('tail');
});

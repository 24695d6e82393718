/**
 * `fh diff --stat` lines up its `|` column in terminal columns: a path of wide (CJK) characters
 * counts two columns per character, and a long one is cut to `...` and its end by width.
 */
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox, writeFiles } from './helpers.js';

describe('fh diff --stat with wide characters', () => {
  it('pads and cuts paths by terminal width, not by string length', async () => {
    const box = await sandbox();
    const wide = '設定.txt';
    const long = `docs/${'長'.repeat(30)}.md`;
    await writeFiles(box.project, { 'a.txt': 'a\n', [wide]: 'x\n', [long]: 'y\n' });
    expect((await box.fh(['--session', 's', 'snapshot', 't1'])).exitCode).toBe(0);
    expect((await box.fh(['--session', 's', 'track', 'a.txt', wide, long])).exitCode).toBe(0);
    for (const path of ['a.txt', wide, long]) await appendFile(join(box.project, path), 'more\n');
    const result = await box.fh(['--session', 's', 'diff', 't1', '--stat']);
    const cut = `...${'長'.repeat(22)}.md`;
    expect(result).toEqual({
      exitCode: 0,
      stdout: [
        ` a.txt${' '.repeat(45)} |   1 -`,
        ` ${cut} |   1 -`,
        ` ${wide}${' '.repeat(42)} |   1 -`,
        ' 3 files changed, 3 deletions(-)',
        '',
      ].join('\n'),
      stderr: '',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { sandbox, writeFiles } from './helpers.js';

const lines = (ending: string) => Array.from({ length: 30_000 }, (_, index) => `line ${index}${ending}`).join('');

describe('fh diff of a file whose every line changed', () => {
  it('counts it as changed without line counts, and --patch says why no patch is shown', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'generated.txt': lines('\n') });
    expect((await box.fh(['--session', 's', 'snapshot', 'm1'])).exitCode).toBe(0);
    expect((await box.fh(['--session', 's', 'track', 'generated.txt'])).exitCode).toBe(0);
    await writeFiles(box.project, { 'generated.txt': lines('\r\n') });

    const human = await box.fh(['--session', 's', 'diff', 'm1']);
    expect(human).toEqual({
      exitCode: 0,
      stdout: 'Rewinding to m1 would change 1 file (+0 -0; lines of 1 file not counted)\n  modify  generated.txt  too many changes to count\n',
      stderr: '',
    });
    const { json } = await box.fhJson<{ files: unknown[]; patch: string }>(['--session', 's', 'diff', 'm1', '--patch']);
    expect(json.files).toEqual([{ path: 'generated.txt', status: 'modified', insertions: 0, deletions: 0, binary: false, tooManyChanges: true }]);
    // The line diff gives up: the patch replaces every line, so git apply still takes it.
    const patch = json.patch.split('\n');
    expect(patch.slice(0, 4)).toEqual(['diff --git a/generated.txt b/generated.txt', '--- a/generated.txt', '+++ b/generated.txt', '@@ -1,30000 +1,30000 @@']);
    expect(patch[4]).toBe('-line 0\r');
    expect(patch[30_004]).toBe('+line 0');
    expect(patch).toHaveLength(60_005);
  });
});

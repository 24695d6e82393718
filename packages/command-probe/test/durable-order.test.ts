/**
 * A command window's record is written only once what it names is durable: the begin's tree (or
 * the index copy) fsynced with its folder before the window record's temp is fsynced and renamed,
 * and the folder fsynced after the rename. Checked on the system calls of a real process (strace).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { gitRepository } from './helpers.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('durable order of a command window begun in its own process', () => {
  it('fsyncs the tree file and its folder before the window record, and the folder after the record is renamed into place', () => {
    const base = mkdtempSync(join(tmpdir(), 'fh-durable-order-'));
    folders.push(base);
    const project = join(base, 'project');
    gitRepository(project, 'echo a > a.txt && echo b > b.txt');
    const stateDir = join(base, 'commands');
    const trace = join(base, 'trace.txt');
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const child = fileURLToPath(new URL('./fixtures/begin-window.ts', import.meta.url));
    const result = spawnSync('strace', ['-f', '-y', '-qq', '-e', 'trace=fsync,fdatasync,rename,renameat,renameat2', '-o', trace, process.execPath, '--import', tsx, child, project, join(base, 'store'), stateDir], { encoding: 'utf8' });
    expect([result.status, result.stderr]).toEqual([0, '']);
    const calls = readFileSync(trace, 'utf8').split('\n');
    const at = (pattern: RegExp): number => calls.findIndex((line) => pattern.test(line));
    const escaped = stateDir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const treeSynced = at(new RegExp(`fsync\\(\\d+<${escaped}/w1\\.tree>\\)`));
    const recordRenamed = at(new RegExp(`rename(at2?)?\\(.*${escaped}/\\.tmp-[0-9a-f]+.*${escaped}/window-w1\\.json`));
    const folderSyncs = calls.flatMap((line, index) => (new RegExp(`fsync\\(\\d+<${escaped}>\\)`).test(line) ? [index] : []));
    expect(treeSynced).toBeGreaterThanOrEqual(0);
    expect(recordRenamed).toBeGreaterThan(treeSynced);
    // The tree's name is durable before the record, and the record's name after its rename.
    expect(folderSyncs.some((index) => index > treeSynced && index < recordRenamed)).toBe(true);
    expect(folderSyncs.some((index) => index > recordRenamed)).toBe(true);
  });
});

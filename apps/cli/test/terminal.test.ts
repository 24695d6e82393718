/**
 * What fh draws only on a terminal, checked in a real pseudo-terminal (`script` from util-linux
 * records every byte fh writes to it) and on pipes: progress bars on stderr for rewind, undo and
 * track (issue 15), never on a pipe and never with --json; the patch through $PAGER on a
 * terminal, never on a pipe. FH_PROGRESS_DELAY_MS=0 makes a bar appear at once, so a few hundred
 * small files are enough to see one.
 */
import { execFileSync } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, sandbox, writeFiles, type Sandbox } from './helpers.js';

const FILES = 200;

/** Run `fh <args>` (with the sandbox's store and project) in a pseudo-terminal; returns every byte it wrote there. */
function inTerminal(box: Sandbox, args: readonly string[], env: Record<string, string> = {}): string {
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, cliPath, '--store', `fs:${box.store}`, '--project', box.project, ...args].map(quote).join(' ');
  const log = join(box.home, 'typescript');
  execFileSync('script', ['-q', '-e', '-c', command, log], {
    cwd: box.project,
    env: { ...baseEnvironment(box.home), TERM: 'xterm', COLUMNS: '120', LINES: '40', FH_PROGRESS_DELAY_MS: '0', ...env },
    stdio: 'ignore',
  });
  return execFileSync('cat', [log], { encoding: 'utf8' });
}

/** A session `s1` whose checkpoint m1 holds {@link FILES} files that have all changed since. */
async function changedFiles(box: Sandbox): Promise<void> {
  const files: Record<string, string> = {};
  for (let index = 0; index < FILES; index += 1) files[`src/f${index}.txt`] = `line ${index}\n`;
  await writeFiles(box.project, files);
  expect((await box.fh(['--session', 's1', 'snapshot', 'm1'])).exitCode).toBe(0);
  expect((await box.fh(['--session', 's1', 'track', ...Object.keys(files)])).exitCode).toBe(0);
  for (const path of Object.keys(files)) files[path] = `${files[path]}changed\n`;
  await writeFiles(box.project, files);
}

/** The bar lines `label [bar] n/total files …` drawn in `screen`, without their escape codes. */
function bars(screen: string, label: string): string[] {
  const plain = screen.replace(/\u001b\[[0-9;?]*[A-Za-z]|\u001b[78]/g, '\n');
  return plain.split(/[\r\n]+/).filter((line) => line.startsWith(`${label} [`));
}

describe('progress bars', () => {
  it('a long rewind draws a bar naming the phase with files and bytes in a terminal, and none on a pipe or with --json', async () => {
    const box = await sandbox();
    await changedFiles(box);
    const screen = inTerminal(box, ['--session', 's1', 'rewind', 'm1', '--mode', 'code', '--yes']);
    const writing = bars(screen, 'rewind: writing files');
    expect(writing.length).toBeGreaterThan(0);
    const bytes = Array.from({ length: FILES }, (_, index) => `line ${index}\n`.length).reduce((a, b) => a + b, 0);
    for (const line of writing) expect(line).toMatch(new RegExp(`^rewind: writing files \\[[█░]+\\] \\d+/${FILES} files · [\\d.]+ (B|KiB) of ${(bytes / 1024).toFixed(1)} KiB$`));
    expect(screen).toContain(`Rewound the code to m1: ${FILES} restored, 0 deleted, in ${box.project}`);
    expect(await readFile(join(box.project, 'src/f7.txt'), 'utf8')).toBe('line 7\n');

    // The undo of it, in a terminal: its own bar.
    const undo = inTerminal(box, ['--session', 's1', 'undo']);
    expect(bars(undo, 'undo: writing files').length).toBeGreaterThan(0);
    expect(await readFile(join(box.project, 'src/f7.txt'), 'utf8')).toBe('line 7\nchanged\n');

    // On a pipe: stderr stays empty, even with no delay.
    const piped = await box.fh(['--session', 's1', 'rewind', 'm1', '--mode', 'code', '--yes'], { env: { FH_PROGRESS_DELAY_MS: '0' } });
    expect(piped.exitCode).toBe(0);
    expect(piped.stderr).toBe('');
    expect(await readFile(join(box.project, 'src/f7.txt'), 'utf8')).toBe('line 7\n');

    // With --json in a terminal: one JSON document and no bar.
    await box.fh(['--session', 's1', 'undo']);
    const json = inTerminal(box, ['--json', '--session', 's1', 'rewind', 'm1', '--mode', 'code', '--yes']);
    expect(json).not.toContain('rewind:');
    expect(json).not.toMatch(/[█░]/);
    const document = JSON.parse(json.slice(json.indexOf('{'), json.lastIndexOf('}') + 1)) as { code: { restored: string[] } };
    expect(document.code.restored).toHaveLength(FILES);
  });

  it('fh track draws a bar counting files and bytes in a terminal, none on a pipe', async () => {
    const box = await sandbox();
    const files: Record<string, string> = {};
    for (let index = 0; index < FILES; index += 1) files[`t${index}.txt`] = 'x'.repeat(100);
    await writeFiles(box.project, files);
    expect((await box.fh(['--session', 't1', 'snapshot', 'm1'])).exitCode).toBe(0);
    const screen = inTerminal(box, ['--session', 't1', 'track', ...Object.keys(files)]);
    const lines = bars(screen, 'track: backing up files');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(new RegExp(`^track: backing up files \\[[█░]+\\] \\d+/${FILES} files · [\\d.]+ (B|KiB)$`));
    expect(screen).toContain('tracked t199.txt');
    const piped = await box.fh(['--session', 't2', 'snapshot', 'm1']).then(() => box.fh(['--session', 't2', 'track', ...Object.keys(files)], { env: { FH_PROGRESS_DELAY_MS: '0' } }));
    expect(piped.exitCode).toBe(0);
    expect(piped.stderr).toBe('');
  });
});

describe('fh run progress', () => {
  it('draws a bar for the copies before the command, in files and bytes; none on a pipe', async () => {
    const box = await sandbox();
    const files: Record<string, string> = {};
    for (let index = 0; index < FILES; index += 1) files[`w${index}.txt`] = 'y'.repeat(50);
    await writeFiles(box.project, files);
    expect((await box.fh(['--session', 'r1', 'snapshot', 'm1'])).exitCode).toBe(0);
    // Not a git repository: every file is backed up before the command (a walk).
    const screen = inTerminal(box, ['--session', 'r1', 'run', '--', 'sh', '-c', 'rm w7.txt']);
    const copies = bars(screen, 'run: backing up files before the command');
    expect(copies.length).toBeGreaterThan(0);
    for (const line of copies) expect(line).toMatch(new RegExp(`^run: backing up files before the command \\[[█░]+\\] \\d+/${FILES} files · [\\d.]+ (B|KiB) of ${((FILES * 50) / 1024).toFixed(1)} KiB$`));
    // The check after the command (lstat of each file) is over before a bar can be drawn here; the
    // core's test (command-probe command-progress.test.ts) counts its events.
    expect(screen).toMatch(/captured 1 file\(s\) \(1 deleted\) into checkpoint m1/);
    const piped = await box.fh(['--session', 'r1', 'run', '--', 'sh', '-c', 'rm w8.txt'], { env: { FH_PROGRESS_DELAY_MS: '0' } });
    expect(piped.exitCode).toBe(0);
    expect(piped.stderr).not.toContain('run: ');
  });
});

describe('pager', () => {
  it('fh diff --patch goes through $PAGER in a terminal, straight to stdout on a pipe', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'one\n' });
    await box.fh(['--session', 'p1', 'snapshot', 'm1']);
    await box.fh(['--session', 'p1', 'track', 'a.txt']);
    await writeFiles(box.project, { 'a.txt': 'two\n' });
    const recorded = join(box.home, 'paged.txt');
    const pager = join(box.home, 'pager.sh');
    await writeFile(pager, `#!/bin/sh\ncat > '${recorded}'\necho "PAGER RAN: $LESS"\n`);
    await chmod(pager, 0o755);

    // On a pipe first: the patch on stdout, the pager not run.
    const piped = await box.fh(['--session', 'p1', 'diff', 'm1', '--patch'], { env: { PAGER: pager } });
    expect(piped.exitCode).toBe(0);
    expect(piped.stdout).toMatch(/\n\ndiff --git a\/a\.txt b\/a\.txt\n--- a\/a\.txt\n\+\+\+ b\/a\.txt\n@@ [^\n]+ @@\n-two\n\+one\n$/);
    expect(piped.stdout).not.toContain('PAGER RAN');
    await expect(readFile(recorded, 'utf8')).rejects.toThrow(/ENOENT/);

    const screen = inTerminal(box, ['--session', 'p1', 'diff', 'm1', '--patch'], { PAGER: pager, NO_COLOR: '1' });
    expect(screen).toContain('PAGER RAN: FRX');
    // The pager got exactly what a pipe gets; fh itself wrote none of it to the terminal.
    expect(await readFile(recorded, 'utf8')).toBe(piped.stdout);
    expect(screen).not.toContain('diff --git');
  });
});

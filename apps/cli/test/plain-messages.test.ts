/**
 * Error messages a person can act on (issue 15): what was wrong, what fh did (nothing, or which
 * files), what to do; no temp-file, `/proc/self/fd/…` or backup-object names unless --verbose;
 * repeated warnings as one line with a count; `fh track` of a symlink names the file it backed up.
 * Permission failures run as `nobody` (root reads everything).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { appendFile, chmod, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, sandbox, writeFiles, type CliResult, type Sandbox } from './helpers.js';
import { plainError } from '../src/plain-errors.js';

/**
 * Run fh as `nobody` (the sandbox chowned to it first) with the sandbox's store, project and
 * session `s`; with `input`, it is stdin (and no `--session`: `fh hook` takes it from the event).
 */
function asNobody(box: Sandbox, args: readonly string[], input?: string): CliResult {
  const session = input === undefined ? ['--session', 's'] : [];
  try {
    const stdout = execFileSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, cliPath, '--store', `fs:${box.store}`, '--project', box.project, ...session, ...args], {
      cwd: box.project,
      env: baseEnvironment(box.home),
      encoding: 'utf8',
      ...(input === undefined ? { stdio: ['ignore', 'pipe', 'pipe'] as const } : { input }),
    });
    return { exitCode: 0, stdout, stderr: '' };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { exitCode: failed.status, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A session `s` (owned by nobody) whose checkpoint t1 tracks `files`, all changed since. */
async function trackedAndChanged(box: Sandbox, files: Record<string, string>): Promise<void> {
  await writeFiles(box.project, files);
  execFileSync('chown', ['-R', 'nobody:nogroup', join(box.project, '..')]);
  expect(asNobody(box, ['snapshot', 't1']).exitCode).toBe(0);
  expect(asNobody(box, ['track', ...Object.keys(files)]).exitCode).toBe(0);
  for (const path of Object.keys(files)) await appendFile(join(box.project, path), 'changed\n');
}

describe('an edit fh cannot back up is blocked (run as nobody)', () => {
  it('a write-only file: fh hook exits 2 naming the file and the reason, and records nothing for it', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'wo.txt': 'precious\n' });
    execFileSync('chown', ['-R', 'nobody:nogroup', join(box.project, '..')]);
    expect(asNobody(box, ['snapshot', 't1']).exitCode).toBe(0);
    await chmod(join(box.project, 'wo.txt'), 0o200);
    const event = { session_id: 's', cwd: box.project, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(box.project, 'wo.txt'), content: 'x' } };
    const result = asNobody(box, ['hook'], JSON.stringify(event));
    expect(result).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: `fh hook: could not back up ${join(box.project, 'wo.txt')} before the Write call: cannot read it: permission denied. The Write call was blocked so that no edit goes ahead without its backup: nothing was changed; fix what is named above and retry it, or set FH_DISABLE_FILE_CHECKPOINTING=1 to let edits go ahead without backups.\n`,
    });
    expect(asNobody(box, ['--json', 'diff', 't1']).stdout).not.toContain('wo.txt');
  });
});

describe('a snapshot or checkpoint whose backup fails says so (run as nobody)', () => {
  it('fh snapshot and fh checkpoint exit 3 naming the file; the JSON lists it under failed, not backedUp', async () => {
    const box = await sandbox();
    await trackedAndChanged(box, { 'a.txt': 'one\n', 'b.txt': 'two\n' });
    // a.txt can no longer be read by the agent's user: its backup fails; b.txt's is made.
    await chmod(join(box.project, 'a.txt'), 0o200);
    const snapshot = asNobody(box, ['snapshot', 't2']);
    expect([snapshot.exitCode, snapshot.stdout, snapshot.stderr]).toEqual([
      3,
      'snapshot t2: 2 tracked files\n',
      `fh: snapshot t2 was recorded, but 1 file could not be backed up for it, so a rewind to it cannot restore that file: fix what is named below (space on the store's disk, the file's permissions) and run fh checkpoint to back it up\n  a.txt: cannot read ${join(box.project, 'a.txt')} to back it up: permission denied\n`,
    ]);
    await appendFile(join(box.project, 'b.txt'), 'again\n');
    const checkpoint = asNobody(box, ['--json', 'checkpoint', '--label', 'c']);
    expect(checkpoint.exitCode).toBe(3);
    const document = JSON.parse(checkpoint.stdout) as { backedUp: string[]; failed: Array<{ path: string; error: string }> };
    expect([document.backedUp, document.failed]).toEqual([['b.txt'], [{ path: 'a.txt', error: `cannot read ${join(box.project, 'a.txt')} to back it up: permission denied` }]]);
  });
});

describe('plainError: a backup that failed on the store\'s side', () => {
  it('says the store cannot be written for ENOSPC, EDQUOT and EROFS, and that the file cannot be read otherwise', () => {
    const failed = (code: string) => plainError(`back up "/p/f.bin" as "abc@v2" (session "s"): ${code}`);
    expect(['ENOSPC (no space left on the device)', 'EDQUOT', 'EROFS', 'EACCES (permission denied)'].map(failed)).toEqual([
      'cannot back /p/f.bin up: the store cannot be written: no space left on the device',
      'cannot back /p/f.bin up: the store cannot be written: the disk quota is used up',
      'cannot back /p/f.bin up: the store cannot be written: EROFS',
      'cannot read /p/f.bin to back it up: permission denied',
    ]);
  });
});

describe('an edit whose store cannot be opened is blocked', () => {
  it('a store "folder" that is a file: fh hook exits 2 naming the store failure, and the file is untouched', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'precious\n' });
    const storeFile = join(box.home, 'store-is-a-file');
    await writeFile(storeFile, 'x');
    const event = { session_id: 's', cwd: box.project, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: 'a.txt' } };
    const result = spawnSync(process.execPath, [cliPath, '--store', `fs:${storeFile}`, 'hook'], { cwd: box.project, env: baseEnvironment(box.home), encoding: 'utf8', input: JSON.stringify(event) });
    expect([result.status, result.stdout, result.stderr]).toEqual([
      2,
      '',
      `fh hook: could not back up a.txt before the Edit call: the store cannot be used: read session log "${storeFile}/sessions/s.jsonl": ENOTDIR (not a usable file path). The Edit call was blocked so that no edit goes ahead without its backup: nothing was changed; fix what is named above and retry it, or set FH_DISABLE_FILE_CHECKPOINTING=1 to let edits go ahead without backups.\n`,
    ]);
    expect([await readFile(join(box.project, 'a.txt'), 'utf8'), await readFile(storeFile, 'utf8')]).toEqual(['precious\n', 'x']);
  });
});

describe('a Bash command whose store cannot be opened is blocked', () => {
  it('a store "folder" that is a file: the PreToolUse of Bash exits 2 naming the store failure; its PostToolUse does nothing', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'precious\n' });
    const storeFile = join(box.home, 'store-is-a-file');
    await writeFile(storeFile, 'x');
    const hook = (phase: string) =>
      spawnSync(process.execPath, [cliPath, '--store', `fs:${storeFile}`, 'hook'], {
        cwd: box.project,
        env: baseEnvironment(box.home),
        encoding: 'utf8',
        input: JSON.stringify({ session_id: 's', cwd: box.project, hook_event_name: phase, tool_name: 'Bash', tool_input: { command: 'rm a.txt' }, tool_use_id: 'toolu_1' }),
      });
    const pre = hook('PreToolUse');
    expect([pre.status, pre.stdout, pre.stderr]).toEqual([
      2,
      '',
      `fh hook: could not record the project's files before the Bash call: the store cannot be written: not a usable file path. The Bash call was blocked so that no command runs without the backups of what it may change: nothing was changed; fix what is named above and retry it, or set FH_DISABLE_FILE_CHECKPOINTING=1 to let commands go ahead without backups.\n`,
    ]);
    const post = hook('PostToolUse');
    expect(post.status).toBe(0);
    expect([await readFile(join(box.project, 'a.txt'), 'utf8'), await readFile(storeFile, 'utf8')]).toEqual(['precious\n', 'x']);
  });
});

describe('standard output that cannot be written', () => {
  it('> /dev/full: the snapshot is taken, one line says only the report is missing, exit 1, no stack trace', async () => {
    const box = await sandbox();
    const full = openSync('/dev/full', 'w');
    const result = spawnSync(process.execPath, [cliPath, '--store', `fs:${box.store}`, '--project', box.project, '--session', 's', 'snapshot', 'm1'], {
      cwd: box.project,
      env: baseEnvironment(box.home),
      encoding: 'utf8',
      stdio: ['ignore', full, 'pipe'],
    });
    closeSync(full);
    expect([result.status, result.stderr]).toEqual([1, 'fh: could not write the output to standard output (ENOSPC); the command ran to its end, so what it did stands, and only its report is missing\n']);
    const list = execFileSync(process.execPath, [cliPath, '--store', `fs:${box.store}`, '--project', box.project, '--session', 's', '--json', 'list'], { env: baseEnvironment(box.home), encoding: 'utf8' });
    expect((JSON.parse(list) as { checkpoints: Array<{ messageId: string }> }).checkpoints.map((checkpoint) => checkpoint.messageId)).toEqual(['m1']);
  });
});

describe('messages without internals', () => {
  it('a read-only folder: the file and the reason, that nothing changed and what to do; no "Undo with"; --verbose keeps the internals', async () => {
    const box = await sandbox();
    await trackedAndChanged(box, { 'ro/c.txt': 'c at t1\n' });
    await chmod(join(box.project, 'ro'), 0o555);
    const rewind = asNobody(box, ['rewind', 't1', '--mode', 'code', '--yes']);
    expect(rewind).toEqual({
      exitCode: 3,
      stdout: `Rewound the code to t1: 0 restored, 0 deleted, 1 failed, in ${box.project}\n`,
      stderr: [
        'fh: 1 file could not be rewound',
        '  ro/c.txt: cannot write the file: permission denied (fh writes a temp file in its folder and renames it over the file, so the folder must be writable)',
        `Nothing was changed in ${box.project}.`,
        '',
      ].join('\n'),
    });
    expect(await readFile(join(box.project, 'ro/c.txt'), 'utf8')).toBe('c at t1\nchanged\n');
    const verbose = asNobody(box, ['--verbose', 'rewind', 't1', '--mode', 'code', '--yes']);
    expect(verbose.exitCode).toBe(3);
    expect(verbose.stderr).toMatch(/\/proc\/self\/fd\/\d+\/\.c\.txt\.fh-[0-9a-f]+\.tmp/);
    expect(verbose.stderr).toMatch(/restoreBackup "[0-9a-f]{16}@v1"/);
    // --json names the file, not the temp file beside it.
    const json = asNobody(box, ['--json', 'rewind', 't1', '--mode', 'code', '--yes']);
    expect(json.exitCode).toBe(3);
    expect((JSON.parse(json.stdout) as { code: { failed: unknown[] } }).code.failed).toEqual([
      { path: 'ro/c.txt', error: 'cannot write ro/c.txt: permission denied (fh writes a temp file in its folder and renames it over the file, so the folder must be writable)' },
    ]);

    // A file fh diff cannot read: fh's words, not Node's.
    await chmod(join(box.project, 'ro'), 0o755);
    await chmod(join(box.project, 'ro/c.txt'), 0o000);
    const diff = asNobody(box, ['diff', 't1']);
    expect(diff.exitCode).toBe(0);
    expect(diff.stdout.split('\n')).toContain('  cannot restore  ro/c.txt: cannot read it: permission denied');

    // A store folder this user cannot write, or read: named, nothing changed, what to do.
    execFileSync('chown', ['-R', 'root:root', box.store]);
    execFileSync('chmod', ['-R', 'go+rX', box.store]);
    const track = asNobody(box, ['track', 'ro/c.txt']);
    const advice = 'nothing was changed. Give this user access to it (read and write), or pass --store with a folder it can use';
    expect(track).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `fh: the store folder ${box.store} is not writable for this user (permission denied), so fh could not take the session's lock: ${advice}\n`,
    });
    // As fh makes it: 0700, so another user cannot even read the records.
    await chmod(join(box.store, 'sessions'), 0o700);
    expect(asNobody(box, ['track', 'ro/c.txt'])).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `fh: the store folder ${box.store} cannot be read by this user (permission denied), so fh could not read the session's records: ${advice}\n`,
    });
  });

  it('some files rewound, one failed: names how many changed and how to put them back', async () => {
    const box = await sandbox();
    await trackedAndChanged(box, { 'a.txt': 'a at t1\n', 'ro/c.txt': 'c at t1\n' });
    await chmod(join(box.project, 'ro'), 0o555);
    const rewind = asNobody(box, ['rewind', 't1', '--mode', 'code', '--yes']);
    expect(rewind.exitCode).toBe(3);
    expect(rewind.stdout).toContain(`Undo with: fh --store fs:${box.store} --session s --project ${box.project} undo\n`);
    expect(rewind.stderr).toBe(
      [
        'fh: 1 file could not be rewound',
        '  ro/c.txt: cannot write the file: permission denied (fh writes a temp file in its folder and renames it over the file, so the folder must be writable)',
        `1 other file in ${box.project} was rewound; the file named above was left as it was. To put everything back: fh --store fs:${box.store} --session s --project ${box.project} undo`,
        '',
      ].join('\n'),
    );
  });

  it('an unreadable file: the rewind refuses naming the file, says nothing changed; diff says why it will be refused', async () => {
    const box = await sandbox();
    await trackedAndChanged(box, { 'b.txt': 'b at t1\n' });
    await chmod(join(box.project, 'b.txt'), 0o000);
    const rewind = asNobody(box, ['rewind', 't1', '--mode', 'code', '--yes']);
    expect(rewind).toEqual({
      exitCode: 1,
      stdout: '',
      stderr:
        `fh: cannot read ${join(box.project, 'b.txt')} to back it up: permission denied\n` +
        `Nothing was changed in ${box.project}. Fix what is named above and rewind again, or leave that file out with --paths (fh --store fs:${box.store} --session s --project ${box.project} diff t1 lists the files).\n`,
    });
    const diff = asNobody(box, ['diff', 't1']);
    expect(diff.exitCode).toBe(0);
    expect(diff.stdout).toContain('but the rewind will be refused and change nothing: b.txt cannot be read');
    expect(diff.stdout).toContain('No other file would change: every change this rewind makes is to a file that cannot be read (make it readable, then rewind again).');
    expect(diff.stdout).not.toContain('missing backup');
  });
});

describe('fh track of a symbolic link', () => {
  it('names the file it backed up and the link that leads to it', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'real.txt': 'real\n' });
    await symlink('real.txt', join(box.project, 'link.txt'));
    expect((await box.fh(['--session', 'l', 'snapshot', 'm1'])).exitCode).toBe(0);
    expect(await box.fh(['--session', 'l', 'track', 'link.txt'])).toEqual({
      exitCode: 0,
      stdout: 'tracked real.txt (link.txt is a symbolic link to it; the link itself is left as it is)\n',
      stderr: '',
    });
    const { json } = await box.fhJson<{ tracked: string[]; links: unknown[] }>(['--session', 'l', 'track', 'link.txt']);
    expect([json.tracked, json.links]).toEqual([['real.txt'], [{ path: 'link.txt', target: 'real.txt' }]]);
    const list = await box.fhJson<{ checkpoints: Array<{ filesChanged: string[] }> }>(['--session', 'l', 'list']);
    await appendFile(join(box.project, 'real.txt'), 'more\n');
    const diff = await box.fhJson<{ filesChanged: string[] }>(['--session', 'l', 'diff', 'm1']);
    expect(list.json.checkpoints).toHaveLength(1);
    expect(diff.json.filesChanged).toEqual(['real.txt']);

    // A named pipe (and a folder) is bad input: refused without opening it (exit 2), nothing tracked.
    execFileSync('mkfifo', [join(box.project, 'pipe')]);
    expect(await box.fh(['--session', 'l', 'track', 'pipe'])).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'fh: pipe is a named pipe (FIFO), not a regular file: fh backs up regular files only, so nothing was tracked for it; track the regular files the agent will edit\n',
    });
    await writeFiles(box.project, { 'src/x.txt': 'x\n' });
    expect((await box.fh(['--session', 'l', 'track', 'src'])).stderr).toBe(
      'fh: src is a folder, not a regular file: fh backs up regular files only, so nothing was tracked for it; name the files in it (fh track src/<file>)\n',
    );
    expect((await box.fhJson<{ checkpoints: Array<{ filesChanged: string[] }> }>(['--session', 'l', 'list'])).json.checkpoints).toHaveLength(1);
  });
});

describe('repeated warnings', () => {
  it('six malformed records in the log: one warning line with the count, in fh list and in fh hook', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a\n' });
    expect((await box.fh(['--session', 'w', 'snapshot', 'm1'])).exitCode).toBe(0);
    await appendFile(join(box.store, 'sessions', 'w.jsonl'), '{"type":"file-history-snapshot","bogus":1}\n'.repeat(6));
    const list = await box.fh(['--session', 'w', 'list']);
    expect(list.exitCode).toBe(0);
    expect(list.stderr).toBe('fh: warning: file-history-snapshot record without a snapshot object skipped (and 5 more like it)\n');
    const event = JSON.stringify({ session_id: 'w', cwd: box.project, hook_event_name: 'UserPromptSubmit', prompt: 'next' });
    const hook = await box.fh(['hook'], { input: event });
    expect(hook).toEqual({ exitCode: 0, stdout: '', stderr: 'fh hook: warning: file-history-snapshot record without a snapshot object skipped (and 5 more like it)\n' });
  });
});

describe('a store fh cannot read', () => {
  it('fh sessions names the store and the reason, not a method name (exit 1)', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a\n' });
    expect((await box.fh(['--session', 's', 'snapshot', 'm1'])).exitCode).toBe(0);
    execFileSync('chown', ['-R', 'nobody:nogroup', join(box.project, '..')]);
    await chmod(join(box.store, 'sessions'), 0o700);
    execFileSync('chown', ['root:root', join(box.store, 'sessions')]);
    expect(asNobody(box, ['sessions'])).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `fh: cannot list the sessions in store ${box.store}: EACCES (permission denied)\n`,
    });
  });
});

import { readdir, readFile, rename, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, sandbox, tempFolder, writeFiles, type Sandbox } from './helpers.js';

const SESSION = 's1';

/** A session of one checkpoint t1 with a.txt and b.txt tracked, then a.txt edited. */
async function trackedSession(): Promise<Sandbox> {
  const box = await sandbox();
  await writeFiles(box.project, { 'a.txt': 'keep me\n', 'b.txt': 'keep me too\n' });
  expect((await box.fh(['--session', SESSION, 'snapshot', 't1'])).exitCode).toBe(0);
  expect((await box.fh(['--session', SESSION, 'track', 'a.txt', 'b.txt'])).exitCode).toBe(0);
  await writeFiles(box.project, { 'a.txt': 'edited\n' });
  return box;
}

/** The session log's lines. */
async function logLines(box: Sandbox): Promise<string[]> {
  return (await readFile(join(box.store, 'sessions', `${SESSION}.jsonl`), 'utf8')).trim().split('\n');
}

describe('--project guards: a mistyped project never records tracked files as absent', () => {
  it('every command refuses a --project folder that does not exist (exit 2), recording nothing', async () => {
    const box = await trackedSession();
    const before = await logLines(box);
    const missing = join(box.home, 'does-not-exist');
    const expected = { exitCode: 2, stdout: '', stderr: `fh: project folder ${missing} does not exist (--project); nothing was recorded\n` };
    for (const args of [['snapshot', 't2'], ['track', 'a.txt'], ['rewind', 't1', '--yes'], ['undo'], ['list'], ['diff', 't1'], ['resume', SESSION]]) {
      const result = await runCli(['--store', `fs:${box.store}`, '--session', SESSION, '--project', missing, ...args], { home: box.home, cwd: box.project });
      expect({ args, ...result }).toEqual({ args, ...expected });
    }
    expect(await logLines(box)).toEqual(before);
    expect(await readFile(join(box.project, 'a.txt'), 'utf8')).toBe('edited\n');
  });

  it('resume refuses, writing nothing, when the recorded project does not exist here and --project is not given (another machine)', async () => {
    const box = await trackedSession();
    const elsewhere = await tempFolder();
    const moved = join(elsewhere, 'moved-project');
    await rename(box.project, moved);
    const resume = (args: readonly string[]) => runCli(['--store', `fs:${box.store}`, ...args, 'resume', SESSION, '--to', 's2'], { home: box.home, cwd: elsewhere });
    expect(await resume([])).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: `fh: session s1 was recorded for project ${box.project}, which does not exist here: pass --project <folder> with the project's folder on this machine; nothing was written\n`,
    });
    expect(await readdir(join(box.store, 'sessions'))).toEqual([`${SESSION}.jsonl`]);

    const resumed = await resume(['--project', moved]);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toBe(`resumed s1 as s2: 1 checkpoint, 2 backups linked, 0 copied\ncontinue with: fh --store fs:${box.store} --session s2 --project ${moved} list\n`);
    const rewind = await runCli(['--store', `fs:${box.store}`, '--session', 's2', '--project', moved, 'rewind', 't1', '--mode', 'code', '--yes'], { home: box.home, cwd: elsewhere });
    expect(rewind.exitCode).toBe(0);
    expect(await readFile(join(moved, 'a.txt'), 'utf8')).toBe('keep me\n');
  });

  it('writing commands refuse a project other than the recorded one unless --other-project is given', async () => {
    const box = await trackedSession();
    const other = await tempFolder();
    const before = await logLines(box);
    const run = (args: readonly string[]) => runCli(['--store', `fs:${box.store}`, '--session', SESSION, '--project', other, ...args], { home: box.home, cwd: box.project });
    const refusal = `fh: session s1 was recorded for project ${box.project}, not ${other} (--project); nothing was changed. Leave out --project, or pass --other-project to use ${other} anyway\n`;
    for (const args of [['snapshot', 't2'], ['track', join(other, 'x.txt')], ['rewind', 't1', '--mode', 'code', '--yes'], ['undo']]) {
      expect({ args, ...(await run(args)) }).toEqual({ args, exitCode: 2, stdout: '', stderr: refusal });
    }
    expect(await logLines(box)).toEqual(before);

    const diff = await run(['diff', 't1']);
    expect(diff.exitCode).toBe(0);
    expect(diff.stderr).toBe(`fh: warning: session s1 was recorded for project ${box.project} and is opened for ${other}\n`);

    const forced = await run(['--other-project', 'snapshot', 't2']);
    expect(forced).toEqual({
      exitCode: 0,
      stdout: 'snapshot t2: 2 tracked files\n',
      stderr: `fh: warning: session s1 was recorded for project ${box.project} and is opened for ${other}\n`,
    });
  });

  it('the recorded project reached through a symbolic link is the same project: no refusal, no warning', async () => {
    const box = await trackedSession();
    const link = join(await tempFolder(), 'project-link');
    await symlink(box.project, link);
    const snapshot = await runCli(['--store', `fs:${box.store}`, '--session', SESSION, '--project', link, 'snapshot', 't2'], { home: box.home, cwd: link });
    expect(snapshot).toEqual({ exitCode: 0, stdout: 'snapshot t2: 2 tracked files\n', stderr: '' });
  });

  it('fh list finds the session from the real path when it recorded a symlinked path, and the other way round', async () => {
    const real = await tempFolder();
    const link = join(await tempFolder(), 'link');
    await symlink(real, link);
    const box = await sandbox();
    const fh = (cwd: string, args: readonly string[]) => runCli(['--store', `fs:${box.store}`, ...args], { home: box.home, cwd });
    expect((await fh(link, ['--session', 'through-link', '--project', link, 'snapshot', 'm1'])).exitCode).toBe(0);
    const fromReal = await fh(real, ['--json', 'list']);
    expect(fromReal.exitCode).toBe(0);
    expect(JSON.parse(fromReal.stdout)).toMatchObject({ sessionId: 'through-link', projectRoot: link });
    expect(fromReal.stderr).toBe(`fh: using session through-link, the latest of ${real} (pass --session to choose)\n`);

    const other = await sandbox();
    const byReal = (cwd: string, args: readonly string[]) => runCli(['--store', `fs:${other.store}`, ...args], { home: other.home, cwd });
    expect((await byReal(real, ['--session', 'by-real', '--project', real, 'snapshot', 'm1'])).exitCode).toBe(0);
    const fromLink = await byReal(link, ['--project', link, '--json', 'list']);
    expect(fromLink.exitCode).toBe(0);
    expect(JSON.parse(fromLink.stdout)).toMatchObject({ sessionId: 'by-real', projectRoot: real });
  });
});

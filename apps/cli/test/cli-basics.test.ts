import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, runCli, sandbox, tempFolder, writeFiles } from './helpers.js';

describe('the fs store under umask 022', () => {
  it('creates its folders 0700 and its records 0600; a backup keeps the bits of the file it copies', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a\n' });
    const store = join(box.home, 'fresh', 'store');
    const fh = `${process.execPath} ${cliPath} --store fs:${store} --project ${box.project} --session s`;
    execFileSync('sh', ['-c', `umask 022 && ${fh} snapshot m1 && ${fh} track a.txt`], { cwd: box.project, env: baseEnvironment(box.home), stdio: 'ignore' });
    const mode = (path: string) => (statSync(join(store, path)).mode & 0o777).toString(8);
    expect(['.', 'sessions', 'locks', 'file-history', 'file-history/s', 'sessions/s.jsonl'].map((path) => `${path} ${mode(path)}`)).toEqual([
      '. 700',
      'sessions 700',
      'locks 700',
      'file-history 700',
      'file-history/s 700',
      'sessions/s.jsonl 600',
    ]);
    expect(readdirSync(join(store, 'file-history', 's')).map((name) => mode(join('file-history', 's', name)))).toEqual(['644']);
    // The folders it made on the way to the store are the user's only too.
    expect((statSync(join(box.home, 'fresh')).mode & 0o777).toString(8)).toBe('700');
  });
});

describe('fh: global behaviour', () => {
  it('prints help and the version with exit 0', async () => {
    const home = await tempFolder();
    const help = await runCli(['--help'], { home });
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Usage: fh [options] [command]');
    for (const command of ['track', 'snapshot', 'sessions', 'list', 'diff', 'rewind', 'undo', 'resume', 'fork', 'cleanup', 'demo', 'hook']) {
      expect(help.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));
    }
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      '--store <uri> where backups and records live: fs:<folder> or a bare folder, or s3://<bucket>/<prefix> (credentials, AWS_REGION and AWS_ENDPOINT_URL_S3 from the environment, as the AWS SDK reads them) (default: fs:$FH_HOME, else fs:~/.fh)',
    );
    const version = await runCli(['--version'], { home });
    expect(version).toEqual({ exitCode: 0, stdout: '0.0.0\n', stderr: '' });
  });

  it('exits 2 on an unknown option or command, with the error on stderr and nothing on stdout', async () => {
    const home = await tempFolder();
    const option = await runCli(['--bogus'], { home });
    expect(option.exitCode).toBe(2);
    expect(option.stdout).toBe('');
    expect(option.stderr).toContain("error: unknown option '--bogus'");
    const command = await runCli(['frobnicate'], { home });
    expect(command.exitCode).toBe(2);
    expect(command.stderr).toContain("error: unknown command 'frobnicate'");
    const missing = await runCli(['diff'], { home });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("fh: fh diff needs a checkpoint: a message id, a unique prefix of it, or a turn number");
    expect(missing.stdout).toBe('');
  });

  it('exits 2 with one JSON error document on stdout for a usage error under --json', async () => {
    const home = await tempFolder();
    const result = await runCli(['--json', 'demo', '--commits', 'zero'], { home });
    expect(result.exitCode).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code: 'FH_USAGE',
        message: 'option \'--commits <n>\' argument \'zero\' is invalid. --commits must be a whole number of at least 1, not "zero"',
        details: [],
      },
    });
  });

  it('rejects an unknown store scheme with one line naming it (exit 2)', async () => {
    const home = await tempFolder();
    const result = await runCli(['--store', 'ftp://x/y', '--session', 's', 'list'], { home });
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: 'fh: unknown store "ftp://x/y": use fs:<folder> or s3://<bucket>/<prefix>\n' });
  });

  it('names an unknown session in one line, no stack trace, exit 1', async () => {
    const box = await sandbox();
    const result = await box.fh(['--session', 'nope', 'list']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`fh: session "nope" not found in fs:${box.store} (fh sessions lists them)\n`);
    const json = await box.fhJson<{ error: { code: string; message: string } }>(['--session', 'nope', 'list']);
    expect(json.result.exitCode).toBe(1);
    expect(json.json.error.code).toBe('FH_NOT_FOUND');
  });

  it('asks for a session when none is given and the project has none', async () => {
    const box = await sandbox();
    const result = await box.fh(['list']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      `fh: no session given and none found for ${box.project}: pass --session <id> or set FH_SESSION_ID (fh --store fs:${box.store} --project ${box.project} sessions lists them)\n`,
    );
  });

  it('never colours piped output, and colours it with FORCE_COLOR unless NO_COLOR is set', async () => {
    const box = await sandbox();
    const plain = await box.fh(['--session', 'nope', 'list']);
    expect(plain.stderr).not.toContain('\u001b[');
    const forced = await box.fh(['--session', 'nope', 'list'], { env: { FORCE_COLOR: '1' } });
    expect(forced.stderr).toContain('\u001b[31mfh:\u001b[39m');
    const vetoed = await box.fh(['--session', 'nope', 'list'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(vetoed.stderr).not.toContain('\u001b[');
  });
});

describe('usage exit codes', () => {
  it('bare fh prints the help on stderr and exits 2', async () => {
    const box = await sandbox();
    const result = await runCli([], { home: box.home, cwd: box.project });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Usage: fh \[options\] \[command\]\n/);
  });

  it('bad argument values (FH_INVALID_ARGUMENT) exit 2', async () => {
    const box = await sandbox();
    expect((await box.fh(['--session', 's', 'snapshot', 'm1', '--prompt', 'hi'])).exitCode).toBe(0);
    expect(await box.fh(['--session', '../x', 'list'])).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'fh: the session id must be a single path segment (not empty, not "." or "..", no "/", "\\" or NUL): "../x"\n',
    });
    expect(await box.fh(['--session', 's', 'snapshot', ''])).toEqual({ exitCode: 2, stdout: '', stderr: 'fh: the message id must be a non-empty string, got ""\n' });
    expect(await box.fh(['resume', 's', '--to', 's'])).toEqual({ exitCode: 2, stdout: '', stderr: 'fh: cannot resume session s into itself; give a new session id\n' });
    expect((await box.fh(['--session', 's', 'fork', 'm1', '--to', '../bad'])).exitCode).toBe(2);
    expect((await box.fh(['--session', 's', 'rewind', 'm1', '--mode', 'conversation', '--paths', 'a.txt', '--yes'])).exitCode).toBe(2);
    const json = await box.fhJson<{ error: { code: string } }>(['--session', '../x', 'list']);
    expect(json.result.exitCode).toBe(2);
    expect(json.json.error.code).toBe('FH_INVALID_ARGUMENT');
  });
});

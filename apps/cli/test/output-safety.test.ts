import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, sandbox, writeFiles } from './helpers.js';

/** Run fh with its stdout read for `bytes` bytes and then closed (like `fh … | head -c <bytes>`). */
function runWithClosedStdout(args: readonly string[], options: { home: string; cwd: string; bytes: number }): Promise<{ exitCode: number; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd: options.cwd, env: baseEnvironment(options.home), stdio: 'pipe' });
    let read = 0;
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read >= options.bytes) child.stdout.destroy();
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ exitCode: code ?? -1, stderr: Buffer.concat(stderr).toString('utf8') }));
    child.stdin.end();
  });
}

describe('human output is safe for terminals and pipes', () => {
  it('exits quietly with its own status when the reader closes stdout (fh diff --patch | head)', async () => {
    const box = await sandbox();
    const files = Object.fromEntries(Array.from({ length: 400 }, (_, index) => [`f${index}.txt`, `line ${index}\n`.repeat(50)]));
    await writeFiles(box.project, files);
    const args = ['--store', `fs:${box.store}`, '--project', box.project, '--session', 's'];
    expect((await box.fh(['--session', 's', 'snapshot', 't1'])).exitCode).toBe(0);
    expect((await box.fh(['--session', 's', 'track', ...Object.keys(files)])).exitCode).toBe(0);
    await writeFiles(box.project, Object.fromEntries(Object.keys(files).map((path) => [path, 'changed\n'])));
    const diff = await runWithClosedStdout([...args, 'diff', 't1', '--patch'], { home: box.home, cwd: box.project, bytes: 10 });
    expect(diff).toEqual({ exitCode: 0, stderr: '' });
    const list = await runWithClosedStdout([...args, '--json', 'list'], { home: box.home, cwd: box.project, bytes: 1 });
    expect(list).toEqual({ exitCode: 0, stderr: '' });
    const missing = await runWithClosedStdout([...args, 'diff', 'nosuch'], { home: box.home, cwd: box.project, bytes: 1 });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).not.toContain('EPIPE');
  });

  it('escapes control characters of prompts in list and rewind output, keeping the prompt\'s lines', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a\n' });
    const prompt = 'evil \u001b[31mRED\u001b[0m \u001b]0;pwned\u0007 end\nsecond line';
    expect((await box.fh(['--session', 's', 'snapshot', 't1', '--prompt', prompt])).exitCode).toBe(0);
    const list = await box.fh(['--session', 's', 'list']);
    expect(list.stdout.split('\n')[2]).toMatch(/^1  t1 +\S+ \S+ +evil \\u001b\[31mRED\\u001b\[0m \\u001b\]0;pwned\\u0007 … +0 +\+0 -0$/);
    expect(list.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    const rewind = await box.fh(['--session', 's', 'rewind', 't1', '--mode', 'conversation', '--yes']);
    expect(rewind.stdout.split('\n').slice(1, 4)).toEqual(['', 'evil \\u001b[31mRED\\u001b[0m \\u001b]0;pwned\\u0007 end', 'second line']);
    const json = await box.fhJson<{ conversation: { prompt: { text: string } } }>(['--session', 's', 'rewind', 't1', '--mode', 'conversation', '--yes']);
    expect(json.json.conversation.prompt.text).toBe(prompt);
  });

  it('escapes bidi controls (U+202E) in file names and prompts in human output; JSON keeps them exact', async () => {
    const box = await sandbox();
    const name = 'invoice\u202etxt.exe';
    await writeFiles(box.project, { [name]: 'one\n' });
    expect((await box.fh(['--session', 's', 'snapshot', 't1', '--prompt', 'pay \u202eevil'])).exitCode).toBe(0);
    expect((await box.fh(['--session', 's', 'track', name])).exitCode).toBe(0);
    await writeFiles(box.project, { [name]: 'two\n' });
    const diff = await box.fh(['--session', 's', 'diff', 't1']);
    expect(diff.stdout.split('\n')[1]).toBe('  modify  "invoice\\u202etxt.exe"  +1 -1');
    const list = await box.fh(['--session', 's', 'list']);
    expect(list.stdout).toContain('pay \\u202eevil');
    expect(diff.stdout + list.stdout).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    const json = await box.fhJson<{ filesChanged: string[] }>(['--session', 's', 'diff', 't1']);
    expect(json.json.filesChanged).toEqual([name]);
    const checkpoint = await box.fh(['--session', 's', 'checkpoint', '--label', 'bidi\u202e']);
    expect(checkpoint.stdout).toContain('"bidi\\u202e": 1 tracked file');
    expect(checkpoint.stdout).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });

  it('fh snapshot refuses a message id holding a control character (exit 2), recording nothing', async () => {
    const box = await sandbox();
    const result = await box.fh(['--session', 's', 'snapshot', 't1\u001b[2J']);
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: 'fh: message id "t1\\u001b[2J" holds a control character; use printable characters only\n' });
    const sessions = await box.fhJson<{ sessions: unknown[] }>(['sessions']);
    expect(sessions.json.sessions).toEqual([]);
    for (const id of ['3', '-1']) {
      expect(await box.fh(['--session', 's', 'snapshot', '--', id])).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: `fh: message id "${id}" is a number, which fh diff, rewind and show read as a turn number; use an id that is not a number (m${id.replace('-', '')}, say); nothing recorded\n`,
      });
    }
    expect((await box.fhJson<{ sessions: unknown[] }>(['sessions'])).json.sessions).toEqual([]);
  });

  it('escapes control characters in error messages (a session id from the environment)', async () => {
    const box = await sandbox();
    const result = await box.fh(['diff', 't1'], { env: { FH_SESSION_ID: 'x\u001b]0;t\u0007' } });
    expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(result.stderr).toContain('\\u001b]0;t\\u0007');
  });
});

import { execFile } from 'node:child_process';
import { readdir, readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_SESSION, writeClaudeFixture } from './claude-fixture.js';
import { baseEnvironment, cliPath, runCli, sandbox, tempFolder, writeFiles, type Sandbox } from './helpers.js';

/** Run a printed `fh …` hint through a real shell, with `fh` defined as the built CLI. */
function runHintInShell(hint: string, options: { home: string; cwd: string }): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    const script = `fh() { "${process.execPath}" "${cliPath}" "$@"; }\n${hint}\n`;
    execFile('/bin/sh', ['-c', script], { cwd: options.cwd, env: baseEnvironment(options.home), encoding: 'utf8' }, (error, stdout, stderr) =>
      resolvePromise({ exitCode: error === null ? 0 : Number((error as { code?: number }).code), stdout, stderr }),
    );
  });
}

/** Checkpoint t1 with a.txt ("a1") tracked; a.txt edited to "a2" afterwards. */
async function oneTurn(): Promise<Sandbox> {
  const box = await sandbox();
  await writeFiles(box.project, { 'a.txt': 'a1\n' });
  expect((await box.fh(['--session', 's1', 'snapshot', 't1'])).exitCode).toBe(0);
  expect((await box.fh(['--session', 's1', 'track', 'a.txt'])).exitCode).toBe(0);
  await writeFiles(box.project, { 'a.txt': 'a2\n' });
  return box;
}

describe('printed undo and redo hints are commands that work', () => {
  it('under --claude the hints carry --claude <dir> and --store; following them undoes and redoes', async () => {
    const base = await tempFolder();
    const fixture = await writeClaudeFixture(base);
    const home = join(base, 'home');
    const store = `fs:${join(base, 'it has spaces')}`;
    const rewind = await runCli(['--claude', fixture.configDir, '--store', store, 'rewind', 'u2', '--mode', 'code', '--yes'], { home, cwd: fixture.projectRoot });
    expect(rewind.exitCode).toBe(0);
    const session = `--session ${CLAUDE_SESSION}`;
    const hint = `fh --claude ${fixture.configDir} --store '${store}' ${session} undo`;
    expect(rewind.stdout.split('\n')).toContain(`Undo with: ${hint}`);
    const undo = await runHintInShell(hint, { home, cwd: fixture.projectRoot });
    expect(undo.exitCode).toBe(0);
    const redoHint = `fh --claude ${fixture.configDir} --store '${store}' ${session} redo`;
    expect(undo.stdout).toContain(`Redo with: ${redoHint}`);
    expect((await runHintInShell(redoHint, { home, cwd: fixture.projectRoot })).exitCode).toBe(0);
  });

  it('with --session, the undo hint names the session, so FH_SESSION_ID of another session does not change what it undoes', async () => {
    const box = await oneTurn();
    const rewind = await box.fh(['--session', 's1', 'rewind', 't1', '--yes']);
    const hint = `fh --store fs:${box.store} --session s1 --project ${box.project} undo`;
    expect(rewind.stdout.split('\n')).toContain(`Undo with: ${hint}`);
    const undo = await runHintInShell(`FH_SESSION_ID=other ${hint}`, { home: box.home, cwd: box.project });
    expect(undo.exitCode).toBe(0);
    expect(await readFile(join(box.project, 'a.txt'), 'utf8')).toBe('a2\n');
    // Only hints that work: at the start of the stack there is nothing further back to undo.
    const base = `fh --store fs:${box.store} --session s1 --project ${box.project}`;
    const hints = (stdout: string) => stdout.split('\n').filter((line) => /^(Redo|Undo|Go|Every)/.test(line));
    expect(hints(undo.stdout)).toEqual([`Redo with: ${base} redo`, `Every point: ${base} undo --list`]);
    const redo = await box.fh(['--session', 's1', 'redo']);
    expect(hints(redo.stdout)).toEqual([`Undo this with: ${base} undo`, `Every point: ${base} undo --list`]);
    const { json } = await box.fhJson<{ points: Array<{ pointId: string }> }>(['--session', 's1', 'undo', '--list']);
    await writeFiles(box.project, { 'a.txt': 'a3\n' });
    expect((await box.fh(['--session', 's1', 'rewind', 't1', '--yes'])).exitCode).toBe(0);
    // fh undo <point> is a new step: nothing to redo after it, and fh undo undoes it.
    const undoTo = await box.fh(['--session', 's1', 'undo', (json.points[0] as { pointId: string }).pointId]);
    expect(undoTo.exitCode).toBe(0);
    expect(await readFile(join(box.project, 'a.txt'), 'utf8')).toBe('a2\n');
    expect(hints(undoTo.stdout)).toEqual([`Undo this with: ${base} undo`, `Every point: ${base} undo --list`]);
    expect((await runHintInShell(`${base} undo`, { home: box.home, cwd: box.project })).exitCode).toBe(0);
    expect(await readFile(join(box.project, 'a.txt'), 'utf8')).toBe('a1\n');

    // fh undo --prune asks first: without a terminal it needs --yes, and removes nothing.
    const prune = await box.fh(['--session', 's1', 'undo', '--prune', '0']);
    expect(prune).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'fh: refusing to remove 6 timeline points older than 0 of session s1 and their backups (undo could no longer go back before them) without confirmation: there is no terminal to ask on; nothing was removed. Pass --yes to remove them\n',
    });
    expect((await box.fhJson<{ points: unknown[] }>(['--session', 's1', 'undo', '--list'])).json.points).toHaveLength(6);
    expect(await box.fh(['--session', 's1', 'undo', '--list', '--prune', '0', '--yes'])).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'fh: fh undo takes one of --list, --prune or a point id, not --list and --prune; nothing was done\n',
    });
    const pruned = await box.fhJson<{ removed: string[] }>(['--session', 's1', 'undo', '--prune', '0', '--yes']);
    expect(pruned.json.removed).toHaveLength(6);
    expect((await box.fhJson<{ points: unknown[] }>(['--session', 's1', 'undo', '--list'])).json.points).toEqual([]);
  });
});

describe('FH_DISABLE_FILE_CHECKPOINTING', () => {
  it('list, diff, rewind and undo say checkpointing is disabled (exit 1), and undo writes no file', async () => {
    const box = await oneTurn();
    expect((await box.fh(['--session', 's1', 'rewind', 't1', '--yes'])).exitCode).toBe(0);
    const message = 'fh: file checkpointing is disabled (FH_DISABLE_FILE_CHECKPOINTING)';
    for (const value of ['1', 'TRUE', ' true ']) {
      const env = { FH_DISABLE_FILE_CHECKPOINTING: value };
      expect(await box.fh(['--session', 's1', 'list'], { env })).toEqual({ exitCode: 1, stdout: '', stderr: `${message}\n` });
      expect(await box.fh(['--session', 's1', 'diff', 't1'], { env })).toEqual({ exitCode: 1, stdout: '', stderr: `${message}\n` });
      expect(await box.fh(['--session', 's1', 'rewind', 't1', '--yes'], { env })).toEqual({
        exitCode: 1,
        stdout: '',
        stderr: `${message}: only --mode conversation rewinds while it is set\n`,
      });
      expect(await box.fh(['--session', 's1', 'undo'], { env })).toEqual({ exitCode: 1, stdout: '', stderr: `${message}: undo writes no file while it is set\n` });
      expect(await readFile(join(box.project, 'a.txt'), 'utf8')).toBe('a1\n');
    }
    const notDisabled = await box.fh(['--session', 's1', 'list'], { env: { FH_DISABLE_FILE_CHECKPOINTING: 'yes' } });
    expect(notDisabled.exitCode).toBe(0);
  });
});

describe('usage errors and small wording', () => {
  it('fh --json with no command prints one JSON error document with details (exit 2)', async () => {
    const home = await tempFolder();
    const result = await runCli(['--json'], { home });
    expect(result.exitCode).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({ error: { code: 'FH_USAGE', message: 'no command given (fh --help lists the commands)', details: [] } });
    const unknown = await runCli(['--json', 'bogus'], { home });
    expect([unknown.exitCode, JSON.parse(unknown.stdout)]).toEqual([2, { error: { code: 'FH_USAGE', message: "unknown command 'bogus'", details: [] } }]);
  });

  it('fh track . and fh track "" name the project root and the empty path instead of calling them outside the root', async () => {
    const box = await oneTurn();
    expect(await box.fh(['--session', 's1', 'track', '.'])).toEqual({ exitCode: 2, stdout: '', stderr: 'fh: . is the project root itself, not a file to track\n' });
    expect(await box.fh(['--session', 's1', 'track', ''])).toEqual({ exitCode: 2, stdout: '', stderr: 'fh: an empty path is not a file to track\n' });
  });

  it('fork and resume count in the singular for one, and print hints that name the new session', async () => {
    const base = await tempFolder();
    const fixture = await writeClaudeFixture(base);
    const home = join(base, 'home');
    const fork = await runCli(['--claude', fixture.configDir, '--json', 'fork', 'u2', '--to', 'forked'], { home, cwd: fixture.projectRoot });
    expect(fork.exitCode).toBe(0);
    const human = await runCli(['--claude', fixture.configDir, '--session', CLAUDE_SESSION, 'fork', 'u2', '--to', 'forked-again'], { home, cwd: fixture.projectRoot });
    expect(human.stdout.split('\n')[0]).toBe(`Forked ${CLAUDE_SESSION} before u2 as forked-again: 4 messages, 1 checkpoint`);

    const box = await oneTurn();
    const resumed = await box.fh(['resume', 's1', '--to', 's2']);
    expect(resumed.stdout).toBe(`resumed s1 as s2: 1 checkpoint, 1 backup linked, 0 copied\ncontinue with: fh --store fs:${box.store} --session s2 --project ${box.project} list\n`);
  });
});

describe('fh cleanup asks before removing sessions', () => {
  /** A store with session "old" (40 days unchanged) and session "recent". */
  async function agedStore(): Promise<Sandbox> {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a\n' });
    expect((await box.fh(['--session', 'old', 'snapshot', 'm1'])).exitCode).toBe(0);
    expect((await box.fh(['--session', 'recent', 'snapshot', 'm1'])).exitCode).toBe(0);
    const old = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    const age = async (folder: string): Promise<void> => {
      for (const entry of await readdir(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) await age(path);
        if (path.includes('old')) await utimes(path, old, old);
      }
    };
    await age(box.store);
    return box;
  }

  it('without a terminal it needs --yes (exit 2, nothing removed); --dry-run and --yes work', async () => {
    const box = await agedStore();
    const refused = await box.fh(['cleanup']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^fh: refusing to remove 1 session \(\d+(\.\d)? (B|KiB), backups and undo points included\) not changed for 30 days without confirmation: there is no terminal to ask on; pass --yes \(or --dry-run to list them\)\n$/,
    );
    expect((await box.fhJson<{ sessions: unknown[] }>(['sessions'])).json.sessions).toHaveLength(2);
    const dry = await box.fh(['cleanup', '--dry-run']);
    expect(dry.stdout).toMatch(/^would remove 1 session \(.+\) not changed for 30 days\n {2}old\n$/);
    const nothing = await box.fh(['cleanup', '--older-than', '100']);
    expect(nothing.exitCode).toBe(0);
    const removed = await box.fh(['cleanup', '--yes']);
    expect(removed.exitCode).toBe(0);
    expect(removed.stdout).toMatch(/^removed 1 session \(.+\) not changed for 30 days\n {2}old\n$/);
    const after = await box.fhJson<{ sessions: Array<{ sessionId: string }> }>(['sessions']);
    expect(after.json.sessions.map((session) => session.sessionId)).toEqual(['recent']);
  });
});

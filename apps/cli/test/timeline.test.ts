/**
 * The timeline and the journal through real `fh` processes (issues 10 and 11): a rewind SIGKILLed
 * mid-write (once its point is journaled and its first file written, checked to have left files
 * of both states and the point pending), run again, then `fh undo` reaches exactly the state before the
 * interrupted rewind; an undo SIGKILLed mid-write, then `fh undo` finishes the undo and never turns
 * into a redo; `fh undo` after `fh fork` works on the session that rewound; a rewind that fails on
 * a read-only folder (run as another user) is undone reporting only the files it changed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileHistory, readTimeline } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, readTree, sandbox, writeFiles, type Sandbox } from './helpers.js';

const COUNT = 1000;
const paths = Array.from({ length: COUNT }, (_, index) => `src/d${index % 4}/f${index}.txt`);

/** Session `s`: checkpoint m1 holds `before` contents (and `special` as given); then every file is changed. */
async function changedSince(box: Sandbox, special: { path: string; atCheckpoint: string; now: string }) {
  await writeFiles(box.project, { ...Object.fromEntries(paths.map((path) => [path, `before ${path}\n`])), [special.path]: special.atCheckpoint });
  const store = new FsBackupStore({ root: box.store });
  const history = await FileHistory.open({ projectRoot: box.project, sessionId: 's', store, env: {} });
  await history.makeSnapshot('m1');
  for (const path of [special.path, ...paths]) await history.trackEdit(path);
  const backup = history.state.snapshots[0]?.trackedFileBackups[special.path]?.backupFileName as string;
  await history.close();
  await writeFiles(box.project, { ...Object.fromEntries(paths.map((path) => [path, `after ${path}\n`])), [special.path]: special.now });
  return { store, backup };
}

/** The number of `fh-point` records in session `s`'s log. */
async function pointRecords(box: Sandbox): Promise<number> {
  const log = await readFile(join(box.store, 'sessions', 's.jsonl'), 'utf8').catch(() => '');
  return log.split('"type":"fh-point"').length - 1;
}

/** How many of the files read `${prefix} <path>`. */
async function countAre(box: Sandbox, prefix: string): Promise<number> {
  const texts = await Promise.all(paths.map((path) => readFile(join(box.project, path), 'utf8')));
  return texts.filter((text, index) => text === `${prefix} ${paths[index]}\n`).length;
}

/** Start `fh <args>` and SIGKILL it once `ready()` holds; resolves with its exit signal. */
async function killWhen(box: Sandbox, args: readonly string[], ready: () => Promise<boolean>): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, [cliPath, '--store', `fs:${box.store}`, '--project', box.project, '--session', 's', ...args], { cwd: box.project, env: baseEnvironment(box.home) });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const deadline = Date.now() + 60_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`fh ${args.join(' ')} never reached the kill point`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  child.kill('SIGKILL');
  return exited;
}

/** Ready to kill: `points` point records journaled and the first file already written to `prefix`. */
function journaledAndWriting(box: Sandbox, points: number, prefix: string): () => Promise<boolean> {
  return async () => (await pointRecords(box)) >= points && (await readFile(join(box.project, paths[0] as string), 'utf8')) === `${prefix} ${paths[0]}\n`;
}

/**
 * Run `command` again while it fails because the killed process still holds the session lock
 * (proper-lockfile takes a lock over once it is 10 s stale).
 */
async function onceUnlocked(command: () => Promise<{ result: { exitCode: number; stderr: string } } | { exitCode: number; stderr: string }>) {
  for (let attempt = 0; ; attempt += 1) {
    const outcome = await command();
    const result = 'result' in outcome ? outcome.result : outcome;
    if (!/lock|held by another/i.test(result.stderr) || attempt >= 10) return outcome;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

describe('interrupted operations resume (real processes, SIGKILL)', () => {
  it('a rewind killed mid-write, run again, then fh undo: every file is back as before the first rewind', async () => {
    const box = await sandbox();
    const { store } = await changedSince(box, { path: 'a-empty.txt', atCheckpoint: '', now: 'written after the checkpoint\n' });
    const before = await readTree(box.project);
    expect(await killWhen(box, ['rewind', 'm1', '--mode', 'code', '--yes'], journaledAndWriting(box, 1, 'before'))).toBe('SIGKILL');
    expect((await readTimeline({ store, sessionId: 's' })).pending.map((point) => point.operation)).toEqual(['rewind']);
    const rewoundAtKill = await countAre(box, 'before');
    expect([rewoundAtKill > 0, rewoundAtKill < COUNT]).toEqual([true, true]);

    const again = (await onceUnlocked(() => box.fh(['--session', 's', 'rewind', 'm1', '--mode', 'code', '--yes']))) as { exitCode: number; stderr: string };
    expect([again.exitCode, again.stderr]).toEqual([0, '']);
    expect(await readFile(join(box.project, 'a-empty.txt'), 'utf8')).toBe('');
    const undo = await box.fhJson<{ operation: string; restored: string[] }>(['--session', 's', 'undo']);
    expect(undo.result.exitCode).toBe(0);
    expect(undo.json.restored).toHaveLength(COUNT + 1);
    expect(undo.json.operation).toBe('undo');
    expect(await readTree(box.project)).toEqual(before);
    const timeline = await readTimeline({ store, sessionId: 's' });
    expect(timeline.points.map((point) => [point.operation, point.status])).toEqual([
      ['rewind', 'rolled-back'],
      ['recover', 'done'],
      ['rewind', 'done'],
      ['undo', 'done'],
    ]);
  }, 180_000);

  it('an undo killed mid-write, then fh undo: the undo completes (never a redo), and one more undo has nothing left', async () => {
    const box = await sandbox();
    const { store } = await changedSince(box, { path: 'z.txt', atCheckpoint: 'at the checkpoint\n', now: '' });
    const before = await readTree(box.project);
    expect((await box.fh(['--session', 's', 'rewind', 'm1', '--mode', 'code', '--yes'])).exitCode).toBe(0);
    const rewound = await readTree(box.project);
    expect(await killWhen(box, ['undo'], journaledAndWriting(box, 2, 'after'))).toBe('SIGKILL');
    expect((await readTimeline({ store, sessionId: 's' })).pending.map((point) => point.operation)).toEqual(['undo']);
    const undoneAtKill = await countAre(box, 'after');
    expect([undoneAtKill > 0, undoneAtKill < COUNT]).toEqual([true, true]);
    const undo = (await onceUnlocked(() => box.fhJson(['--session', 's', 'undo']))) as unknown as { result: { exitCode: number }; json: { operation: string; recovered: unknown[] } };
    expect(undo.result.exitCode).toBe(0);
    expect([undo.json.operation, undo.json.recovered]).toEqual(['undo', [{ pointId: expect.any(String), operation: 'undo', outcome: 'rolled-back' }]]);
    expect(await readTree(box.project)).toEqual(before);
    const more = await box.fh(['--session', 's', 'undo']);
    expect([more.exitCode, more.stderr]).toEqual([1, 'fh: session s has no rewind to undo\n']);
    expect(await readTree(box.project)).toEqual(before);
    expect((await box.fh(['--session', 's', 'redo'])).exitCode).toBe(0);
    expect(await readTree(box.project)).toEqual(rewound);
  }, 180_000);
});

describe('fh undo after fh fork', () => {
  it('works on the session that rewound, though the fork is now the latest session; printed commands carry --session', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'one\n' });
    expect((await box.fh(['--session', 's1', 'snapshot', 't1', '--prompt', 'first'])).exitCode).toBe(0);
    expect((await box.fh(['--session', 's1', 'track', 'a.txt'])).exitCode).toBe(0);
    await writeFiles(box.project, { 'a.txt': 'two\n' });
    expect((await box.fh(['--session', 's1', 'snapshot', 't2', '--prompt', 'second'])).exitCode).toBe(0);
    await writeFiles(box.project, { 'a.txt': 'my edit\n' });
    const rewind = await box.fh(['--session', 's1', 'rewind', 't1', '--mode', 'code', '--yes']);
    expect(rewind.stdout).toContain(`Undo with: fh --store fs:${box.store} --session s1 --project ${box.project} undo`);
    expect(await readFile(join(box.project, 'a.txt'), 'utf8')).toBe('one\n');
    const fork = await box.fh(['--session', 's1', 'fork', 't2', '--to', 'forked']);
    expect(fork.exitCode).toBe(0);
    expect((await box.fh(['list'])).stderr).toContain('using session forked');

    const undo = await box.fh(['undo']);
    expect(undo.exitCode).toBe(0);
    expect(undo.stderr).toContain('using session s1, the one that rewound last');
    expect(undo.stdout).toContain(`Redo with: fh --store fs:${box.store} --session s1 --project ${box.project} redo`);
    expect(await readFile(join(box.project, 'a.txt'), 'utf8')).toBe('my edit\n');
    const sessions = await box.fhJson<{ sessions: Array<{ sessionId: string; timelinePoints: number; timelineBytes: number }> }>(['sessions']);
    expect(sessions.json.sessions.find((row) => row.sessionId === 's1')).toMatchObject({ timelinePoints: 2, timelineBytes: 'my edit\n'.length + 'one\n'.length });
  }, 60_000);
});

describe('a rewind that fails on a read-only folder (run as nobody)', () => {
  it('fh undo puts back only the files the rewind changed and does not report ro/c.txt', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a at t1\n', 'ro/c.txt': 'c at t1\n' });
    execFileSync('chown', ['-R', 'nobody:nogroup', join(box.project, '..')]);
    const asNobody = (args: string[]) => {
      try {
        const stdout = execFileSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, cliPath, '--store', `fs:${box.store}`, '--project', box.project, '--session', 's', ...args], {
          cwd: box.project,
          env: baseEnvironment(box.home),
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        return { exitCode: 0, stdout, stderr: '' };
      } catch (error) {
        const failed = error as { status: number; stdout: string; stderr: string };
        return { exitCode: failed.status, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    expect(asNobody(['snapshot', 't1']).exitCode).toBe(0);
    expect(asNobody(['track', 'a.txt', 'ro/c.txt']).exitCode).toBe(0);
    await writeFiles(box.project, { 'a.txt': 'a now\n', 'ro/c.txt': 'c now\n' });
    await chmod(join(box.project, 'ro'), 0o555);

    const rewind = asNobody(['rewind', 't1', '--mode', 'code', '--yes']);
    expect(rewind.exitCode).toBe(3);
    expect(rewind.stderr).toContain('ro/c.txt');
    expect(await readFile(join(box.project, 'a.txt'), 'utf8')).toBe('a at t1\n');
    const undo = asNobody(['--json', 'undo']);
    expect(undo.exitCode).toBe(0);
    const json = JSON.parse(undo.stdout) as { operation: string; restored: string[]; failed: unknown[]; skipped: unknown[] };
    expect([json.operation, json.restored, json.failed, json.skipped]).toEqual(['recover', ['a.txt'], [], []]);
    expect(await readFile(join(box.project, 'a.txt'), 'utf8')).toBe('a now\n');
    expect(await readFile(join(box.project, 'ro/c.txt'), 'utf8')).toBe('c now\n');
  }, 60_000);
});

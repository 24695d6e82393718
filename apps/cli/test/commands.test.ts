import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandbox, writeFiles, type Sandbox } from './helpers.js';

const SESSION = 'session-one';

/**
 * A session of two turns: m1 (prompt "first prompt") with a.txt and run.sh tracked during it, then
 * a.txt edited and c.txt created; m2 (prompt "second prompt"); then a.txt edited again.
 */
async function twoTurnSession(): Promise<Sandbox> {
  const box = await sandbox();
  await writeFiles(box.project, { 'a.txt': 'one\n', 'run.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 } });
  expect((await box.fh(['--session', SESSION, 'snapshot', 'm1', '--prompt', 'first prompt'])).exitCode).toBe(0);
  expect((await box.fh(['--session', SESSION, 'track', 'a.txt', 'run.sh', 'c.txt'])).exitCode).toBe(0);
  await writeFiles(box.project, { 'a.txt': 'one\ntwo\n', 'c.txt': 'new file\n' });
  expect((await box.fh(['--session', SESSION, 'snapshot', 'm2', '--prompt', 'second prompt'])).exitCode).toBe(0);
  await writeFiles(box.project, { 'a.txt': 'changed\n' });
  return box;
}

describe('fh track, snapshot, list, diff, sessions', () => {
  let box: Sandbox;
  beforeAll(async () => {
    box = await twoTurnSession();
  });

  it('track prints the tracking paths as JSON', async () => {
    const other = await sandbox();
    await writeFiles(other.project, { 'src/x.ts': 'x\n' });
    await other.fh(['--session', 's', 'snapshot', 'm0']);
    const { result, json } = await other.fhJson(['--session', 's', 'track', 'src/x.ts', join(other.project, 'missing.txt')]);
    expect(result.exitCode).toBe(0);
    expect(json).toEqual({ sessionId: 's', projectRoot: other.project, tracked: ['src/x.ts', 'missing.txt'], links: [], failed: [] });
    expect(result.stderr).toBe('');
  });

  it('snapshot reports the files it holds and records the prompt as a user record', async () => {
    const { json } = await box.fhJson(['--session', SESSION, 'list']);
    expect(json).toMatchObject({ sessionId: SESSION, projectRoot: box.project });
    const log = (await readFile(join(box.store, 'sessions', `${SESSION}.jsonl`), 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    const prompts = log.filter((record) => record.type === 'user');
    expect(prompts.map((record) => [record.uuid, record.parentUuid, record.message])).toEqual([
      ['m1', null, { role: 'user', content: 'first prompt' }],
      ['m2', 'm1', { role: 'user', content: 'second prompt' }],
    ]);
  });

  it('list shows each checkpoint with its prompt and what a rewind there would change', async () => {
    const { result, json } = await box.fhJson<{ checkpoints: Array<Record<string, unknown>> }>(['--session', SESSION, 'list']);
    expect(result.exitCode).toBe(0);
    expect(json.checkpoints.map(({ timestamp, ...rest }) => (expect(typeof timestamp).toBe('string'), rest))).toEqual([
      {
        turn: 1,
        messageId: 'm1',
        prompt: 'first prompt',
        filesChanged: ['a.txt', 'c.txt'],
        insertions: 1,
        deletions: 2,
        failed: [],
        refusals: [],
        outside: null,
        agents: [{ by: 'main', agentId: null, agentType: null, paths: ['a.txt', 'c.txt', 'run.sh'] }],
        checkpoint: null,
      },
      { turn: 2, messageId: 'm2', prompt: 'second prompt', filesChanged: ['a.txt'], insertions: 2, deletions: 1, failed: [], refusals: [], outside: null, agents: [], checkpoint: null },
    ]);
    const human = await box.fh(['--session', SESSION, 'list']);
    expect(human.stdout).toContain('m1');
    expect(human.stdout).toContain('first prompt');
    expect(human.stdout).toMatch(/m2 .* second prompt +1 +\+2 -1/);
  });

  it('diff is a dry run with per-file stats, and --patch gives the unified diff to the checkpoint', async () => {
    const before = await readFile(join(box.project, 'a.txt'), 'utf8');
    const { result, json } = await box.fhJson<Record<string, unknown>>(['--session', SESSION, 'diff', 'm1', '--patch']);
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({
      sessionId: SESSION,
      messageId: 'm1',
      filesChanged: ['a.txt', 'c.txt'],
      insertions: 1,
      deletions: 2,
      files: [
        { path: 'a.txt', status: 'modified', insertions: 1, deletions: 1, binary: false },
        { path: 'c.txt', status: 'created', insertions: 0, deletions: 1, binary: false },
      ],
    });
    expect(json.patch).toBe(
      [
        'diff --git a/a.txt b/a.txt',
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1,1 +1,1 @@',
        '-changed',
        '+one',
        'diff --git a/c.txt b/c.txt',
        'deleted file mode 100644',
        '--- a/c.txt',
        '+++ /dev/null',
        '@@ -1,1 +0,0 @@',
        '-new file',
        '',
      ].join('\n'),
    );
    expect(await readFile(join(box.project, 'a.txt'), 'utf8')).toBe(before);
    const human = await box.fh(['--session', SESSION, 'diff', 'm2']);
    expect(human.stdout).toBe('Rewinding to m2 would change 1 file (+2 -1)\n  modify  a.txt  +2 -1\n');
  });

  it('diff --paths narrows to the named files; an untracked path is named in the error (a bad argument: exit 2)', async () => {
    const { json } = await box.fhJson<{ filesChanged: string[] }>(['--session', SESSION, 'diff', 'm1', '--paths', 'c.txt']);
    expect(json.filesChanged).toEqual(['c.txt']);
    const bad = await box.fh(['--session', SESSION, 'diff', 'm1', '--paths', 'nope.txt']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toBe(`fh: ${join(box.project, 'nope.txt')} is not a tracked file\n`);
  });

  it('diff of an unknown message id fails with one line naming it', async () => {
    const result = await box.fh(['--session', SESSION, 'diff', 'no-such-message']);
    expect(result).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `fh: no checkpoint or prompt "no-such-message" in session "${SESSION}"; fh --store fs:${box.store} --session ${SESSION} --project ${box.project} list shows them\n`,
    });
  });

  it('sessions lists the session with its project, checkpoints and size', async () => {
    const { json } = await box.fhJson<{ source: string; sessions: Array<Record<string, unknown>> }>(['sessions']);
    expect(json.source).toBe(`fs:${box.store}`);
    expect(json.sessions).toHaveLength(1);
    expect(json.sessions[0]).toMatchObject({ sessionId: SESSION, projectRoot: box.project, checkpoints: 2, backups: 4 });
    expect(json.sessions[0]?.bytes).toBeGreaterThan(0);
  });

  it('without --session, commands use the latest session of the project and say so on stderr', async () => {
    const result = await box.fh(['--json', 'list']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).sessionId).toBe(SESSION);
    expect(result.stderr).toBe(`fh: using session ${SESSION}, the latest of ${box.project} (pass --session to choose)\n`);
  });
});

describe('fh track errors', () => {
  it('rejects a path outside the project, naming it, and changes nothing (exit 2, a bad argument; diff --paths alike)', async () => {
    const box = await sandbox();
    await box.fh(['--session', 's', 'snapshot', 'm1']);
    const result = await box.fh(['--session', 's', 'track', '../outside.txt']);
    expect(result.exitCode).toBe(2);
    const diff = await box.fh(['--session', 's', 'diff', 'm1', '--paths', '../outside.txt']);
    expect(diff).toEqual({ exitCode: 2, stdout: '', stderr: `fh: ${join(box.project, '..', 'outside.txt')} is outside the project root ${box.project}\n` });
    expect(result.stderr).toContain(join(box.project, '..', 'outside.txt').replace('/project/..', ''));
    expect(result.stderr.split('\n')).toHaveLength(2);
  });

  it('tracks the good paths and names each failed one (exit 3)', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'ok.txt': 'ok\n' });
    await box.fh(['--session', 's', 'snapshot', 'm1']);
    const { result, json } = await box.fhJson<{ tracked: string[]; failed: Array<{ path: string }> }>(['--session', 's', 'track', 'ok.txt', '../outside.txt']);
    expect(result.exitCode).toBe(3);
    expect(json.tracked).toEqual(['ok.txt']);
    expect(json.failed.map((failure) => failure.path)).toEqual(['../outside.txt']);
    expect(result.stderr).toMatch(/^fh: 1 of 2 paths were not tracked\n {2}\.\.\/outside\.txt: .+\n$/);
  });
});

describe('fh resume and cleanup', () => {
  it('resume carries the file history into a new session that can rewind', async () => {
    const box = await twoTurnSession();
    const { result, json } = await box.fhJson<Record<string, unknown>>(['resume', SESSION, '--to', 'session-two']);
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ fromSessionId: SESSION, sessionId: 'session-two', projectRoot: box.project, checkpoints: 2, missing: [] });
    expect((json.linked as number) + (json.copied as number)).toBe(4);
    const list = await box.fhJson<{ checkpoints: Array<{ messageId: string; prompt: string }> }>(['--session', 'session-two', 'list']);
    expect(list.json.checkpoints.map((checkpoint) => [checkpoint.messageId, checkpoint.prompt])).toEqual([
      ['m1', 'first prompt'],
      ['m2', 'second prompt'],
    ]);
  });

  it('resume of an unknown session fails naming it, with the exit code of every unknown session (1)', async () => {
    const box = await sandbox();
    const expected = (command: string) => ({ exitCode: 1, stdout: '', stderr: `fh: session "ghost" not found in fs:${box.store} (fh sessions lists them)\n`, command });
    for (const args of [['resume', 'ghost'], ['--session', 'ghost', 'list'], ['--session', 'ghost', 'rewind', 'm1', '--yes'], ['--session', 'ghost', 'undo']]) {
      expect({ ...(await box.fh(args)), command: args.join(' ') }).toEqual(expected(args.join(' ')));
    }
  });

  it('cleanup removes sessions older than the limit and keeps recent ones', async () => {
    const box = await twoTurnSession();
    await box.fh(['--session', 'recent', 'snapshot', 'r1']);
    const old = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    const age = async (folder: string): Promise<void> => {
      for (const entry of await readdir(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) await age(path);
        if (path.includes(SESSION)) await utimes(path, old, old);
      }
    };
    await age(box.store);
    const dry = await box.fhJson<{ removed: Array<{ sessionId: string }>; kept: Array<{ sessionId: string; reason: string }> }>(['cleanup', '--dry-run']);
    expect(dry.json.removed.map((session) => session.sessionId)).toEqual([SESSION]);
    expect(dry.json.kept).toEqual([{ sessionId: 'recent', reason: 'recent' }]);
    expect((await box.fhJson<{ sessions: unknown[] }>(['sessions'])).json.sessions).toHaveLength(2);
    const real = await box.fhJson<{ removed: Array<{ sessionId: string }> }>(['cleanup', '--yes']);
    expect(real.json.removed.map((session) => session.sessionId)).toEqual([SESSION]);
    const after = await box.fhJson<{ sessions: Array<{ sessionId: string }> }>(['sessions']);
    expect(after.json.sessions.map((session) => session.sessionId)).toEqual(['recent']);
  });

  it('cleanup rejects a negative age as a usage error', async () => {
    const box = await sandbox();
    const result = await box.fh(['cleanup', '--older-than', '-3']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('fh: --older-than takes an age like 30d, 12h or 90m (a bare number is days), not "-3"; nothing was removed\n');
  });
});

describe('fh track and snapshot before the first checkpoint, and while disabled', () => {
  it('track before the session has a checkpoint fails with one line (exit 1) and tracks nothing', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a\n' });
    const result = await box.fh(['--session', 's', 'track', 'a.txt']);
    expect(result).toEqual({ exitCode: 1, stdout: '', stderr: 'fh: session s has no checkpoint yet: run fh snapshot <messageId> first\n' });
    await expect(readdir(join(box.store, 'file-history', 's'))).rejects.toThrow(/ENOENT/);
  });

  it('track and snapshot say checkpointing is disabled instead of claiming work (exit 1)', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a\n' });
    const env = { FH_DISABLE_FILE_CHECKPOINTING: '1' };
    const expected = { exitCode: 1, stdout: '', stderr: 'fh: file checkpointing is disabled (FH_DISABLE_FILE_CHECKPOINTING)\n' };
    expect(await box.fh(['--session', 's', 'snapshot', 'm1'], { env })).toEqual(expected);
    expect(await box.fh(['--session', 's', 'track', 'a.txt'], { env })).toEqual(expected);
    await expect(readdir(box.store)).rejects.toThrow(/ENOENT/);
  });
});

describe('fh snapshot usage errors', () => {
  it('a message id the session already has is a usage error naming it (exit 2); nothing is recorded', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a\n' });
    expect((await box.fh(['--session', 's', 'snapshot', 'm1', '--prompt', 'first'])).exitCode).toBe(0);
    const log = join(box.store, 'sessions', 's.jsonl');
    const before = await readFile(log);
    const again = await box.fh(['--session', 's', 'snapshot', 'm1', '--prompt', 'again']);
    expect(again).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'fh: session s already has a checkpoint with message id "m1": each turn needs a new id\n',
    });
    expect(await readFile(log)).toEqual(before);
  });

  it("--session '' is a usage error, not the latest session (exit 2)", async () => {
    const box = await sandbox();
    expect((await box.fh(['--session', 's', 'snapshot', 'm1'])).exitCode).toBe(0);
    expect(await box.fh(['--session', '', 'snapshot', 'm2'])).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'fh: --session needs a session id, not an empty string\n',
    });
    expect(await box.fh(['--session', '', 'list'])).toMatchObject({ exitCode: 2, stdout: '' });
  });
});

describe('paths with control characters in human output', () => {
  it('are printed JSON-quoted, one file per line; JSON output keeps the raw path', async () => {
    const box = await sandbox();
    const name = 'new\nline.txt';
    await writeFiles(box.project, { [name]: 'one\n', 'plain.txt': 'p\n' });
    expect((await box.fh(['--session', 's', 'snapshot', 'm1'])).exitCode).toBe(0);
    const tracked = await box.fh(['--session', 's', 'track', name, 'plain.txt']);
    expect(tracked).toEqual({ exitCode: 0, stdout: 'tracked "new\\nline.txt"\ntracked plain.txt\n', stderr: '' });
    await writeFiles(box.project, { [name]: 'two\n' });
    const diff = await box.fh(['--session', 's', 'diff', 'm1']);
    expect(diff.stdout.split('\n')).toContain('  modify  "new\\nline.txt"  +1 -1');
    const { json } = await box.fhJson<{ files: Array<{ path: string }> }>(['--session', 's', 'diff', 'm1']);
    expect(json.files.map((file) => file.path)).toEqual([name]);
    const rewind = await box.fh(['--session', 's', 'rewind', 'm1', '--yes']);
    expect(rewind.exitCode).toBe(0);
    expect(rewind.stdout).toContain('  restored  "new\\nline.txt"\n');
  });
});

describe('one-line errors without repeats, strict numbers, a missing --claude folder', () => {
  it('a failed backup is named once per line: "b.txt: its backup at this snapshot failed: ..." (exit 3)', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    expect((await box.fh(['--session', 's', 'snapshot', 'm1'])).exitCode).toBe(0);
    expect((await box.fh(['--session', 's', 'track', 'a.txt', 'b.txt'])).exitCode).toBe(0);
    await writeFiles(box.project, { 'a.txt': 'a2\n', 'b.txt': 'b2\n' });
    // Mark b.txt's backup in m1 as failed, as makeSnapshot records an unreadable file.
    const logPath = join(box.store, 'sessions', 's.jsonl');
    const lines = (await readFile(logPath, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    for (const record of lines) {
      if (record.type === 'file-history-snapshot' && record.snapshot.trackedFileBackups['b.txt'] !== undefined) {
        record.snapshot.trackedFileBackups['b.txt'].error = 'EACCES: permission denied';
      }
      if (record.type === 'file-history-delta' && record.trackingPath === 'b.txt') record.backup.error = 'EACCES: permission denied';
    }
    await writeFile(logPath, `${lines.map((record) => JSON.stringify(record)).join('\n')}\n`);
    const result = await box.fh(['--session', 's', 'rewind', 'm1', '--yes']);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toBe(
      'fh: 1 file could not be rewound\n  b.txt: its backup at this snapshot failed: EACCES: permission denied\n' +
        `1 other file in ${box.project} was rewound; the file named above was left as it was. To put everything back: fh --store fs:${box.store} --session s --project ${box.project} undo\n`,
    );
  });

  it('cleanup --older-than takes plain decimal numbers or ages like 30d, 12h, 90m only (exit 2)', async () => {
    const box = await sandbox();
    for (const value of ['0x10', '1e3', ' 5', 'Infinity', '']) {
      expect(await box.fh(['cleanup', '--older-than', value, '--dry-run'])).toMatchObject({ exitCode: 2, stdout: '' });
    }
    const hex = await box.fh(['cleanup', '--older-than', '0x10']);
    expect(hex.stderr).toBe('fh: --older-than takes an age like 30d, 12h or 90m (a bare number is days), not "0x10"; nothing was removed\n');
    expect((await box.fh(['cleanup', '--older-than', '0', '--dry-run'])).exitCode).toBe(0);
    for (const [value, days] of [['1.5', 1.5], ['30d', 30], ['12h', 0.5]] as const) {
      expect((await box.fhJson<{ olderThanDays: number }>(['cleanup', '--older-than', value, '--dry-run'])).json.olderThanDays).toBe(days);
    }
  });

  it('--claude with a folder that does not exist fails naming it (exit 1)', async () => {
    const box = await sandbox();
    const missing = join(box.home, 'no-such-claude');
    expect(await box.fh(['--claude', missing, 'sessions'])).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `fh: Claude Code folder ${missing} does not exist (--claude)\n`,
    });
    expect((await box.fh(['--claude', missing, '--session', 'x', 'list'])).stderr).toBe(`fh: Claude Code folder ${missing} does not exist (--claude)\n`);
  });
});

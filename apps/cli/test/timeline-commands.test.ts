/**
 * The timeline's commands through real `fh` processes on real files (issue 11): `fh checkpoint
 * --label` (listed with its label, rewound to byte-exact with modes, a bad label refused),
 * `fh undo --list` (files and +/- as recorded with each point; `?` for a point saved without a
 * summary), `fh diff --undo <point>` (files, +/-, --stat, --name-only, --patch that `git apply`
 * takes, --json) against what `fh undo <point>` then does, and the journal's recovery: a hook
 * never writes the project while an operation is pending, and the bare `FileHistory.rewind` rolls
 * it back first (refusing without the session lock).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { capturePoint, FileHistory, readTimeline } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { describe, expect, it } from 'vitest';
import { readTree, runCli, sandbox, tempFolder, writeFiles, type Sandbox } from './helpers.js';

/** `fh --session s <args>` in the sandbox. */
const fh = (box: Sandbox, args: readonly string[]) => box.fh(['--session', 's', ...args]);
const fhJson = <T>(box: Sandbox, args: readonly string[]) => box.fhJson<T>(['--session', 's', ...args]);

/** The session log's records of one type. */
async function records(box: Sandbox, type: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(join(box.store, 'sessions', 's.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.type === type);
}

describe('fh checkpoint', () => {
  it('records the state now with its label: fh list shows it, fh rewind to it is byte-exact with modes', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a1\n', 'b.sh': 'b1\n' });
    expect((await fh(box, ['snapshot', 't1', '--prompt', 'one'])).exitCode).toBe(0);
    expect((await fh(box, ['track', 'a.txt', 'b.sh', 'c.txt'])).exitCode).toBe(0);
    await writeFiles(box.project, { 'a.txt': 'a2\nline\n', 'b.sh': { content: 'b2\n', mode: 0o755 }, 'c.txt': { content: 'c\n', mode: 0o600 } });
    expect((await fh(box, ['snapshot', 't2', '--prompt', 'two'])).exitCode).toBe(0);
    await writeFiles(box.project, { 'a.txt': 'mine\n' });
    const atCheckpoint = await readTree(box.project);

    const taken = await fhJson<{ messageId: string; kind: string; label: string; files: string[]; backedUp: string[] }>(box, ['checkpoint', '--label', 'hand edits']);
    expect(taken.result.exitCode).toBe(0);
    expect(taken.json).toMatchObject({ sessionId: 's', kind: 'manual', label: 'hand edits', files: ['a.txt', 'b.sh', 'c.txt'], backedUp: ['a.txt'] });
    const human = await fh(box, ['checkpoint']);
    expect(human.stdout).toMatch(/^checkpoint \S+: 3 tracked files, 0 backed up now\n/);
    expect(human.stdout).toContain(`Every checkpoint: fh --store fs:${box.store} --session s --project ${box.project} list`);
    const id = taken.json.messageId;

    const list = await fhJson<{ checkpoints: Array<{ messageId: string; prompt: string | null; checkpoint: unknown }> }>(box, ['list']);
    expect(list.json.checkpoints.map((row) => [row.messageId, row.prompt, row.checkpoint])).toEqual([
      ['t1', 'one', null],
      ['t2', 'two', null],
      [id, null, { kind: 'manual', label: 'hand edits' }],
      [expect.any(String), null, { kind: 'manual', label: null }],
    ]);
    expect((await fh(box, ['list'])).stdout).toContain('checkpoint: hand edits');

    await writeFiles(box.project, { 'a.txt': 'after\n', 'b.sh': { content: 'b3\n', mode: 0o644 }, 'c.txt': { content: 'c2\n', mode: 0o640 } });
    const rewind = await fh(box, ['rewind', id.slice(0, 8), '--mode', 'code', '--yes']);
    expect([rewind.exitCode, rewind.stderr]).toEqual([0, '']);
    expect(rewind.stdout).toContain(`Undo with: fh --store fs:${box.store} --session s --project ${box.project} undo`);
    expect(await readTree(box.project)).toEqual(atCheckpoint);
    expect(atCheckpoint).toEqual({ 'a.txt': { content: 'mine\n', mode: 0o644 }, 'b.sh': { content: 'b2\n', mode: 0o755 }, 'c.txt': { content: 'c\n', mode: 0o600 } });
  }, 60_000);

  it('refuses a label with a control character or an empty one, recording nothing', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a\n' });
    expect((await fh(box, ['snapshot', 't1'])).exitCode).toBe(0);
    const before = await readFile(join(box.store, 'sessions', 's.jsonl'), 'utf8');
    const escape = await fh(box, ['checkpoint', '--label', 'red \u001b[31m']);
    expect([escape.exitCode, escape.stdout, escape.stderr]).toEqual([2, '', 'fh: the checkpoint label holds a control character; use printable characters only; nothing was recorded\n']);
    const empty = await fh(box, ['checkpoint', '--label', ' ']);
    expect([empty.exitCode, empty.stderr]).toEqual([2, 'fh: the checkpoint label is empty; give some text or leave the label out; nothing was recorded\n']);
    expect(await readFile(join(box.store, 'sessions', 's.jsonl'), 'utf8')).toBe(before);
  }, 30_000);
});

/**
 * t1: a.txt = 1,2,3. Turn 1 changes a.txt to 1..5 and creates n.txt (0o755). t2. A hand edit
 * (a.txt = x). Then rewind to t1 (point P1), rewind to t2 (P2), undo (P3, undoes P2).
 */
async function rewindsAndUndo(box: Sandbox): Promise<{ p1: string; p2: string; p3: string }> {
  await writeFiles(box.project, { 'a.txt': '1\n2\n3\n' });
  expect((await fh(box, ['snapshot', 't1'])).exitCode).toBe(0);
  expect((await fh(box, ['track', 'a.txt', 'n.txt'])).exitCode).toBe(0);
  await writeFiles(box.project, { 'a.txt': '1\n2\n3\n4\n5\n', 'n.txt': { content: 'n1\nn2\n', mode: 0o755 } });
  expect((await fh(box, ['snapshot', 't2'])).exitCode).toBe(0);
  await writeFiles(box.project, { 'a.txt': 'x\n' });
  expect((await fh(box, ['rewind', 't1', '--mode', 'code', '--yes'])).exitCode).toBe(0);
  expect((await fh(box, ['rewind', 't2', '--mode', 'code', '--yes'])).exitCode).toBe(0);
  expect((await fh(box, ['undo'])).exitCode).toBe(0);
  const ids = (await records(box, 'fh-point')).map((record) => record.pointId as string);
  expect(ids).toHaveLength(3);
  return { p1: ids[0] as string, p2: ids[1] as string, p3: ids[2] as string };
}

describe('fh undo --list', () => {
  it('shows each point with the files and +/- recorded when it was saved, and ? for a point saved without them', async () => {
    const box = await sandbox();
    const { p1, p2, p3 } = await rewindsAndUndo(box);
    type Listing = { cursor: string; points: Array<Record<string, unknown>> };
    const listed = await fhJson<Listing>(box, ['undo', '--list']);
    expect(listed.json.cursor).toBe(p1);
    const rows = (listing: Listing) => listing.points.map((point) => [point.pointId, point.operation, point.messageId, point.target, point.current, point.files, point.insertions, point.deletions, point.uncounted]);
    expect(rows(listed.json)).toEqual([
      [p1, 'rewind', 't1', null, true, 2, 3, 3, 0],
      [p2, 'rewind', 't2', null, false, 2, 4, 0, 0],
      [p3, 'undo', null, p2, false, 2, 0, 4, 0],
    ]);

    // A point saved before summaries existed: the same record without its summary.
    const logPath = join(box.store, 'sessions', 's.jsonl');
    const lines = (await readFile(logPath, 'utf8')).split('\n');
    await writeFile(
      logPath,
      lines
        .map((line) => {
          if (!line.includes(`"pointId":"${p1}"`) || !line.includes('"type":"fh-point"')) return line;
          const { summary: _summary, ...rest } = JSON.parse(line) as Record<string, unknown>;
          return JSON.stringify(rest);
        })
        .join('\n'),
    );
    const legacy = await fhJson<Listing>(box, ['undo', '--list']);
    expect(rows(legacy.json)[0]).toEqual([p1, 'rewind', 't1', null, true, 2, null, null, null]);
    const human = await fh(box, ['undo', '--list']);
    const p1Line = human.stdout.split('\n').find((line) => line.includes(p1)) ?? '';
    expect(p1Line).toMatch(/rewind to t1\s+2\s+\?$/);
    expect(human.stdout.split('\n').find((line) => line.includes(p2))).toMatch(/rewind to t2\s+2\s+\+4 -0$/);
    expect(human.stdout).toContain('? : a point saved before fh counted lines; fh diff --undo <point> counts them');
    expect(human.stdout).toContain(`What that would change: fh --store fs:${box.store} --session s --project ${box.project} diff --undo '<point>'`);
  }, 60_000);
});

describe('fh diff --undo', () => {
  it('previews exactly what fh undo <point> then changes: files, +/-, --stat, --name-only, a --patch git apply takes, --json', async () => {
    const box = await sandbox();
    const { p1 } = await rewindsAndUndo(box);
    const now = await readTree(box.project);
    expect(now).toEqual({ 'a.txt': { content: '1\n2\n3\n', mode: 0o644 } });

    const json = await fhJson<Record<string, unknown>>(box, ['diff', '--undo', p1.slice(0, 8)]);
    expect(json.result.exitCode).toBe(0);
    expect(json.json).toEqual({
      sessionId: 's',
      projectRoot: box.project,
      pointId: p1,
      point: { operation: 'rewind', createdAt: expect.any(String), messageId: 't1', target: null, status: 'done' },
      filesChanged: ['a.txt', 'n.txt'],
      insertions: 3,
      deletions: 3,
      files: [
        { path: 'a.txt', status: 'modified', insertions: 1, deletions: 3, binary: false },
        { path: 'n.txt', status: 'deleted', insertions: 2, deletions: 0, binary: false },
      ],
      failed: [],
      missing: [],
    });
    const human = await fh(box, ['diff', '--undo', p1]);
    expect(human.stdout).toBe(
      [
        `Undoing to just before point ${p1} would change 2 files (+3 -3)`,
        '  modify   a.txt  +1 -3',
        '  restore  n.txt  +2 -0',
        `Do it with: fh --store fs:${box.store} --session s --project ${box.project} undo ${p1}`,
        '',
      ].join('\n'),
    );
    expect((await fh(box, ['diff', '--undo', p1, '--name-only'])).stdout).toBe('a.txt\nn.txt\n');
    expect((await fh(box, ['diff', '--undo', p1, '--stat'])).stdout).toBe(' a.txt |   4 +---\n n.txt |   2 ++\n 2 files changed, 3 insertions(+), 3 deletions(-)\n');
    const patch = await fhJson<{ patch: string }>(box, ['diff', '--undo', p1, '--patch']);
    const copy = await tempFolder();
    await cp(box.project, copy, { recursive: true });
    await writeFile(join(copy, 'undo.patch'), patch.json.patch);
    execFileSync('git', ['apply', 'undo.patch'], { cwd: copy });
    expect(await readTree(box.project)).toEqual(now);

    const undo = await fhJson<{ operation: string; restored: string[]; deleted: string[] }>(box, ['undo', p1]);
    expect([undo.json.operation, undo.json.restored, undo.json.deleted]).toEqual(['undo', ['a.txt', 'n.txt'], []]);
    const undone = await readTree(box.project);
    expect(undone).toEqual({ 'a.txt': { content: 'x\n', mode: 0o644 }, 'n.txt': { content: 'n1\nn2\n', mode: 0o755 } });
    const applied = await readTree(copy);
    delete applied['undo.patch'];
    expect(applied).toEqual(undone);
    const nothing = await fh(box, ['diff', '--undo', p1]);
    expect(nothing.stdout.split('\n')[0]).toBe(`Undoing to just before point ${p1} would change no files`);
  }, 60_000);

  it('names an unknown point and what lists them (an unknown turn too, with --session); paths are refused', async () => {
    const box = await sandbox();
    const { p1 } = await rewindsAndUndo(box);
    const unknown = await fh(box, ['diff', '--undo', 'ffffffff']);
    expect([unknown.exitCode, unknown.stderr]).toEqual([1, 'fh: session s has no timeline point "ffffffff"; fh undo --list shows them\n']);
    const short = await fh(box, ['undo', '0']);
    expect([short.exitCode, short.stderr]).toEqual([1, 'fh: session s has no timeline point "0" (a prefix needs at least 4 characters); fh undo --list shows them\n']);
    for (const args of [['undo', ''], ['diff', '--undo', ' ']]) {
      const empty = await fh(box, args);
      expect([empty.exitCode, empty.stderr]).toEqual([2, 'fh: an empty point id names no timeline point of session s: give a point id or a unique prefix of 4 or more characters (fh undo --list shows them)\n']);
    }
    const unknownTurn = await fh(box, ['diff', 'zzzz']);
    expect(unknownTurn.exitCode).toBe(1);
    expect(unknownTurn.stderr).toContain(`fh --store fs:${box.store} --session s --project ${box.project} list`);
    const withPaths = await fh(box, ['diff', '--undo', 'ffffffff', '--', 'a.txt']);
    expect([withPaths.exitCode, withPaths.stderr]).toEqual([2, 'fh: fh diff --undo <point> previews the whole undo: it takes no message id, paths or --agent; nothing was read\n']);

    // A damaged pre-image (same size, other bytes): flagged as the rewind's fh diff flags a checkpoint backup.
    const folder = join(box.store, 'file-history', 's');
    const names = await readdir(folder);
    const damagedName = names.find((name) => name.includes('@undo-') && readFileSync(join(folder, name), 'utf8') === 'x\n') as string;
    await writeFile(join(folder, damagedName), 'y\n');
    const damaged = await fh(box, ['diff', '--undo', p1]);
    expect(damaged.exitCode).toBe(0);
    const lines = damaged.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Undoing to just before point ${p1} would change \\d+ files? \\(.*\\), but the undo will be refused and change nothing: 1 backup is missing or damaged$`));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^  cannot restore  a\\.txt: backup ${damagedName.replace('.', '\\.')} damaged: its bytes do not match the content hash recorded when it was made \\(sha256 [0-9a-f]{12}…, now [0-9a-f]{12}…\\)$`)));
    const json = await box.fhJson<{ filesChanged: string[]; missing: Array<{ path: string; backupFileName: string }> }>(['--session', 's', 'diff', '--undo', p1]);
    expect(json.json.missing.map((entry) => [entry.path, entry.backupFileName])).toEqual([['a.txt', damagedName]]);
    expect(json.json.filesChanged).not.toContain('a.txt');
    const before = await readTree(box.project);
    const refused = await fh(box, ['undo', p1]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('refused, nothing was changed: 1 backup is damaged');
    expect(await readTree(box.project)).toEqual(before);
  }, 60_000);
});

describe('an operation left pending (interrupted after it journaled and wrote one file)', () => {
  /** Session s at t1 (a.txt, b.txt), both changed since; then a rewind to t1 journaled and half written. */
  async function interrupted(box: Sandbox) {
    const store = new FsBackupStore({ root: box.store });
    await writeFiles(box.project, { 'a.txt': 'a at t1\n', 'b.txt': 'b at t1\n' });
    const history = await FileHistory.open({ projectRoot: box.project, sessionId: 's', store, env: {} });
    await history.makeSnapshot('t1');
    await history.trackEdit('a.txt');
    await history.trackEdit('b.txt');
    await history.close();
    await writeFiles(box.project, { 'a.txt': 'a now\n', 'b.txt': 'b now\n' });
    const before = await readTree(box.project);
    await capturePoint({ projectRoot: box.project, fs: await import('node:fs/promises') }, { store, sessionId: 's' }, { paths: ['a.txt', 'b.txt'], operation: 'rewind', messageId: 't1' });
    await writeFiles(box.project, { 'a.txt': 'a at t1\n' });
    return { store, before, half: await readTree(box.project) };
  }

  it('fh hook events never write the project: the point stays pending and fh undo then reaches the state before it', async () => {
    const box = await sandbox();
    const { store, before, half } = await interrupted(box);
    const event = async (name: string) => {
      const text = await readFile(new URL(`./fixtures/hooks/${name}.json`, import.meta.url), 'utf8');
      const filled = text.replaceAll('__PROJECT__', box.project).replaceAll('__HOME__', box.home).replaceAll('__SESSION__', 's');
      const result = await runCli(['--store', `fs:${box.store}`, 'hook'], { home: box.home, cwd: box.project, input: filled });
      expect([result.exitCode, result.stdout, result.stderr]).toEqual([0, '', '']);
    };
    await event('user-prompt-submit');
    await event('pre-tool-use-write');
    await event('stop');
    expect(await readTree(box.project)).toEqual(half);
    expect((await readTimeline({ store, sessionId: 's' })).pending.map((point) => point.operation)).toEqual(['rewind']);
    const undo = await fhJson<{ operation: string; restored: string[] }>(box, ['undo']);
    expect([undo.json.operation, undo.json.restored]).toEqual(['recover', ['a.txt']]);
    expect(await readTree(box.project)).toEqual(before);
  }, 60_000);

  it('the bare FileHistory.rewind rolls it back first, and refuses (changing nothing) without the session lock', async () => {
    const box = await sandbox();
    const { store, half } = await interrupted(box);
    const unlocked = await FileHistory.open({ projectRoot: box.project, sessionId: 's', store, env: {}, lock: false });
    await expect(unlocked.rewind('t1')).rejects.toThrow(/^session "s" has an interrupted rewind \(timeline point [0-9a-f-]+\) to roll back first, and this history does not hold the session's lock: open it with lock \(the default\) and rewind again; nothing was changed$/);
    await unlocked.close();
    expect(await readTree(box.project)).toEqual(half);

    const history = await FileHistory.open({ projectRoot: box.project, sessionId: 's', store, env: {} });
    const result = await history.rewind('t1');
    await history.close();
    expect(result.recovered?.map((recovery) => [recovery.operation, recovery.outcome, recovery.restored])).toEqual([['rewind', 'rolled-back', ['a.txt']]]);
    expect(result.restored).toEqual(['a.txt', 'b.txt']);
    expect(await readTree(box.project)).toEqual({ 'a.txt': { content: 'a at t1\n', mode: 0o644 }, 'b.txt': { content: 'b at t1\n', mode: 0o644 } });
    const timeline = await readTimeline({ store, sessionId: 's' });
    expect(timeline.points.map((point) => [point.operation, point.status])).toEqual([
      ['rewind', 'rolled-back'],
      ['recover', 'done'],
    ]);
  }, 60_000);
});

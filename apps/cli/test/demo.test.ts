import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, makeScenarioRepository, repositoryRoot, runCli, tempFolder, writeFiles } from './helpers.js';

interface DemoTurnJson {
  turn: number;
  kind: string;
  subject: string;
  files: number;
  insertions: number;
  deletions: number;
  skipped: string[];
  verified: boolean;
  mismatches: string[];
}

interface DemoJson {
  requested: number;
  replayed: number;
  baseCommit: string | null;
  baseNote: string | null;
  turns: DemoTurnJson[];
  trackedFiles: number;
  undo: { verified: boolean; mismatches: string[] };
  replayVerified: boolean;
  ok: boolean;
  workFolder: string | null;
}

async function demo(args: readonly string[]) {
  const home = await tempFolder();
  return runCli(['demo', ...args], { home, cwd: home });
}

describe('fh demo', () => {
  it('skips the undo check when no replayed commit changes a file: nothing to rewind, exit 0', async () => {
    const repository = await tempFolder('fh-demo-empty-');
    git(repository, ['init', '-q', '-b', 'main']);
    git(repository, ['commit', '-q', '--allow-empty', '-m', 'nothing']);
    const human = await demo(['--repo', repository]);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain('Replay: 1 turn, 0 tracked files, ');
    expect(human.stdout).toContain('Undo of the last rewind: skipped (that rewind changed no file, so there was nothing to undo)\nAll checkpoints verified.\n');
    const result = await demo(['--repo', repository, '--json']);
    const report = JSON.parse(result.stdout) as DemoJson;
    expect([result.exitCode, report.ok, report.undo]).toEqual([0, true, { ms: 0, verified: true, mismatches: [], skipped: true }]);
  });

  it('replays every kind of change, verifies each rewind against git and the undo', async () => {
    const repository = await makeScenarioRepository();
    const result = await demo(['--repo', repository, '--json']);
    expect(result.exitCode).toBe(0);
    const report = JSON.parse(result.stdout) as DemoJson;
    expect(report.ok).toBe(true);
    expect(report.requested).toBe(30);
    expect(report.replayed).toBe(10);
    expect(report.baseCommit).toBeNull();
    expect(report.baseNote).toBe('the oldest commit is the root commit: starting from the empty tree');
    expect(report.turns.map((turn) => [turn.subject, turn.files, turn.insertions, turn.deletions, turn.skipped, turn.verified])).toEqual([
      ['root: files, an executable, a symlink', 5, 7, 0, ['link'], true],
      ['modify a.txt, executable bit off', 2, 2, 1, [], true],
      ['rename docs, add a binary file', 2, 0, 0, [], true],
      ['rename with edits, delete the binary file', 2, 1, 0, [], true],
      ['retarget the symlink, executable bits on', 3, 2, 1, ['link'], true],
      ['a folder becomes a file: bin', 2, 1, 2, [], true],
      ['a file becomes a folder: bin', 2, 2, 1, [], true],
      ['empty a.txt', 1, 0, 3, [], true],
      ['main work', 1, 1, 0, [], true],
      ['after the merge', 2, 2, 0, [], true],
    ]);
    expect(report.turns.flatMap((turn) => turn.mismatches)).toEqual([]);
    // Every third turn went through a shell command (git rm / git checkout) in a command window.
    expect(report.turns.map((turn) => turn.kind)).toEqual(['edit', 'edit', 'shell', 'edit', 'edit', 'shell', 'edit', 'edit', 'shell', 'edit']);
    expect(report.trackedFiles).toBe(11);
    expect(report.replayVerified).toBe(true);
    expect(report.undo).toEqual({ ms: expect.any(Number), verified: true, mismatches: [], skipped: false });
    expect(report.workFolder).toBeNull();
  });

  it('starts at the parent of the oldest commit it replays', async () => {
    const repository = await makeScenarioRepository();
    const result = await demo(['--repo', repository, '--commits', '3', '--json']);
    expect(result.exitCode).toBe(0);
    const report = JSON.parse(result.stdout) as DemoJson;
    expect(report.replayed).toBe(3);
    expect(report.baseCommit).toBe(git(repository, ['rev-parse', 'HEAD~4']));
    expect(report.turns.map((turn) => turn.subject)).toEqual(['empty a.txt', 'main work', 'after the merge']);
    expect(report.ok).toBe(true);
  });

  it('works on a repository with a single commit and says it has fewer than asked', async () => {
    const repository = await tempFolder('fh-demo-one-');
    git(repository, ['init', '-q', '-b', 'main']);
    await writeFiles(repository, { 'hello.txt': 'hello\n', 'tool.sh': { content: '#!/bin/sh\n', mode: 0o755 } });
    git(repository, ['add', '-A']);
    git(repository, ['commit', '-q', '-m', 'the only commit']);
    const result = await demo(['--repo', repository]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(`Replaying 1 commit of ${repository} as agent turns`);
    expect(result.stdout).toContain('(asked for 30; the first-parent history of HEAD has only 1 non-merge commit, so all of them are replayed)');
    expect(result.stdout).toMatch(/\n +1 +edit +[0-9a-f]{8} the only commit +2 +\+2 -0 +[\d.]+ ms +verified\n/);
    expect(result.stdout).toContain('All checkpoints verified.');
  });

  it('starts from the empty tree at the edge of a shallow clone (git shows that commit without parents)', async () => {
    const repository = await makeScenarioRepository();
    const clone = join(await tempFolder('fh-demo-shallow-'), 'clone');
    git(repository, ['clone', '-q', '--depth', '2', `file://${repository}`, clone]);
    const result = await demo(['--repo', clone, '--json']);
    expect(result.exitCode).toBe(0);
    const report = JSON.parse(result.stdout) as DemoJson;
    expect(report.turns.map((turn) => turn.subject)).toEqual(['merge side', 'after the merge']);
    expect(report.baseCommit).toBeNull();
    expect(report.baseNote).toMatch(/^the oldest commit [0-9a-f]{12} is the edge of this shallow clone \(its parents are not here\): starting from the empty tree$/);
    expect(report.ok).toBe(true);
  });

  it('refuses a folder that is not a git repository (exit 2)', async () => {
    const folder = await tempFolder();
    const result = await demo(['--repo', folder]);
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: `fh: ${folder} is not inside a git repository (pass --repo <path>)\n` });
  });

  it('refuses a repository without commits (exit 2)', async () => {
    const repository = await tempFolder('fh-demo-empty-');
    git(repository, ['init', '-q', '-b', 'main']);
    const result = await demo(['--repo', repository]);
    expect(result).toEqual({ exitCode: 2, stdout: '', stderr: `fh: ${repository} has no commits to replay\n` });
  });

  it('refuses more commits than a session keeps checkpoints (exit 2)', async () => {
    const result = await demo(['--commits', '101']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('fh: --commits 101 is more than the 100 checkpoints a session keeps\n');
  });

  it("passes on this repository's own history", async () => {
    const result = await demo(['--repo', repositoryRoot]);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const rows = result.stdout.split('\n').filter((line) => /^ +\d+ +(edit|shell) +[0-9a-f]{8} /.test(line));
    expect(rows.some((row) => / shell /.test(row))).toBe(true);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.length).toBeLessThanOrEqual(30);
    for (const row of rows) expect(row).toMatch(/ verified$/);
    expect(result.stdout).toContain('All checkpoints verified.');
  });
});

import { statSync } from 'node:fs';
import { appendFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { undoRewind } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { describe, expect, it } from 'vitest';
import { exists, git, readTree, runJson, runTool } from './helpers.js';
import { worktreeList, worktreeSession, type Tree, type WorktreeFixture } from './session-fixture.js';

/** Remove the worktree the way a cleanup does (uncommitted work and all). */
function cleanUp(fixture: WorktreeFixture): void {
  git(fixture.repo, ['worktree', 'remove', '--force', fixture.worktreePath]);
}

function withoutFile(tree: Tree, path: string): Tree {
  const { [path]: _removed, ...rest } = tree;
  return rest;
}

describe('restore: the worktree was removed by a cleanup', () => {
  it('recreates it on its branch and brings back the uncommitted edits byte for byte, with modes', async () => {
    const fixture = await worktreeSession();
    cleanUp(fixture);
    expect(await exists(fixture.worktreePath)).toBe(false);

    const { result, json } = await runJson(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(json).toEqual({
      sessionId: fixture.sessionId,
      source: 'fs',
      worktreePath: fixture.worktreePath,
      worktreeName: 'feature',
      branch: 'worktree-feature',
      originalCwd: fixture.repo,
      action: 'recreated',
      commit: null,
      pruned: false,
      messageId: 'm3',
      restored: ['data.bin', 'notes/plan.md', 'run.sh', 'src/app.ts'],
      deleted: ['README.md'],
      skipped: [],
      failed: [],
      outside: [],
      undoId: null,
      cd: fixture.worktreePath,
    });
    expect(git(fixture.worktreePath, ['symbolic-ref', '--short', 'HEAD'])).toBe('worktree-feature');
    expect(await readTree(fixture.worktreePath)).toEqual(fixture.trees.m3);
    expect((fixture.trees.m3['run.sh'] as { mode: number }).mode).toBe(0o700);
    expect((fixture.trees.m3['data.bin'] as { mode: number }).mode).toBe(0o600);
    expect(worktreeList(fixture.repo)).toContain(`worktree ${fixture.worktreePath}\n`);
  });

  it('prints only the path to cd into on stdout, and what it did on stderr', async () => {
    const fixture = await worktreeSession();
    cleanUp(fixture);
    const result = await runTool(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${fixture.worktreePath}\n`);
    expect(result.stderr).toBe(
      [
        `fh-worktree-restore: worktree feature recreated at ${fixture.worktreePath} on branch worktree-feature`,
        'fh-worktree-restore: rewound to m3: 4 restored, 1 deleted, 0 failed',
        '',
      ].join('\n'),
    );
  });

  it('--message rewinds the recreated worktree to an earlier turn', async () => {
    const fixture = await worktreeSession();
    cleanUp(fixture);
    const { result, json } = await runJson(['restore', ...fixture.sourceArgs, '--message', 'm2'], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ action: 'recreated', messageId: 'm2', restored: ['notes/plan.md', 'src/app.ts'], deleted: [], failed: [] });
    expect(await readTree(fixture.worktreePath)).toEqual(fixture.trees.m2);
  });

  it('an unknown --message is refused before anything changes', async () => {
    const fixture = await worktreeSession();
    cleanUp(fixture);
    const before = worktreeList(fixture.repo);
    const result = await runTool(['restore', ...fixture.sourceArgs, '--message', 'nope'], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('fh-worktree-restore: no snapshot for message "nope" in the session\n');
    expect(await exists(fixture.worktreePath)).toBe(false);
    expect(worktreeList(fixture.repo)).toBe(before);
  });

  it('recreates the branch from originalHeadCommit when the branch was deleted too', async () => {
    const fixture = await worktreeSession();
    cleanUp(fixture);
    git(fixture.repo, ['branch', '-D', 'worktree-feature']);

    const { result, json } = await runJson(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ action: 'recreated-from-commit', commit: fixture.originalHead, messageId: 'm3', failed: [] });
    expect(git(fixture.worktreePath, ['symbolic-ref', '--short', 'HEAD'])).toBe('worktree-feature');
    expect(git(fixture.repo, ['rev-parse', 'worktree-feature'])).toBe(fixture.originalHead);
    // The commit on the lost branch (CHANGELOG.md) is gone; every tracked edit is back.
    expect(await readTree(fixture.worktreePath)).toEqual(withoutFile(fixture.trees.m3, 'CHANGELOG.md'));
  });

  it('prunes a stale registration when the folder was deleted without git', async () => {
    const fixture = await worktreeSession();
    await rm(fixture.worktreePath, { recursive: true, force: true });
    expect(worktreeList(fixture.repo)).toContain('prunable');

    const { result, json } = await runJson(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ action: 'recreated', pruned: true, messageId: 'm3', failed: [] });
    expect(worktreeList(fixture.repo)).not.toContain('prunable');
    expect(await readTree(fixture.worktreePath)).toEqual(fixture.trees.m3);
  });

  it('recreates into an empty folder left at the path', async () => {
    const fixture = await worktreeSession();
    cleanUp(fixture);
    await mkdir(fixture.worktreePath, { recursive: true });
    const { result, json } = await runJson(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ action: 'recreated', messageId: 'm3' });
    expect(await readTree(fixture.worktreePath)).toEqual(fixture.trees.m3);
  });

  it('refuses when the path is occupied by something that is not the worktree, changing nothing', async () => {
    const fixture = await worktreeSession();
    cleanUp(fixture);
    await mkdir(fixture.worktreePath, { recursive: true });
    await writeFile(join(fixture.worktreePath, 'keep.txt'), 'not yours\n');
    const listBefore = worktreeList(fixture.repo);
    const branchBefore = git(fixture.repo, ['rev-parse', 'worktree-feature']);

    const { result, json } = await runJson(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    const message = `not restoring the worktree of session "${fixture.sessionId}": ${fixture.worktreePath} is occupied by something that is not the session's worktree; move it away first`;
    expect(json).toEqual({ error: { code: 'FH_REFUSED', message, details: [] } });
    expect(result.stderr).toBe(`fh-worktree-restore: ${message}\n`);
    expect(await readdir(fixture.worktreePath)).toEqual(['keep.txt']);
    expect(worktreeList(fixture.repo)).toBe(listBefore);
    expect(git(fixture.repo, ['rev-parse', 'worktree-feature'])).toBe(branchBefore);
  });

  it('refuses when the branch is checked out in another worktree', async () => {
    const fixture = await worktreeSession();
    cleanUp(fixture);
    const elsewhere = join(fixture.repo, '..', 'elsewhere');
    git(fixture.repo, ['worktree', 'add', '-q', elsewhere, 'worktree-feature']);
    const result = await runTool(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `fh-worktree-restore: not restoring the worktree of session "${fixture.sessionId}": branch worktree-feature is checked out in another worktree at ${elsewhere}\n`,
    );
    expect(await exists(fixture.worktreePath)).toBe(false);
  });

  it('reuses a live worktree without touching its files unless --message is given', async () => {
    const fixture = await worktreeSession();
    await writeFile(join(fixture.worktreePath, 'src/app.ts'), 'export const answer = 44;\n');
    const live = await readTree(fixture.worktreePath);

    const { result, json } = await runJson(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ action: 'reused', pruned: false, messageId: null, restored: [], deleted: [] });
    expect(await readTree(fixture.worktreePath)).toEqual(live);

    const rewound = await runJson(['restore', ...fixture.sourceArgs, '--message', 'm3'], { home: fixture.home });
    expect(rewound.result.exitCode).toBe(0);
    expect(rewound.json).toMatchObject({ action: 'reused', messageId: 'm3', restored: ['src/app.ts'] });
    expect(await readTree(fixture.worktreePath)).toEqual(fixture.trees.m3);

    // The live file it overwrote was saved first; undoing the rewind brings it back.
    const undoId = rewound.json.undoId as string;
    expect(typeof undoId).toBe('string');
    const store = new FsBackupStore({ root: fixture.dataFolder });
    await undoRewind({ projectRoot: fixture.worktreePath, fs: store.workspaceFs }, { store, sessionId: fixture.sessionId }, { pointId: undoId });
    expect(await readTree(fixture.worktreePath)).toEqual(live);
  });

  it('refuses a live worktree on another branch', async () => {
    const fixture = await worktreeSession();
    git(fixture.worktreePath, ['switch', '-q', '-c', 'other']);
    const result = await runTool(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`${fixture.worktreePath} is a worktree on branch other, not on branch worktree-feature`);
  });

  it('works for a worktree next to the repository', async () => {
    const fixture = await worktreeSession({ layout: 'sibling' });
    cleanUp(fixture);
    const { result, json } = await runJson(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ action: 'recreated', worktreePath: fixture.worktreePath, messageId: 'm3', failed: [] });
    expect(await readTree(fixture.worktreePath)).toEqual(fixture.trees.m3);
  });

  it('rewinds only the worktree when the session was rooted at the main checkout', async () => {
    const fixture = await worktreeSession({ projectRoot: 'repository' });
    cleanUp(fixture);
    const { result, json } = await runJson(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({
      action: 'recreated',
      messageId: 'm3',
      restored: ['data.bin', 'notes/plan.md', 'run.sh', 'src/app.ts'],
      deleted: ['README.md'],
      outside: [],
    });
    expect(await readTree(fixture.worktreePath)).toEqual(fixture.trees.m3);
  });

  it('roots the rewind at the worktree when the session recorded no project root', async () => {
    const fixture = await worktreeSession({ projectRoot: 'unrecorded' });
    cleanUp(fixture);
    const { result, json } = await runJson(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ action: 'recreated', messageId: 'm3', failed: [] });
    expect(await readTree(fixture.worktreePath)).toEqual(fixture.trees.m3);
  });

  it('restores what it can and exits 3 naming each file whose backup is gone', async () => {
    const fixture = await worktreeSession();
    cleanUp(fixture);
    const backups = join(fixture.dataFolder, 'file-history', fixture.sessionId);
    const names = (await readdir(backups)).sort();
    // The newest backup of data.bin is the only one of its kind; find it by its bytes' size (1024).
    const binary = names.find((name) => statSync(join(backups, name)).size === 1024);
    expect(binary).toBeDefined();
    await rm(join(backups, binary as string));

    const { result, json } = await runJson(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(3);
    expect(json).toMatchObject({ action: 'recreated', messageId: 'm3', restored: ['notes/plan.md', 'run.sh', 'src/app.ts'], deleted: ['README.md'] });
    const failed = (json as { failed: Array<{ path: string; error: string }> }).failed;
    expect(failed.map((failure) => failure.path)).toEqual(['data.bin']);
    expect(failed[0]?.error).toContain(`backup ${binary}`);
    expect(await readTree(fixture.worktreePath)).toEqual(withoutFile(fixture.trees.m3, 'data.bin'));
    expect(result.stderr).toContain('fh-worktree-restore: the worktree is back, but 1 file could not be rewound\n  data.bin: ');
  });
});

describe('restore: what it cannot work with', () => {
  it('an unknown session', async () => {
    const fixture = await worktreeSession();
    const result = await runTool(['restore', '--session', 'other-session', '--store', `fs:${fixture.dataFolder}`], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(`fh-worktree-restore: session "other-session" not found in fs:${fixture.dataFolder}; nothing was changed (fh --store fs:${fixture.dataFolder} sessions lists them)\n`);
  });

  it('a session without a worktree-state record', async () => {
    const fixture = await worktreeSession();
    const sessions = join(fixture.dataFolder, 'sessions');
    const lines = (await readFile(join(sessions, `${fixture.sessionId}.jsonl`), 'utf8')).split('\n');
    await writeFile(join(sessions, 'plain-session.jsonl'), lines.filter((line) => !line.includes('"worktree-state"')).join('\n'));
    const result = await runTool(['restore', '--session', 'plain-session', '--store', `fs:${fixture.dataFolder}`], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `fh-worktree-restore: session "plain-session" in fs:${fixture.dataFolder} recorded no worktree-state: it did not run in a worktree\n`,
    );
  });

  it('a session that left its worktree', async () => {
    const fixture = await worktreeSession();
    const log = join(fixture.dataFolder, 'sessions', `${fixture.sessionId}.jsonl`);
    await appendFile(log, `${JSON.stringify({ type: 'worktree-state', sessionId: fixture.sessionId, worktreeSession: null })}\n`);
    const { result, json } = await runJson(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(json).toEqual({
      error: {
        code: 'FH_NOT_FOUND',
        message: `session "${fixture.sessionId}" left its worktree (its last worktree-state is null): there is no worktree to restore`,
        details: [],
      },
    });
  });

  it('a worktree-state record with a relative worktree path names the field', async () => {
    const fixture = await worktreeSession();
    const log = join(fixture.dataFolder, 'sessions', `${fixture.sessionId}.jsonl`);
    await appendFile(
      log,
      `${JSON.stringify({ type: 'worktree-state', sessionId: fixture.sessionId, worktreeSession: { ...fixture.worktreeSession, worktreePath: 'feature' } })}\n`,
    );
    const result = await runTool(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      'fh-worktree-restore: the last worktree-state record: worktreeSession.worktreePath must be an absolute path, got "feature"\n',
    );
  });

  it('a worktree path outside the repository is refused as invalid', async () => {
    const fixture = await worktreeSession();
    const log = join(fixture.dataFolder, 'sessions', `${fixture.sessionId}.jsonl`);
    await appendFile(
      log,
      `${JSON.stringify({ type: 'worktree-state', sessionId: fixture.sessionId, worktreeSession: { ...fixture.worktreeSession, worktreePath: '/etc/feature' } })}\n`,
    );
    const result = await runTool(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `fh-worktree-restore: worktreeSession.worktreePath "/etc/feature" is neither inside the repository "${fixture.repo}" nor next to it\n`,
    );
  });

  it('usage errors exit 2', async () => {
    const fixture = await worktreeSession();
    const noSession = await runTool(['restore', '--store', `fs:${fixture.dataFolder}`], { home: fixture.home });
    expect(noSession.exitCode).toBe(2);
    expect(noSession.stderr).toBe('fh-worktree-restore: no session given: pass --session <id> or set FH_SESSION_ID\n');
    const both = await runJson(['restore', ...fixture.sourceArgs, '--claude', fixture.dataFolder], { home: fixture.home });
    expect(both.result.exitCode).toBe(2);
    expect(both.json).toEqual({ error: { code: 'FH_USAGE', message: 'give either --store or --claude, not both', details: [] } });
    const unknown = await runJson(['restore', '--bogus'], { home: fixture.home });
    expect(unknown.result.exitCode).toBe(2);
    expect(unknown.json).toEqual({ error: { code: 'FH_USAGE', message: "unknown option '--bogus'", details: [] } });
    // A session id that is not one path segment is a bad argument value: exit 2, as fh exits.
    const badId = await runTool(['restore', '--session', '../x', '--store', `fs:${fixture.dataFolder}`], { home: fixture.home });
    expect(badId).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: 'fh-worktree-restore: sessionId must be a single path segment (not empty, not "." or "..", no "/", "\\" or NUL): "../x"\n',
    });
    const none = await runJson([], { home: fixture.home });
    expect(none.result.exitCode).toBe(2);
    expect(none.json).toEqual({ error: { code: 'FH_USAGE', message: 'no command given (fh-worktree-restore --help lists the commands)', details: [] } });
  });

  it('takes its options before or after the subcommand, as fh does', async () => {
    const fixture = await worktreeSession();
    cleanUp(fixture);
    const before = await runTool(['--json', ...fixture.sourceArgs, 'restore', '--message', 'm3'], { home: fixture.home });
    expect(before.exitCode).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject({ action: 'recreated', messageId: 'm3' });
    const { result, json } = await runJson(['exit', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(json).toMatchObject({ error: { code: 'FH_REFUSED' } });
    const mixed = await runTool(['--session', fixture.sessionId, 'exit', '--json', ...fixture.sourceArgs.slice(2)], { home: fixture.home });
    expect(mixed.exitCode).toBe(1);
    expect(JSON.parse(mixed.stdout)).toEqual(json);
  });

  it('FH_SESSION_ID and FH_HOME name the session and the store', async () => {
    const fixture = await worktreeSession();
    cleanUp(fixture);
    const { result, json } = await runJson(['restore'], { home: fixture.home, env: { FH_SESSION_ID: fixture.sessionId, FH_HOME: fixture.dataFolder } });
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ action: 'recreated', messageId: 'm3' });
  });
});

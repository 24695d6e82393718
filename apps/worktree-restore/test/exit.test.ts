import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exists, git, readTree, runJson, runTool } from './helpers.js';
import { worktreeList, worktreeSession } from './session-fixture.js';

describe('exit: remove the restored worktree only when nothing would be lost', () => {
  it('refuses while the worktree has uncommitted changes, naming each file, and changes nothing', async () => {
    const fixture = await worktreeSession();
    git(fixture.repo, ['worktree', 'remove', '--force', fixture.worktreePath]);
    expect((await runTool(['restore', ...fixture.sourceArgs], { home: fixture.home })).exitCode).toBe(0);
    const before = await readTree(fixture.worktreePath);

    const { result, json } = await runJson(['exit', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    const changed = ['README.md', 'run.sh', 'src/app.ts', 'data.bin', 'notes/plan.md'];
    const message = `not removing the worktree of session "${fixture.sessionId}": the worktree ${fixture.worktreePath} has 5 uncommitted changes: ${changed.join(', ')}; commit or discard them first`;
    expect(json).toEqual({ error: { code: 'FH_REFUSED', message, details: changed } });
    expect(result.stderr).toBe(`fh-worktree-restore: ${message}\n${changed.map((path) => `  ${path}\n`).join('')}`);
    expect(await readTree(fixture.worktreePath)).toEqual(before);
    expect(worktreeList(fixture.repo)).toContain(`worktree ${fixture.worktreePath}\n`);
  });

  it('removes a clean worktree, keeps its branch and prints the original folder', async () => {
    const fixture = await worktreeSession();
    git(fixture.worktreePath, ['add', '-A']);
    git(fixture.worktreePath, ['commit', '-q', '-m', 'agent work']);
    const tip = git(fixture.repo, ['rev-parse', 'worktree-feature']);

    const result = await runTool(['exit', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${fixture.repo}\n`);
    expect(result.stderr).toBe(`fh-worktree-restore: removed the worktree ${fixture.worktreePath}; branch worktree-feature is kept\n`);
    expect(await exists(fixture.worktreePath)).toBe(false);
    expect(worktreeList(fixture.repo)).not.toContain(fixture.worktreePath);
    expect(git(fixture.repo, ['rev-parse', 'worktree-feature'])).toBe(tip);
  });

  it('reports an already removed worktree as nothing to do (JSON)', async () => {
    const fixture = await worktreeSession();
    git(fixture.repo, ['worktree', 'remove', '--force', fixture.worktreePath]);
    const { result, json } = await runJson(['exit', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toEqual({
      sessionId: fixture.sessionId,
      worktreePath: fixture.worktreePath,
      branch: 'worktree-feature',
      removed: false,
      cd: fixture.repo,
    });
  });

  it('a restore then exit round trip: restore, commit the restored work, exit', async () => {
    const fixture = await worktreeSession();
    git(fixture.repo, ['worktree', 'remove', '--force', fixture.worktreePath]);
    expect((await runTool(['restore', ...fixture.sourceArgs], { home: fixture.home })).exitCode).toBe(0);
    git(fixture.worktreePath, ['add', '-A']);
    git(fixture.worktreePath, ['commit', '-q', '-m', 'restored agent work']);
    expect(git(fixture.repo, ['show', 'worktree-feature:src/app.ts'])).toBe('export const answer = 43;');
    const { result, json } = await runJson(['exit', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ removed: true, cd: fixture.repo });
    expect(await exists(fixture.worktreePath)).toBe(false);
  });

  it('never removes a folder git does not know as the worktree', async () => {
    const fixture = await worktreeSession();
    git(fixture.repo, ['worktree', 'remove', '--force', fixture.worktreePath]);
    await mkdir(fixture.worktreePath, { recursive: true });
    await writeFile(join(fixture.worktreePath, 'keep.txt'), 'mine\n');
    const result = await runTool(['exit', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `fh-worktree-restore: not removing the worktree of session "${fixture.sessionId}": ${fixture.worktreePath} is not a worktree git knows; it is left alone\n`,
    );
    expect(await exists(join(fixture.worktreePath, 'keep.txt'))).toBe(true);
  });

  it('never removes a worktree folder whose .git link is gone (git would report the main checkout instead)', async () => {
    const fixture = await worktreeSession();
    await rm(join(fixture.worktreePath, '.git'));
    const before = await readTree(fixture.worktreePath);
    const result = await runTool(['exit', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `fh-worktree-restore: not removing the worktree of session "${fixture.sessionId}": ${fixture.worktreePath} is not a worktree git knows; it is left alone\n`,
    );
    expect(await readTree(fixture.worktreePath)).toEqual(before);
  });

  it('refuses a locked worktree', async () => {
    const fixture = await worktreeSession();
    git(fixture.worktreePath, ['add', '-A']);
    git(fixture.worktreePath, ['commit', '-q', '-m', 'agent work']);
    git(fixture.repo, ['worktree', 'lock', fixture.worktreePath]);
    const result = await runTool(['exit', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`the worktree ${fixture.worktreePath} is locked; run git worktree unlock ${fixture.worktreePath} first`);
    expect(await exists(fixture.worktreePath)).toBe(true);
  });
});

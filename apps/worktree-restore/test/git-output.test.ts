/** Parsing git's machine-readable output, checked against what the real git binary prints. */
import { execFileSync } from 'node:child_process';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStatus, parseWorktreeList } from '../src/git.js';
import { git, gitEnvironment, tempFolder } from './helpers.js';
import { makeRepository } from './session-fixture.js';

function gitRaw(cwd: string, args: readonly string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...gitEnvironment } });
}

describe('parseWorktreeList', () => {
  it('reads branch, detached, locked and prunable worktrees from git worktree list --porcelain -z', async () => {
    const root = await tempFolder();
    const { repo, head } = await makeRepository(root);
    git(repo, ['worktree', 'add', '-q', '-b', 'feature', join(root, 'wt one')]);
    git(repo, ['worktree', 'add', '-q', '--detach', join(root, 'detached')]);
    git(repo, ['worktree', 'add', '-q', '-b', 'gone', join(root, 'gone')]);
    git(repo, ['worktree', 'lock', '--reason', 'keep it', join(root, 'wt one')]);
    await rm(join(root, 'gone'), { recursive: true });

    expect(parseWorktreeList(gitRaw(repo, ['worktree', 'list', '--porcelain', '-z']))).toEqual([
      { path: repo, head, branch: 'main', bare: false, locked: false, prunable: false },
      { path: join(root, 'detached'), head, branch: null, bare: false, locked: false, prunable: false },
      { path: join(root, 'gone'), head, branch: 'gone', bare: false, locked: false, prunable: true },
      { path: join(root, 'wt one'), head, branch: 'feature', bare: false, locked: true, prunable: false },
    ]);
  });
});

describe('parseStatus', () => {
  it('lists modified, deleted, staged, renamed and untracked paths (names with spaces and newlines too)', async () => {
    const root = await tempFolder();
    const { repo } = await makeRepository(root);
    await writeFile(join(repo, 'src/app.ts'), 'changed\n');
    await rm(join(repo, 'README.md'));
    await rename(join(repo, 'run.sh'), join(repo, 'start.sh'));
    git(repo, ['add', '-A', 'run.sh', 'start.sh']);
    await mkdir(join(repo, 'new folder'));
    await writeFile(join(repo, 'new folder', 'a b.txt'), 'x');
    await writeFile(join(repo, 'line\nbreak.txt'), 'x');

    const output = gitRaw(repo, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
    expect(parseStatus(output).sort()).toEqual(['README.md', 'line\nbreak.txt', 'new folder/a b.txt', 'src/app.ts', 'start.sh']);
    expect(parseStatus('')).toEqual([]);
  });
});

/**
 * `probeWorktree` reads a linked worktree from git's own files: its branch and the commit the
 * branch points to, from a loose ref or, after `git pack-refs`, from `packed-refs` (real git).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeWorktree } from '../src/worktree-probe.js';
import { git, tempFolder } from './helpers.js';

describe('probeWorktree', () => {
  it('names the branch commit from a loose ref and from packed-refs, and nothing for the main checkout', async () => {
    const main = join(await tempFolder('fh-probe-'), 'repo');
    await mkdir(main, { recursive: true });
    git(main, ['init', '-q', '-b', 'main']);
    await writeFile(join(main, 'a.txt'), 'a\n');
    git(main, ['add', '.']);
    git(main, ['commit', '-q', '-m', 'first']);
    const worktree = join(main, '.claude', 'worktrees', 'feature-x');
    git(main, ['worktree', 'add', '-q', '-b', 'topic/x', worktree]);
    await writeFile(join(worktree, 'b.txt'), 'b\n');
    git(worktree, ['add', '.']);
    git(worktree, ['commit', '-q', '-m', 'second']);
    const head = git(worktree, ['rev-parse', 'HEAD']);
    const expected = { originalCwd: main, worktreePath: worktree, worktreeName: 'feature-x', worktreeBranch: 'topic/x', originalHeadCommit: head };

    expect(probeWorktree(join(worktree, '.claude'))).toEqual(expected);
    git(main, ['pack-refs', '--all']);
    expect(probeWorktree(worktree)).toEqual(expected);
    expect(probeWorktree(main)).toBeUndefined();
  });
});

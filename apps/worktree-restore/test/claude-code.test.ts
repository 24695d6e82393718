import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, readTree, runJson, runTool } from './helpers.js';
import { worktreeSession } from './session-fixture.js';

/** Every file under a folder with its bytes, to prove the Claude Code data was only read. */
async function snapshotFolder(folder: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    result[path] = (await readFile(path)).toString('base64');
  }
  return result;
}

describe('Claude Code sessions (--claude): transcript and backups in a config folder', () => {
  it('a session launched in the worktree (claude -w): restore brings the worktree and the edits back, reading only', async () => {
    const fixture = await worktreeSession({ flavour: 'claude-start' });
    git(fixture.repo, ['worktree', 'remove', '--force', fixture.worktreePath]);
    const claudeBefore = await snapshotFolder(fixture.dataFolder);

    const { result, json } = await runJson(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toEqual({
      sessionId: fixture.sessionId,
      source: 'claude',
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
    expect(await readTree(fixture.worktreePath)).toEqual(fixture.trees.m3);
    expect(await snapshotFolder(fixture.dataFolder)).toEqual(claudeBefore);
  });

  it('the default config folder is $CLAUDE_CONFIG_DIR', async () => {
    const fixture = await worktreeSession({ flavour: 'claude-start' });
    git(fixture.repo, ['worktree', 'remove', '--force', fixture.worktreePath]);
    git(fixture.repo, ['branch', '-D', 'worktree-feature']);
    const result = await runTool(['restore', '--session', fixture.sessionId, '--claude'], {
      home: fixture.home,
      env: { CLAUDE_CONFIG_DIR: fixture.dataFolder },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${fixture.worktreePath}\n`);
    const { m3 } = fixture.trees;
    const { 'CHANGELOG.md': _committedOnLostBranch, ...expected } = m3;
    expect(await readTree(fixture.worktreePath)).toEqual(expected);
  });

  it('a session that entered the worktree mid-way rewinds to the snapshots taken inside it only', async () => {
    const fixture = await worktreeSession({ flavour: 'claude-mid' });
    git(fixture.repo, ['worktree', 'remove', '--force', fixture.worktreePath]);

    const refused = await runTool(['restore', ...fixture.sourceArgs, '--message', 'm0'], { home: fixture.home });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toBe(
      `fh-worktree-restore: the snapshot of message "m0" was taken before the session entered the worktree ${fixture.worktreePath}; its paths belong to another folder\n`,
    );

    const { result, json } = await runJson(['restore', ...fixture.sourceArgs, '--message', 'm2'], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ source: 'claude', action: 'recreated', messageId: 'm2', failed: [] });
    expect(await readTree(fixture.worktreePath)).toEqual(fixture.trees.m2);
  });

  it('exit works on a Claude Code session too', async () => {
    const fixture = await worktreeSession({ flavour: 'claude-start' });
    git(fixture.worktreePath, ['add', '-A']);
    git(fixture.worktreePath, ['commit', '-q', '-m', 'agent work']);
    const { result, json } = await runJson(['exit', ...fixture.sourceArgs], { home: fixture.home });
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ removed: true, cd: fixture.repo });
  });

  it('a session without a transcript', async () => {
    const fixture = await worktreeSession({ flavour: 'claude-start' });
    const result = await runTool(['restore', '--session', 'nope', '--claude', fixture.dataFolder], { home: fixture.home });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(`fh-worktree-restore: Claude Code session "nope" has no transcript in ${fixture.dataFolder}; nothing was changed (fh --claude ${fixture.dataFolder} sessions lists them)\n`);
  });
});

/**
 * The last turn's own work (issue 11): the session's final turn edits files through the real
 * `fh hook` (recorded Claude Code events: PreToolUse of Write, then Stop), the worktree is removed
 * by a cleanup, and `fh-worktree-restore restore` brings back exactly what the turn ended with —
 * the Stop hook's end-of-turn checkpoint is the latest snapshot.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exists, git, readTree, runJson } from './helpers.js';
import { worktreeSession } from './session-fixture.js';

const fhPath = fileURLToPath(new URL('../../cli/dist/cli.js', import.meta.url));
const hookFixtures = fileURLToPath(new URL('../../cli/test/fixtures/hooks/', import.meta.url));

/** Run `fh --store fs:<store> hook` with one recorded event (placeholders filled, `file_path` replaced when given). */
async function hook(store: string, home: string, fixture: string, fill: { session: string; project: string; filePath?: string }): Promise<void> {
  const text = (await readFile(join(hookFixtures, fixture), 'utf8')).replaceAll('__SESSION__', fill.session).replaceAll('__HOME__', home).replaceAll('__PROJECT__', fill.project);
  const event = JSON.parse(text) as { tool_input?: { file_path?: string } };
  if (fill.filePath !== undefined && event.tool_input !== undefined) event.tool_input.file_path = fill.filePath;
  const result = spawnSync(process.execPath, [fhPath, '--store', `fs:${store}`, 'hook'], { input: JSON.stringify(event), cwd: fill.project, env: { PATH: process.env.PATH ?? '', HOME: home }, encoding: 'utf8' });
  expect([result.status, result.stderr, result.stdout]).toEqual([0, '', '']);
}

describe('restore after a Stop checkpoint', () => {
  it("brings back the last turn's bytes and modes, which no prompt's snapshot holds", async () => {
    const fixture = await worktreeSession();
    const fill = { session: fixture.sessionId, project: fixture.worktreePath };
    const inWorktree = (path: string) => join(fixture.worktreePath, path);
    // The last turn: the agent rewrites src/app.ts (mode 0o750), writes a new script and deletes notes/plan.md.
    await hook(fixture.dataFolder, fixture.home, 'pre-tool-use-write.json', { ...fill, filePath: inWorktree('src/app.ts') });
    await writeFile(inWorktree('src/app.ts'), 'export const answer = 44;\nexport const done = true;\n');
    await chmod(inWorktree('src/app.ts'), 0o750);
    await hook(fixture.dataFolder, fixture.home, 'pre-tool-use-write.json', { ...fill, filePath: inWorktree('tools/last.sh') });
    await mkdir(inWorktree('tools'), { recursive: true });
    await writeFile(inWorktree('tools/last.sh'), '#!/bin/sh\necho last turn\n');
    await chmod(inWorktree('tools/last.sh'), 0o755);
    await hook(fixture.dataFolder, fixture.home, 'pre-tool-use-write.json', { ...fill, filePath: inWorktree('notes/plan.md') });
    await unlink(inWorktree('notes/plan.md'));
    await hook(fixture.dataFolder, fixture.home, 'stop.json', fill);
    const lastTurn = await readTree(fixture.worktreePath);
    expect(lastTurn).not.toEqual(fixture.trees.m3);

    const log = (await readFile(join(fixture.dataFolder, 'sessions', `${fixture.sessionId}.jsonl`), 'utf8')).split('\n').filter((line) => line !== '');
    const marks = log.map((line) => JSON.parse(line) as { type: string; kind?: string; messageId?: string }).filter((record) => record.type === 'fh-checkpoint');
    expect(marks.map((mark) => mark.kind)).toEqual(['end-of-turn']);

    git(fixture.repo, ['worktree', 'remove', '--force', fixture.worktreePath]);
    expect(await exists(fixture.worktreePath)).toBe(false);
    const { result, json } = await runJson<{ action: string; messageId: string; restored: string[]; deleted: string[]; failed: unknown[] }>(['restore', ...fixture.sourceArgs], { home: fixture.home });
    expect([result.exitCode, result.stderr]).toEqual([0, '']);
    expect(json.action).toBe('recreated');
    expect(json.messageId).toBe(marks[0]?.messageId);
    expect(json.restored).toEqual(['data.bin', 'run.sh', 'src/app.ts', 'tools/last.sh']);
    expect(json.deleted).toEqual(['README.md']);
    expect(json.failed).toEqual([]);
    expect(await readTree(fixture.worktreePath)).toEqual(lastTurn);
    expect(lastTurn['src/app.ts']).toEqual({ base64: Buffer.from('export const answer = 44;\nexport const done = true;\n').toString('base64'), mode: 0o750 });
    expect(lastTurn['tools/last.sh']).toEqual({ base64: Buffer.from('#!/bin/sh\necho last turn\n').toString('base64'), mode: 0o755 });
    expect(lastTurn['notes/plan.md']).toBeUndefined();
  }, 60_000);
});

import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_CONTENT, CLAUDE_SESSION, claudeSlug, writeClaudeFixture, type ClaudeFixture } from './claude-fixture.js';
import { runCli, tempFolder, type CliResult } from './helpers.js';

describe('fh --claude on a Claude Code session', () => {
  let fixture: ClaudeFixture;
  let home: string;
  let store: string;
  let transcriptBefore: string;

  beforeEach(async () => {
    const base = await tempFolder();
    fixture = await writeClaudeFixture(base);
    home = join(base, 'home');
    store = join(base, 'fh-store');
    transcriptBefore = await readFile(fixture.transcriptPath, 'utf8');
  });

  const fh = (args: readonly string[]): Promise<CliResult> =>
    runCli(['--store', `fs:${store}`, '--claude', fixture.configDir, ...args], { home, cwd: fixture.projectRoot });
  const json = async <T>(args: readonly string[]): Promise<{ result: CliResult; json: T }> => {
    const result = await fh(['--json', ...args]);
    return { result, json: JSON.parse(result.stdout) as T };
  };
  const claudeUnchanged = async () => {
    expect(await readFile(fixture.transcriptPath, 'utf8')).toBe(transcriptBefore);
    expect((await readdir(join(fixture.configDir, 'file-history', CLAUDE_SESSION))).sort()).toHaveLength(3);
  };

  it('sessions lists the Claude Code session with its project and checkpoints', async () => {
    const { result, json: document } = await json<{ source: string; sessions: Array<Record<string, unknown>> }>(['sessions']);
    expect(result.exitCode).toBe(0);
    expect(document.source).toBe(`claude:${fixture.configDir}`);
    expect(document.sessions).toEqual([
      expect.objectContaining({ sessionId: CLAUDE_SESSION, projectRoot: fixture.projectRoot, checkpoints: 3, backups: 3 }),
    ]);
  });

  it('list finds the latest session of the project and shows each prompt with its diff stats', async () => {
    const { result, json: document } = await json<{ sessionId: string; checkpoints: Array<Record<string, unknown>> }>(['list']);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe(`fh: using Claude Code session ${CLAUDE_SESSION}, the latest of ${fixture.projectRoot} (pass --session to choose)\n`);
    expect(document.sessionId).toBe(CLAUDE_SESSION);
    expect(document.checkpoints.map((checkpoint) => [checkpoint.messageId, checkpoint.prompt, checkpoint.filesChanged])).toEqual([
      ['u1', 'Create the greeting module', ['app.js', 'new.txt']],
      ['u2', 'Make it louder', ['app.js', 'new.txt']],
      ['u3', 'Add docs', ['app.js', 'new.txt']],
    ]);
    await claudeUnchanged();
  });

  it('rewind writes only the project files; undo puts them back from fh\'s own store', async () => {
    const { result, json: document } = await json<Record<string, any>>(['--session', CLAUDE_SESSION, 'rewind', 'u2', '--yes']);
    expect(result.exitCode).toBe(0);
    expect(document.code).toEqual({ restored: ['app.js'], deleted: ['new.txt'], skipped: [], failed: [] });
    expect(document.conversation.prompt).toEqual({ text: 'Make it louder', mode: 'prompt', images: 0, permissionMode: 'acceptEdits' });
    expect(document.conversation.removedMessageIds).toEqual(['u2', 'a2', 't2', 'u3', 'a3']);
    expect(await readFile(join(fixture.projectRoot, 'app.js'), 'utf8')).toBe(CLAUDE_CONTENT.appV2);
    await expect(stat(join(fixture.projectRoot, 'new.txt'))).rejects.toThrow(/ENOENT/);
    await claudeUnchanged();

    const undo = await json<Record<string, unknown>>(['--session', CLAUDE_SESSION, 'undo']);
    expect(undo.result.exitCode).toBe(0);
    expect(undo.json).toMatchObject({ restored: ['app.js', 'new.txt'], deleted: [], failed: [] });
    expect(await readFile(join(fixture.projectRoot, 'app.js'), 'utf8')).toBe(CLAUDE_CONTENT.appNow);
    expect(await readFile(join(fixture.projectRoot, 'new.txt'), 'utf8')).toBe(CLAUDE_CONTENT.newNow);
    await claudeUnchanged();
  });

  it('rewinds the files whose backups are still there and names each pruned one (exit 3)', async () => {
    const folder = join(fixture.configDir, 'file-history', CLAUDE_SESSION);
    const pruned = (await readdir(folder)).find((name) => name.endsWith('@v1')) as string;
    await unlink(join(folder, pruned));
    const list = await json<{ checkpoints: Array<{ messageId: string; failed: Array<{ path: string }> }> }>(['--session', CLAUDE_SESSION, 'list']);
    expect(list.json.checkpoints[0]?.failed.map((entry) => entry.path)).toEqual(['app.js']);
    const result = await fh(['--json', '--session', CLAUDE_SESSION, 'rewind', 'u1', '--mode', 'code', '--yes']);
    expect(result.exitCode).toBe(3);
    const document = JSON.parse(result.stdout);
    expect(document.code.deleted).toEqual(['new.txt']);
    expect(document.code.failed.map((entry: { path: string }) => entry.path)).toEqual(['app.js']);
    expect(result.stderr).toMatch(/^fh: 1 file could not be rewound\n  app\.js: .+\n\d+ other files? in .+ (was|were) rewound; the file named above was left as it was\. To put everything back: fh .+ undo\n$/);
    expect(await readFile(join(fixture.projectRoot, 'app.js'), 'utf8')).toBe(CLAUDE_CONTENT.appNow);
    await expect(stat(join(fixture.projectRoot, 'new.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('fork writes a new Claude Code session that holds the conversation before the prompt', async () => {
    const forkId = 'f0f0f0f0-1111-4222-8333-444444444444';
    const { result, json: document } = await json<Record<string, unknown>>(['--session', CLAUDE_SESSION, 'fork', 'u3', '--to', forkId]);
    expect(result.exitCode).toBe(0);
    expect(document).toMatchObject({ sessionId: CLAUDE_SESSION, forkSessionId: forkId, messageId: 'u3', checkpoints: 2, missing: [] });
    const forked = (await readFile(join(fixture.configDir, 'projects', claudeSlug(fixture.projectRoot), `${forkId}.jsonl`), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const messages = forked.filter((record) => record.type === 'user' || record.type === 'assistant');
    expect(messages.map((record) => record.uuid)).toEqual(['u1', 'a1', 't1', 'a1b', 'u2', 'a2', 't2']);
    expect(new Set(messages.map((record) => record.sessionId))).toEqual(new Set([forkId]));
    await claudeUnchanged();
    const list = await fh(['--json', '--session', forkId, 'list']);
    expect(JSON.parse(list.stdout).checkpoints.map((checkpoint: { messageId: string }) => checkpoint.messageId)).toEqual(['u1', 'u2']);
  });

  it('refuses commands that would write to Claude Code data (exit 2)', async () => {
    for (const args of [['track', 'app.js'], ['snapshot', 'x'], ['cleanup'], ['resume', CLAUDE_SESSION]]) {
      const result = await fh(['--session', CLAUDE_SESSION, ...args]);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toBe(`fh: ${args[0]} writes to the session; with --claude only rewind and fork may write (Claude Code data is read-only)\n`);
    }
    await claudeUnchanged();
  });

  it('--claude without a folder reads $CLAUDE_CONFIG_DIR, also right before the command name', async () => {
    const result = await runCli(['--store', `fs:${store}`, '--json', '--claude', 'list'], {
      home,
      cwd: fixture.projectRoot,
      env: { CLAUDE_CONFIG_DIR: fixture.configDir },
    });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).sessionId).toBe(CLAUDE_SESSION);
  });

  it('names an unknown Claude Code session', async () => {
    const result = await fh(['--session', 'nope', 'list']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(`fh: Claude Code session "nope" not found in ${fixture.configDir}\n`);
  });
});

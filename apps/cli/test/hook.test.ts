import { spawn } from 'node:child_process';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { chmod, lstat, mkdir, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileHistory, restoreStateFromLog } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, runCli, sandbox, writeFiles, type Sandbox } from './helpers.js';

const SESSION = '5d0c6a52-1c1e-4c36-9d55-3b0f5b7b1e01';

/** A recorded hook event with the sandbox's paths and session filled in. */
async function event(name: string, box: Sandbox, session = SESSION): Promise<string> {
  const text = await readFile(new URL(`./fixtures/hooks/${name}.json`, import.meta.url), 'utf8');
  return text.replaceAll('__PROJECT__', box.project).replaceAll('__HOME__', box.home).replaceAll('__SESSION__', session);
}

/** Run `fh hook` as Claude Code does: the event on stdin, CLAUDE_PROJECT_DIR set, default store in HOME. */
function hook(box: Sandbox, input: string, args: readonly string[] = ['hook']) {
  return runCli(args, { home: box.home, cwd: box.project, input, env: { CLAUDE_PROJECT_DIR: box.project } });
}

/** fh over the hook's default store (~/.fh of the sandbox HOME). */
function fhHome(box: Sandbox, args: readonly string[]) {
  return runCli(['--json', '--session', SESSION, ...args], { home: box.home, cwd: box.project });
}

describe('fh hook', () => {
  it('records each turn and backs up every file the agent writes, printing nothing', async () => {
    const box = await sandbox();
    await writeFiles(box.project, {
      'build.sh': { content: '#!/bin/sh\necho build\n', mode: 0o755 },
      'README.md': '# Project\n',
      'analysis.ipynb': '{"cells":[]}\n',
    });
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    expect(await hook(box, await event('user-prompt-submit', box))).toEqual(quiet);
    expect(await hook(box, await event('pre-tool-use-edit', box))).toEqual(quiet);
    await writeFiles(box.project, { 'build.sh': { content: '#!/bin/sh\necho build --verbose\n', mode: 0o755 } });
    expect(await hook(box, await event('pre-tool-use-write', box))).toEqual(quiet);
    await writeFiles(box.project, { 'src/new-module.ts': 'export const answer = 42;\n' });
    expect(await hook(box, await event('pre-tool-use-multi-edit', box))).toEqual(quiet);
    await writeFiles(box.project, { 'README.md': '# Project\n\nUse --verbose for details.\n' });
    expect(await hook(box, await event('pre-tool-use-notebook-edit', box))).toEqual(quiet);
    await writeFiles(box.project, { 'analysis.ipynb': '{"cells":[1]}\n' });
    expect(await hook(box, await event('pre-tool-use-bash', box))).toEqual(quiet);
    expect(await hook(box, await event('post-tool-use-write', box))).toEqual(quiet);
    const second = (await event('user-prompt-submit', box)).replace('Add a --verbose flag to the build script', 'Now document it');
    expect(await hook(box, second)).toEqual(quiet);

    const list = await fhHome(box, ['list']);
    expect(list.exitCode).toBe(0);
    const checkpoints = JSON.parse(list.stdout).checkpoints as Array<{ messageId: string; prompt: string; filesChanged: string[] }>;
    expect(checkpoints.map((checkpoint) => checkpoint.prompt)).toEqual(['Add a --verbose flag to the build script', 'Now document it']);
    expect(checkpoints[0]?.filesChanged).toEqual(['README.md', 'analysis.ipynb', 'build.sh', 'src/new-module.ts']);
    expect(checkpoints[1]?.filesChanged).toEqual([]);
    expect(checkpoints[0]?.messageId).toMatch(/^[0-9a-f-]{36}$/);

    const diff = await fhHome(box, ['diff', checkpoints[0]?.messageId as string]);
    expect(JSON.parse(diff.stdout).files).toEqual([
      { path: 'README.md', status: 'modified', insertions: 0, deletions: 2, binary: false },
      { path: 'analysis.ipynb', status: 'modified', insertions: 1, deletions: 1, binary: false },
      { path: 'build.sh', status: 'modified', insertions: 1, deletions: 1, binary: false },
      { path: 'src/new-module.ts', status: 'created', insertions: 0, deletions: 1, binary: false },
    ]);
    const backups = (await readdir(join(box.home, '.fh', 'file-history', SESSION))).map((name) => name.replace(/^[0-9a-f]{16}/, ''));
    expect(backups.sort()).toEqual(['@v1', '@v1', '@v1', '@v2', '@v2', '@v2', '@v2']);
  });

  it('Stop records an end-of-turn checkpoint that a rewind brings back byte-exact', async () => {
    const box = await sandbox();
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    // Stop before any turn: nothing is tracked, so nothing is recorded (not even the session).
    expect(await hook(box, await event('stop', box))).toEqual(quiet);
    expect((await readdir(join(box.home, '.fh', 'sessions')).catch(() => [])).length).toBe(0);
    await writeFiles(box.project, { 'build.sh': { content: '#!/bin/sh\necho build\n', mode: 0o755 } });
    expect(await hook(box, await event('user-prompt-submit', box))).toEqual(quiet);
    expect(await hook(box, await event('pre-tool-use-edit', box))).toEqual(quiet);
    const turnEnd = '#!/bin/sh\necho build --verbose\n';
    await writeFiles(box.project, { 'build.sh': { content: turnEnd, mode: 0o750 } });
    expect(await hook(box, await event('stop', box))).toEqual(quiet);
    // The next turn (and a hand edit) change it again.
    const second = (await event('user-prompt-submit', box)).replace('Add a --verbose flag to the build script', 'Now make it quiet');
    expect(await hook(box, second)).toEqual(quiet);
    await writeFiles(box.project, { 'build.sh': { content: '#!/bin/sh\necho quiet\n', mode: 0o700 } });

    const list = await fhHome(box, ['list']);
    expect(list.exitCode).toBe(0);
    const checkpoints = JSON.parse(list.stdout).checkpoints as Array<{ messageId: string; prompt: string | null; checkpoint: unknown; filesChanged: string[] }>;
    expect(checkpoints.map(({ prompt, checkpoint }) => ({ prompt, checkpoint }))).toEqual([
      { prompt: 'Add a --verbose flag to the build script', checkpoint: null },
      { prompt: null, checkpoint: { kind: 'end-of-turn', label: null } },
      { prompt: 'Now make it quiet', checkpoint: null },
    ]);
    expect(checkpoints.map((checkpoint) => checkpoint.filesChanged)).toEqual([['build.sh'], ['build.sh'], ['build.sh']]);
    const table = await runCli(['--session', SESSION, 'list'], { home: box.home, cwd: box.project });
    expect(table.stdout).toContain('(end of turn)');

    const rewind = await fhHome(box, ['rewind', checkpoints[1]?.messageId as string, '--mode', 'code', '--yes']);
    expect(rewind.exitCode).toBe(0);
    expect(await readFile(join(box.project, 'build.sh'), 'utf8')).toBe(turnEnd);
    expect((await stat(join(box.project, 'build.sh'))).mode & 0o777).toBe(0o750);
    // The first turn's snapshot still holds the state before the turn.
    await fhHome(box, ['rewind', checkpoints[0]?.messageId as string, '--mode', 'code', '--yes']);
    expect(await readFile(join(box.project, 'build.sh'), 'utf8')).toBe('#!/bin/sh\necho build\n');
  });

  it('never blocks the agent: bad input and failures go to stderr with exit 0', async () => {
    const box = await sandbox();
    expect(await hook(box, 'not json')).toEqual({ exitCode: 0, stdout: '', stderr: 'fh hook: stdin is not JSON: "not json"\n' });
    expect(await hook(box, '[1,2]')).toEqual({ exitCode: 0, stdout: '', stderr: 'fh hook: the hook event is not a JSON object\n' });
    expect(await hook(box, '{"hook_event_name":"UserPromptSubmit","prompt":"x"}')).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: 'fh hook: the hook event has no session_id; nothing recorded\n',
    });
    expect(await hook(box, '{"hook_event_name":"PreToolUse","tool_name":"Write","session_id":"s","tool_input":{}}')).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: 'fh hook: Write event has no tool_input.file_path\n',
    });
    await hook(box, await event('user-prompt-submit', box));
    const outside = await hook(box, await event('pre-tool-use-write-outside', box));
    expect(outside.exitCode).toBe(0);
    expect(outside.stdout).toBe('');
    expect(outside.stderr).toMatch(/^fh hook: .*\.bashrc.*\n$/);
    expect(await hook(box, `{"hook_event_name":"Stop","session_id":"s","cwd":${JSON.stringify(box.project)}}`)).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('refuses a bad session_id, cwd or prompt with one line naming the field, exit 0, nothing recorded', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'a\n' });
    const need = "it must be the agent's working folder as an absolute path";
    const base = { session_id: SESSION, cwd: box.project, hook_event_name: 'UserPromptSubmit', prompt: 'hi' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ session_id: 123 }, "the hook event's session_id must be a string, not a number; nothing recorded"],
      [{ session_id: '' }, "the hook event's session_id is empty; nothing recorded"],
      [{ cwd: undefined }, `the hook event has no cwd (${need}); nothing recorded`],
      [{ cwd: 'sub' }, `the hook event's cwd "sub" is relative (${need}); nothing recorded`],
      [{ cwd: '' }, `the hook event's cwd is empty (${need}); nothing recorded`],
      [{ cwd: 7 }, `the hook event's cwd must be a string, not a number (${need}); nothing recorded`],
      [{ cwd: 'a.txt', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: 'a.txt' } }, `the hook event's cwd "a.txt" is relative (${need}); nothing recorded`],
      [{ prompt: 42 }, "the hook event's prompt must be a string, not a number; nothing recorded"],
      [{ prompt: [{ type: 'image', source: {} }] }, "the hook event's prompt is an array with no text blocks (it must be a string); nothing recorded"],
    ];
    for (const [fields, message] of cases) {
      // The hook runs in the project (so a guess of its own folder would find one) and without CLAUDE_PROJECT_DIR.
      const result = await runCli(['hook'], { home: box.home, cwd: box.project, input: JSON.stringify({ ...base, ...fields }) });
      expect(result).toEqual({ exitCode: 0, stdout: '', stderr: `fh hook: ${message}\n` });
    }
    await expect(stat(join(box.home, '.fh'))).rejects.toThrow(/ENOENT/);
  });

  it("records the text parts of a prompt given as an array of content blocks", async () => {
    const box = await sandbox();
    const input = JSON.stringify({ session_id: SESSION, cwd: box.project, hook_event_name: 'UserPromptSubmit', prompt: [{ type: 'text', text: 'first part' }, { type: 'image', source: {} }, { type: 'text', text: 'second part' }] });
    expect(await runCli(['hook'], { home: box.home, cwd: box.project, input })).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const checkpoints = JSON.parse((await fhHome(box, ['list'])).stdout).checkpoints as Array<{ prompt: string }>;
    expect(checkpoints.map((checkpoint) => checkpoint.prompt)).toEqual(['first part\n\nsecond part']);
  });

  it('does nothing at all while FH_DISABLE_FILE_CHECKPOINTING is set', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'build.sh': 'echo build\n' });
    for (const name of ['user-prompt-submit', 'pre-tool-use-edit']) {
      const result = await runCli(['hook'], {
        home: box.home,
        cwd: box.project,
        input: await event(name, box),
        env: { CLAUDE_PROJECT_DIR: box.project, FH_DISABLE_FILE_CHECKPOINTING: '1' },
      });
      expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    }
    await expect(stat(join(box.home, '.fh'))).rejects.toThrow(/ENOENT/);
  });

  it('takes --store and --project before the command', async () => {
    const box = await sandbox();
    const result = await runCli(['--store', `fs:${box.store}`, '--project', box.project, 'hook'], {
      home: box.home,
      cwd: box.home,
      input: await event('user-prompt-submit', box),
    });
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const list = await box.fhJson<{ checkpoints: Array<{ prompt: string }> }>(['--session', SESSION, 'list']);
    expect(list.json.checkpoints.map((checkpoint) => checkpoint.prompt)).toEqual(['Add a --verbose flag to the build script']);
  });
});

describe('fh hook install', () => {
  const expectedCommand = `${process.execPath} ${cliPath} hook`;
  const fhHooks = (command: string) => ({
    PreToolUse: [
      { matcher: 'Write|Edit|MultiEdit|NotebookEdit', hooks: [{ type: 'command', command }] },
      { matcher: 'Bash', hooks: [{ type: 'command', command }] },
    ],
    PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }],
    UserPromptSubmit: [{ hooks: [{ type: 'command', command }] }],
    Stop: [{ hooks: [{ type: 'command', command }] }],
  });

  it('--print shows the hook entries and writes nothing', async () => {
    const box = await sandbox();
    const { result, json } = await box.fhJson(['hook', 'install', '--print']);
    expect(result.exitCode).toBe(0);
    expect(json).toEqual({ hooks: fhHooks(`${process.execPath} ${cliPath} --store fs:${box.store} hook`) });
    await expect(stat(join(box.project, '.claude'))).rejects.toThrow(/ENOENT/);
  });

  it('merges into the project settings, keeping other hooks and a copy of the previous file', async () => {
    const box = await sandbox();
    const previous = {
      model: 'opus',
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh' }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'notify.sh' }] }],
      },
    };
    const previousText = `${JSON.stringify(previous, null, 2)}\n`;
    await mkdir(join(box.project, '.claude'));
    await writeFile(join(box.project, '.claude', 'settings.json'), previousText);
    const install = await runCli(['hook', 'install', '--json'], { home: box.home, cwd: box.project });
    expect(install.exitCode).toBe(0);
    const report = JSON.parse(install.stdout);
    expect(report).toMatchObject({ settingsPath: join(box.project, '.claude', 'settings.json'), changed: true, command: expectedCommand });
    expect(await readFile(report.backupPath, 'utf8')).toBe(previousText);
    const settings = JSON.parse(await readFile(join(box.project, '.claude', 'settings.json'), 'utf8'));
    expect(settings).toEqual({
      model: 'opus',
      hooks: {
        PreToolUse: [previous.hooks.PreToolUse[0], ...fhHooks(expectedCommand).PreToolUse],
        PostToolUse: fhHooks(expectedCommand).PostToolUse,
        Stop: [...previous.hooks.Stop, ...fhHooks(expectedCommand).Stop],
        UserPromptSubmit: fhHooks(expectedCommand).UserPromptSubmit,
      },
    });
    const again = await runCli(['hook', 'install', '--json'], { home: box.home, cwd: box.project });
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, backupPath: null });
    expect((await readdir(join(box.project, '.claude'))).filter((name) => name.endsWith('.bak'))).toHaveLength(1);
  });

  it('runs `fh hook` when the fh on PATH is this program', async () => {
    const box = await sandbox();
    const bin = join(box.home, 'bin');
    await mkdir(bin);
    await symlink(cliPath, join(bin, 'fh'));
    const { PATH } = baseEnvironment(box.home);
    const result = await runCli(['--json', 'hook', 'install', '--print'], { home: box.home, cwd: box.project, env: { PATH: `${bin}:${PATH}` } });
    expect(JSON.parse(result.stdout)).toEqual({ hooks: fhHooks('fh hook') });
  });

  it('--scope user writes ~/.claude/settings.json', async () => {
    const box = await sandbox();
    const install = await runCli(['hook', 'install', '--scope', 'user'], { home: box.home, cwd: box.project });
    expect(install.exitCode).toBe(0);
    expect(install.stdout).toBe(`Added fh hooks to ${join(box.home, '.claude', 'settings.json')}\nHook command: ${expectedCommand}\n`);
    expect(JSON.parse(await readFile(join(box.home, '.claude', 'settings.json'), 'utf8'))).toEqual({ hooks: fhHooks(expectedCommand) });
  });

  it('keeps a 600 settings file 600, and updates a symlinked one where it points, keeping the link', async () => {
    const box = await sandbox();
    await mkdir(join(box.project, '.claude'));
    const settingsPath = join(box.project, '.claude', 'settings.json');
    await writeFile(settingsPath, '{ "model": "opus" }\n', { mode: 0o600 });
    await chmod(settingsPath, 0o600);
    expect((await runCli(['hook', 'install'], { home: box.home, cwd: box.project })).exitCode).toBe(0);
    expect((await stat(settingsPath)).mode & 0o7777).toBe(0o600);
    expect(JSON.parse(await readFile(settingsPath, 'utf8'))).toEqual({ model: 'opus', hooks: fhHooks(expectedCommand) });

    const dotfiles = join(box.home, 'dotfiles');
    await mkdir(dotfiles);
    await writeFile(join(dotfiles, 'claude-settings.json'), '{ "theme": "dark" }\n', { mode: 0o640 });
    await chmod(join(dotfiles, 'claude-settings.json'), 0o640);
    await mkdir(join(box.home, '.claude'));
    const userSettings = join(box.home, '.claude', 'settings.json');
    await symlink(join(dotfiles, 'claude-settings.json'), userSettings);
    const install = await runCli(['--json', 'hook', 'install', '--scope', 'user'], { home: box.home, cwd: box.project });
    expect(install.exitCode).toBe(0);
    expect((await lstat(userSettings)).isSymbolicLink()).toBe(true);
    expect(await readlink(userSettings)).toBe(join(dotfiles, 'claude-settings.json'));
    expect((await stat(join(dotfiles, 'claude-settings.json'))).mode & 0o7777).toBe(0o640);
    expect(JSON.parse(await readFile(join(dotfiles, 'claude-settings.json'), 'utf8'))).toEqual({ theme: 'dark', hooks: fhHooks(expectedCommand) });
    expect(await readFile(JSON.parse(install.stdout).backupPath, 'utf8')).toBe('{ "theme": "dark" }\n');
    expect((await readdir(dotfiles)).sort()).toEqual(['claude-settings.json']);
  });

  it('names the store of FH_HOME in the hook command (the agent may not have FH_HOME); refuses a settings path that is a folder', async () => {
    const box = await sandbox();
    const fhHome = join(box.home, 'fh-home');
    const print = await runCli(['--json', 'hook', 'install', '--print'], { home: box.home, cwd: box.project, env: { FH_HOME: fhHome } });
    expect(JSON.parse(print.stdout)).toEqual({ hooks: fhHooks(`${process.execPath} ${cliPath} --store fs:${fhHome} hook`) });
    await mkdir(join(box.project, '.claude', 'settings.json'), { recursive: true });
    const install = await runCli(['hook', 'install'], { home: box.home, cwd: box.project });
    expect([install.exitCode, install.stderr]).toEqual([2, `fh: ${join(box.project, '.claude', 'settings.json')} is a folder, not a settings file; fh wrote nothing. Move it aside and run fh hook install again\n`]);
    expect(await readdir(join(box.project, '.claude'))).toEqual(['settings.json']);
  });

  it('refuses a settings link to a missing file and writes nothing (exit 2)', async () => {
    const box = await sandbox();
    await mkdir(join(box.project, '.claude'));
    await symlink(join(box.home, 'gone.json'), join(box.project, '.claude', 'settings.json'));
    const install = await runCli(['hook', 'install'], { home: box.home, cwd: box.project });
    expect(install.exitCode).toBe(2);
    expect(install.stderr).toBe(`fh: ${join(box.project, '.claude', 'settings.json')} is a symbolic link to a missing file; fh wrote nothing. Point the link at a settings file (or remove it) and run fh hook install again\n`);
    expect(await readdir(join(box.project, '.claude'))).toEqual(['settings.json']);
    await expect(stat(join(box.home, 'gone.json'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a settings file that is not JSON and leaves it as it was (exit 2)', async () => {
    const box = await sandbox();
    await mkdir(join(box.project, '.claude'));
    await writeFile(join(box.project, '.claude', 'settings.json'), '{ "hooks": ');
    const install = await runCli(['hook', 'install'], { home: box.home, cwd: box.project });
    expect(install.exitCode).toBe(2);
    expect(install.stderr).toMatch(/^fh: .*settings\.json is not valid JSON \(.*\); fix it by hand first\n$/);
    expect(await readFile(join(box.project, '.claude', 'settings.json'), 'utf8')).toBe('{ "hooks": ');
    expect(await readdir(join(box.project, '.claude'))).toEqual(['settings.json']);
  });

  it('rejects an unknown scope (exit 2)', async () => {
    const box = await sandbox();
    const install = await runCli(['hook', 'install', '--scope', 'team'], { home: box.home, cwd: box.project });
    expect(install.exitCode).toBe(2);
    expect(install.stderr).toContain("argument 'team' is invalid. Allowed choices are project, user.");
  });
});

describe('fh hook: which project', () => {
  it("uses the session's recorded project, not the event's cwd subfolder", async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'f.txt': 'top level\n', 'sub/g.txt': 'in sub\n' });
    expect(await hook(box, await event('user-prompt-submit', box))).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const edit = JSON.stringify({
      session_id: SESSION,
      cwd: join(box.project, 'sub'),
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_input: { file_path: join(box.project, 'f.txt'), old_string: 'top', new_string: 'TOP' },
    });
    const result = await runCli(['hook'], { home: box.home, cwd: join(box.project, 'sub'), input: edit });
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    await writeFiles(box.project, { 'f.txt': 'TOP level\n' });
    const list = await fhHome(box, ['list']);
    const checkpoints = JSON.parse(list.stdout).checkpoints as Array<{ filesChanged: string[] }>;
    expect(checkpoints[0]?.filesChanged).toEqual(['f.txt']);
    const { records } = await new FsBackupStore({ root: join(box.home, '.fh') }).sessionLog(SESSION).read();
    expect(Object.keys(restoreStateFromLog(records, { projectRoot: box.project }).snapshots.at(-1)?.trackedFileBackups ?? {})).toEqual(['f.txt']);
  });

  it('a project folder that does not exist: one stderr line, exit 0, nothing recorded', async () => {
    const box = await sandbox();
    const missing = join(box.project, 'gone');
    const input = JSON.stringify({ session_id: SESSION, cwd: missing, hook_event_name: 'UserPromptSubmit', prompt: 'hi' });
    expect(await runCli(['hook'], { home: box.home, cwd: box.project, input })).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: `fh hook: project folder ${missing} (the event's cwd) does not exist; nothing recorded\n`,
    });
    await expect(stat(join(box.home, '.fh'))).rejects.toThrow(/ENOENT/);
  });

  it('a Stop in a session with no records yet: exit 0, silent, no session recorded', async () => {
    const box = await sandbox();
    const input = JSON.stringify({ session_id: SESSION, cwd: box.project, hook_event_name: 'Stop' });
    expect(await runCli(['hook'], { home: box.home, cwd: box.project, input })).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect((await readdir(join(box.home, '.fh', 'sessions')).catch(() => [])).length).toBe(0);
  });

  it('an edit of a file outside the project: one stderr line, exit 0, no session recorded (not even a first checkpoint)', async () => {
    const box = await sandbox();
    const outside = join(box.home, 'elsewhere.txt');
    await writeFile(outside, 'not ours\n');
    const input = JSON.stringify({ session_id: SESSION, cwd: box.project, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: outside, content: 'x' } });
    expect(await runCli(['hook'], { home: box.home, cwd: box.project, input })).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: `fh hook: ${outside} is outside the project root ${box.project}; nothing recorded\n`,
    });
    expect((await readdir(join(box.home, '.fh', 'sessions')).catch(() => [])).length).toBe(0);
    expect(await readFile(outside, 'utf8')).toBe('not ours\n');
  });
});

describe('fh hook: PreToolUse before any prompt', () => {
  it('decides an edit of a file this turn already tracks from the log alone, without the session lock; a new turn backs it up again', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'build.sh': 'echo build\n' });
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    expect(await hook(box, await event('user-prompt-submit', box))).toEqual(quiet);
    expect(await hook(box, await event('pre-tool-use-edit', box))).toEqual(quiet);
    await writeFiles(box.project, { 'build.sh': 'echo build --verbose\n' });
    const store = new FsBackupStore({ root: join(box.home, '.fh') });
    const lock = await store.lockSession(SESSION);
    try {
      expect(await hook(box, await event('pre-tool-use-edit', box))).toEqual(quiet);
    } finally {
      await lock.release();
    }
    expect(await store.listBackups(SESSION)).toHaveLength(1);
    const second = (await event('user-prompt-submit', box)).replace('Add a --verbose flag to the build script', 'Now document it');
    expect(await hook(box, second)).toEqual(quiet);
    expect(await hook(box, await event('pre-tool-use-edit', box))).toEqual(quiet);
    const backups = (await store.listBackups(SESSION)).map((name) => name.slice(16)).sort();
    expect(backups).toEqual(['@v1', '@v2']);
    const prompts = (await store.sessionLog(SESSION).read()).records.filter((record) => record.type === 'user');
    expect(prompts.map((record) => record.parentUuid)).toEqual([null, prompts[0]?.uuid]);
  });

  it('backs up a file the newest snapshot does not track with one delta record naming that snapshot, as trackEdit does, from the newest records alone', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'build.sh': 'echo build\n', 'src/new.ts': { content: 'export const n = 1;\n', mode: 0o600 } });
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    expect(await hook(box, await event('user-prompt-submit', box))).toEqual(quiet);
    expect(await hook(box, await event('pre-tool-use-edit', box))).toEqual(quiet);
    const store = new FsBackupStore({ root: join(box.home, '.fh') });
    const before = (await store.sessionLog(SESSION).read()).records;
    const edit = JSON.parse((await event('pre-tool-use-edit', box)).replace('build.sh', 'src/new.ts')) as Record<string, unknown>;
    expect(await hook(box, JSON.stringify({ ...edit, agent_id: 'a96cf8a5', agent_type: 'Explore' }))).toEqual(quiet);
    const after = (await store.sessionLog(SESSION).read()).records;
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((record) => [record.type, record.snapshotMessageId, record.trackingPath])).toEqual([['file-history-delta', before.find((record) => record.type === 'user')?.uuid, 'src/new.ts']]);
    const latest = restoreStateFromLog(after, { projectRoot: box.project }).snapshots.at(-1);
    const entry = latest?.trackedFileBackups['src/new.ts'];
    expect({ version: entry?.version, size: entry?.size, mode: entry?.mode, changedBy: entry?.changedBy?.map(({ at: _at, ...who }) => who) }).toEqual({
      version: 1,
      size: 20,
      mode: 0o600,
      changedBy: [{ by: 'subagent', agentId: 'a96cf8a5', agentType: 'Explore' }],
    });
    expect(await readFile(join(box.home, '.fh', 'file-history', SESSION, entry?.backupFileName as string), 'utf8')).toBe('export const n = 1;\n');
    expect(Object.keys(latest?.trackedFileBackups ?? {}).sort()).toEqual(['build.sh', 'src/new.ts']);
  });

  it('blocks an edit it cannot back up within its budget (exit 2, saying nothing was changed) and leaves no copy; a killed waiting hook\'s copy goes at the next lock', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'build.sh': 'echo build\n', 'README.md': '# Project\n' });
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    expect(await hook(box, await event('user-prompt-submit', box))).toEqual(quiet);
    const store = new FsBackupStore({ root: join(box.home, '.fh') });
    const folder = join(box.home, '.fh', 'file-history', SESSION);
    const prepared = join(folder, '.fh-tmp-prepared');
    const lock = await store.lockSession(SESSION);
    try {
      const blocked = await runCli(['hook'], { home: box.home, cwd: box.project, input: await event('pre-tool-use-edit', box), env: { CLAUDE_PROJECT_DIR: box.project, FH_HOOK_TIMEOUT_MS: '1500' } });
      const lockPath = join(box.home, '.fh', 'locks', `${SESSION}.lock`);
      expect(blocked).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: `fh hook: could not back up ${box.project}/build.sh before the Edit call within the hook's 1.5 s (FH_HOOK_TIMEOUT_MS): session "${SESSION}" is locked: another process or handle has it open (${lockPath}); a lock left by a process that died goes stale after 10 s. The Edit call was blocked so that no edit goes ahead without its backup: nothing was changed; retry it.\n`,
      });
      expect(await readdir(folder).catch(() => [])).toEqual([]);
      // A hook killed while it waits for the lock leaves its prepared copy (a temp no record names).
      const waiting = spawn(process.execPath, [cliPath, 'hook'], { cwd: box.project, env: { ...baseEnvironment(box.home), CLAUDE_PROJECT_DIR: box.project }, stdio: ['pipe', 'ignore', 'ignore'] });
      waiting.stdin.end((await event('pre-tool-use-edit', box)).replace('build.sh', 'README.md'));
      const exited = new Promise((resolve) => waiting.on('exit', resolve));
      while ((await readdir(prepared).catch(() => [])).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      waiting.kill('SIGKILL');
      await exited;
      const left = await readdir(prepared);
      expect(left).toHaveLength(1);
      expect(left[0]).toMatch(new RegExp(`^\\.fh-tmp-[0-9a-f]{8}\\.${waiting.pid}\\.[0-9a-f]{16}-1$`));
    } finally {
      await lock.release();
    }
    expect(await hook(box, await event('pre-tool-use-edit', box))).toEqual(quiet);
    const backups = await readdir(folder);
    expect(backups.map((name) => name.slice(16))).toEqual(['@v1']);
    expect(await readFile(join(folder, backups[0] as string), 'utf8')).toBe('echo build\n');
    const { records } = await store.sessionLog(SESSION).read();
    expect(Object.keys(restoreStateFromLog(records, { projectRoot: box.project }).snapshots.at(-1)?.trackedFileBackups ?? {})).toEqual(['build.sh']);
  });

  it('acts on the event as soon as a whole JSON object has arrived, even while stdin stays open', async () => {
    const box = await sandbox();
    const child = spawn(process.execPath, [cliPath, 'hook'], { cwd: box.project, env: { ...baseEnvironment(box.home), CLAUDE_PROJECT_DIR: box.project }, stdio: 'pipe' });
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const text = await event('user-prompt-submit', box);
    child.stdin.write(text.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.stdin.write(text.slice(20));
    const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stdin.destroy();
    expect([exitCode, Buffer.concat(stderr).toString('utf8')]).toEqual([0, '']);
    const log = await readFile(join(box.home, '.fh', 'sessions', `${SESSION}.jsonl`), 'utf8');
    expect(log.split('\n').filter((line) => line.includes('"type":"user"'))).toHaveLength(1);
  });

  it('backs up an edit named by the real path of a project opened through a symlink', async () => {
    const box = await sandbox();
    const alias = `${box.project}-alias`;
    await symlink(box.project, alias);
    await writeFiles(box.project, { 'build.sh': 'echo build\n' });
    const viaAlias = (text: string) => text.replaceAll(`"cwd":"${box.project}"`, `"cwd":"${alias}"`);
    const run = (input: string) => runCli(['hook'], { home: box.home, cwd: alias, input, env: { CLAUDE_PROJECT_DIR: alias } });
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    expect(await run(viaAlias(await event('user-prompt-submit', box)))).toEqual(quiet);
    expect(await run(viaAlias(await event('pre-tool-use-edit', box)))).toEqual(quiet);
    const store = new FsBackupStore({ root: join(box.home, '.fh') });
    const backups = await store.listBackups(SESSION);
    expect(backups).toHaveLength(1);
    expect(await readFile(join(box.home, '.fh', 'file-history', SESSION, backups[0] as string), 'utf8')).toBe('echo build\n');
  });

  it('on a session log larger than the ends it reads, decides from its last turn and chains prompts the same', async () => {
    const box = await sandbox();
    const files = Object.fromEntries(Array.from({ length: 200 }, (_, index) => [`src/f${index}.ts`, `export const v${index} = 0;\n`]));
    await writeFiles(box.project, { ...files, 'build.sh': 'echo build\n' });
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    expect(await hook(box, await event('user-prompt-submit', box))).toEqual(quiet);
    const store = new FsBackupStore({ root: join(box.home, '.fh') });
    const history = await FileHistory.open({ projectRoot: box.project, sessionId: SESSION, store, timestampGranularityMs: 0, env: {} });
    await Promise.all(Object.keys(files).map((path) => history.trackEdit(path)));
    // fh records a turn as what changed, so a long session's log is small: a long summary makes it longer than the ends.
    await store.sessionLog(SESSION).append([{ type: 'summary', summary: 'x'.repeat(1.3 * 1024 * 1024) }]);
    for (let turn = 0; turn < 60; turn += 1) await history.makeSnapshot(`turn-${turn}`);
    await history.close();
    expect((await stat(join(box.home, '.fh', 'sessions', `${SESSION}.jsonl`))).size).toBeGreaterThan(1.2 * 1024 * 1024);
    // The turn's first edit of f7.ts records the main agent in its entry (issue 14), under the lock;
    // a later edit of it by the same agent is decided from the log's ends alone.
    expect(await hook(box, (await event('pre-tool-use-edit', box)).replace('build.sh', 'src/f7.ts'))).toEqual(quiet);

    const lock = await store.lockSession(SESSION);
    try {
      expect(await hook(box, (await event('pre-tool-use-edit', box)).replace('build.sh', 'src/f7.ts'))).toEqual(quiet);
    } finally {
      await lock.release();
    }
    expect(await hook(box, await event('pre-tool-use-edit', box))).toEqual(quiet);
    const second = (await event('user-prompt-submit', box)).replace('Add a --verbose flag to the build script', 'Now document it');
    expect(await hook(box, second)).toEqual(quiet);
    const { records } = await store.sessionLog(SESSION).read();
    const prompts = records.filter((record) => record.type === 'user');
    expect(prompts.map((record) => record.parentUuid)).toEqual([null, prompts[0]?.uuid]);
    const latest = restoreStateFromLog(records, { projectRoot: box.project }).snapshots.at(-1);
    expect(Object.keys(latest?.trackedFileBackups ?? {})).toContain('build.sh');
    expect(Object.keys(latest?.trackedFileBackups ?? {})).toHaveLength(201);
  });

  it('takes a prompt\'s snapshot from the newest full record on: a torn line before it is never read', async () => {
    const box = await sandbox();
    // 70 files: more attachments than a diff record may carry, so the next turn is a full record.
    const files = Object.fromEntries(Array.from({ length: 70 }, (_, index) => [`src/f${index}.ts`, `export const v${index} = 0;\n`]));
    await writeFiles(box.project, files);
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    expect(await hook(box, await event('user-prompt-submit', box))).toEqual(quiet);
    const store = new FsBackupStore({ root: join(box.home, '.fh') });
    const logPath = join(box.home, '.fh', 'sessions', `${SESSION}.jsonl`);
    await writeFile(logPath, `${await readFile(logPath, 'utf8')}{"type":"file-history-snapshot","torn\n`);
    await store.sessionLog(SESSION).append([{ type: 'summary', summary: 'x'.repeat(1.3 * 1024 * 1024) }]);
    const history = await FileHistory.open({ projectRoot: box.project, sessionId: SESSION, store, timestampGranularityMs: 0, env: {}, onWarning: () => {} });
    await Promise.all(Object.keys(files).map((path) => history.trackEdit(path)));
    for (let turn = 0; turn < 5; turn += 1) await history.makeSnapshot(`turn-${turn}`);
    await history.close();

    const second = (await event('user-prompt-submit', box)).replace('Add a --verbose flag to the build script', 'Now document it');
    expect(await hook(box, second)).toEqual(quiet);
    const warnings: string[] = [];
    const reopened = await FileHistory.open({ projectRoot: box.project, sessionId: SESSION, store, onWarning: (message) => warnings.push(message) });
    try {
      expect(warnings).toHaveLength(1);
      expect(reopened.state.snapshots).toHaveLength(7);
      expect(Object.keys(reopened.state.snapshots.at(-1)?.trackedFileBackups ?? {}).sort()).toEqual(Object.keys(files).sort());
    } finally {
      await reopened.close();
    }
  });

  it('gives up after its time budget when the store never answers, exiting 0 so the agent goes on, or 2 to block an edit it could not back up', async () => {
    const box = await sandbox();
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const env = {
        FH_HOOK_TIMEOUT_MS: '1500',
        AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
        AWS_ACCESS_KEY_ID: 'key',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_REGION: 'us-east-1',
      };
      const result = await runCli(['--store', 's3://fh-silent/prefix', 'hook'], { home: box.home, cwd: box.project, input: await event('user-prompt-submit', box), env });
      expect(result).toEqual({ exitCode: 0, stdout: '', stderr: 'fh hook: gave up after 1.5 s (FH_HOOK_TIMEOUT_MS); this event was not recorded\n' });
      // An edit whose backup was not made is blocked instead (exit 2: Claude Code shows the model why).
      const edit = await runCli(['--store', 's3://fh-silent/prefix', 'hook'], { home: box.home, cwd: box.project, input: await event('pre-tool-use-edit', box), env });
      expect(edit).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: `fh hook: could not back up ${box.project}/build.sh before the Edit call within the hook's 1.5 s (FH_HOOK_TIMEOUT_MS): the hook ran out of time. The Edit call was blocked so that no edit goes ahead without its backup: nothing was changed; retry it.\n`,
      });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('backs up the real file when an already-tracked path has become a symlink to another file', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'build.sh': 'echo build\n', 'shared.sh': 'shared original\n' });
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    expect(await hook(box, await event('user-prompt-submit', box))).toEqual(quiet);
    expect(await hook(box, await event('pre-tool-use-edit', box))).toEqual(quiet);
    await rm(join(box.project, 'build.sh'));
    await symlink('shared.sh', join(box.project, 'build.sh'));
    const second = (await event('user-prompt-submit', box)).replace('Add a --verbose flag to the build script', 'Now document it');
    expect(await hook(box, second)).toEqual(quiet);
    expect(await hook(box, await event('pre-tool-use-edit', box))).toEqual(quiet);
    await writeFile(join(box.project, 'build.sh'), 'written through the link\n');

    const store = new FsBackupStore({ root: join(box.home, '.fh') });
    const history = await FileHistory.open({ projectRoot: box.project, sessionId: SESSION, store, env: {} });
    const turnTwo = history.state.snapshots.at(-1)?.messageId as string;
    expect(await history.rewind(turnTwo, { paths: ['shared.sh'] })).toMatchObject({ restored: ['shared.sh'], failed: [] });
    await history.close();
    expect(await readFile(join(box.project, 'shared.sh'), 'utf8')).toBe('shared original\n');
  });

  it('takes a session-start checkpoint first, so the edit is backed up', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'build.sh': 'echo build\n' });
    expect(await hook(box, await event('pre-tool-use-edit', box))).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    await writeFiles(box.project, { 'build.sh': 'echo build --verbose\n' });
    const list = await fhHome(box, ['list']);
    const checkpoints = JSON.parse(list.stdout).checkpoints as Array<{ messageId: string; filesChanged: string[] }>;
    expect(checkpoints).toHaveLength(1);
    expect(checkpoints[0]?.filesChanged).toEqual(['build.sh']);
    const backups = await readdir(join(box.home, '.fh', 'file-history', SESSION));
    expect(backups).toHaveLength(1);
    expect(await readFile(join(box.home, '.fh', 'file-history', SESSION, backups[0] as string), 'utf8')).toBe('echo build\n');
  });
});

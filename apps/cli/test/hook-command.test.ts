import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, readTree, runCli, sandbox, writeFiles, type Sandbox } from './helpers.js';

const SESSION = '7a1c6a52-1c1e-4c36-9d55-3b0f5b7b1e07';

/** A git repository in the sandbox's project with a few committed files, one of them dirty. */
async function repository(box: Sandbox): Promise<void> {
  await writeFiles(box.project, {
    'src/app.ts': 'export const app = 1;\n',
    'src/util.ts': 'export const util = 2;\n',
    'build.sh': { content: '#!/bin/sh\necho build\n', mode: 0o755 },
    'README.md': '# Project\n',
  });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: box.project, env: { ...process.env, GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' } });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '-A');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'base');
  await writeFiles(box.project, { 'README.md': '# Project\n\nuncommitted\n' });
}

/** A hook event as Claude Code sends it. */
function event(box: Sandbox, fields: Record<string, unknown>): string {
  return JSON.stringify({ session_id: SESSION, transcript_path: `${box.home}/t.jsonl`, cwd: box.project, permission_mode: 'default', ...fields });
}

const prompt = (box: Sandbox, text: string) => event(box, { hook_event_name: 'UserPromptSubmit', prompt: text });
const bash = (box: Sandbox, phase: 'PreToolUse' | 'PostToolUse', id: string, command: string) =>
  event(box, { hook_event_name: phase, tool_name: 'Bash', tool_input: { command }, tool_use_id: id, ...(phase === 'PostToolUse' ? { tool_response: { stdout: '' } } : {}) });

function hook(box: Sandbox, input: string) {
  return runCli(['hook'], { home: box.home, cwd: box.project, input, env: { CLAUDE_PROJECT_DIR: box.project } });
}

function sh(box: Sandbox, script: string): void {
  execFileSync('bash', ['-c', script], { cwd: box.project });
}

const quiet = { exitCode: 0, stdout: '', stderr: '' };

async function fhJson<T>(box: Sandbox, args: readonly string[]): Promise<T> {
  const result = await runCli(['--json', '--session', SESSION, ...args], { home: box.home, cwd: box.project });
  if (result.exitCode !== 0) throw new Error(`fh ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

describe('fh hook: Bash commands in command windows', () => {
  it('captures rm -rf and sed -i through PreToolUse/PostToolUse; fh list, diff, rewind and undo see them', async () => {
    const box = await sandbox();
    await repository(box);
    expect(await hook(box, prompt(box, 'tidy up'))).toEqual(quiet);
    const before = await readTree(box.project);
    expect(await hook(box, bash(box, 'PreToolUse', 'toolu_01', 'rm -rf src && sed -i s/Project/Thing/ README.md'))).toEqual(quiet);
    // The same id again: said in a user's words, and the open window goes on capturing.
    expect(await hook(box, bash(box, 'PreToolUse', 'toolu_01', 'rm -rf src && sed -i s/Project/Thing/ README.md'))).toEqual({
      ...quiet,
      stderr: `fh hook: command window toolu_01 is already open in session ${SESSION}: a command with this id was started and has not ended yet, so nothing was changed (the open window still captures it). Give each command its own id\n`,
    });
    sh(box, 'rm -rf src && sed -i s/Project/Thing/ README.md');
    expect(await hook(box, bash(box, 'PostToolUse', 'toolu_01', 'rm -rf src && sed -i s/Project/Thing/ README.md'))).toEqual(quiet);
    const after = await readTree(box.project);
    expect(await hook(box, prompt(box, 'next'))).toEqual(quiet);

    const list = await fhJson<{ checkpoints: Array<{ messageId: string; filesChanged: string[] }> }>(box, ['list']);
    expect(list.checkpoints[0]?.filesChanged).toEqual(['README.md', 'src/app.ts', 'src/util.ts']);
    const first = list.checkpoints[0]?.messageId as string;
    const diff = await fhJson<{ files: Array<{ path: string; status: string }> }>(box, ['diff', first]);
    expect(diff.files.map((file) => [file.path, file.status])).toEqual([
      ['README.md', 'modified'],
      ['src/app.ts', 'deleted'],
      ['src/util.ts', 'deleted'],
    ]);
    await fhJson(box, ['rewind', first, '--mode', 'code', '--yes']);
    expect(await readTree(box.project)).toEqual(before);
    await fhJson(box, ['undo']);
    expect(await readTree(box.project)).toEqual(after);
  });

  it('keeps parallel commands apart, and ends a window whose PostToolUse never came at the next prompt', async () => {
    const box = await sandbox();
    await repository(box);
    expect(await hook(box, prompt(box, 'go'))).toEqual(quiet);
    const before = await readTree(box.project);
    expect(await hook(box, bash(box, 'PreToolUse', 'toolu_A', 'slow'))).toEqual(quiet);
    sh(box, 'echo A > src/app.ts');
    expect(await hook(box, bash(box, 'PreToolUse', 'toolu_B', 'fast'))).toEqual(quiet);
    sh(box, 'echo B > src/app.ts && chmod +x src/util.ts && echo new > new.txt');
    expect(await hook(box, bash(box, 'PostToolUse', 'toolu_B', 'fast'))).toEqual(quiet);
    // toolu_A's PostToolUse never comes: the next prompt ends its window into this turn.
    expect(await hook(box, prompt(box, 'next'))).toEqual(quiet);
    const list = await fhJson<{ checkpoints: Array<{ messageId: string; filesChanged: string[] }> }>(box, ['list']);
    expect(list.checkpoints[0]?.filesChanged).toEqual(['new.txt', 'src/app.ts', 'src/util.ts']);
    await fhJson(box, ['rewind', list.checkpoints[0]?.messageId as string, '--mode', 'code', '--yes']);
    expect(await readTree(box.project)).toEqual(before);
  });

  it('keeps the window of a background command open past its PostToolUse, until the next prompt', async () => {
    const box = await sandbox();
    await repository(box);
    expect(await hook(box, prompt(box, 'go'))).toEqual(quiet);
    const before = await readTree(box.project);
    const background = (phase: 'PreToolUse' | 'PostToolUse') =>
      event(box, { hook_event_name: phase, tool_name: 'Bash', tool_input: { command: 'watch', run_in_background: true }, tool_use_id: 'toolu_bg' });
    expect(await hook(box, background('PreToolUse'))).toEqual(quiet);
    expect(await hook(box, background('PostToolUse'))).toEqual(quiet);
    sh(box, 'echo later > src/util.ts && echo out > out.txt');
    expect(await hook(box, prompt(box, 'next'))).toEqual(quiet);
    const list = await fhJson<{ checkpoints: Array<{ messageId: string; filesChanged: string[] }> }>(box, ['list']);
    expect(list.checkpoints[0]?.filesChanged).toEqual(['out.txt', 'src/util.ts']);
    await fhJson(box, ['rewind', list.checkpoints[0]?.messageId as string, '--mode', 'code', '--yes']);
    expect(await readTree(box.project)).toEqual(before);
  });

  it('reports an ignored file the command touched on stderr, and captures nothing for it', async () => {
    const box = await sandbox();
    await repository(box);
    await writeFiles(box.project, { '.gitignore': '*.log\n', 'debug.log': 'x\n' });
    expect(await hook(box, prompt(box, 'go'))).toEqual(quiet);
    expect(await hook(box, bash(box, 'PreToolUse', 'toolu_L', 'log'))).toEqual(quiet);
    sh(box, 'echo more >> debug.log');
    const post = await hook(box, bash(box, 'PostToolUse', 'toolu_L', 'log'));
    expect(post).toEqual({ exitCode: 0, stdout: '', stderr: 'fh hook: command toolu_L: 1 ignored path(s) changed, not captured: debug.log\n' });
  });

  it('a Bash event whose project folder is / (Claude Code started in /) is refused at once, saying so; its PostToolUse does nothing', async () => {
    const box = await sandbox();
    const atRoot = (fields: Record<string, unknown>) => JSON.stringify({ session_id: SESSION, transcript_path: `${box.home}/t.jsonl`, cwd: '/', permission_mode: 'default', ...fields });
    const run = (input: string) => runCli(['hook'], { home: box.home, cwd: '/', input, env: { CLAUDE_PROJECT_DIR: '/' } });
    expect(await run(atRoot({ hook_event_name: 'UserPromptSubmit', prompt: 'look around' }))).toEqual(quiet);
    const started = Date.now();
    const pre = await run(atRoot({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_root' }));
    expect(pre).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: "fh hook: the project folder is /, the root of the file system: fh does not scan the whole file system for a command window, so this command is not captured; start the agent in your project's folder (or give fh --project <folder>)\n",
    });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await run(atRoot({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_root', tool_response: { stdout: '' } }))).toEqual(quiet);
  });
});

describe('fh run', () => {
  it('runs the command, passes its exit code through, and captures what it changed', async () => {
    const box = await sandbox();
    await repository(box);
    expect((await box.fh(['--session', SESSION, 'snapshot', 'm1'])).exitCode).toBe(0);
    const before = await readTree(box.project);
    const result = await box.fh(['--json', '--session', SESSION, 'run', '--', 'bash', '-c', 'mv build.sh tools.sh && echo half > src/app.ts && exit 4']);
    expect(result.exitCode).toBe(4);
    const document = JSON.parse(result.stdout);
    expect(document).toMatchObject({ sessionId: SESSION, messageId: 'm1', exitCode: 4, notCaptured: [], ignored: { count: 0, paths: [] } });
    expect(document.captured).toEqual([
      { path: 'build.sh', change: 'deleted', source: 'git' },
      { path: 'src/app.ts', change: 'modified', source: 'git' },
      { path: 'tools.sh', change: 'created', source: 'created' },
    ]);
    expect((await box.fh(['--session', SESSION, 'rewind', 'm1', '--mode', 'code', '--yes'])).exitCode).toBe(0);
    expect(await readTree(box.project)).toEqual(before);

    // Without `--`, fh would take the command's options as its own: refused, nothing run.
    const undashed = await box.fh(['--session', SESSION, 'run', 'touch', '-a', 'new.txt']);
    expect(undashed).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: "fh: fh run would read the command's options as its own: put -- before the command, as in fh run -- touch -a new.txt (nothing was run)\n",
    });
    expect(existsSync(join(box.project, 'new.txt'))).toBe(false);

    // A project past the listing limit: the command is not run, and fh says how to raise the limit.
    const limited = await box.fh(['--session', SESSION, 'run', '--', 'touch', 'new.txt'], { env: { FH_COMMAND_SCAN_MAX_ENTRIES: '2' } });
    expect(limited.exitCode).toBe(1);
    expect(limited.stderr).toMatch(/is too large to scan for a command window: it holds more than 2 files and folders .*\nThe command was not run\. Raise the limits with FH_COMMAND_SCAN_MAX_ENTRIES \(files and folders\) or FH_COMMAND_SCAN_MAX_MS, or run the command without fh run \(uncaptured\)\.\n$/);
    expect(existsSync(join(box.project, 'new.txt'))).toBe(false);
  });

  it('a store inside the project (--store .fhstore): the window never captures it, fh diff does not list it, a rewind leaves it intact; fh track and the hook refuse paths in it', async () => {
    for (const kind of ['walk', 'git'] as const) {
      const box = await sandbox();
      await writeFiles(box.project, { 'a.txt': 'a\n' });
      if (kind === 'git') sh(box, 'git init -q && git add a.txt && git -c user.email=t@example.com -c user.name=t commit -qm base');
      const inner = (args: readonly string[], input?: string) =>
        runCli(['--store', '.fhstore', '--session', SESSION, ...args], { home: box.home, cwd: box.project, ...(input === undefined ? {} : { input }) });
      const storeFolder = join(box.project, '.fhstore');
      expect((await inner(['snapshot', 'm1'])).exitCode).toBe(0);
      const before = await readTree(box.project, ['.git', '.fhstore']);
      // Twice: the second begin finds the first window's files (preimages.json) in the store.
      for (const content of ['b', 'c']) {
        const result = await inner(['run', '--', 'sh', '-c', `echo ${content} > a.txt`]);
        // None of the store's files is backed up: the first walk backs up a.txt only (git has it), the second finds it tracked.
        const kept = content === 'b' && kind === 'walk' ? ', backed up 1 dirty or untracked file(s) (2 bytes)' : '';
        expect(result.stderr.replace(/command [0-9a-f-]{36}/g, 'command W')).toBe(`fh: command W: window open (${kind})${kept}\nfh: command W: captured 1 file(s) (1 modified) into checkpoint m1\n`);
        expect(result.exitCode).toBe(0);
      }
      const diff = await inner(['--json', 'diff', 'm1']);
      expect(JSON.parse(diff.stdout).files).toEqual([{ path: 'a.txt', status: 'modified', insertions: 1, deletions: 1, binary: false }]);
      const stored = await readTree(storeFolder, []);
      const names = (tree: Record<string, unknown>) => Object.keys(tree).map((path) => path.replace(SESSION, 'S').replace(/[0-9a-f]{16}@/, 'H@').replace(/@undo-[0-9a-f]+$/, '@undo-P')).sort();
      // The store's own .gitignore makes git list it as an ignored folder, which the git scan remembers.
      const journal = kind === 'walk' ? ['commands/S/preimages.json'] : ['commands/S/ignored-folders.json'];
      expect(names(stored)).toEqual(['.gitignore', ...journal, 'file-history/S/H@v1', 'sessions/S.jsonl']);
      expect(await inner(['track', '.fhstore/commands'])).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: `fh: .fhstore/commands is inside fh's store folder ${storeFolder}: fh never backs up or rewinds its own files, so nothing was tracked for it; track your project's files only\n`,
      });
      const write = event(box, { hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(storeFolder, 'x.json') }, tool_use_id: 'toolu_w' });
      expect(await inner(['hook'], write)).toEqual({
        ...quiet,
        stderr: `fh hook: warning: ${join(storeFolder, 'x.json')} is inside fh's store folder ${storeFolder}: not backed up (fh never tracks or rewinds its own files); nothing recorded\n`,
      });
      expect((await inner(['rewind', 'm1', '--mode', 'code', '--yes'])).exitCode).toBe(0);
      expect(await readTree(box.project, ['.git', '.fhstore'])).toEqual(before);
      // Every file the store held is still there with its bytes: the rewind only added its undo point and appended to the log.
      const after = await readTree(storeFolder, []);
      expect(names(after)).toEqual(['.gitignore', ...journal, 'file-history/S/H@undo-P', 'file-history/S/H@v1', 'sessions/S.jsonl']);
      const log = `sessions/${SESSION}.jsonl`;
      for (const [path, entry] of Object.entries(stored)) expect(path === log ? { ...after[path], content: after[path]?.content.slice(0, entry.content.length) } : after[path]).toEqual(entry);
    }
  });

  it('Ctrl-C while the command runs: passed on to it, the window is closed with what it changed, exit 130', async () => {
    const box = await sandbox();
    await repository(box);
    expect((await box.fh(['--session', SESSION, 'snapshot', 'm1'])).exitCode).toBe(0);
    const before = await readTree(box.project);
    const script = "trap 'kill $!; echo stopped > src/app.ts; exit 5' INT; echo begun > half.txt; sleep 30 & echo ready; wait";
    const child = spawn(process.execPath, [cliPath, '--store', `fs:${box.store}`, '--project', box.project, '--session', SESSION, 'run', '--', 'bash', '-c', script], {
      cwd: box.project,
      env: baseEnvironment(box.home),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => ((stdout += chunk.toString()), stdout.includes('ready') && resolve())));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(readFileSync(join(box.project, 'src/app.ts'), 'utf8')).toBe('stopped\n');
    expect(stderr).toMatch(/^fh: command [0-9a-f-]+: window open \(git\)[^\n]*\nfh: interrupted: stopping the command, then capturing what it changed\nfh: command [0-9a-f-]+: captured 2 file\(s\) \(1 created, 1 modified\) into checkpoint m1\n$/);
    // The window is closed: nothing is left open for a later command to end.
    expect(readdirSync(join(box.store, 'commands', SESSION)).filter((name) => name.startsWith('window-'))).toEqual([]);
    expect((await box.fh(['--session', SESSION, 'rewind', 'm1', '--mode', 'code', '--yes'])).exitCode).toBe(0);
    expect(await readTree(box.project)).toEqual(before);
  });

  it('captures chmod 750 → 777 of a git-tracked file: the rewind gives back 0750, the undo 0777', async () => {
    const box = await sandbox();
    await repository(box);
    sh(box, 'chmod 750 build.sh');
    expect((await box.fh(['--session', SESSION, 'snapshot', 'm1'])).exitCode).toBe(0);
    const before = await readTree(box.project);
    expect(before['build.sh']?.mode).toBe(0o750);
    const result = await box.fh(['--json', '--session', SESSION, 'run', '--', 'chmod', '777', 'build.sh']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).captured).toEqual([{ path: 'build.sh', change: 'mode', source: 'git' }]);
    const after = await readTree(box.project);
    expect(after['build.sh']?.mode).toBe(0o777);
    expect((await box.fh(['--session', SESSION, 'rewind', 'm1', '--mode', 'code', '--yes'])).exitCode).toBe(0);
    expect(await readTree(box.project)).toEqual(before);
    expect((lstatSync(join(box.project, 'build.sh')).mode & 0o7777).toString(8)).toBe('750');
    expect((await box.fh(['--session', SESSION, 'undo'])).exitCode).toBe(0);
    expect(await readTree(box.project)).toEqual(after);
    expect((lstatSync(join(box.project, 'build.sh')).mode & 0o7777).toString(8)).toBe('777');
  });

  it('mkdir -p a/b && echo > a/b/f: the rewind removes a/b and a, the undo brings them back; a folder that existed stays', async () => {
    const box = await sandbox();
    await repository(box);
    sh(box, 'mkdir keep');
    expect((await box.fh(['--session', SESSION, 'snapshot', 'm1'])).exitCode).toBe(0);
    const before = await readTree(box.project);
    const result = await box.fh(['--json', '--session', SESSION, 'run', '--', 'bash', '-c', 'mkdir -p a/b && echo > a/b/f && echo x > keep/x && mkdir -p src/new && echo y > src/new/g']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).captured).toEqual([
      { path: 'a/b/f', change: 'created', source: 'created' },
      { path: 'keep/x', change: 'created', source: 'created' },
      { path: 'src/new/g', change: 'created', source: 'created' },
    ]);
    const after = await readTree(box.project);
    expect((await box.fh(['--session', SESSION, 'rewind', 'm1', '--mode', 'code', '--yes'])).exitCode).toBe(0);
    expect(await readTree(box.project)).toEqual(before);
    expect(['a', 'a/b', 'src/new'].filter((folder) => existsSync(join(box.project, folder)))).toEqual([]);
    expect(lstatSync(join(box.project, 'keep')).isDirectory()).toBe(true);
    expect(lstatSync(join(box.project, 'src')).isDirectory()).toBe(true);
    expect((await box.fh(['--session', SESSION, 'undo'])).exitCode).toBe(0);
    expect(await readTree(box.project)).toEqual(after);
    expect(readFileSync(join(box.project, 'a/b/f'), 'utf8')).toBe('\n');
  });
});

/**
 * The interactive rewind menu in a real pseudo-terminal: `fh rewind` runs inside a private tmux
 * server; keys go in with send-keys, the screen comes out with capture-pane, and the files are
 * checked afterwards.
 */
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, makeLongRepository, runCli, sandbox, writeFiles, type Sandbox } from './helpers.js';

const socket = `fh-test-${process.pid}`;

function tmux(args: readonly string[]): string {
  return execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
}

afterAll(() => {
  try {
    tmux(['kill-server']);
  } catch {
    // No server was started, or it already ended.
  }
});

/** Start `fh <args>` in a new tmux window (120x40 unless given); the shell prints EXIT=<code> when fh ends. */
function start(box: Sandbox, name: string, args: readonly string[], size: { columns: number; rows: number } = { columns: 120, rows: 40 }, env: Record<string, string> = {}): void {
  const environment = { ...baseEnvironment(box.home), TERM: 'xterm-256color', ...env };
  const exports = Object.entries(environment)
    .filter(([key]) => /^[A-Z_][A-Z0-9_]*$/.test(key))
    .map(([key, value]) => `${key}=${shellQuote(value)}`)
    .join(' ');
  const command = `cd ${shellQuote(box.project)} && env -i ${exports} ${shellQuote(process.execPath)} ${shellQuote(cliPath)} --store ${shellQuote(`fs:${box.store}`)} ${args.map(shellQuote).join(' ')}; echo EXIT=$?; sleep 600`;
  tmux(['new-session', '-d', '-s', name, '-x', String(size.columns), '-y', String(size.rows), 'sh', '-c', command]);
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function screen(name: string): string {
  return tmux(['capture-pane', '-p', '-t', name]);
}

async function waitFor(name: string, text: string | RegExp, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const shown = screen(name);
    if (typeof text === 'string' ? shown.includes(text) : text.test(shown)) return shown;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(text)}; screen:\n${shown}`);
    await new Promise((wake) => setTimeout(wake, 50));
  }
}

function keys(name: string, ...sequence: string[]): void {
  tmux(['send-keys', '-t', name, ...sequence]);
}

/** Three turns: each prompt recorded; turn 1 and 2 edit files, turn 3 has just begun. */
async function threeTurns(): Promise<Sandbox> {
  const box = await sandbox();
  const fh = async (args: string[]) => expect((await box.fh(['--session', 'menu', ...args])).exitCode).toBe(0);
  await writeFiles(box.project, { 'app.js': 'version 1\n' });
  await fh(['snapshot', 'p1', '--prompt', 'first: make version 2']);
  await fh(['track', 'app.js', 'notes.md']);
  await writeFiles(box.project, { 'app.js': 'version 2\n', 'notes.md': 'notes\n' });
  await fh(['snapshot', 'p2', '--prompt', 'second: make version 3']);
  await writeFiles(box.project, { 'app.js': 'version 3\n' });
  await fh(['snapshot', 'p3', '--prompt', 'third: just looking']);
  return box;
}

describe('the rewind menu in a terminal', () => {
  it('starts on the current prompt, ignores a stray Enter, and rewinds code and conversation to the chosen prompt', async () => {
    const box = await threeTurns();
    const name = 'choose';
    start(box, name, ['--session', 'menu', 'rewind']);
    const first = await waitFor(name, 'Rewind to which prompt?');
    const lines = first.split('\n');
    const row = (text: string) => lines.findIndex((line) => line.includes(text));
    expect(lines[row('(current prompt)')]).toMatch(/^❯ \(current prompt\)/);
    expect(row('third: just looking')).toBeLessThan(row('second: make version 3'));
    expect(row('second: make version 3')).toBeLessThan(row('first: make version 2'));
    expect(lines[row('second: make version 3')]).toContain('1 file +1 -1');
    expect(lines[row('first: make version 2')]).toContain('2 files +1 -2');

    keys(name, 'Enter');
    await new Promise((wake) => setTimeout(wake, 300));
    expect(screen(name)).toContain('Rewind to which prompt?');
    expect(await readFile(join(box.project, 'app.js'), 'utf8')).toBe('version 3\n');

    keys(name, 'Down', 'Down', 'Down');
    await waitFor(name, /❯ first: make version 2/);
    keys(name, 'Enter');
    const options = await waitFor(name, 'Restore code and conversation');
    expect(options).toContain('Rewind to: first: make version 2');
    expect(options).toMatch(/❯ Restore code and conversation/);
    expect(options).toContain('Restore conversation');
    expect(options).toContain('Restore code');
    expect(options).toContain('Never mind');
    expect(options).toContain('Restoring the code changes 2 files (+1 -2):');
    expect(options).toMatch(/modify +app\.js +\+1 -1/);
    expect(options).toMatch(/delete +notes\.md +\+0 -1/);

    keys(name, 'Enter');
    const done = await waitFor(name, 'EXIT=');
    expect(done).toContain('EXIT=0');
    expect(done).toContain('Rewound the code to p1: 1 restored, 1 deleted');
    expect(done).toContain('first: make version 2');
    expect(await readFile(join(box.project, 'app.js'), 'utf8')).toBe('version 1\n');
    await expect(stat(join(box.project, 'notes.md'))).rejects.toThrow(/ENOENT/);
  });

  it('Esc steps back one screen, and on the prompt list is never mind: nothing changes', async () => {
    const box = await threeTurns();
    const name = 'escape';
    start(box, name, ['--session', 'menu', 'rewind']);
    await waitFor(name, 'Rewind to which prompt?');
    keys(name, 'Down');
    await waitFor(name, /❯ third: just looking/);
    keys(name, 'Enter');
    await waitFor(name, 'Restore code and conversation');
    keys(name, 'Escape');
    const back = await waitFor(name, 'Rewind to which prompt?');
    expect(back).toMatch(/❯ third: just looking/);
    expect(back).not.toContain('EXIT=');
    keys(name, 'Escape');
    const done = await waitFor(name, 'EXIT=');
    expect(done).toContain('Never mind: nothing changed.');
    expect(done).toContain('EXIT=0');
    expect(await readFile(join(box.project, 'app.js'), 'utf8')).toBe('version 3\n');
    expect(await readFile(join(box.project, 'notes.md'), 'utf8')).toBe('notes\n');
  });

  it('at 40 columns: rows are cut to the width, End/Home/PgUp/PgDn jump, the selection stays on screen, q is never mind', async () => {
    const box = await sandbox();
    seedPromptSession(box, 'long', 61);
    const name = 'narrow';
    start(box, name, ['--session', 'long', 'rewind'], { columns: 40, rows: 14 });
    const first = await waitFor(name, 'Rewind to which prompt?');
    const fits = (shown: string) => shown.split('\n').every((line) => [...line].length <= 40);
    expect(fits(first)).toBe(true);
    expect(first).toMatch(/^❯ \(current prompt\)$/m);
    expect(first).toMatch(/^  prompt 61 of a long se…  1 file \+1 -1$/m);
    keys(name, 'End');
    const oldest = await waitFor(name, /❯ prompt 1 of a long/);
    expect(oldest).toContain('62/62');
    expect(fits(oldest)).toBe(true);
    keys(name, 'PgUp');
    const paged = await waitFor(name, /^53\/62$/m);
    expect(paged).toMatch(/^❯ prompt 10 of a long/m);
    expect(fits(paged)).toBe(true);
    keys(name, 'PgDn', 'Up');
    await waitFor(name, /^61\/62$/m);
    keys(name, 'Home');
    await waitFor(name, /^1\/62$/m);
    keys(name, 'q');
    const done = await waitFor(name, 'EXIT=');
    expect(done).toContain('Never mind: nothing changed.');
    expect(done).toContain('EXIT=0');
    expect(await readFile(join(box.project, 'app.js'), 'utf8')).toBe('version 61\n');
  });

  it('at 120 columns: / filters the prompts, f lists the files, Enter previews a patch, Esc steps back each screen', async () => {
    const box = await sandbox();
    seedPromptSession(box, 'long', 61);
    const name = 'filter';
    start(box, name, ['--session', 'long', 'rewind']);
    await waitFor(name, 'Rewind to which prompt?');
    keys(name, '/', '4', '2');
    const filtered = await waitFor(name, '/42▏  1 of 61 prompts');
    expect(filtered).toMatch(/❯ prompt 42 of a long session: please change the app to version 42 +\d\d-\d\d \d\d:\d\d  1 file \+1 -1/);
    expect(filtered).not.toContain('prompt 41 of');
    keys(name, 'Enter', 'Enter');
    await waitFor(name, 'Restore code and conversation');
    keys(name, 'f');
    await waitFor(name, /Files a code rewind to prompt 42 .* changes/);
    keys(name, 'Enter');
    const patch = await waitFor(name, '+version 41');
    expect(patch).toContain('app.js: from now to the checkpoint');
    expect(patch).toContain(['diff --git a/app.js b/app.js', '--- a/app.js', '+++ b/app.js', '@@ -1,1 +1,1 @@', '-version 61', '+version 41'].join('\n'));
    keys(name, 'Escape');
    await waitFor(name, /Files a code rewind/);
    keys(name, 'Escape');
    await waitFor(name, 'Restore code and conversation');
    keys(name, 'Escape');
    await waitFor(name, /Rewind to which prompt\?\n.*\n\/42  1 of 61 prompts/);
    keys(name, 'Escape');
    const cleared = await waitFor(name, /❯ prompt 61 of a long|❯ \(current prompt\)/);
    expect(cleared).not.toContain('/42');
    expect(cleared).not.toContain('EXIT=');
    keys(name, 'C-c');
    const done = await waitFor(name, 'EXIT=');
    expect(done).toContain('fh: interrupted: nothing changed');
    expect(done).toContain('EXIT=130');
    expect(await readFile(join(box.project, 'app.js'), 'utf8')).toBe('version 61\n');
  });

  it('chooses code only from the options, leaving the conversation alone', async () => {
    const box = await threeTurns();
    const name = 'code-only';
    start(box, name, ['--session', 'menu', 'rewind']);
    await waitFor(name, 'Rewind to which prompt?');
    keys(name, 'Down', 'Down');
    await waitFor(name, /❯ second: make version 3/);
    keys(name, 'Enter');
    await waitFor(name, 'Restore code and conversation');
    keys(name, 'Down', 'Down');
    await waitFor(name, /❯ Restore code$/m);
    keys(name, 'Enter');
    const done = await waitFor(name, 'EXIT=');
    expect(done).toContain('Rewound the code to p2: 1 restored, 0 deleted');
    expect(done).not.toContain('Rewound the conversation');
    expect(await readFile(join(box.project, 'app.js'), 'utf8')).toBe('version 2\n');
  });

  it('asks before rewinding to a message id given on the command line', async () => {
    const box = await threeTurns();
    const name = 'confirm';
    start(box, name, ['--session', 'menu', 'rewind', 'p2', '--mode', 'code']);
    const question = await waitFor(name, 'Rewind code to p2? [y/N]');
    expect(question).toContain('Rewinding the code to p2 would change 1 file (+1 -1)');
    keys(name, 'n', 'Enter');
    const declined = await waitFor(name, 'EXIT=');
    expect(declined).toContain('Nothing changed.');
    expect(await readFile(join(box.project, 'app.js'), 'utf8')).toBe('version 3\n');
    tmux(['kill-session', '-t', name]);

    start(box, name, ['--session', 'menu', 'rewind', 'p2', '--mode', 'code']);
    await waitFor(name, 'Rewind code to p2? [y/N]');
    keys(name, 'y', 'Enter');
    const accepted = await waitFor(name, 'EXIT=');
    expect(accepted).toContain('Rewound the code to p2: 1 restored, 0 deleted');
    expect(accepted).toContain('EXIT=0');
    expect(await readFile(join(box.project, 'app.js'), 'utf8')).toBe('version 2\n');
  });

  it('rewinds without asking when nothing would be lost (seed 000 §7)', async () => {
    const box = await threeTurns();
    const name = 'lossless';
    start(box, name, ['--session', 'menu', 'rewind', 'p3']);
    const done = await waitFor(name, 'EXIT=');
    expect(done).not.toContain('[y/N]');
    expect(done).toContain('The conversation of session menu belongs to the agent that runs it: nothing was dropped or recorded.');
    expect(done).toContain('EXIT=0');
    expect(await readFile(join(box.project, 'app.js'), 'utf8')).toBe('version 3\n');
  });

  it('leaves the session unlocked while the menu is open: an agent hook backs up a file at once, and the rewind includes it', async () => {
    const box = await threeTurns();
    await writeFiles(box.project, { 'b.txt': 'b as it was\n' });
    const name = 'hook-while-menu';
    start(box, name, ['--session', 'menu', 'rewind']);
    await waitFor(name, 'Rewind to which prompt?');

    const started = Date.now();
    const hook = await preToolUse(box, 'menu', 'b.txt');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(hook).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    await writeFiles(box.project, { 'b.txt': 'b as the agent wrote it\n' });

    keys(name, 'Down', 'Down', 'Down');
    await waitFor(name, /❯ first: make version 2/);
    keys(name, 'Enter');
    await waitFor(name, 'Restore code and conversation');
    keys(name, 'Enter');
    const done = await waitFor(name, 'EXIT=');
    expect(done).toContain('Rewound the code to p1: 2 restored, 1 deleted');
    expect(done).toMatch(/restored +b\.txt/);
    expect(done).toContain('EXIT=0');
    expect(await readFile(join(box.project, 'app.js'), 'utf8')).toBe('version 1\n');
    expect(await readFile(join(box.project, 'b.txt'), 'utf8')).toBe('b as it was\n');
    await expect(stat(join(box.project, 'notes.md'))).rejects.toThrow(/ENOENT/);
  });

  it('leaves the session unlocked while [y/N] waits: a hook backs up a file at once, and "y" still rewinds', async () => {
    const box = await threeTurns();
    await writeFiles(box.project, { 'b.txt': 'b as it was\n' });
    const name = 'hook-while-confirm';
    start(box, name, ['--session', 'menu', 'rewind', 'p2', '--mode', 'code']);
    await waitFor(name, 'Rewind code to p2? [y/N]');

    const started = Date.now();
    expect(await preToolUse(box, 'menu', 'b.txt')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(Date.now() - started).toBeLessThan(5000);
    await writeFiles(box.project, { 'b.txt': 'b as the agent wrote it\n' });

    keys(name, 'y', 'Enter');
    const done = await waitFor(name, 'EXIT=');
    expect(done).toContain('Rewound the code to p2: 2 restored, 0 deleted');
    expect(done).toContain('EXIT=0');
    expect(await readFile(join(box.project, 'app.js'), 'utf8')).toBe('version 2\n');
    expect(await readFile(join(box.project, 'b.txt'), 'utf8')).toBe('b as it was\n');
  });

  it('refuses, changing nothing, when the chosen checkpoint was dropped while [y/N] waited', async () => {
    const box = await sandbox();
    seedLargeSession(box, 'full', 100, 1);
    const name = 'checkpoint-dropped';
    start(box, name, ['--session', 'full', 'rewind', 'm1', '--mode', 'code']);
    await waitFor(name, 'Rewind code to m1? [y/N]');
    expect((await box.fh(['--session', 'full', 'snapshot', 'm101'])).exitCode).toBe(0);

    keys(name, 'y', 'Enter');
    const done = await waitFor(name, 'EXIT=');
    expect(done).toContain('fh: the checkpoint m1 is no longer in session full: the session changed while you were choosing; nothing was changed');
    expect(done).toContain('EXIT=1');
    await expect(stat(join(box.project, 'src'))).rejects.toThrow(/ENOENT/);
    expect((await box.fh(['--session', 'full', 'undo'])).stderr).toContain('no rewind to undo');
  });

  it('shows a progress bar on the terminal while a long demo runs, and clears it', async () => {
    const box = await sandbox();
    const repository = await makeLongRepository(100);
    const name = 'progress';
    start(box, name, ['demo', '--repo', repository, '--commits', '100']);
    const during = await waitFor(name, /fh demo \[[█░]+\] \d+\/\d+/, 60_000);
    expect(during).not.toContain('EXIT=');
    const done = await waitFor(name, 'EXIT=', 120_000);
    expect(done).toContain('All checkpoints verified.');
    expect(done).not.toMatch(/fh demo \[/);
    // The test's own waits (60 s for the bar, 120 s for the end), not vitest's default 60 s.
  }, 200_000);

  it('shows a progress bar on the terminal while a resume carries 40000 backups, and clears it', async () => {
    const box = await sandbox();
    seedLargeSession(box, 'big', 100, 400);
    const name = 'resume-progress';
    start(box, name, ['resume', 'big', '--to', 'resumed']);
    const during = await waitFor(name, /carrying backups \[[█░]+\] \d+\/40000/, 60_000);
    expect(during).not.toContain('EXIT=');
    const done = await waitFor(name, 'EXIT=', 60_000);
    expect(done).toContain('EXIT=0');
    expect(done).toContain('resumed big as resumed: 100 checkpoints, 40000 backups linked, 0 copied');
    expect(done).not.toContain('carrying backups [');
    expect(await readdir(join(box.store, 'file-history', 'resumed'))).toHaveLength(40000);
  });
});

describe("the menu's loading bar", () => {
  it('counts the files each checkpoint\'s dry run checks and the bytes it reads, then gives way to the menu', async () => {
    const box = await sandbox();
    // 5 checkpoints of 300 files each, none of them in the project now: every dry run reads 300 backups.
    seedLargeSession(box, 'loading', 5, 300);
    const name = 'menu-loading';
    const recorded = join(box.home, 'pane.log');
    start(box, name, ['--session', 'loading', 'rewind'], { columns: 120, rows: 40 }, { FH_PROGRESS_DELAY_MS: '0' });
    tmux(['pipe-pane', '-o', '-t', name, `cat >> ${shellQuote(recorded)}`]);
    await waitFor(name, 'Rewind to which prompt?', 30_000);
    keys(name, 'q');
    expect(await waitFor(name, 'EXIT=')).toContain('EXIT=0');
    const plain = (await readFile(recorded, 'utf8')).replace(/\u001b\[[0-9;?]*[A-Za-z]|\u001b[78]/g, '\n');
    const lines = plain.split(/[\r\n]+/).filter((line) => line.startsWith('menu: comparing the files of each prompt ['));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^menu: comparing the files of each prompt \[[█░]+\] \d+\/1500 files · [\d.]+ (B|KiB)$/);
  });
});

/** Run `fh hook` with an agent's PreToolUse event of a Write to `path` in session `sessionId`. */
function preToolUse(box: Sandbox, sessionId: string, path: string) {
  const filePath = join(box.project, path);
  const event = { session_id: sessionId, cwd: box.project, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: filePath, content: 'new\n' } };
  return runCli(['--store', `fs:${box.store}`, 'hook'], { home: box.home, cwd: box.project, input: JSON.stringify(event) });
}

/**
 * Write session `sessionId` straight into the sandbox's fs store: `snapshots` checkpoints, each
 * with `files` files at a new version, so `snapshots × files` backups (hard links to one small
 * file per checkpoint, so no file gets too many links).
 */
function seedLargeSession(box: Sandbox, sessionId: string, snapshots: number, files: number): void {
  const folder = join(box.store, 'file-history', sessionId);
  mkdirSync(folder, { recursive: true });
  mkdirSync(join(box.store, 'sessions'), { recursive: true });
  const time = new Date().toISOString();
  const lines = [JSON.stringify({ type: 'fh-session', sessionId, projectRoot: box.project, createdAt: time })];
  for (let version = 1; version <= snapshots; version += 1) {
    const seed = join(box.store, `seed-${version}`);
    writeFileSync(seed, `version ${version}\n`);
    const size = Buffer.byteLength(`version ${version}\n`);
    const trackedFileBackups: Record<string, unknown> = {};
    for (let file = 0; file < files; file += 1) {
      const backupFileName = `${file.toString(16).padStart(16, '0')}@v${version}`;
      linkSync(seed, join(folder, backupFileName));
      trackedFileBackups[`src/file-${file}.txt`] = { backupFileName, version, backupTime: time, size, mode: 0o644 };
    }
    rmSync(seed);
    const messageId = `m${version}`;
    lines.push(JSON.stringify({ type: 'file-history-snapshot', messageId, isSnapshotUpdate: false, snapshot: { messageId, timestamp: time, trackedFileBackups } }));
  }
  writeFileSync(join(box.store, 'sessions', `${sessionId}.jsonl`), `${lines.join('\n')}\n`);
}

/**
 * Write session `sessionId` straight into the sandbox's fs store: `count` turns, each a recorded
 * prompt ("prompt N of a long session: …") and a checkpoint where app.js held `version N-1`; the
 * project's app.js holds `version <count>`.
 */
function seedPromptSession(box: Sandbox, sessionId: string, count: number): void {
  const folder = join(box.store, 'file-history', sessionId);
  mkdirSync(folder, { recursive: true });
  mkdirSync(join(box.store, 'sessions'), { recursive: true });
  const start = Date.now() - count * 60_000;
  const lines = [JSON.stringify({ type: 'fh-session', sessionId, projectRoot: box.project, createdAt: new Date(start).toISOString() })];
  let parent: string | null = null;
  for (let turn = 1; turn <= count; turn += 1) {
    const time = new Date(start + turn * 60_000).toISOString();
    const content = `version ${turn - 1}\n`;
    const backupFileName = `00000000000000aa@v${turn}`;
    writeFileSync(join(folder, backupFileName), content);
    const messageId = `p${turn}`;
    lines.push(JSON.stringify({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: box.project, sessionId, type: 'user', message: { role: 'user', content: `prompt ${turn} of a long session: please change the app to version ${turn}` }, uuid: messageId, timestamp: time }));
    const trackedFileBackups = { 'app.js': { backupFileName, version: turn, backupTime: time, size: Buffer.byteLength(content), mode: 0o644 } };
    lines.push(JSON.stringify({ type: 'file-history-snapshot', messageId, isSnapshotUpdate: false, snapshot: { messageId, timestamp: time, trackedFileBackups } }));
    parent = messageId;
  }
  writeFileSync(join(box.store, 'sessions', `${sessionId}.jsonl`), `${lines.join('\n')}\n`);
  writeFileSync(join(box.project, 'app.js'), `version ${count}\n`);
}

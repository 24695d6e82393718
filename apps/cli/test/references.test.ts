/**
 * Short references and argument placement, end to end: id prefixes, turn numbers (shown in
 * `fh list`), one message for an empty or unknown id, `--paths` before the id or after `--`,
 * `--json --version`, `--json help`, and `fh show`.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandbox, writeFiles, type Sandbox } from './helpers.js';

const FIRST = '6e3bedf9-1111-4000-8000-000000000001';
const SECOND = '6e3bedf9-2222-4000-8000-000000000002';
const THIRD = '91c0ffee-3333-4000-8000-000000000003';

let box: Sandbox;
const fh = (args: readonly string[]) => box.fh(['--session', 's1', ...args]);

beforeAll(async () => {
  box = await sandbox();
  await writeFiles(box.project, { 'app.js': 'v1\n', '-rf': 'dash 1\n' });
  expect((await fh(['snapshot', FIRST, '--prompt', 'first prompt'])).exitCode).toBe(0);
  expect((await fh(['track', 'app.js', 'notes.md', '--', '-rf'])).exitCode).toBe(0);
  await writeFiles(box.project, { 'app.js': 'v2\n', 'notes.md': 'notes\n', '-rf': 'dash 2\n' });
  expect((await fh(['snapshot', SECOND, '--prompt', 'second prompt\nwith a second line'])).exitCode).toBe(0);
  await writeFiles(box.project, { 'app.js': 'v3\n' });
  expect((await fh(['snapshot', THIRD, '--prompt', 'third prompt'])).exitCode).toBe(0);
});

describe('short references', () => {
  it('fh list numbers the turns, oldest first', async () => {
    const list = await fh(['list']);
    const rows = list.stdout.split('\n');
    expect(rows[1]).toMatch(/^#  message id +time/);
    expect(rows[2]).toMatch(new RegExp(`^1  ${FIRST} .* first prompt +3 +\\+2 -3$`));
    expect(rows[3]).toMatch(new RegExp(`^2  ${SECOND} .* second prompt with a second line +1 +\\+1 -1$`));
    expect(rows[4]).toMatch(new RegExp(`^3  ${THIRD} .* third prompt +0 +\\+0 -0$`));
    const { json } = await box.fhJson<{ checkpoints: Array<{ turn: number; messageId: string }> }>(['--session', 's1', 'list']);
    expect(json.checkpoints.map((row) => [row.turn, row.messageId])).toEqual([[1, FIRST], [2, SECOND], [3, THIRD]]);
  });

  it('diff takes a unique prefix and turn numbers from both ends', async () => {
    for (const reference of ['91c0', '3', '-1', THIRD]) {
      const { json } = await box.fhJson<{ messageId: string }>(['--session', 's1', 'diff', reference]);
      expect(json.messageId).toBe(THIRD);
    }
    const { json } = await box.fhJson<{ messageId: string; filesChanged: string[] }>(['--session', 's1', 'diff', '-3']);
    expect(json).toMatchObject({ messageId: FIRST, filesChanged: ['-rf', 'app.js', 'notes.md'] });
  });

  it('an ambiguous prefix lists the candidates; empty, short and unknown ids get one message naming the session', async () => {
    expect(await fh(['diff', '6e3bedf9'])).toMatchObject({
      exitCode: 2,
      stderr: `fh: message id prefix "6e3bedf9" fits 2 ids of session "s1": ${FIRST}, ${SECOND}; give more characters\n`,
    });
    const listCommand = `fh --store fs:${box.store} --session s1 --project ${box.project} list`;
    for (const command of ['diff', 'rewind', 'show', 'fork']) {
      const empty = await fh([command, '', ...(command === 'rewind' ? ['--yes'] : [])]);
      expect(empty.exitCode).toBe(2);
      expect(empty.stderr).toBe(
        `fh: an empty message id names no checkpoint or prompt of session "s1": give a message id, a unique prefix of 4 or more characters, or a turn number (${listCommand} shows them)\n`,
      );
    }
    expect(await fh(['diff', 'zzzz'])).toMatchObject({ exitCode: 1, stderr: `fh: no checkpoint or prompt "zzzz" in session "s1"; ${listCommand} shows them\n` });
    expect((await fh(['diff', '4'])).stderr).toBe(
      `fh: turn 4 does not exist: session "s1" has turns 1 to 3 (or -1 to -3, counting back from the newest; ${listCommand} shows them)\n`,
    );
    expect(await readFile(join(box.project, 'app.js'), 'utf8')).toBe('v3\n');
  });

  it('rewind -2 goes two turns back, to the start of the turn before this one', async () => {
    const other = await sandbox();
    const run = (args: readonly string[]) => other.fh(['--session', 's2', ...args]);
    await writeFiles(other.project, { 'a.txt': 'one\n' });
    await run(['snapshot', 'turn-one']);
    await run(['track', 'a.txt']);
    await writeFiles(other.project, { 'a.txt': 'two\n' });
    await run(['snapshot', 'turn-two']);
    await writeFiles(other.project, { 'a.txt': 'three\n' });
    await run(['snapshot', 'turn-three']);
    await writeFiles(other.project, { 'a.txt': 'four\n' });
    const rewound = await run(['rewind', '-2', '--yes']);
    expect(rewound.exitCode).toBe(0);
    expect(rewound.stdout).toContain(`Rewound the code to turn-two: 1 restored, 0 deleted, in ${other.project}`);
    expect(await readFile(join(other.project, 'a.txt'), 'utf8')).toBe('two\n');
  });
});

describe('arguments', () => {
  it('--paths -- -rf and <id> -- -rf name a file that starts with a dash', async () => {
    for (const args of [['diff', FIRST, '--paths', '--', '-rf'], ['diff', FIRST, '--', '-rf']]) {
      const { result, json } = await box.fhJson<{ filesChanged: string[] }>(['--session', 's1', ...args]);
      expect(result.exitCode).toBe(0);
      expect(json.filesChanged).toEqual(['-rf']);
    }
  });

  it('--paths before the message id takes its last value as the id', async () => {
    const { result, json } = await box.fhJson<{ messageId: string; filesChanged: string[] }>(['--session', 's1', 'diff', '--paths', 'notes.md', FIRST]);
    expect(result.exitCode).toBe(0);
    expect(json).toMatchObject({ messageId: FIRST, filesChanged: ['notes.md'] });
  });

  it('--json --version prints a JSON document; --help names fork under --other-project', async () => {
    for (const args of [['--json', '--version'], ['--version', '--json']]) {
      const result = await box.fh(args);
      expect(result.exitCode).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    }
    expect((await box.fh(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = await box.fh(['--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('--other-project let track, snapshot, rewind, undo and fork use a --project');
    expect(help.stdout).toMatch(/show <messageId>/);
  });

  it('--json help, --json --help and --json help <command> print the help text as one JSON document', async () => {
    const plain = await box.fh(['help']);
    for (const args of [['--json', 'help'], ['--json', '--help']]) {
      const result = await box.fh(args);
      expect([result.exitCode, JSON.parse(result.stdout), result.stderr]).toEqual([0, { help: plain.stdout }, '']);
    }
    const rewind = await box.fh(['--json', 'help', 'rewind']);
    expect([rewind.exitCode, JSON.parse(rewind.stdout)]).toEqual([0, { help: (await box.fh(['help', 'rewind'])).stdout }]);
    expect(plain.stdout).toMatch(/^Usage: fh \[options\] \[command\]\n/);
  });
});

describe('fh show', () => {
  it('prints the whole prompt, the time, the files with +/-', async () => {
    const shown = await fh(['show', '2']);
    expect(shown.exitCode).toBe(0);
    const lines = shown.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^turn 2  ${SECOND}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$`));
    expect(lines.slice(3, 5)).toEqual(['second prompt', 'with a second line']);
    expect(shown.stdout).toContain('Rewinding here would change 1 file (+1 -1)\n  modify  app.js  +1 -1\n');
    const { json } = await box.fhJson<Record<string, unknown>>(['--session', 's1', 'show', '6e3bedf9-2']);
    expect(json).toMatchObject({ messageId: SECOND, turn: 2, prompt: 'second prompt\nwith a second line', reply: null, stats: { filesChanged: ['app.js'] } });
  });
});

describe('fh diff output formats', () => {
  it('--stat and --name-only', async () => {
    expect(await fh(['diff', '1', '--name-only'])).toEqual({ exitCode: 0, stdout: '-rf\napp.js\nnotes.md\n', stderr: '' });
    expect((await fh(['diff', '1', '--stat'])).stdout).toBe(
      [' -rf      |   2 +-', ' app.js   |   2 +-', ' notes.md |   1 -', ' 3 files changed, 2 insertions(+), 3 deletions(-)', ''].join('\n'),
    );
    expect((await fh(['diff', '1', '--stat', '--patch'])).exitCode).toBe(2);
  });

  it('git apply takes --patch: text, created, deleted, binary and mode changes', async () => {
    const other = await sandbox();
    const run = (args: readonly string[]) => other.fh(['--session', 'p', ...args]);
    const binaryBefore = Buffer.from([0, 1, 2, 3, 255, 254, ...Buffer.from('binary one\n')]);
    await writeFiles(other.project, {
      'text.txt': 'a\nb\nc\nd\ne\nf\ng\n',
      'gone.txt': 'was here\n',
      'bin.dat': binaryBefore,
      'tool.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o644 },
      'no-newline.txt': 'last line',
    });
    await run(['snapshot', 'c1']);
    await run(['track', 'text.txt', 'gone.txt', 'bin.dat', 'tool.sh', 'no-newline.txt', 'new.txt']);
    await writeFiles(other.project, {
      'text.txt': 'a\nB\nc\nd\ne\nf\nG\nh\n',
      'bin.dat': Buffer.from([9, 0, 8, 7, ...Buffer.alloc(300, 7)]),
      'tool.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 },
      'no-newline.txt': 'last line\nand more',
      'new.txt': 'created later\n',
    });
    execFileSync('rm', [join(other.project, 'gone.txt')]);
    const copy = join(other.home, 'copy');
    execFileSync('cp', ['-a', other.project, copy]);
    execFileSync('git', ['init', '-q'], { cwd: copy });
    const patch = await run(['diff', 'c1', '--patch']);
    expect(patch.exitCode).toBe(0);
    expect(patch.stdout).toContain('diff --git a/tool.sh b/tool.sh\nold mode 100755\nnew mode 100644\n');
    expect(patch.stdout).toContain('diff --git a/new.txt b/new.txt\ndeleted file mode 100644\n');
    expect(patch.stdout).toContain('diff --git a/gone.txt b/gone.txt\nnew file mode 100644\n');
    expect(patch.stdout).toContain('GIT binary patch\nliteral 17\n');
    execFileSync('git', ['apply', '--check', '-'], { cwd: copy, input: patch.stdout });
    execFileSync('git', ['apply', '-'], { cwd: copy, input: patch.stdout });
    expect((await run(['rewind', 'c1', '--yes'])).exitCode).toBe(0);
    const tree = (root: string) => execFileSync('sh', ['-c', 'for f in text.txt gone.txt bin.dat tool.sh no-newline.txt; do sha1sum "$f"; stat -c "%a" "$f"; done; ls new.txt 2>&1 || true'], { cwd: root, encoding: 'utf8' });
    expect(tree(copy).replace(/copy/g, 'project')).toBe(tree(other.project));
    expect(await readFile(join(copy, 'bin.dat'))).toEqual(binaryBefore);
  });
});

describe('messages', () => {
  it('--claude with hook is a usage error that records nothing', async () => {
    const event = JSON.stringify({ session_id: 'h1', cwd: box.project, hook_event_name: 'UserPromptSubmit', prompt: 'hi' });
    for (const args of [['--claude', 'hook'], ['hook', '--claude']]) {
      const result = await box.fh(args, { input: event });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toBe("fh: --claude cannot be used with fh hook: the hook records into fh's own store (--store), never into Claude Code's data; nothing was recorded. Leave out --claude\n");
    }
    expect((await box.fh(['--session', 'h1', 'list'])).exitCode).toBe(1);
  });
});

/**
 * `fh --claude` end to end on real Claude Code transcripts (fixtures/claude-transcripts, see its
 * README) and on sessions built for shapes no public file shows (each labelled "built"): files
 * outside the project, worktree sessions, the prompt filter, forks that keep the whole branch, a
 * missing project folder (issue 13).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, git, runCli, tempFolder, type CliResult } from './helpers.js';

const FIXTURES = new URL('./fixtures/claude-transcripts/', import.meta.url).pathname;

/** Claude Code's project folder name: every character other than [A-Za-z0-9] becomes `-`. */
const slug = (path: string) => path.replace(/[^a-zA-Z0-9]/g, '-');
const backupName = (absolutePath: string, version: number) => `${createHash('sha256').update(absolutePath).digest('hex').slice(0, 16)}@v${version}`;
const parseLines = (text: string) => text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, any>);

interface Box {
  configDir: string;
  home: string;
  store: string;
  fh(args: readonly string[], cwd?: string): Promise<CliResult>;
  json<T = Record<string, any>>(args: readonly string[], cwd?: string): Promise<{ result: CliResult; json: T }>;
}

async function box(): Promise<Box> {
  const base = await tempFolder('fh-claude-transcripts-');
  const configDir = join(base, 'claude');
  const home = join(base, 'home');
  const store = join(base, 'fh-store');
  await mkdir(home, { recursive: true });
  const fh = (args: readonly string[], cwd = home) => runCli(['--store', `fs:${store}`, '--claude', configDir, ...args], { home, cwd });
  return {
    configDir,
    home,
    store,
    fh,
    json: async <T>(args: readonly string[], cwd?: string) => {
      const result = await fh(['--json', ...args], cwd);
      return { result, json: JSON.parse(result.stdout === '' ? 'null' : result.stdout) as T };
    },
  };
}

/**
 * Copy a fixture transcript into `projects/<slug(cwd)>/` of the box's config folder; returns its
 * path. `relocate`: text replacements made on the way (a recorded absolute folder moved under
 * {@link ROOT}, so no test writes outside its temp folder and two suites can run at once).
 */
async function installTranscript(target: Box, fixture: string, sessionId: string, cwd: string, relocate: ReadonlyArray<[string, string]> = []): Promise<string> {
  const path = join(target.configDir, 'projects', slug(cwd), `${sessionId}.jsonl`);
  await mkdir(dirname(path), { recursive: true });
  if (relocate.length === 0) {
    await copyFile(join(FIXTURES, fixture, `${sessionId}.jsonl`), path);
    return path;
  }
  let text = await readFile(join(FIXTURES, fixture, `${sessionId}.jsonl`), 'utf8');
  for (const [from, to] of relocate) text = text.replaceAll(from, to);
  await writeFile(path, text);
  return path;
}

/**
 * The temp folder standing in for the file-system root of the machines the real records were made
 * on: their `/Users/<name>/…` and `/tmp/…` paths are moved under it.
 */
const ROOT = realpathSync(mkdtempSync(join(tmpdir(), 'fh-claude-root-')));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

/** Every `parentUuid` resolves among the records, and every `tool_use` has a `tool_result`. */
function expectWellFormedConversation(records: ReadonlyArray<Record<string, any>>): void {
  const uuids = new Set(records.map((record) => record.uuid).filter((uuid) => typeof uuid === 'string'));
  for (const record of records) {
    if (record.parentUuid !== undefined && record.parentUuid !== null) expect(uuids.has(record.parentUuid), `parent of ${record.uuid}`).toBe(true);
  }
  const blocks = (record: Record<string, any>): any[] => (Array.isArray(record.message?.content) ? record.message.content : []);
  const uses = records.flatMap((record) => (record.type === 'assistant' ? blocks(record).filter((block) => block.type === 'tool_use').map((block) => block.id) : []));
  const results = new Set(records.flatMap((record) => (record.type === 'user' ? blocks(record).filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id) : [])));
  expect(uses.filter((id) => !results.has(id))).toEqual([]);
}

describe('real transcript, Claude Code 2.1.39 (marot/spotter): parallel tool calls, prompt filter, missing project folder', () => {
  const SESSION = '4d5611e5-241a-462a-8d15-5122611a9569';
  const CWD = '/home/USER/projects/spotter-worktrees/spotter-dov';
  let target: Box;
  let transcript: string;
  beforeAll(async () => {
    target = await box();
    transcript = await installTranscript(target, 'spotter-2.1.39', SESSION, CWD);
  });

  it('list and sessions offer only the prompt on the chain; the snapshot of a message not in the transcript is not offered', async () => {
    const { result, json } = await target.json<{ checkpoints: Array<Record<string, any>> }>(['--session', SESSION, 'list']);
    expect(result.exitCode).toBe(0);
    expect(json.checkpoints.map((checkpoint) => [checkpoint.messageId, checkpoint.prompt])).toEqual([
      ['daa5a4bb-530c-4055-b20c-bde38255c99e', 'Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd ready to find available subtasks. Start with the first ready task.'],
    ]);
    const sessions = await target.json<{ sessions: Array<Record<string, any>> }>(['sessions']);
    expect(sessions.json.sessions.map((row) => [row.sessionId, row.projectRoot, row.checkpoints])).toEqual([[SESSION, CWD, 1]]);
  });

  it('a fork of the whole branch, run from /, keeps every message line in file order with the parallel result, under the slug of the session folder', async () => {
    const FORK = '11111111-2222-4333-8444-555555555555';
    const { result, json } = await target.json(['--session', SESSION, 'fork', '<current-prompt>', '--to', FORK], '/');
    expect(result.exitCode).toBe(0);
    expect(json.forkSessionId).toBe(FORK);
    const written = join(target.configDir, 'projects', slug(CWD), `${FORK}.jsonl`);
    expect((await readdir(join(target.configDir, 'projects'))).sort()).toEqual([slug(CWD)]);
    const source = parseLines(await readFile(transcript, 'utf8'));
    const fork = parseLines(await readFile(written, 'utf8'));
    const sourceMessages = source.filter((record) => typeof record.uuid === 'string');
    expect(sourceMessages).toHaveLength(23);
    const forkMessages = fork.filter((record) => typeof record.uuid === 'string');
    expect(forkMessages).toEqual(sourceMessages.map((record) => ({ ...record, sessionId: FORK })));
    expect(forkMessages.map((record) => record.uuid)).toContain('e49c8775-5beb-4fd7-aeb3-2016ccb1e57b');
    expectWellFormedConversation(fork);
    expect(fork.filter((record) => record.type === 'file-history-snapshot').map((record) => record.snapshot.messageId)).toEqual(['daa5a4bb-530c-4055-b20c-bde38255c99e']);
    expect(await readFile(transcript, 'utf8')).toBe(await readFile(join(FIXTURES, 'spotter-2.1.39', `${SESSION}.jsonl`), 'utf8'));
  });

  it('a rewind whose recorded project folder does not exist refuses (exit 1), creates nothing and names --project', async () => {
    const result = await target.fh(['--session', SESSION, 'rewind', 'daa5a4bb-530c-4055-b20c-bde38255c99e', '--mode', 'code', '--yes']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`the project folder ${CWD} of session ${SESSION} does not exist here; nothing was changed. Pass --project <folder>`);
    await expect(stat('/home/USER')).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(target.store)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('real snapshot record, Claude Code 2.1.123: 20 files outside the project', () => {
  const SESSION = '0ab3352c-0614-4d2c-942c-0051f270eaf3';
  const PROMPT = 'd1560035-15a5-4b35-bd10-ec6a4aa757c4';
  // The record's /Users/jeyengjau/… and /tmp/… paths, moved under ROOT.
  const CWD = `${ROOT}/Users/jeyengjau/Desktop/APP/Design-prompt`;
  const SIBLING = `${ROOT}/Users/jeyengjau/Desktop/APP/forma-studio-v2.5`;
  const TMP = `${ROOT}/tmp`;
  const relocate: Array<[string, string]> = [
    ['/Users/jeyengjau/', `${ROOT}/Users/jeyengjau/`],
    ['/tmp/codex-', `${TMP}/codex-`],
  ];
  let target: Box;
  let entries: Array<[string, { backupFileName: string | null }]>;
  const content = (path: string) => `at the checkpoint: ${path}\n`;
  const changed = (path: string) => `changed since: ${path}\n`;

  beforeAll(async () => {
    target = await box();
    const path = await installTranscript(target, 'outside-2.1.123', SESSION, CWD, relocate);
    const record = parseLines(await readFile(path, 'utf8')).find((line) => line.type === 'file-history-snapshot') as Record<string, any>;
    entries = Object.entries(record.snapshot.trackedFileBackups);
    await mkdir(CWD, { recursive: true });
    const history = join(target.configDir, 'file-history', SESSION);
    await mkdir(history, { recursive: true });
    for (const [file, backup] of entries) {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, changed(file));
      if (backup.backupFileName !== null) await writeFile(join(history, backup.backupFileName), content(file));
    }
  });

  const outsideFiles = () => entries.map(([file]) => file).sort();

  it('list and diff count them apart, as outside the project, with their +/-', async () => {
    expect(entries).toHaveLength(20);
    const list = await target.json<{ checkpoints: Array<Record<string, any>> }>(['--session', SESSION, 'list']);
    expect(list.result.exitCode).toBe(0);
    expect(list.json.checkpoints).toEqual([
      expect.objectContaining({ messageId: PROMPT, filesChanged: [], outside: { filesChanged: outsideFiles(), insertions: 18, deletions: 20 } }),
    ]);
    const diff = await target.json(['--session', SESSION, 'diff', PROMPT]);
    expect(diff.json.filesChanged).toEqual([]);
    expect(diff.json.outside.filesChanged).toEqual(outsideFiles());
    expect(diff.json.outside.files.filter((file: any) => file.status === 'created').map((file: any) => file.path)).toEqual([
      `${SIBLING}/docs/CLAUDE-c-risk-audit.md`,
      `${TMP}/codex-c-detail.md`,
    ]);
    const text = await target.fh(['--session', SESSION, 'diff', PROMPT]);
    expect(text.stdout).toContain('Outside the project, rewinding with --include-outside would change 20 files (+18 -20)');
  });

  it('the rewind menu, in a real terminal (tmux), names them as outside the project with their +/-, each path on the options screen, and writes nothing on q', async () => {
    const socket = `fh-claude-menu-${process.pid}`;
    const tmux = (args: readonly string[]) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
    const exports = Object.entries({ ...baseEnvironment(target.home), TERM: 'xterm-256color' })
      .filter(([key]) => /^[A-Z_][A-Z0-9_]*$/.test(key))
      .map(([key, value]) => `${key}=${quote(value)}`)
      .join(' ');
    const args = ['--store', `fs:${target.store}`, '--claude', target.configDir, '--session', SESSION, 'rewind'];
    const command = `cd ${quote(target.home)} && env -i ${exports} ${quote(process.execPath)} ${quote(cliPath)} ${args.map(quote).join(' ')}; echo EXIT=$?; sleep 600`;
    const waitFor = async (text: string): Promise<string> => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const shown = tmux(['capture-pane', '-p', '-t', 'outside']);
        if (shown.includes(text)) return shown;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${text}; screen:\n${shown}`);
        await new Promise((wake) => setTimeout(wake, 50));
      }
    };
    try {
      tmux(['new-session', '-d', '-s', 'outside', '-x', '160', '-y', '40', 'sh', '-c', command]);
      const shown = await waitFor('Rewind to which prompt?');
      expect(shown).toContain('no file changes; outside the project 20 +18 -20');
      tmux(['send-keys', '-t', 'outside', 'Down']);
      tmux(['send-keys', '-t', 'outside', 'Enter']);
      const options = await waitFor('Outside the project, left unless --include-outside: 20 files (+18 -20):');
      expect(options).toContain(`${SIBLING}/docs/CLAUDE-c-risk-audit.md  +0 -1`);
      expect(options).toContain('… and 7 more outside the project (fh diff lists them)');
      expect(options).toContain(`delete  ${TMP}/codex-c-detail.md  +0 -1`);
      tmux(['send-keys', '-t', 'outside', 'q']);
      await waitFor('EXIT=');
    } finally {
      try {
        tmux(['kill-server']);
      } catch {
        // The server already ended.
      }
    }
    for (const [file] of entries) expect(await readFile(file, 'utf8')).toBe(changed(file));
  });

  it('a rewind leaves them and says how to include them; --include-outside restores 18 and deletes 2, exactly', async () => {
    const left = await target.fh(['--session', SESSION, 'rewind', PROMPT, '--mode', 'code', '--yes']);
    expect(left.exitCode).toBe(0);
    expect(left.stdout).toContain(`Rewound the code to ${PROMPT}: 0 restored, 0 deleted`);
    expect(left.stdout).toContain(`Left 20 files outside the project unchanged: ${outsideFiles().join(', ')}`);
    expect(left.stdout).toContain(`rewind ${PROMPT} --mode code --include-outside`);
    for (const [file] of entries) expect(await readFile(file, 'utf8')).toBe(changed(file));

    // A symlinked folder on the way is never written through.
    const elsewhere = await tempFolder('fh-outside-elsewhere-');
    await rm(`${SIBLING}/tools`, { recursive: true });
    await writeFile(join(elsewhere, 'translate_prompts_zh.py'), 'not fh\'s\n');
    await symlink(elsewhere, `${SIBLING}/tools`);

    const { result, json } = await target.json(['--session', SESSION, 'rewind', PROMPT, '--mode', 'code', '--include-outside', '--yes']);
    expect(result.exitCode).toBe(3);
    const restorable = entries.filter(([file, backup]) => backup.backupFileName !== null && !file.startsWith(`${SIBLING}/tools/`)).map(([file]) => file).sort();
    expect(json.outside.restored).toEqual(restorable);
    expect(json.outside.deleted).toEqual([`${SIBLING}/docs/CLAUDE-c-risk-audit.md`, `${TMP}/codex-c-detail.md`]);
    expect(json.outside.skipped.map((entry: any) => entry.path)).toEqual([`${SIBLING}/tools/translate_prompts_zh.py`]);
    expect(json.outside.undoSession).toBe(`${SESSION}.outside`);
    for (const file of restorable) expect(await readFile(file, 'utf8')).toBe(content(file));
    for (const file of json.outside.deleted) await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(join(elsewhere, 'translate_prompts_zh.py'), 'utf8')).toBe('not fh\'s\n');

    await rm(`${SIBLING}/tools`);
    await mkdir(`${SIBLING}/tools`);
    await writeFile(`${SIBLING}/tools/translate_prompts_zh.py`, 'edited\n');
    const all = await target.json(['--session', SESSION, 'rewind', PROMPT, '--mode', 'code', '--include-outside', '--yes']);
    expect(all.result.exitCode).toBe(0);
    expect(all.json.outside).toMatchObject({ restored: [`${SIBLING}/tools/translate_prompts_zh.py`], deleted: [], skipped: [], failed: [] });
    expect(await readFile(`${SIBLING}/tools/translate_prompts_zh.py`, 'utf8')).toBe(content(`${SIBLING}/tools/translate_prompts_zh.py`));

    const undo = await target.json(['--session', SESSION, 'undo', '--outside']);
    expect(undo.result.exitCode).toBe(0);
    expect(undo.json).toMatchObject({ operation: 'undo', restored: [`${SIBLING}/tools/translate_prompts_zh.py`], deleted: [], failed: [] });
    expect(await readFile(`${SIBLING}/tools/translate_prompts_zh.py`, 'utf8')).toBe('edited\n');
    const projectUndo = await target.fh(['--session', SESSION, 'undo']);
    expect(projectUndo.exitCode).toBe(1);
    expect(await readFile(`${SIBLING}/tools/translate_prompts_zh.py`, 'utf8')).toBe('edited\n');
  });
});

describe('built sessions (shapes no public transcript shows)', () => {
  const SESSION = 'b0b0b0b0-0000-4000-8000-00000000000b';
  let target: Box;
  let project: string;
  let worktree: string;

  /** BUILT: a session that runs slash commands, shell commands, a compaction, then enters a worktree. */
  async function writeBuiltSession(): Promise<void> {
    const base = await tempFolder('fh-built-project-');
    project = join(base, 'proj');
    worktree = join(project, '.claude', 'worktrees', 'feat');
    await mkdir(worktree, { recursive: true });
    const at = (second: number) => new Date(Date.UTC(2026, 4, 1, 10, 0, second)).toISOString();
    let second = 0;
    const message = (type: string, uuid: string, parentUuid: string | null, content: unknown, extra: Record<string, unknown> = {}) => ({
      parentUuid, isSidechain: false, type, uuid, sessionId: SESSION, cwd: project, version: '2.1.200', timestamp: at((second += 1)),
      message: type === 'user' ? { role: 'user', content } : { id: `msg_${uuid}`, role: 'assistant', content }, ...extra,
    });
    const snapshot = (messageId: string, files: Record<string, unknown>, update = false, recordId = messageId) => ({
      type: 'file-history-snapshot', messageId: recordId, isSnapshotUpdate: update, snapshot: { messageId, trackedFileBackups: files, timestamp: at(second) },
    });
    const backup = (absolutePath: string, version: number) => ({ backupFileName: backupName(absolutePath, version), version, backupTime: at(second) });
    const toolUse = (id: string, name: string, input: unknown) => [{ type: 'tool_use', id, name, input }];
    const toolResult = (id: string) => [{ type: 'tool_result', tool_use_id: id, content: 'ok' }];
    const wt = { originalCwd: project, worktreePath: worktree, worktreeName: 'feat', worktreeBranch: 'feat' };
    const records = [
      { type: 'permission-mode', permissionMode: 'default', sessionId: SESSION },
      snapshot('u1', {}),
      message('user', 'u1', null, 'Write the greeting'),
      message('assistant', 'a1', 'u1', toolUse('t-1', 'Write', { file_path: join(project, 'greet.txt') })),
      snapshot('u1', { 'greet.txt': { backupFileName: null, version: 1, backupTime: at(second) } }, true, 'a1'),
      message('user', 'r1', 'a1', toolResult('t-1'), { toolUseResult: { type: 'create' } }),
      message('user', 'm1', 'r1', '<local-command-caveat>Caveat: local commands follow.</local-command-caveat>', { isMeta: true }),
      snapshot('c1', { 'greet.txt': backup(join(project, 'greet.txt'), 2) }),
      message('user', 'c1', 'm1', '<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>greet.txt</command-args>'),
      message('user', 'o1', 'c1', '<local-command-stdout>Reviewed</local-command-stdout>'),
      message('user', 'b1', 'o1', '<bash-input>ls</bash-input>'),
      message('user', 'b2', 'b1', '<bash-stdout>greet.txt</bash-stdout><bash-stderr></bash-stderr>'),
      message('user', 'n1', 'b2', '<task-notification>\n<task-id>x</task-id>\n<status>completed</status>\n</task-notification>'),
      message('user', 'i1', 'n1', [{ type: 'text', text: '[Request interrupted by user]' }]),
      { type: 'system', subtype: 'compact_boundary', uuid: 'cb', parentUuid: null, logicalParentUuid: 'i1', sessionId: SESSION, timestamp: at((second += 1)), content: 'Conversation compacted' },
      snapshot('s1', { 'greet.txt': backup(join(project, 'greet.txt'), 2) }),
      message('user', 's1', 'cb', 'This session is being continued from a previous conversation that ran out of context. Summary: …', { isCompactSummary: true, isVisibleInTranscriptOnly: true }),
      message('user', 's2', 's1', 'This session is being continued from a previous conversation that ran out of context.'),
      snapshot('u2', { 'greet.txt': backup(join(project, 'greet.txt'), 2) }),
      message('user', 'u2', 's2', 'Work in a worktree from now on'),
      message('assistant', 'a2', 'u2', toolUse('t-2', 'EnterWorktree', { name: 'feat' })),
      { type: 'worktree-state', worktreeSession: wt, sessionId: SESSION },
      { ...message('user', 'r2', 'a2', toolResult('t-2')), cwd: worktree },
      { type: 'custom-title', customTitle: 'greeting work', sessionId: SESSION },
      snapshot('u3', { 'greet.txt': backup(join(worktree, 'greet.txt'), 1) }),
      { ...message('user', 'u3', 'r2', 'Make the worktree greeting louder'), cwd: worktree },
      { ...message('assistant', 'a3', 'u3', [{ type: 'text', text: 'Done.' }]), cwd: worktree },
      snapshot('ghost', {}),
    ];
    const path = join(target.configDir, 'projects', slug(project), `${SESSION}.jsonl`);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
    const history = join(target.configDir, 'file-history', SESSION);
    await mkdir(history, { recursive: true });
    await writeFile(join(history, backupName(join(project, 'greet.txt'), 2)), 'hello from main\n');
    await writeFile(join(history, backupName(join(worktree, 'greet.txt'), 1)), 'hello from the worktree\n');
  }

  beforeAll(async () => {
    target = await box();
    await writeBuiltSession();
  });

  it('offers exactly the prompts Claude Code offers: slash and shell commands yes; outputs, notifications, interrupts, compaction, ghosts no', async () => {
    const { json } = await target.json<{ checkpoints: Array<Record<string, any>> }>(['--session', SESSION, 'list']);
    expect(json.checkpoints.map((checkpoint) => [checkpoint.messageId, checkpoint.prompt])).toEqual([
      ['u1', 'Write the greeting'],
      ['c1', '/review greet.txt'],
      ['u2', 'Work in a worktree from now on'],
      ['u3', 'Make the worktree greeting louder'],
    ]);
    const sessions = await target.json<{ sessions: Array<Record<string, any>> }>(['sessions']);
    expect(sessions.json.sessions.map((row) => row.checkpoints)).toEqual([4]);
  });

  it('keys written in the worktree rewind the worktree, never the main checkout', async () => {
    await writeFile(join(project, 'greet.txt'), 'main, edited by the user\n');
    await writeFile(join(worktree, 'greet.txt'), 'HELLO FROM THE WORKTREE\n');
    const { result, json } = await target.json(['--session', SESSION, 'rewind', 'u3', '--mode', 'code', '--yes']);
    expect(json.code.restored).toEqual(['.claude/worktrees/feat/greet.txt']);
    // The main checkout's greet.txt is not in the snapshot taken in the worktree: left, and said so (exit 3).
    expect(json.code.skipped).toEqual([{ path: 'greet.txt', reason: 'no backup of this file at or after the snapshot' }]);
    expect(result.exitCode).toBe(3);
    expect(await readFile(join(worktree, 'greet.txt'), 'utf8')).toBe('hello from the worktree\n');
    expect(await readFile(join(project, 'greet.txt'), 'utf8')).toBe('main, edited by the user\n');
  });

  it('a slash-command prompt rewinds code and conversation', async () => {
    const { result, json } = await target.json(['--session', SESSION, 'rewind', 'c1', '--yes']);
    expect(result.exitCode).toBe(0);
    expect(json.mode).toBe('both');
    expect(json.code.restored).toEqual(['greet.txt']);
    expect(json.conversation.prompt.text).toBe('/review greet.txt');
    expect(await readFile(join(project, 'greet.txt'), 'utf8')).toBe('hello from main\n');
  });

  it('a fork before u3 carries the title, permission mode and worktree state; every line is valid and every parent resolves', async () => {
    const FORK = 'f0f0f0f0-0000-4000-8000-00000000000f';
    const { result } = await target.json(['--session', SESSION, 'fork', 'u3', '--to', FORK], '/');
    expect(result.exitCode).toBe(0);
    const fork = parseLines(await readFile(join(target.configDir, 'projects', slug(project), `${FORK}.jsonl`), 'utf8'));
    expect(fork.map((record) => record.uuid ?? record.type)).toEqual([
      'permission-mode', 'u1', 'a1', 'r1', 'm1', 'c1', 'o1', 'b1', 'b2', 'n1', 'i1', 'cb', 's1', 's2', 'u2', 'a2', 'r2', 'custom-title',
      'file-history-snapshot', 'file-history-snapshot', 'file-history-snapshot', 'file-history-snapshot', 'worktree-state',
    ]);
    expect(fork.every((record) => record.sessionId === undefined || record.sessionId === FORK)).toBe(true);
    expectWellFormedConversation(fork);
    const reopened = await target.json<{ checkpoints: Array<Record<string, any>> }>(['--session', FORK, 'list']);
    expect(reopened.json.checkpoints.map((checkpoint) => checkpoint.messageId)).toEqual(['u1', 'c1', 'u2']);
  });
});

describe('fh hook in a git worktree records worktree-state (fh sessions work with fh-worktree-restore)', () => {
  const WORKTREE_RESTORE = new URL('../../worktree-restore/dist/cli.js', import.meta.url).pathname;

  it('records the worktree and its branch commit once per change, null when the prompt comes from the main checkout; fh-worktree-restore brings back the worktree and its deleted branch', async () => {
    const base = await tempFolder('fh-hook-worktree-');
    const home = join(base, 'home');
    const main = join(base, 'repo');
    const worktree = join(main, '.claude', 'worktrees', 'feat');
    await mkdir(home, { recursive: true });
    await mkdir(main, { recursive: true });
    git(main, ['init', '-q', '-b', 'main']);
    await writeFile(join(main, 'README.md'), 'readme\n');
    git(main, ['add', '.']);
    git(main, ['commit', '-q', '-m', 'first']);
    git(main, ['worktree', 'add', '-q', '-b', 'feat', worktree]);
    const store = join(base, 'store');
    const hook = (cwd: string, event: Record<string, unknown>) =>
      runCli(['--store', `fs:${store}`, 'hook'], { home, cwd, input: JSON.stringify({ session_id: 'wt-session', cwd, ...event }) });
    const prompt = (cwd: string, text: string) => hook(cwd, { hook_event_name: 'UserPromptSubmit', prompt: text });

    expect((await prompt(worktree, 'first prompt in the worktree')).exitCode).toBe(0);
    await writeFile(join(worktree, 'notes.txt'), 'v1\n');
    expect((await hook(worktree, { hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: join(worktree, 'notes.txt') } })).exitCode).toBe(0);
    await writeFile(join(worktree, 'notes.txt'), 'v2\n');
    expect((await prompt(worktree, 'second prompt in the worktree')).exitCode).toBe(0);
    const log = async () => parseLines(await readFile(join(store, 'sessions', 'wt-session.jsonl'), 'utf8'));
    const states = (records: Array<Record<string, any>>) => records.filter((record) => record.type === 'worktree-state').map((record) => record.worktreeSession);
    const head = git(main, ['rev-parse', 'feat']).trim();
    const recorded = { originalCwd: main, worktreePath: worktree, worktreeName: 'feat', worktreeBranch: 'feat', originalHeadCommit: head };
    expect(states(await log())).toEqual([recorded]);

    git(main, ['worktree', 'remove', '--force', worktree]);
    git(main, ['branch', '-D', 'feat']);
    const restored = await new Promise<CliResult>((resolvePromise) => {
      import('node:child_process').then(({ execFile }) =>
        execFile(process.execPath, [WORKTREE_RESTORE, 'restore', '--store', `fs:${store}`, '--session', 'wt-session', '--json'], { cwd: main, env: { ...process.env, HOME: home } }, (error, stdout, stderr) =>
          resolvePromise({ exitCode: error === null ? 0 : ((error as { code?: number }).code ?? 1), stdout, stderr }),
        ),
      );
    });
    expect(restored.stderr).toBe('');
    expect(restored.exitCode).toBe(0);
    expect(await readFile(join(worktree, 'notes.txt'), 'utf8')).toBe('v2\n');

    expect((await prompt(main, 'back in the main checkout')).exitCode).toBe(0);
    expect(git(main, ['rev-parse', 'feat']).trim()).toBe(head);
    expect(states(await log())).toEqual([recorded, null]);
  });
});

describe('BUILT: a fork at a prompt sent after an interrupted tool call', () => {
  it('leaves out the unanswered tool_use, so every tool_use in the fork has its tool_result and every parent resolves', async () => {
    const SESSION = 'c1c1c1c1-0000-4000-8000-00000000000c';
    const FORK = 'c2c2c2c2-0000-4000-8000-00000000000c';
    const target = await box();
    const project = join(await tempFolder('fh-interrupted-project-'), 'proj');
    await mkdir(project, { recursive: true });
    const message = (type: string, uuid: string, parentUuid: string | null, content: unknown) => ({
      parentUuid, isSidechain: false, type, uuid, sessionId: SESSION, cwd: project, version: '2.1.200', timestamp: '2026-05-01T10:00:00.000Z',
      message: type === 'user' ? { role: 'user', content } : { id: `msg_${uuid}`, role: 'assistant', content },
    });
    const snapshot = (messageId: string) => ({ type: 'file-history-snapshot', messageId, isSnapshotUpdate: false, snapshot: { messageId, trackedFileBackups: {}, timestamp: '2026-05-01T10:00:00.000Z' } });
    const records = [
      snapshot('u1'),
      message('user', 'u1', null, 'Look at the files'),
      message('assistant', 'a1', 'u1', [{ type: 'tool_use', id: 't-1', name: 'Bash', input: { command: 'ls' } }]),
      message('user', 'r1', 'a1', [{ type: 'tool_result', tool_use_id: 't-1', content: 'greet.txt' }]),
      message('assistant', 'a2', 'r1', [{ type: 'tool_use', id: 't-2', name: 'Bash', input: { command: 'sleep 600' } }]),
      snapshot('u2'),
      message('user', 'u2', 'a2', 'Stop, do not wait'),
      message('assistant', 'a3', 'u2', [{ type: 'text', text: 'Stopped.' }]),
    ];
    const transcript = join(target.configDir, 'projects', slug(project), `${SESSION}.jsonl`);
    await mkdir(dirname(transcript), { recursive: true });
    await writeFile(transcript, records.map((record) => JSON.stringify(record)).join('\n') + '\n');
    const { result } = await target.json(['--session', SESSION, 'fork', 'u2', '--to', FORK], '/');
    expect(result.exitCode).toBe(0);
    const fork = parseLines(await readFile(join(target.configDir, 'projects', slug(project), `${FORK}.jsonl`), 'utf8'));
    expect(fork.filter((record) => typeof record.uuid === 'string').map((record) => record.uuid)).toEqual(['u1', 'a1', 'r1']);
    expectWellFormedConversation(fork);
  });
});

describe('BUILT: a session with an abandoned branch (a /rewind to u2, then another prompt)', () => {
  // The file-history records of the abandoned branch (u2 and its reply, which created draft.txt)
  // stay in the transcript. Claude Code's resume walks the chain and reads only the records of
  // its messages; u3's snapshot was taken by a Claude Code that had rebuilt its state that way
  // (a resumed session), so it holds notes.txt only. draft.txt on disk is the user's own file.
  const SESSION = 'd1d1d1d1-0000-4000-8000-00000000000d';
  let target: Box;
  let project: string;

  beforeAll(async () => {
    target = await box();
    project = join(await tempFolder('fh-branch-project-'), 'proj');
    await mkdir(project, { recursive: true });
    const at = (second: number) => new Date(Date.UTC(2026, 4, 2, 9, 0, second)).toISOString();
    const message = (type: string, uuid: string, parentUuid: string | null, second: number, content: unknown) => ({
      parentUuid, isSidechain: false, type, uuid, sessionId: SESSION, cwd: project, version: '2.1.84', timestamp: at(second),
      message: type === 'user' ? { role: 'user', content } : { id: `msg_${uuid}`, role: 'assistant', content },
    });
    const snapshot = (key: string, messageId: string, second: number, files: Record<string, unknown>, update = false) => ({
      type: 'file-history-snapshot', messageId: key, snapshot: { messageId, trackedFileBackups: files, timestamp: at(second) }, isSnapshotUpdate: update,
    });
    const write = (id: string, file: string) => [{ type: 'tool_use', id, name: 'Write', input: { file_path: join(project, file), content: 'x' } }];
    const result = (id: string) => [{ type: 'tool_result', tool_use_id: id, content: 'File created successfully' }];
    const notesV2 = { backupFileName: backupName(join(project, 'notes.txt'), 2), version: 2, backupTime: at(7) };
    const records = [
      snapshot('u1', 'u1', 1, {}),
      message('user', 'u1', null, 1, 'Write the notes'),
      message('assistant', 'a1', 'u1', 2, write('t-1', 'notes.txt')),
      snapshot('a1', 'u1', 1, { 'notes.txt': { backupFileName: null, version: 1, backupTime: at(2) } }, true),
      message('user', 'r1', 'a1', 3, result('t-1')),
      message('assistant', 'a1b', 'r1', 4, [{ type: 'text', text: 'Notes written.' }]),
      snapshot('u2', 'u2', 7, { 'notes.txt': notesV2 }),
      message('user', 'u2', 'a1b', 7, 'Also write a draft'),
      message('assistant', 'a2', 'u2', 8, write('t-2', 'draft.txt')),
      snapshot('a2', 'u2', 7, { 'notes.txt': notesV2, 'draft.txt': { backupFileName: null, version: 1, backupTime: at(8) } }, true),
      message('user', 'r2', 'a2', 9, result('t-2')),
      message('assistant', 'a2b', 'r2', 10, [{ type: 'text', text: 'Draft written.' }]),
      snapshot('u3', 'u3', 20, { 'notes.txt': notesV2 }),
      message('user', 'u3', 'a1b', 20, 'Instead, add a summary to the notes'),
      message('assistant', 'a3', 'u3', 21, [{ type: 'text', text: 'Summary added.' }]),
    ];
    const transcript = join(target.configDir, 'projects', slug(project), `${SESSION}.jsonl`);
    await mkdir(dirname(transcript), { recursive: true });
    await writeFile(transcript, records.map((record) => JSON.stringify(record)).join('\n') + '\n');
    const history = join(target.configDir, 'file-history', SESSION);
    await mkdir(history, { recursive: true });
    await writeFile(join(history, notesV2.backupFileName), 'notes\n');
    await writeFile(join(project, 'notes.txt'), 'notes\nsummary\n');
    await writeFile(join(project, 'draft.txt'), 'the user\'s own draft\n');
  });

  it('offers the prompts of the current chain only, and tracks only the files its snapshots name', async () => {
    const { json } = await target.json<{ checkpoints: Array<Record<string, any>> }>(['--session', SESSION, 'list']);
    expect(json.checkpoints.map((checkpoint) => [checkpoint.messageId, checkpoint.prompt, checkpoint.filesChanged])).toEqual([
      ['u1', 'Write the notes', ['notes.txt']],
      ['u3', 'Instead, add a summary to the notes', ['notes.txt']],
    ]);
    const diff = await target.json(['--session', SESSION, 'diff', 'u1']);
    expect(diff.json.filesChanged).toEqual(['notes.txt']);
    expect(diff.json.files.map((file: any) => [file.path, file.status])).toEqual([['notes.txt', 'created']]);
  });

  it("a rewind to u3 restores notes.txt and skips nothing; to u1 deletes notes.txt; the abandoned branch's draft.txt is never touched", async () => {
    const atU3 = await target.json(['--session', SESSION, 'rewind', 'u3', '--mode', 'code', '--yes']);
    expect(atU3.result.exitCode).toBe(0);
    expect(atU3.json.code).toEqual({ restored: ['notes.txt'], deleted: [], skipped: [], failed: [] });
    expect(await readFile(join(project, 'notes.txt'), 'utf8')).toBe('notes\n');
    const atU1 = await target.json(['--session', SESSION, 'rewind', 'u1', '--mode', 'code', '--yes']);
    expect(atU1.result.exitCode).toBe(0);
    expect(atU1.json.code).toEqual({ restored: [], deleted: ['notes.txt'], skipped: [], failed: [] });
    await expect(stat(join(project, 'notes.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(join(project, 'draft.txt'), 'utf8')).toBe('the user\'s own draft\n');
  });
});

describe('real records, Claude Code 2.1.84: backups of relative keys are named by the hash of the absolute path', () => {
  const SESSION = 'a0672f66-ceb7-4bbf-a1ad-75fc110484a9';
  // The folder the records were made in; the test's copy of it lives under ROOT.
  const RECORDED_CWD = '/Users/kaicui/Documents/work/project/ai-prototype-manager';
  const CWD = `${ROOT}${RECORDED_CWD}`;
  const INIT = 'c123c793-c289-4763-9290-623d90dcb4d9';
  const SECOND = 'c9d2c60c-ddf4-4ce4-866e-caff01970fef';
  const THIRD = '1ad0ca1f-bb36-41c8-b34c-b72f5587982b';
  let target: Box;
  let records: Array<Record<string, any>>;

  beforeAll(async () => {
    target = await box();
    records = parseLines(await readFile(await installTranscript(target, 'relative-2.1.84', SESSION, CWD, [[RECORDED_CWD, CWD]]), 'utf8'));
    await mkdir(CWD, { recursive: true });
    await mkdir(join(target.configDir, 'file-history', SESSION), { recursive: true });
    await writeFile(join(target.configDir, 'file-history', SESSION, 'e932bb4cf4ed9091@v2'), '# CLAUDE.md\n\nAs at the second prompt.\n');
    await writeFile(join(CWD, 'CLAUDE.md'), '# CLAUDE.md\n\nRewritten since.\n');
  });

  it("fh's backupFileName gives every recorded name: the relative key joined to the session's folder (2.1.84), the absolute keys as they are (2.1.123)", async () => {
    const { backupFileName } = await import('@fh/core');
    const named = records.filter((record) => record.type === 'file-history-snapshot').flatMap((record) => Object.entries(record.snapshot.trackedFileBackups as Record<string, any>));
    expect(named.map(([key, backup]) => [key, backup.backupFileName])).toEqual([
      ['CLAUDE.md', null],
      ['CLAUDE.md', 'e932bb4cf4ed9091@v2'],
      ['CLAUDE.md', 'e932bb4cf4ed9091@v2'],
    ]);
    expect(backupFileName(join(RECORDED_CWD, 'CLAUDE.md'), 2)).toBe('e932bb4cf4ed9091@v2');
    expect(backupFileName('CLAUDE.md', 2)).not.toBe('e932bb4cf4ed9091@v2');
    const outside = parseLines(await readFile(join(FIXTURES, 'outside-2.1.123', '0ab3352c-0614-4d2c-942c-0051f270eaf3.jsonl'), 'utf8')).find((record) => record.type === 'file-history-snapshot') as Record<string, any>;
    const absolute = Object.entries(outside.snapshot.trackedFileBackups as Record<string, any>).filter(([, backup]) => backup.backupFileName !== null);
    expect(absolute).toHaveLength(18);
    for (const [key, backup] of absolute) expect(backupFileName(key, backup.version), key).toBe(backup.backupFileName);
  });

  it('lists the /init prompt and both later prompts, and rewinds CLAUDE.md from that backup, then deletes it at /init', async () => {
    const { json } = await target.json<{ checkpoints: Array<Record<string, any>> }>(['--session', SESSION, 'list']);
    expect(json.checkpoints.map((checkpoint) => [checkpoint.messageId, checkpoint.prompt, checkpoint.filesChanged])).toEqual([
      [INIT, '/init', ['CLAUDE.md']],
      [SECOND, 'Let us position the project (built: the real prompt text is left out)', ['CLAUDE.md']],
      [THIRD, 'Here are my answers (built: the real prompt text is left out)', ['CLAUDE.md']],
    ]);
    const second = await target.json(['--session', SESSION, 'rewind', SECOND, '--mode', 'code', '--yes']);
    expect(second.result.exitCode).toBe(0);
    expect(second.json.code).toEqual({ restored: ['CLAUDE.md'], deleted: [], skipped: [], failed: [] });
    expect(await readFile(join(CWD, 'CLAUDE.md'), 'utf8')).toBe('# CLAUDE.md\n\nAs at the second prompt.\n');
    const init = await target.json(['--session', SESSION, 'rewind', INIT, '--mode', 'code', '--yes']);
    expect(init.json.code).toEqual({ restored: [], deleted: ['CLAUDE.md'], skipped: [], failed: [] });
    await expect(stat(join(CWD, 'CLAUDE.md'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('BUILT: a transcript that records no working folder (no cwd on any line)', () => {
  const SESSION = 'e2e2e2e2-0000-4000-8000-00000000000e';
  let target: Box;
  let project: string;

  beforeAll(async () => {
    target = await box();
    project = join(await tempFolder('fh-no-cwd-project-'), 'proj');
    await mkdir(project, { recursive: true });
    const at = (second: number) => new Date(Date.UTC(2026, 4, 3, 9, 0, second)).toISOString();
    const notes = join(project, 'notes.txt');
    const records = [
      { type: 'file-history-snapshot', messageId: 'u1', isSnapshotUpdate: false, snapshot: { messageId: 'u1', trackedFileBackups: {}, timestamp: at(1) } },
      { type: 'user', uuid: 'u1', parentUuid: null, sessionId: SESSION, timestamp: at(1), message: { role: 'user', content: 'Write the notes' } },
      { type: 'file-history-snapshot', messageId: 'u2', isSnapshotUpdate: false, snapshot: { messageId: 'u2', trackedFileBackups: { [notes]: { backupFileName: backupName(notes, 1), version: 1, backupTime: at(5) } }, timestamp: at(5) } },
      { type: 'user', uuid: 'u2', parentUuid: 'u1', sessionId: SESSION, timestamp: at(5), message: { role: 'user', content: 'Shorten them' } },
    ];
    const transcript = join(target.configDir, 'projects', slug(project), `${SESSION}.jsonl`);
    await mkdir(dirname(transcript), { recursive: true });
    await writeFile(transcript, records.map((record) => JSON.stringify(record)).join('\n') + '\n');
    const history = join(target.configDir, 'file-history', SESSION);
    await mkdir(history, { recursive: true });
    await writeFile(join(history, backupName(notes, 1)), 'long notes\n');
    await writeFile(notes, 'short\n');
  });

  it('list reads it against the current folder and says so; --project reads it quietly', async () => {
    const here = await target.json<{ checkpoints: Array<Record<string, any>> }>(['--session', SESSION, 'list'], project);
    expect(here.result.exitCode).toBe(0);
    expect(here.json.checkpoints.map((checkpoint) => checkpoint.messageId)).toEqual(['u1', 'u2']);
    expect(here.result.stderr).toBe(`fh: Claude Code session ${SESSION} records no working folder; reading it against ${project} (pass --project to choose the folder it ran in)\n`);
    const given = await target.json(['--project', project, '--session', SESSION, 'diff', 'u2'], target.home);
    expect(given.result.exitCode).toBe(0);
    expect(given.result.stderr).toBe('');
    expect(given.json.filesChanged).toEqual(['notes.txt']);
  });

  it('without --session, list run in the folder its transcript is filed under (Claude Code\'s slug) finds it', async () => {
    const found = await target.json<{ sessionId: string; checkpoints: Array<Record<string, any>> }>(['list'], project);
    expect(found.result.exitCode).toBe(0);
    expect([found.json.sessionId, found.json.checkpoints.map((checkpoint) => checkpoint.messageId)]).toEqual([SESSION, ['u1', 'u2']]);
    expect(found.result.stderr).toBe(
      `fh: using Claude Code session ${SESSION}, the latest of ${project} (pass --session to choose)\n` +
        `fh: Claude Code session ${SESSION} records no working folder; reading it against ${project} (pass --project to choose the folder it ran in)\n`,
    );
    const elsewhere = await target.fh(['list'], dirname(project));
    expect([elsewhere.exitCode, elsewhere.stderr]).toEqual([2, `fh: no session given and no Claude Code session of ${dirname(project)} in ${target.configDir}: pass --session <id> (fh --claude ${target.configDir} --store fs:${target.store} sessions lists them)\n`]);
  });

  it('a rewind without --project is refused (exit 2) and writes nothing; with --project it restores the bytes', async () => {
    const refused = await target.fh(['--session', SESSION, 'rewind', 'u2', '--mode', 'code', '--yes'], project);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toBe(
      `fh: Claude Code session ${SESSION} records no working folder (no cwd in its transcript), so fh cannot tell which project to write; nothing was changed. Pass --project <folder> naming the folder it ran in\n`,
    );
    expect(await readFile(join(project, 'notes.txt'), 'utf8')).toBe('short\n');
    const rewound = await target.json(['--project', project, '--session', SESSION, 'rewind', 'u2', '--mode', 'code', '--yes'], target.home);
    expect(rewound.result.exitCode).toBe(0);
    expect(rewound.json.code).toEqual({ restored: ['notes.txt'], deleted: [], skipped: [], failed: [] });
    expect(await readFile(join(project, 'notes.txt'), 'utf8')).toBe('long notes\n');
  });
});

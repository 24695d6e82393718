/**
 * Issue 14 end to end: recorded hook events of a turn in which two sub-agents and the main agent
 * edit disjoint and overlapping files, replayed through `fh hook` the way Claude Code runs it
 * (each PreToolUse before the tool writes, then the tool's write), then `fh list`, `fh diff
 * --agent`, `fh rewind --agent` and `fh undo` over real files.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseEnvironment, cliPath, readTree, runCli, sandbox, writeFiles, type Sandbox } from './helpers.js';

const SESSION = '0b6d7a52-3f1e-4c8b-a4d9-5e2f6c7a8b90';
const AGENT_A = 'a1b2c3d4e5f601234';
const AGENT_B = 'b7e8f9a0b1c2d3e45';

interface HookEventLine {
  hook_event_name: string;
  tool_name?: string;
  tool_input?: { file_path: string; command?: string; content?: string; old_string?: string; new_string?: string; edits?: Array<{ old_string: string; new_string: string }> };
}

/** The recorded events, with the sandbox's paths and session filled in. */
async function recordedEvents(box: Sandbox): Promise<string[]> {
  const text = await readFile(new URL('./fixtures/hooks/subagents/two-subagents.jsonl', import.meta.url), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => line.replaceAll('__PROJECT__', box.project).replaceAll('__HOME__', box.home).replaceAll('__SESSION__', SESSION));
}

/** What the tool of a PreToolUse event writes, done as the tool would (after the hook ran). */
async function applyTool(event: HookEventLine, project: string): Promise<void> {
  const input = event.tool_input;
  if (event.hook_event_name !== 'PreToolUse' || input === undefined) return;
  if (event.tool_name === 'Bash') {
    execFileSync('bash', ['-c', input.command as string], { cwd: project });
    return;
  }
  if (event.tool_name === 'Write') {
    await mkdir(dirname(input.file_path), { recursive: true });
    await writeFile(input.file_path, input.content as string);
    return;
  }
  let text = await readFile(input.file_path, 'utf8');
  const edits = event.tool_name === 'MultiEdit' ? (input.edits ?? []) : [{ old_string: input.old_string as string, new_string: input.new_string as string }];
  for (const edit of edits) {
    if (!text.includes(edit.old_string)) throw new Error(`fixture edit ${edit.old_string} not found in ${input.file_path}`);
    text = text.replace(edit.old_string, edit.new_string);
  }
  await writeFile(input.file_path, text);
}

const BEFORE = {
  'src/parser.ts': 'export const run = (a) => parse(a);\n',
  'src/shared.ts': "export const LIMIT = 10;\nexport const NAME = 'p';\n",
  'README.md': '# Parser\n',
  'keep.txt': 'nobody touches this\n',
};

const AFTER = {
  'README.md': { content: '# Parser\n\nNow with options.\n', mode: 0o644 },
  'docs/api.md': { content: 'parse(text, options)\n', mode: 0o644 },
  'keep.txt': { content: 'nobody touches this\n', mode: 0o644 },
  'src/options.ts': { content: 'export interface Options { strict?: boolean }\n', mode: 0o644 },
  'src/parser.ts': { content: 'export const run = (a) => parse(a, options);\n', mode: 0o644 },
  'src/shared.ts': { content: "export const LIMIT = 20;\nexport const NAME = 'parser';\n", mode: 0o644 },
  'test/parser.test.ts': { content: "test('parses with options', () => expect(parse('x', {})).toBe('x'));\n", mode: 0o644 },
};

/** Replay the recorded session through `fh hook`; returns the first turn's message id. */
async function replay(box: Sandbox): Promise<string> {
  await writeFiles(box.project, BEFORE);
  for (const line of await recordedEvents(box)) {
    const result = await runCli(['hook'], { home: box.home, cwd: box.project, input: line, env: { CLAUDE_PROJECT_DIR: box.project } });
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    await applyTool(JSON.parse(line) as HookEventLine, box.project);
  }
  expect(await readTree(box.project)).toEqual(AFTER);
  const list = await fh(box, ['list']);
  return (JSON.parse(list.stdout).checkpoints as Array<{ messageId: string }>)[0]?.messageId as string;
}

function fh(box: Sandbox, args: readonly string[]) {
  return runCli(['--json', '--session', SESSION, ...args], { home: box.home, cwd: box.project });
}

const main = { by: 'main', agentId: null, agentType: null };
const agentA = { by: 'subagent', agentId: AGENT_A, agentType: 'general-purpose' };
const agentB = { by: 'subagent', agentId: AGENT_B, agentType: 'test-writer' };

describe('sub-agent attribution from hook events', () => {
  // One replayed session for the whole file (each test ends with the files as the replay left them).
  let box: Sandbox;
  let turn: string;
  beforeAll(async () => {
    box = await sandbox();
    turn = await replay(box);
  }, 120_000);

  it('fh list and fh show show per turn which agent changed which files', async () => {
    const list = JSON.parse((await fh(box, ['list'])).stdout) as { checkpoints: Array<{ prompt: string; agents: unknown[] }> };
    expect(list.checkpoints.map((checkpoint) => [checkpoint.prompt, checkpoint.agents])).toEqual([
      [
        'Split the work: one agent fixes the parser, one writes the tests',
        [
          { ...main, paths: ['README.md'] },
          { ...agentA, paths: ['src/options.ts', 'src/parser.ts', 'src/shared.ts'] },
          { ...agentB, paths: ['docs/api.md', 'src/shared.ts', 'test/parser.test.ts'] },
        ],
      ],
      ['Also mention the tests in the README', [{ ...main, paths: ['test/parser.test.ts'] }]],
    ]);
    const text = await runCli(['--session', SESSION, 'list'], { home: box.home, cwd: box.project });
    expect(text.exitCode).toBe(0);
    const lines = text.stdout.split('\n');
    const at = lines.findIndex((line) => line.startsWith('changed by agents in turn '));
    expect(lines.slice(at + 1, at + 4)).toEqual([
      '    main agent: README.md',
      `    sub-agent ${AGENT_A} (general-purpose): src/options.ts, src/parser.ts, src/shared.ts`,
      `    sub-agent ${AGENT_B} (test-writer): docs/api.md, src/shared.ts, test/parser.test.ts`,
    ]);

    const show = JSON.parse((await fh(box, ['show', turn])).stdout) as { agents: unknown[] };
    expect(show.agents).toEqual([
      { ...main, paths: ['README.md'] },
      { ...agentA, paths: ['src/options.ts', 'src/parser.ts', 'src/shared.ts'] },
      { ...agentB, paths: ['docs/api.md', 'src/shared.ts', 'test/parser.test.ts'] },
    ]);
    const shown = (await runCli(['--session', SESSION, 'show', turn], { home: box.home, cwd: box.project })).stdout.split('\n');
    const from = shown.indexOf('Changed in this turn by:');
    expect(shown.slice(from + 1, from + 4)).toEqual([
      '  main agent: README.md',
      `  sub-agent ${AGENT_A} (general-purpose): src/options.ts, src/parser.ts, src/shared.ts`,
      `  sub-agent ${AGENT_B} (test-writer): docs/api.md, src/shared.ts, test/parser.test.ts`,
    ]);
  });

  it("rewind --agent restores exactly that sub-agent's files, reports the conflict and leaves the rest; undo brings all back", async () => {

    const diff = await fh(box, ['diff', turn, '--agent', 'a1b2']);
    expect(diff.exitCode).toBe(0);
    const preview = JSON.parse(diff.stdout);
    expect(preview.agent).toEqual({ ...agentA, paths: ['src/options.ts', 'src/parser.ts'], conflicts: [{ path: 'src/shared.ts', changedBy: [agentB] }] });
    expect(preview.filesChanged).toEqual(['src/options.ts', 'src/parser.ts']);
    expect(preview.skipped).toEqual([
      { path: 'src/shared.ts', reason: `also changed by sub-agent ${AGENT_B} (test-writer) after the checkpoint; left alone (name it with --paths to rewind it anyway)` },
    ]);

    const rewind = await fh(box, ['rewind', turn, '--agent', 'a1b2', '--yes']);
    expect(rewind.exitCode).toBe(3);
    const result = JSON.parse(rewind.stdout);
    expect(result.mode).toBe('code');
    expect(result.code.restored).toEqual(['src/parser.ts']);
    expect(result.code.deleted).toEqual(['src/options.ts']);
    expect(result.code.skipped.map((entry: { path: string }) => entry.path)).toEqual(['src/shared.ts']);
    expect(result.agent.conflicts).toEqual([{ path: 'src/shared.ts', changedBy: [agentB] }]);
    const { 'src/options.ts': _created, ...others } = AFTER;
    expect(await readTree(box.project)).toEqual({ ...others, 'src/parser.ts': { content: BEFORE['src/parser.ts'], mode: 0o644 } });

    const undo = await fh(box, ['undo']);
    expect(undo.exitCode).toBe(0);
    expect(await readTree(box.project)).toEqual(AFTER);
  });

  it("a sub-agent's shell command is attributed to it; a file the main agent changed in a later turn is a conflict too; --paths rewinds a named conflict anyway", async () => {
    const dry = JSON.parse((await fh(box, ['rewind', turn, '--agent', AGENT_B, '--dry-run'])).stdout);
    expect(dry.agent).toEqual({
      ...agentB,
      paths: ['docs/api.md'],
      conflicts: [
        { path: 'src/shared.ts', changedBy: [agentA] },
        { path: 'test/parser.test.ts', changedBy: [main] },
      ],
    });
    expect(dry.preview.filesChanged).toEqual(['docs/api.md']);
    expect(await readTree(box.project)).toEqual(AFTER);

    const forced = await fh(box, ['rewind', turn, '--agent', 'b7e', '--paths', 'test/parser.test.ts', '--yes']);
    expect(forced.exitCode).toBe(3);
    expect(JSON.parse(forced.stdout).code.deleted).toEqual(['docs/api.md', 'test/parser.test.ts']);
    const { 'test/parser.test.ts': _test, 'docs/api.md': _notes, ...rest } = AFTER;
    expect(await readTree(box.project)).toEqual(rest);
    expect((await fh(box, ['undo'])).exitCode).toBe(0);
    expect(await readTree(box.project)).toEqual(AFTER);
  });

  it('an agent id that matches no agent, or a path that agent did not change, is refused and nothing changes', async () => {
    const unknown = await fh(box, ['rewind', turn, '--agent', 'c0ffee', '--yes']);
    expect(unknown.exitCode).toBe(1);
    expect(JSON.parse(unknown.stdout).error.message).toBe(
      `no agent "c0ffee" changed a tracked file after the checkpoint ${turn} (agents that did: main, ${AGENT_A} (general-purpose), ${AGENT_B} (test-writer))`,
    );
    const notTheirs = await fh(box, ['rewind', turn, '--agent', 'a1', '--paths', join(box.project, 'README.md'), '--yes']);
    expect(notTheirs.exitCode).toBe(2);
    expect(JSON.parse(notTheirs.stdout).error.message).toBe(
      `README.md was not changed by sub-agent ${AGENT_A} (general-purpose) after the checkpoint ${turn}; --paths with --agent names that agent's conflicting files only`,
    );
    expect(await readTree(box.project)).toEqual(AFTER);
  });

  it("the rewind menu, in a real terminal (tmux), offers one 'only this sub-agent's changes' option per sub-agent of the turn; choosing sub-agent A restores exactly A's files, reports the conflict, and undo brings all back", async () => {
    const socket = `fh-agents-menu-${process.pid}`;
    const tmux = (args: readonly string[]) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
    const exports = Object.entries({ ...baseEnvironment(box.home), TERM: 'xterm-256color' })
      .filter(([key]) => /^[A-Z_][A-Z0-9_]*$/.test(key))
      .map(([key, value]) => `${key}=${quote(value)}`)
      .join(' ');
    const command = `cd ${quote(box.project)} && env -i ${exports} ${quote(process.execPath)} ${quote(cliPath)} --session ${SESSION} rewind; echo EXIT=$?; sleep 600`;
    const waitFor = async (text: string): Promise<string> => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const shown = tmux(['capture-pane', '-p', '-J', '-S', '-100', '-t', 'agents']);
        if (shown.includes(text)) return shown;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${text}; screen:\n${shown}`);
        await new Promise((wake) => setTimeout(wake, 50));
      }
    };
    try {
      tmux(['new-session', '-d', '-s', 'agents', '-x', '160', '-y', '40', 'sh', '-c', command]);
      await waitFor('Rewind to which prompt?');
      // Newest first: the current prompt, turn 2, then turn 1 (the turn with the sub-agents).
      tmux(['send-keys', '-t', 'agents', 'Down', 'Down', 'Enter']);
      const options = await waitFor(`Restore code: only the changes of sub-agent ${AGENT_B} (test-writer)`);
      expect(options).toContain(`Restore code: only the changes of sub-agent ${AGENT_A} (general-purpose)`);
      // The option rows in screen order, each cut after its label (the code options carry their +/- after it).
      const labels = ['Restore code and conversation', 'Restore conversation', `Restore code: only the changes of sub-agent ${AGENT_A} (general-purpose)`, `Restore code: only the changes of sub-agent ${AGENT_B} (test-writer)`, 'Restore code', 'Never mind'];
      const rows = options.split('\n').flatMap((line) => {
        const label = labels.find((candidate) => new RegExp(`(^|[^\\w:])${candidate.replace(/[()]/g, '\\$&')}(\\s|$)`).test(line));
        return label === undefined ? [] : [label];
      });
      expect(rows).toEqual(['Restore code and conversation', 'Restore conversation', 'Restore code', labels[2], labels[3], 'Never mind']);
      tmux(['send-keys', '-t', 'agents', 'Down', 'Down', 'Down', 'Enter']);
      const done = await waitFor('EXIT=');
      expect(done).toContain(`Only the changes of the sub-agent ${AGENT_A} (general-purpose): 2 files; 1 changed by other agents too, left alone`);
      expect(done).toContain(`also changed by sub-agent ${AGENT_B} (test-writer) after the checkpoint; left alone`);
      expect(done).toContain('EXIT=3');
    } finally {
      try {
        tmux(['kill-server']);
      } catch {
        // The server already ended.
      }
    }
    const { 'src/options.ts': _created, ...others } = AFTER;
    expect(await readTree(box.project)).toEqual({ ...others, 'src/parser.ts': { content: BEFORE['src/parser.ts'], mode: 0o644 } });
    // Nothing of A's is left to rewind; the conflict is still left alone.
    const again = JSON.parse((await fh(box, ['rewind', turn, '--agent', AGENT_A, '--dry-run'])).stdout);
    expect(again.preview.filesChanged).toEqual([]);
    expect(again.agent.conflicts).toEqual([{ path: 'src/shared.ts', changedBy: [agentB] }]);
    expect((await fh(box, ['undo'])).exitCode).toBe(0);
    expect(await readTree(box.project)).toEqual(AFTER);
  }, 120_000);
});

describe('fh track --agent: a harness driving fh from its own hooks attributes sub-agent edits', () => {
  it('records the named sub-agent (and its type) in the entries; rewind --agent restores exactly its files; bad flags are refused, tracking nothing', async () => {
    const box = await sandbox();
    const run = (args: readonly string[]) => box.fhJson<Record<string, any>>(['--session', 'harness', ...args]);
    await writeFiles(box.project, { 'main.txt': 'main before\n', 'sub.txt': 'sub before\n', 'both.txt': 'both before\n' });
    expect((await run(['snapshot', 'turn-1', '--prompt', 'do the work'])).result.exitCode).toBe(0);

    const refused = [
      [['track', '--agent-type', 'Explore', 'sub.txt'], '--agent-type names the type of the sub-agent given with --agent; nothing was tracked: pass --agent <id> too'],
      [['track', '--agent', '', 'sub.txt'], '--agent needs a sub-agent id (or main); nothing was tracked'],
      [['track', '--agent', 'main', '--agent-type', 'Explore', 'sub.txt'], '--agent main is the main agent, which has no --agent-type; nothing was tracked'],
    ] as const;
    for (const [args, message] of refused) {
      const { result, json } = await run(args);
      expect(result.exitCode).toBe(2);
      expect(json.error.message).toBe(message);
    }
    expect((await run(['list'])).json.checkpoints[0].filesChanged).toEqual([]);

    const sub = await run(['track', '--agent', 'agent-7', '--agent-type', 'Explore', 'sub.txt', 'both.txt']);
    expect(sub.result.exitCode).toBe(0);
    expect(sub.json).toMatchObject({ tracked: ['sub.txt', 'both.txt'], failed: [], agent: { by: 'subagent', agentId: 'agent-7', agentType: 'Explore' } });
    const text = await box.fh(['--session', 'harness', 'track', '--agent', 'agent-7', 'sub.txt']);
    expect(text.stdout).toBe('tracked sub.txt for the sub-agent agent-7\n');
    expect((await run(['track', '--agent', 'main', 'main.txt', 'both.txt'])).json.agent).toEqual({ by: 'main', agentId: null, agentType: null });
    await writeFiles(box.project, { 'main.txt': 'main after\n', 'sub.txt': 'sub after\n', 'both.txt': 'both after\n' });

    expect((await run(['list'])).json.checkpoints[0].agents).toEqual([
      { by: 'main', agentId: null, agentType: null, paths: ['both.txt', 'main.txt'] },
      { by: 'subagent', agentId: 'agent-7', agentType: 'Explore', paths: ['both.txt', 'sub.txt'] },
    ]);
    const { result, json } = await run(['rewind', 'turn-1', '--agent', 'agent-7', '--yes']);
    expect(result.exitCode).toBe(3);
    expect(json.code).toMatchObject({ restored: ['sub.txt'], deleted: [], failed: [] });
    expect(json.agent.conflicts).toEqual([{ path: 'both.txt', changedBy: [{ by: 'main', agentId: null, agentType: null }] }]);
    expect(await readTree(box.project)).toEqual({
      'both.txt': { content: 'both after\n', mode: 0o644 },
      'main.txt': { content: 'main after\n', mode: 0o644 },
      'sub.txt': { content: 'sub before\n', mode: 0o644 },
    });
  });
});

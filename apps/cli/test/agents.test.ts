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
import { readTree, runCli, sandbox, writeFiles, type Sandbox } from './helpers.js';

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

  it('fh list shows per turn which agent changed which files', async () => {
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
});

/**
 * Issue 14 for Claude Code's own sessions: attribution read from the sub-agent transcripts of a
 * built fixture (see claude-subagent-fixture.ts), shown by `fh --claude list` and used by
 * `fh --claude rewind --agent`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_A, AGENT_B, SUBAGENT_SESSION, VERSIONS, writeSubagentFixture, type SubagentFixture } from './claude-subagent-fixture.js';
import { runCli, tempFolder, type CliResult } from './helpers.js';

describe('fh --claude with sub-agent transcripts', () => {
  let fixture: SubagentFixture;
  let home: string;
  let store: string;
  beforeAll(async () => {
    const base = await tempFolder();
    fixture = await writeSubagentFixture(base);
    home = join(base, 'home');
    store = join(base, 'fh-store');
  });
  const fh = (args: readonly string[]): Promise<CliResult> =>
    runCli(['--json', '--store', `fs:${store}`, '--claude', fixture.configDir, '--session', SUBAGENT_SESSION, ...args], { home, cwd: fixture.projectRoot });
  const text = (name: keyof typeof VERSIONS | 'notes.md') => readFile(join(fixture.projectRoot, name), 'utf8');

  const main = { by: 'main', agentId: null, agentType: null };
  const agentA = { by: 'subagent', agentId: AGENT_A, agentType: 'general-purpose' };
  const agentB = { by: 'subagent', agentId: AGENT_B, agentType: 'doc-writer' };

  it('list shows which agent changed which files in each turn, from the main and the sub-agent transcripts', async () => {
    const result = await fh(['list']);
    expect(result.exitCode).toBe(0);
    const checkpoints = JSON.parse(result.stdout).checkpoints as Array<{ messageId: string; agents: unknown[] }>;
    expect(checkpoints.map((checkpoint) => [checkpoint.messageId, checkpoint.agents])).toEqual([
      ['u1', [{ ...main, paths: ['docs.md', 'parser.js', 'shared.js'] }]],
      ['u2', [{ ...agentA, paths: ['parser.js', 'shared.js'] }, { ...agentB, paths: ['docs.md', 'shared.js'] }]],
      ['u3', []],
    ]);
  });

  it("rewind --agent puts back only that sub-agent's file, reports the file the other changed too, and undo brings it back", async () => {
    const rewind = await fh(['rewind', 'u2', '--agent', 'a96c', '--yes']);
    expect(rewind.exitCode).toBe(3);
    const result = JSON.parse(rewind.stdout);
    expect(result.agent).toEqual({ ...agentA, paths: ['parser.js'], conflicts: [{ path: 'shared.js', changedBy: [agentB] }] });
    expect(result.code.restored).toEqual(['parser.js']);
    expect(await text('parser.js')).toBe(VERSIONS['parser.js'][1]);
    expect(await text('shared.js')).toBe(VERSIONS['shared.js'][2]);
    expect(await text('docs.md')).toBe(VERSIONS['docs.md'][2]);
    expect(await text('notes.md')).toBe('notes by B\n');

    expect((await fh(['undo'])).exitCode).toBe(0);
    expect(await text('parser.js')).toBe(VERSIONS['parser.js'][2]);
  });

  it('an agent id prefix shared by both sub-agents is refused as ambiguous, changing nothing', async () => {
    const result = await fh(['rewind', 'u2', '--agent', 'a9', '--yes']);
    expect(result.exitCode).toBe(2);
    expect(JSON.parse(result.stdout).error.message).toBe(`agent id "a9" is ambiguous: it starts ${AGENT_A} (general-purpose), ${AGENT_B} (doc-writer); give more of the id`);
    expect(await text('parser.js')).toBe(VERSIONS['parser.js'][2]);
  });
});

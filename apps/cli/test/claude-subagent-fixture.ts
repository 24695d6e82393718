/**
 * A **built** Claude Code config folder with sub-agent transcripts (issue 14), in the record
 * shapes public transcripts show: sub-agent records carry `isSidechain: true`, `agentId` and the
 * parent's `sessionId` (marot/spotter test/fixtures/transcripts, Claude Code 2.1.39); the parent's
 * Task result carries `toolUseResult.agentId` (and, in newer versions, `agentType`); newer
 * versions keep sub-agents in `<session>/subagents/agent-<id>.jsonl` with an `agent-<id>.meta.json`,
 * older ones in `agent-<id>.jsonl` beside the session (sonnes/chitragupt docs/specs/004-subagents.md).
 *
 *   u1 "Set up the parser" (t=1): the main agent writes parser.js, shared.js and docs.md (v1 backups).
 *   u2 "Split the work between two agents" (t=10, every file at v2): the main agent runs two Task calls.
 *      Sub-agent A (general-purpose, nested layout with .meta.json) edits parser.js (t=12) and
 *      shared.js (t=13); its Edit of docs.md fails (is_error), so docs.md is not A's.
 *      Sub-agent B (doc-writer, older layout beside the session, type from the Task call) edits
 *      shared.js (MultiEdit, t=14), docs.md (t=15) and writes notes.md (t=16, no backup: untracked).
 *   u3 "Thanks" (t=30, every file at v3).
 * Decoys that must be ignored: a compaction transcript (`agent-acompact-*.jsonl`) and an
 * `agent-*.jsonl` of another session beside this one.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { claudeSlug } from './claude-fixture.js';
import { writeFiles } from './helpers.js';

export const SUBAGENT_SESSION = '7195cfed-d73e-458f-9a6c-6a0e85c59b83';
export const AGENT_A = 'a96cf8a57447af436';
export const AGENT_B = 'a9f4657';

/** The project's files at each version. */
export const VERSIONS = {
  'parser.js': ['parse v1\n', 'parse v2\n', 'parse v3 by A\n'],
  'shared.js': ['shared v1\n', 'shared v2\n', 'shared v3 by A and B\n'],
  'docs.md': ['docs v1\n', 'docs v2\n', 'docs v3 by B\n'],
} as const;

/** Paths of a written fixture. */
export interface SubagentFixture {
  configDir: string;
  projectRoot: string;
  transcriptPath: string;
}

/** Write the fixture under `base`. */
export async function writeSubagentFixture(base: string): Promise<SubagentFixture> {
  const configDir = join(base, 'claude');
  const projectRoot = join(base, 'project');
  const files = Object.keys(VERSIONS) as Array<keyof typeof VERSIONS>;
  const backupName = (path: string, version: number) => `${createHash('sha256').update(join(projectRoot, path)).digest('hex').slice(0, 16)}@v${version}`;
  const backups: Record<string, string> = {};
  for (const path of files) VERSIONS[path].forEach((content, index) => (backups[backupName(path, index + 1)] = content));
  await writeFiles(join(configDir, 'file-history', SUBAGENT_SESSION), backups);
  await writeFiles(projectRoot, { ...Object.fromEntries(files.map((path) => [path, VERSIONS[path][2]])), 'notes.md': 'notes by B\n' });

  const time = (seconds: number) => new Date(Date.UTC(2026, 10, 2, 9, 0, seconds)).toISOString();
  const entry = (path: string, version: number, seconds: number) => ({ backupFileName: backupName(path, version), version, backupTime: time(seconds) });
  const all = (version: number, seconds: number) => Object.fromEntries(files.map((path) => [path, entry(path, version, seconds)]));
  const envelope = { userType: 'external', cwd: projectRoot, sessionId: SUBAGENT_SESSION, version: '2.1.39', gitBranch: 'main' };
  const main = { isSidechain: false, ...envelope };
  const user = (uuid: string, parentUuid: string | null, content: unknown, seconds: number, extra: Record<string, unknown> = {}) => ({
    parentUuid, ...main, type: 'user', message: { role: 'user', content }, uuid, timestamp: time(seconds), ...extra,
  });
  const assistant = (uuid: string, parentUuid: string, content: unknown, seconds: number, base: Record<string, unknown> = main) => ({
    parentUuid, ...base, message: { id: `msg_${uuid}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content }, type: 'assistant', uuid, timestamp: time(seconds),
  });
  const toolUse = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use', id, name, input });
  const snapshot = (messageId: string, backupsOf: Record<string, unknown>, seconds: number, isSnapshotUpdate: boolean) => ({
    type: 'file-history-snapshot', messageId, snapshot: { messageId, trackedFileBackups: backupsOf, timestamp: time(seconds) }, isSnapshotUpdate,
  });
  const path = (name: string) => join(projectRoot, name);

  const mainRecords = [
    user('u1', null, 'Set up the parser', 1),
    snapshot('u1', {}, 1, false),
    assistant('m1', 'u1', files.map((name, index) => toolUse(`toolu_m${index}`, 'Write', { file_path: path(name), content: VERSIONS[name][1] })), 2),
    snapshot('u1', all(1, 2), 1, true),
    user('r1', 'm1', files.map((_, index) => ({ type: 'tool_result', tool_use_id: `toolu_m${index}`, content: 'File written' })), 3),
    user('u2', 'r1', 'Split the work between two agents', 10),
    snapshot('u2', all(2, 10), 10, false),
    assistant('m2', 'u2', [
      toolUse('toolu_TA', 'Task', { description: 'Fix the parser', prompt: 'Fix parser.js and shared.js', subagent_type: 'general-purpose' }),
      toolUse('toolu_TB', 'Task', { description: 'Write the docs', prompt: 'Document the parser', subagent_type: 'doc-writer' }),
    ], 11),
    user('r2', 'm2', [{ type: 'tool_result', tool_use_id: 'toolu_TA', content: [{ type: 'text', text: 'Parser fixed.' }] }], 20, {
      toolUseResult: { status: 'completed', prompt: 'Fix parser.js and shared.js', agentId: AGENT_A, agentType: 'general-purpose', totalToolUseCount: 3 },
    }),
    user('r3', 'r2', [{ type: 'tool_result', tool_use_id: 'toolu_TB', content: [{ type: 'text', text: 'Docs written.' }] }], 21, {
      toolUseResult: { status: 'completed', prompt: 'Document the parser', agentId: AGENT_B, totalToolUseCount: 3 },
    }),
    user('u3', 'r3', 'Thanks', 30),
    snapshot('u3', all(3, 30), 30, false),
    assistant('m3', 'u3', [{ type: 'text', text: 'You are welcome.' }], 31),
  ];

  const side = (agentId: string, version: string) => ({ isSidechain: true, ...envelope, version, agentId });
  const agentA = side(AGENT_A, '2.1.39');
  const agentARecords = [
    { parentUuid: null, ...agentA, type: 'user', message: { role: 'user', content: 'Fix parser.js and shared.js' }, uuid: 'A0', timestamp: time(11) },
    assistant('A1', 'A0', [toolUse('toolu_A1', 'Edit', { file_path: path('parser.js'), old_string: 'parse v2', new_string: 'parse v3 by A', replace_all: false })], 12, agentA),
    { parentUuid: 'A1', ...agentA, type: 'user', message: { role: 'user', content: [{ tool_use_id: 'toolu_A1', type: 'tool_result', content: 'The file has been updated.' }] }, uuid: 'A2', timestamp: time(12) },
    assistant('A3', 'A2', [toolUse('toolu_A3', 'Edit', { file_path: path('shared.js'), old_string: 'shared v2', new_string: 'shared v3 by A', replace_all: false })], 13, agentA),
    { parentUuid: 'A3', ...agentA, type: 'user', message: { role: 'user', content: [{ tool_use_id: 'toolu_A3', type: 'tool_result', content: 'The file has been updated.' }] }, uuid: 'A4', timestamp: time(13) },
    assistant('A5', 'A4', [toolUse('toolu_A5', 'Edit', { file_path: path('docs.md'), old_string: 'nothing like this', new_string: 'x', replace_all: false })], 13, agentA),
    { parentUuid: 'A5', ...agentA, type: 'user', message: { role: 'user', content: [{ tool_use_id: 'toolu_A5', type: 'tool_result', content: 'String to replace not found in file.', is_error: true }] }, uuid: 'A6', timestamp: time(13) },
  ];
  const agentB = side(AGENT_B, '2.0.28');
  const agentBRecords = [
    { parentUuid: null, ...agentB, type: 'user', message: { role: 'user', content: 'Document the parser' }, uuid: 'B0', timestamp: time(11) },
    assistant('B1', 'B0', [toolUse('toolu_B1', 'MultiEdit', { file_path: path('shared.js'), edits: [{ old_string: 'by A', new_string: 'by A and B', replace_all: false }] })], 14, agentB),
    assistant('B2', 'B1', [toolUse('toolu_B2', 'Edit', { file_path: path('docs.md'), old_string: 'docs v2', new_string: 'docs v3 by B', replace_all: false })], 15, agentB),
    assistant('B3', 'B2', [toolUse('toolu_B3', 'Write', { file_path: path('notes.md'), content: 'notes by B\n' })], 16, agentB),
  ];
  const compaction = [assistant('C1', 'C0', [toolUse('toolu_C1', 'Edit', { file_path: path('parser.js'), old_string: 'a', new_string: 'b' })], 12, side('acompact-e1f845', '2.1.39'))];
  const otherSession = [assistant('O1', 'O0', [toolUse('toolu_O1', 'Edit', { file_path: path('docs.md'), old_string: 'a', new_string: 'b' })], 12, { ...side('aother1', '2.0.28'), sessionId: 'b1c2d3e4-0000-4000-8000-000000000000' })];

  const jsonl = (records: readonly unknown[]) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
  const folder = join(configDir, 'projects', claudeSlug(projectRoot));
  const nested = join(folder, SUBAGENT_SESSION, 'subagents');
  await mkdir(nested, { recursive: true });
  const transcriptPath = join(folder, `${SUBAGENT_SESSION}.jsonl`);
  await writeFile(transcriptPath, jsonl(mainRecords));
  await writeFile(join(nested, `agent-${AGENT_A}.jsonl`), jsonl(agentARecords));
  await writeFile(join(nested, `agent-${AGENT_A}.meta.json`), JSON.stringify({ agentType: 'general-purpose' }));
  await writeFile(join(nested, 'agent-acompact-e1f845.jsonl'), jsonl(compaction));
  await writeFile(join(folder, `agent-${AGENT_B}.jsonl`), jsonl(agentBRecords));
  await writeFile(join(folder, 'agent-aother1.jsonl'), jsonl(otherSession));
  return { configDir, projectRoot, transcriptPath };
}

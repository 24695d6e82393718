/**
 * A Claude Code config folder written the way Claude Code writes it (transcript record shapes
 * from real sessions), for `fh --claude` tests. Session {@link CLAUDE_SESSION} in `project/`:
 *
 *   u1 "Create the greeting module": snapshot {}, then a mid-turn update backs up app.js v1
 *      (under its absolute path, as older Claude Code versions wrote it).
 *   u2 "Make it louder": app.js v2; an update records new.txt as null (Claude created it).
 *   u3 "Add docs": app.js v2, new.txt v2.
 *   Now: app.js v3, new.txt changed again.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFiles } from './helpers.js';

export const CLAUDE_SESSION = '0d8f6a3e-5b1c-4c1e-9f2a-7e6d5c4b3a21';

export const CLAUDE_CONTENT = {
  appV1: 'console.log("hi");\n',
  appV2: 'console.log("HI");\n',
  appNow: 'console.log("HI!!");\nexport {};\n',
  newV2: 'created\n',
  newNow: 'created, then changed\n',
} as const;

/** Paths of a written fixture. */
export interface ClaudeFixture {
  configDir: string;
  projectRoot: string;
  transcriptPath: string;
}

/** Claude Code's folder name for a project path. */
export function claudeSlug(path: string): string {
  return path.replace(/[^a-zA-Z0-9]/g, '-');
}

/** Write the fixture under `base`. */
export async function writeClaudeFixture(base: string): Promise<ClaudeFixture> {
  const configDir = join(base, 'claude');
  const projectRoot = join(base, 'project');
  const backupName = (path: string, version: number) =>
    `${createHash('sha256').update(join(projectRoot, path)).digest('hex').slice(0, 16)}@v${version}`;
  await writeFiles(join(configDir, 'file-history', CLAUDE_SESSION), {
    [backupName('app.js', 1)]: CLAUDE_CONTENT.appV1,
    [backupName('app.js', 2)]: CLAUDE_CONTENT.appV2,
    [backupName('new.txt', 2)]: CLAUDE_CONTENT.newV2,
  });
  await writeFiles(projectRoot, { 'app.js': CLAUDE_CONTENT.appNow, 'new.txt': CLAUDE_CONTENT.newNow });

  const time = (seconds: number) => new Date(Date.UTC(2026, 10, 1, 9, 0, seconds)).toISOString();
  const backup = (path: string, version: number, seconds: number) => ({ backupFileName: backupName(path, version), version, backupTime: time(seconds) });
  const envelope = { isSidechain: false, userType: 'external', cwd: projectRoot, sessionId: CLAUDE_SESSION, version: '2.1.205', gitBranch: 'main' };
  const user = (uuid: string, parentUuid: string | null, content: unknown, seconds: number) => ({
    parentUuid,
    ...envelope,
    type: 'user',
    message: { role: 'user', content },
    uuid,
    timestamp: time(seconds),
    permissionMode: 'acceptEdits',
  });
  const assistant = (uuid: string, parentUuid: string, content: unknown, seconds: number) => ({
    parentUuid,
    ...envelope,
    type: 'assistant',
    message: { id: `msg_${uuid}`, type: 'message', role: 'assistant', model: 'claude-opus-4-5', content },
    uuid,
    timestamp: time(seconds),
  });
  const snapshot = (messageId: string, files: Record<string, unknown>, seconds: number, isSnapshotUpdate: boolean, recordId = messageId) => ({
    type: 'file-history-snapshot',
    messageId: recordId,
    snapshot: { messageId, trackedFileBackups: files, timestamp: time(seconds) },
    isSnapshotUpdate,
  });
  const records = [
    { type: 'summary', summary: 'Greeting module', leafUuid: 'a3' },
    user('u1', null, 'Create the greeting module', 1),
    snapshot('u1', {}, 1, false),
    assistant('a1', 'u1', [{ type: 'tool_use', id: 'toolu_01', name: 'Write', input: { file_path: join(projectRoot, 'app.js'), content: CLAUDE_CONTENT.appV2 } }], 2),
    snapshot('u1', { [join(projectRoot, 'app.js')]: backup('app.js', 1, 2) }, 1, true, 'a1'),
    user('t1', 'a1', [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'File written' }], 3),
    assistant('a1b', 't1', [{ type: 'text', text: 'Created app.js.' }], 4),
    user('u2', 'a1b', [{ type: 'text', text: 'Make it louder' }], 10),
    snapshot('u2', { 'app.js': backup('app.js', 2, 10) }, 10, false),
    assistant('a2', 'u2', [{ type: 'tool_use', id: 'toolu_02', name: 'Write', input: { file_path: join(projectRoot, 'new.txt'), content: CLAUDE_CONTENT.newV2 } }], 11),
    snapshot('u2', { 'app.js': backup('app.js', 2, 10), 'new.txt': { backupFileName: null, version: 1, backupTime: time(11) } }, 10, true, 'a2'),
    user('t2', 'a2', [{ type: 'tool_result', tool_use_id: 'toolu_02', content: 'File written' }], 12),
    user('u3', 't2', 'Add docs', 20),
    snapshot('u3', { 'app.js': backup('app.js', 2, 20), 'new.txt': backup('new.txt', 2, 20) }, 20, false),
    assistant('a3', 'u3', [{ type: 'text', text: 'Done.' }], 21),
  ];
  const folder = join(configDir, 'projects', claudeSlug(projectRoot));
  await mkdir(folder, { recursive: true });
  const transcriptPath = join(folder, `${CLAUDE_SESSION}.jsonl`);
  await writeFile(transcriptPath, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
  return { configDir, projectRoot, transcriptPath };
}

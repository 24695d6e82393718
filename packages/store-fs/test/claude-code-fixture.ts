/**
 * Writes a Claude Code config folder the way Claude Code does (record shapes from real
 * transcripts), with a project folder on disk, for the ClaudeCodeStore tests.
 *
 * Session `SESSION` in `project/`, three turns:
 *   u1 "Make the app print hello": initial empty snapshot; mid-turn update (top-level messageId of
 *      the assistant message) backs up src/app.ts under its ABSOLUTE path (older Claude Code);
 *      a delta keyed by the next assistant message adds scripts/run.sh (mode 0755).
 *   u2 "Add a notes file" (text-block content): snapshot with relative keys, app.ts v2; an update
 *      keyed by its assistant message adds notes.txt with a null backup (Claude created it) and an absolute key outside the
 *      project (dropped with a warning).
 *   u3 "Tidy up": app.ts v3, notes.txt v2 whose backup file was pruned (missing).
 * Unrelated records: summary, assistant messages, a tool-result user record, worktree-state,
 * a corrupt line, and a torn last line. A second session lives in another project, a sub-agent
 * transcript (`agent-*.jsonl`) is not a session, and a third session has backups only.
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const SESSION = '11111111-2222-4333-8444-555555555555';
export const OTHER_SESSION = '66666666-7777-4888-9999-aaaaaaaaaaaa';
export const ORPHAN_SESSION = 'bbbbbbbb-cccc-4ddd-8eee-ffffffffffff';

/** mtime of the fixture's backup files. */
export const BACKUP_TIME = new Date('2026-05-19T23:40:00Z');

export const CONTENT = {
  appV1: 'console.log(1);\n',
  appV2: 'console.log("hello");\n',
  appV3: 'console.log("hello, world");\n',
  appNow: 'console.log("hello, world!");\nexport {};\n',
  runV1: '#!/bin/sh\necho run\n',
  runNow: '#!/bin/sh\necho run twice\necho run twice\n',
  notesV2: 'notes\n',
  notesNow: 'notes, more\n',
} as const;

export interface ClaudeCodeFixture {
  configDir: string;
  projectRoot: string;
  otherProjectRoot: string;
  transcriptPath: string;
  backupName(relativePath: string, version: number): string;
}

function hashName(absolutePath: string, version: number): string {
  return `${createHash('sha256').update(absolutePath).digest('hex').slice(0, 16)}@v${version}`;
}

function time(seconds: number): string {
  return new Date(Date.UTC(2026, 4, 19, 23, 30, seconds)).toISOString();
}

export function slugOf(path: string): string {
  return path.replace(/[^a-zA-Z0-9]/g, '-');
}

/** Write the fixture under `base` (a fresh temp folder). */
export async function writeClaudeCodeFixture(base: string): Promise<ClaudeCodeFixture> {
  const configDir = join(base, 'claude-config');
  const projectRoot = join(base, 'my_project.v2');
  const otherProjectRoot = join(base, 'other project');
  const backupName = (relativePath: string, version: number) => hashName(join(projectRoot, relativePath), version);
  const backupFolder = join(configDir, 'file-history', SESSION);
  await mkdir(backupFolder, { recursive: true });
  const backups: Array<[string, number, string, number]> = [
    ['src/app.ts', 1, CONTENT.appV1, 0o644],
    ['src/app.ts', 2, CONTENT.appV2, 0o644],
    ['src/app.ts', 3, CONTENT.appV3, 0o644],
    ['scripts/run.sh', 1, CONTENT.runV1, 0o755],
  ];
  for (const [path, version, content, mode] of backups) {
    const file = join(backupFolder, backupName(path, version));
    await writeFile(file, content);
    await chmod(file, mode);
    await utimes(file, BACKUP_TIME, BACKUP_TIME);
  }

  await mkdir(join(projectRoot, 'src'), { recursive: true });
  await mkdir(join(projectRoot, 'scripts'), { recursive: true });
  await writeFile(join(projectRoot, 'src/app.ts'), CONTENT.appNow);
  await writeFile(join(projectRoot, 'scripts/run.sh'), CONTENT.runNow);
  await chmod(join(projectRoot, 'scripts/run.sh'), 0o700);
  await writeFile(join(projectRoot, 'notes.txt'), CONTENT.notesNow);

  const backupOf = (relativePath: string, version: number, seconds: number) => ({
    backupFileName: backupName(relativePath, version),
    version,
    backupTime: time(seconds),
  });
  const message = (type: 'user' | 'assistant', uuid: string, parentUuid: string | null, content: unknown, seconds: number) => ({
    parentUuid,
    isSidechain: false,
    userType: 'external',
    cwd: projectRoot,
    sessionId: SESSION,
    version: '2.1.205',
    gitBranch: 'main',
    type,
    message: type === 'user' ? { role: 'user', content } : { id: `msg_${uuid}`, role: 'assistant', model: 'claude', content },
    uuid,
    timestamp: time(seconds),
  });
  const lines: unknown[] = [
    { type: 'summary', summary: 'Earlier work on the app', leafUuid: 'a0' },
    message('user', 'u1', null, 'Make the app print hello', 1),
    { type: 'file-history-snapshot', messageId: 'u1', snapshot: { messageId: 'u1', trackedFileBackups: {}, timestamp: time(1) }, isSnapshotUpdate: false },
    message('assistant', 'a1', 'u1', [{ type: 'tool_use', id: 'toolu_1', name: 'Edit', input: { file_path: join(projectRoot, 'src/app.ts') } }], 2),
    {
      type: 'file-history-snapshot',
      messageId: 'a1',
      snapshot: { messageId: 'u1', trackedFileBackups: { [join(projectRoot, 'src/app.ts')]: backupOf('src/app.ts', 1, 2) }, timestamp: time(1) },
      isSnapshotUpdate: true,
    },
    message('user', 't1', 'a1', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }], 3),
    message('assistant', 'a2', 't1', [{ type: 'text', text: 'Making run.sh executable.' }], 4),
    {
      type: 'file-history-delta',
      messageId: 'a2',
      snapshotMessageId: 'u1',
      trackingPath: 'scripts/run.sh',
      backup: { ...backupOf('scripts/run.sh', 1, 4), realParentDir: join(projectRoot, 'scripts') },
      timestamp: time(4),
    },
    message('user', 'u2', 'a2', [{ type: 'text', text: 'Add a notes file' }], 10),
    {
      type: 'file-history-snapshot',
      messageId: 'u2',
      snapshot: { messageId: 'u2', trackedFileBackups: { 'src/app.ts': backupOf('src/app.ts', 2, 10), 'scripts/run.sh': backupOf('scripts/run.sh', 1, 4) }, timestamp: time(10) },
      isSnapshotUpdate: false,
    },
    message('assistant', 'a3', 'u2', [{ type: 'text', text: 'Writing the notes.' }], 11),
    {
      type: 'file-history-snapshot',
      messageId: 'a3',
      snapshot: {
        messageId: 'u2',
        trackedFileBackups: {
          'src/app.ts': backupOf('src/app.ts', 2, 10),
          'scripts/run.sh': backupOf('scripts/run.sh', 1, 4),
          'notes.txt': { backupFileName: null, version: 1, backupTime: time(11) },
          '/etc/hosts': { backupFileName: hashName('/etc/hosts', 1), version: 1, backupTime: time(11) },
        },
        timestamp: time(10),
      },
      isSnapshotUpdate: true,
    },
    { type: 'worktree-state', worktreeSession: { worktreePath: join(base, 'wt'), originalCwd: projectRoot }, sessionId: SESSION },
    '{"type":"assistant","uuid":"broken',
    message('user', 'u3', 'a3', 'Tidy up', 20),
    {
      type: 'file-history-snapshot',
      messageId: 'u3',
      snapshot: {
        messageId: 'u3',
        trackedFileBackups: {
          'src/app.ts': backupOf('src/app.ts', 3, 20),
          'scripts/run.sh': backupOf('scripts/run.sh', 1, 4),
          'notes.txt': backupOf('notes.txt', 2, 20),
        },
        timestamp: time(20),
      },
      isSnapshotUpdate: false,
    },
    message('assistant', 'a4', 'u3', [{ type: 'text', text: 'Done.' }], 21),
  ];
  const text = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
  const transcriptPath = join(configDir, 'projects', slugOf(projectRoot), `${SESSION}.jsonl`);
  await mkdir(join(configDir, 'projects', slugOf(projectRoot)), { recursive: true });
  await writeFile(transcriptPath, `${text}\n{"type":"file-history-snapshot","messageId":"u4","snap`);
  await utimes(transcriptPath, new Date('2026-05-20T00:00:00Z'), new Date('2026-05-20T00:00:00Z'));

  const otherFolder = join(configDir, 'projects', slugOf(otherProjectRoot));
  await mkdir(otherFolder, { recursive: true });
  const otherTranscript = join(otherFolder, `${OTHER_SESSION}.jsonl`);
  await writeFile(
    otherTranscript,
    [
      JSON.stringify({ type: 'summary', summary: 'no cwd here', leafUuid: 'x' }),
      JSON.stringify({ ...message('user', 'o1', null, 'hello', 1), cwd: otherProjectRoot, sessionId: OTHER_SESSION }),
      '',
    ].join('\n'),
  );
  await utimes(otherTranscript, new Date('2026-05-21T00:00:00Z'), new Date('2026-05-21T00:00:00Z'));
  await writeFile(join(otherFolder, 'agent-1234abcd.jsonl'), `${JSON.stringify({ type: 'user', isSidechain: true, cwd: otherProjectRoot })}\n`);

  const orphanFolder = join(configDir, 'file-history', ORPHAN_SESSION);
  await mkdir(orphanFolder, { recursive: true });
  const orphanBackup = join(orphanFolder, hashName('/somewhere/x', 1));
  await writeFile(orphanBackup, 'xyz');
  await utimes(orphanBackup, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));

  return { configDir, projectRoot, otherProjectRoot, transcriptPath, backupName };
}

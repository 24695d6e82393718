/**
 * Fork on disk (issue 4): a rewound conversation written as a new session — from a Claude Code
 * session through ClaudeCodeStore and from an fh session through FsBackupStore — then reopened
 * and rewound. The source session's files are hashed before and after: never modified.
 */
import {
  CURRENT_PROMPT_ID,
  ConflictError,
  FileHistory,
  RewindSession,
  forkSession,
  restoreStateFromLog,
  type ConversationRecord,
  type TranscriptMessage,
} from '@fh/core';
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClaudeCodeStore, FsBackupStore } from '../src/index.js';
import { CONTENT, SESSION, slugOf, writeClaudeCodeFixture } from './claude-code-fixture.js';
import { listTree, temporaryFolder } from './helpers.js';

const FORK = 'f0f0f0f0-0000-4000-8000-00000000000f';
const NOW = new Date('2026-06-01T00:00:00.000Z');


/** Histories opened by a test, closed after it (before its temp folder is removed). */
const opened: FileHistory[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((history) => history.close()));
});

async function openHistory(options: Parameters<typeof FileHistory.open>[0]): Promise<FileHistory> {
  const history = await FileHistory.open(options);
  opened.push(history);
  return history;
}

/** sha256 of every regular file under `folder`, by relative path. */
async function hashes(folder: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const path of await listTree(folder)) {
    const full = join(folder, path);
    if ((await lstat(full)).isFile()) result[path] = createHash('sha256').update(await readFile(full)).digest('hex');
  }
  return result;
}

/** Every regular file of the project with its permission bits and text. */
async function tree(projectRoot: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const path of await listTree(projectRoot)) {
    const stats = await stat(join(projectRoot, path));
    if (stats.isFile()) files[path] = `${(stats.mode & 0o777).toString(8)} ${await readFile(join(projectRoot, path), 'utf8')}`;
  }
  return files;
}

describe('forkSession from a Claude Code session', () => {
  it('writes only the new session: the kept messages, their snapshots and backups; the fork reopens and rewinds', async () => {
    const fixture = await writeClaudeCodeFixture(await temporaryFolder());
    const before = await hashes(fixture.configDir);
    const store = new ClaudeCodeStore({ configDir: fixture.configDir, projectRoot: fixture.projectRoot });

    const fork = await forkSession({ store, sessionId: SESSION, projectRoot: fixture.projectRoot, messageId: 'u3', newSessionId: FORK, now: NOW });
    expect(fork.sessionId).toBe(FORK);
    expect(fork.plan.keptMessageIds).toEqual(['u1', 'a1', 't1', 'a2', 'u2', 'a3']);
    expect(fork.plan.rewind?.prompt.text).toBe('Tidy up');
    expect(fork.resume.missing).toEqual([]);
    expect([...fork.resume.linked].sort()).toEqual(
      [fixture.backupName('src/app.ts', 1), fixture.backupName('src/app.ts', 2), fixture.backupName('scripts/run.sh', 1)].sort(),
    );

    const after = await hashes(fixture.configDir);
    for (const [path, hash] of Object.entries(before)) expect(after[path], path).toBe(hash);
    const transcript = join('projects', slugOf(fixture.projectRoot), `${FORK}.jsonl`);
    expect(Object.keys(after).filter((path) => !(path in before)).sort()).toEqual(
      [
        transcript,
        `file-history/${FORK}/${fixture.backupName('scripts/run.sh', 1)}`,
        `file-history/${FORK}/${fixture.backupName('src/app.ts', 1)}`,
        `file-history/${FORK}/${fixture.backupName('src/app.ts', 2)}`,
      ].sort(),
    );

    const lines = (await readFile(join(fixture.configDir, transcript), 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as ConversationRecord);
    expect(lines.map((record) => [record.type, record['uuid'] ?? (record['snapshot'] as { messageId: string } | undefined)?.messageId ?? null, record['parentUuid'] ?? null, record['sessionId'] ?? null])).toEqual([
      ['user', 'u1', null, FORK],
      ['assistant', 'a1', 'u1', FORK],
      ['user', 't1', 'a1', FORK],
      ['assistant', 'a2', 't1', FORK],
      ['user', 'u2', 'a2', FORK],
      ['assistant', 'a3', 'u2', FORK],
      ['file-history-snapshot', 'u1', null, null],
      ['file-history-snapshot', 'u2', null, null],
      ['worktree-state', null, null, FORK],
    ]);
    const original = (await store.sessionLog(SESSION).read()).records;
    const originalU2 = original.find((record) => record['uuid'] === 'u2') as TranscriptMessage;
    expect(lines[4]).toEqual({ ...originalU2, sessionId: FORK });

    const reopened = await new ClaudeCodeStore({ configDir: fixture.configDir }).readSession(FORK, { projectRoot: fixture.projectRoot });
    expect(reopened.snapshots.map((snapshot) => [snapshot.messageId, snapshot.prompt, snapshot.files, snapshot.unavailable])).toEqual([
      ['u1', 'Make the app print hello', ['scripts/run.sh', 'src/app.ts'], []],
      ['u2', 'Add a notes file', ['notes.txt', 'scripts/run.sh', 'src/app.ts'], []],
    ]);
    const history = await openHistory({ projectRoot: fixture.projectRoot, sessionId: FORK, store, initialState: reopened.state, log: false });
    const rewind = await history.rewind('u1');
    expect(rewind).toEqual({ messageId: 'u1', restored: ['scripts/run.sh', 'src/app.ts'], deleted: ['notes.txt'], skipped: [], failed: [] });
    expect(await tree(fixture.projectRoot)).toEqual({ 'scripts/run.sh': `755 ${CONTENT.runV1}`, 'src/app.ts': `644 ${CONTENT.appV1}` });
    for (const [path, hash] of Object.entries(before)) expect((await hashes(fixture.configDir))[path], path).toBe(hash);
  });

  it('a fork at the current prompt copies the whole branch; forking into an existing session is refused', async () => {
    const fixture = await writeClaudeCodeFixture(await temporaryFolder());
    const store = new ClaudeCodeStore({ configDir: fixture.configDir, projectRoot: fixture.projectRoot });
    const before = await hashes(fixture.configDir);
    const fork = await forkSession({ store, sessionId: SESSION, projectRoot: fixture.projectRoot, messageId: CURRENT_PROMPT_ID, newSessionId: FORK });
    expect(fork.plan.keptMessageIds).toEqual(['u1', 'a1', 't1', 'a2', 'u2', 'a3', 'u3', 'a4']);
    expect(fork.plan.rewind).toBeNull();
    expect(fork.resume.missing.map((missing) => missing.backupFileName)).toEqual([fixture.backupName('notes.txt', 2)]);
    await expect(forkSession({ store, sessionId: SESSION, projectRoot: fixture.projectRoot, messageId: 'u2', newSessionId: SESSION })).rejects.toThrow(ConflictError);
    const after = await hashes(fixture.configDir);
    for (const [path, hash] of Object.entries(before)) expect(after[path], path).toBe(hash);
  });
});

describe('RewindSession.fork of an fh session', () => {
  it('writes the rewound conversation and its file history as a new session that reopens and rewinds', async () => {
    const base = await temporaryFolder();
    const projectRoot = join(base, 'project');
    await mkdir(projectRoot);
    await writeFile(join(projectRoot, 'a.txt'), 'v1\n');
    await chmod(join(projectRoot, 'a.txt'), 0o640);
    const store = new FsBackupStore({ root: join(base, 'store') });
    const history = await openHistory({ projectRoot, sessionId: 'source', store });
    const message = (type: 'user' | 'assistant', uuid: string, parentUuid: string | null, text: string): TranscriptMessage => ({
      type, uuid, parentUuid, sessionId: 'source', message: { role: type, content: text },
    });
    await history.makeSnapshot('u1');
    await history.trackEdit('a.txt');
    await writeFile(join(projectRoot, 'a.txt'), 'v2\n');
    await history.makeSnapshot('u2');
    await history.trackEdit('a.txt');
    await writeFile(join(projectRoot, 'a.txt'), 'v3\n');
    const messages = [message('user', 'u1', null, 'one'), message('assistant', 'a1', 'u1', 'ok'), message('user', 'u2', 'a1', 'two'), message('assistant', 'a2', 'u2', 'ok')];
    await store.sessionLog('source').append(messages);
    await history.close();

    const reader = await openHistory({ projectRoot, sessionId: 'source', store, initialState: restoreStateFromLog((await store.sessionLog('source').read()).records, { projectRoot }) });
    const session = new RewindSession({ history: reader, messages });
    const sourceHashes = await hashes(join(base, 'store'));
    const fork = await session.fork('u2', { sessionId: 'forked', now: NOW });
    expect(fork.plan.messages).toEqual(messages.slice(0, 2).map((record) => ({ ...record, sessionId: 'forked' })));
    const records = (await store.sessionLog('forked').read()).records;
    expect(records.map((record) => record.type)).toEqual(['user', 'assistant', 'fh-session', 'file-history-snapshot']);
    expect(records[2]).toEqual({ type: 'fh-session', sessionId: 'forked', projectRoot, createdAt: NOW.toISOString(), resumedFrom: 'source', snapshotSequenceOffset: 0 });

    const state = restoreStateFromLog(records, { projectRoot });
    expect(state.snapshots.map((snapshot) => snapshot.messageId)).toEqual(['u1']);
    const forked = await openHistory({ projectRoot, sessionId: 'forked', store, initialState: state });
    expect(await forked.rewind('u1')).toEqual({ messageId: 'u1', restored: ['a.txt'], deleted: [], skipped: [], failed: [] });
    expect(await tree(projectRoot)).toEqual({ 'a.txt': '640 v1\n' });
    const afterHashes = await hashes(join(base, 'store'));
    for (const [path, hash] of Object.entries(sourceHashes)) expect(afterHashes[path], path).toBe(hash);
  });
});

/**
 * RewindSession over a Claude Code session (ClaudeCodeStore): existing Claude Code sessions are
 * read-only and their transcripts drop fh's records, so undo needs an fh store; without one a
 * rewind is refused before any file is written.
 */
import {
  FileHistory,
  RewindSession,
  UnsupportedError,
  currentBranchRecords,
  forkSession,
} from '@fh/core';
import { createHash } from 'node:crypto';
import { lstat, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClaudeCodeStore, FsBackupStore } from '../src/index.js';
import { CONTENT, SESSION, writeClaudeCodeFixture } from './claude-code-fixture.js';
import { listTree, temporaryFolder } from './helpers.js';

const FORK = 'f1f1f1f1-0000-4000-8000-00000000000f';


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

async function tree(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const path of await listTree(folder)) {
    const full = join(folder, path);
    if ((await lstat(full)).isFile()) files[path] = `${((await stat(full)).mode & 0o777).toString(8)} ${createHash('sha256').update(await readFile(full)).digest('hex').slice(0, 12)}`;
  }
  return files;
}

async function setUp() {
  const base = await temporaryFolder();
  const fixture = await writeClaudeCodeFixture(base);
  const store = new ClaudeCodeStore({ configDir: fixture.configDir, projectRoot: fixture.projectRoot });
  const session = await store.readSession(SESSION);
  const history = await openHistory({ projectRoot: fixture.projectRoot, sessionId: SESSION, store, initialState: session.state, log: false });
  return { base, fixture, store, session, history };
}

describe('RewindSession on a Claude Code session', () => {
  it('without an fh undo store, refuses the rewind and writes nothing', async () => {
    const { fixture, session, history } = await setUp();
    const before = { project: await tree(fixture.projectRoot), config: await tree(fixture.configDir) };
    const rewind = new RewindSession({ history, messages: currentBranchRecords(session.records) });
    const failure = await rewind.restore({ messageId: 'u2', mode: 'both' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnsupportedError);
    expect((failure as Error).message).toContain('give an fh store as the undo store, or turn undo off');
    expect(rewind.messages.map((message) => message['uuid'] ?? message.type)).toContain('a4');
    expect({ project: await tree(fixture.projectRoot), config: await tree(fixture.configDir) }).toEqual(before);
  });

  it('with an fh undo store, rewinds code and conversation and the undo brings the files back', async () => {
    const { base, fixture, session, history } = await setUp();
    const before = { project: await tree(fixture.projectRoot), config: await tree(fixture.configDir) };
    const undoStore = new FsBackupStore({ root: join(base, 'fh') });
    const rewind = new RewindSession({ history, messages: currentBranchRecords(session.records), undo: { store: undoStore, sessionId: `undo-${SESSION}` } });
    const result = await rewind.restore({ messageId: 'u2', mode: 'both' });
    expect(result.code).toEqual({ messageId: 'u2', restored: ['scripts/run.sh', 'src/app.ts'], deleted: ['notes.txt'], skipped: [], failed: [] });
    expect(await readFile(join(fixture.projectRoot, 'src/app.ts'), 'utf8')).toBe(CONTENT.appV2);
    expect(rewind.messages.filter((message) => typeof message['uuid'] === 'string').map((message) => message['uuid'])).toEqual(['u1', 'a1', 't1', 'a2']);
    expect(result.conversation?.prompt.text).toBe('Add a notes file');

    const undo = await rewind.undoRewind();
    expect([undo.restored, undo.deleted, undo.failed]).toEqual([['notes.txt', 'scripts/run.sh', 'src/app.ts'], [], []]);
    expect({ project: await tree(fixture.projectRoot), config: await tree(fixture.configDir) }).toEqual(before);
  });

  it('a fork (writable, but its transcript drops fh records) refuses default undo and leaves no undo backups', async () => {
    const { fixture, store } = await setUp();
    await forkSession({ store, sessionId: SESSION, projectRoot: fixture.projectRoot, messageId: 'u3', newSessionId: FORK });
    const forked = await store.readSession(FORK, { projectRoot: fixture.projectRoot });
    const history = await openHistory({ projectRoot: fixture.projectRoot, sessionId: FORK, store, initialState: forked.state, log: false });
    const before = await tree(fixture.projectRoot);
    const rewind = new RewindSession({ history, messages: forked.records });
    await expect(rewind.restore({ messageId: 'u1', mode: 'code' })).rejects.toThrow(
      `the log of session ${FORK} in the claude-code store does not keep fh-point records; give an fh store as the undo store, or turn undo off`,
    );
    expect(await tree(fixture.projectRoot)).toEqual(before);
    expect((await store.listBackups(FORK)).filter((name) => name.includes('@undo-'))).toEqual([]);
  });
});

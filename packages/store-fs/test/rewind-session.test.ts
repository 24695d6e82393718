import { readFileSync } from 'node:fs';
/**
 * RewindSession on real files (issue 4): the restore menu with dry-run stats, restore in every
 * mode, per-file rewind, lossless rewinds, undo (also from a fresh store and history, as a later
 * `fh undo` would), the 10-point limit, and the refusals that change nothing.
 */
import {
  BackupMissingError,
  FileHistory,
  InvalidArgumentError,
  NotFoundError,
  RewindSession,
  type ConversationRecord,
  type MessagesRemovedEvent,
  type TranscriptMessage,
} from '@fh/core';
import { createHash } from 'node:crypto';
import * as fsPromises from 'node:fs/promises';
import { chmod, mkdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { listTree, temporaryFolder } from './helpers.js';

const SESSION = 'c0c0c0c0-0000-4000-8000-000000000001';
const AFTER_CHECKPOINT = 'one\ntwo\nuser edit after the last checkpoint\n';


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

function user(uuid: string, parentUuid: string | null, text: string, extra: Partial<TranscriptMessage> = {}): TranscriptMessage {
  return { type: 'user', uuid, parentUuid, sessionId: SESSION, timestamp: '2026-03-01T10:00:00.000Z', message: { role: 'user', content: text }, ...extra };
}

function assistant(uuid: string, parentUuid: string, text: string): TranscriptMessage {
  return { type: 'assistant', uuid, parentUuid, sessionId: SESSION, timestamp: '2026-03-01T10:00:01.000Z', message: { role: 'assistant', content: [{ type: 'text', text }] } };
}

/** Every regular file of the project with its text and permission bits (symlinks as `-> target`). */
async function tree(projectRoot: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const path of await listTree(projectRoot)) {
    const full = join(projectRoot, path);
    const stats = await fsPromises.lstat(full);
    if (stats.isSymbolicLink()) files[path] = `-> ${await fsPromises.readlink(full)}`;
    else if (stats.isFile()) files[path] = `${(stats.mode & 0o777).toString(8)} ${await readFile(full, 'utf8')}`;
  }
  return files;
}

function counter(prefix: string): () => string {
  let next = 0;
  return () => `${prefix}-${String((next += 1)).padStart(4, '0')}`;
}

/**
 * Two turns on disk. u1 edits a.txt and creates new.txt; u2 makes run.sh 0700 and changes it;
 * after u2 the user edits a.txt by hand (no checkpoint holds that edit).
 */
async function setUp(options: { fs?: typeof fsPromises } = {}) {
  const base = await temporaryFolder();
  const projectRoot = join(base, 'project');
  const storeRoot = join(base, 'store');
  await mkdir(projectRoot, { recursive: true });
  await writeFile(join(projectRoot, 'a.txt'), 'one\n');
  await chmod(join(projectRoot, 'a.txt'), 0o644);
  await writeFile(join(projectRoot, 'run.sh'), '#!/bin/sh\n');
  await chmod(join(projectRoot, 'run.sh'), 0o755);
  const store = new FsBackupStore({ root: storeRoot });
  const history = await openHistory({ projectRoot, sessionId: SESSION, store, ...(options.fs === undefined ? {} : { fs: options.fs }) });

  await history.makeSnapshot('u1');
  await history.trackEdit('a.txt');
  await writeFile(join(projectRoot, 'a.txt'), 'one\ntwo\n');
  await history.trackEdit('new.txt');
  await writeFile(join(projectRoot, 'new.txt'), 'created\n');
  await chmod(join(projectRoot, 'new.txt'), 0o644);

  await history.makeSnapshot('u2');
  await history.trackEdit('run.sh');
  await writeFile(join(projectRoot, 'run.sh'), '#!/bin/sh\necho hi\n');
  await chmod(join(projectRoot, 'run.sh'), 0o700);

  await writeFile(join(projectRoot, 'a.txt'), AFTER_CHECKPOINT);

  const messages: ConversationRecord[] = [
    user('u1', null, 'Add a second line and a new file', { permissionMode: 'default' }),
    assistant('a1', 'u1', 'Done: a.txt and new.txt.'),
    user('u2', 'a1', 'Make run.sh say hi', { permissionMode: 'acceptEdits' }),
    assistant('a2', 'u2', 'run.sh now says hi.'),
  ];
  const session = new RewindSession({
    history,
    messages,
    generateId: counter('id'),
    now: () => new Date('2026-03-01T12:00:00.000Z'),
    summarize: async (replaced) => `Summary of ${replaced.map((message) => message.uuid).join(', ')}`,
  });
  return { base, projectRoot, storeRoot, store, history, session, messages };
}

const AT_U2 = { 'a.txt': '644 one\ntwo\n', 'new.txt': '644 created\n', 'run.sh': '755 #!/bin/sh\n' };
const NOW = { 'a.txt': `644 ${AFTER_CHECKPOINT}`, 'new.txt': '644 created\n', 'run.sh': '700 #!/bin/sh\necho hi\n' };

describe('RewindSession.restoreOptions', () => {
  it('offers both (default), conversation, code, summarize and nevermind, with dry-run stats', async () => {
    const { session, projectRoot } = await setUp();
    const options = await session.restoreOptions('u1');
    expect(options.map((option) => [option.mode, option.label, option.isDefault])).toEqual([
      ['both', 'Restore code and conversation', true],
      ['conversation', 'Restore conversation', false],
      ['code', 'Restore code', false],
      ['summarize', 'Summarize from here', false],
      ['nevermind', 'Never mind', false],
    ]);
    const stats = options[0]?.diffStats;
    expect(stats).toEqual({
      filesChanged: ['a.txt', 'new.txt', 'run.sh'],
      insertions: 0,
      deletions: 4,
      files: [
        { path: 'a.txt', status: 'modified', insertions: 0, deletions: 2, binary: false },
        { path: 'new.txt', status: 'created', insertions: 0, deletions: 1, binary: false },
        { path: 'run.sh', status: 'modified', insertions: 0, deletions: 1, binary: false },
      ],
      skipped: [],
      failed: [],
      missing: [],
      refusals: [],
      changedSinceLatestSnapshot: ['a.txt', 'run.sh'],
    });
    expect(options[2]?.diffStats).toEqual(stats);
    expect(options[1]?.diffStats).toEqual({ filesChanged: [], insertions: 0, deletions: 0, files: [], changedSinceLatestSnapshot: [], refusals: [] });
    expect(await tree(projectRoot)).toEqual(NOW);
  });

  it('offers summarize_up_to when messages precede, conversation only without a snapshot, nevermind for the current prompt', async () => {
    const { session, history } = await setUp();
    expect((await session.restoreOptions('u2')).map((option) => option.mode)).toEqual(['both', 'conversation', 'code', 'summarize', 'summarize_up_to', 'nevermind']);
    const plain = new RewindSession({ history, messages: [...session.messages, user('u3', 'a2', 'no snapshot for me')] });
    expect((await plain.restoreOptions('u3')).map((option) => [option.mode, option.isDefault])).toEqual([
      ['conversation', true],
      ['nevermind', false],
    ]);
    expect((await plain.restoreOptions('<current-prompt>')).map((option) => option.mode)).toEqual(['nevermind']);
    await expect(plain.restoreOptions('a1')).rejects.toThrow(InvalidArgumentError);
  });
});

describe('RewindSession.restore', () => {
  it('calls onUndoPointSaved once the undo point is saved and before any file is written; not when nothing changes', async () => {
    const { session, projectRoot, storeRoot } = await setUp();
    const atCall: Array<{ undoId: string; recorded: boolean; aTxt: string }> = [];
    const result = await session.restore({
      messageId: 'u2',
      mode: 'code',
      onUndoPointSaved: (point) => {
        const log = readFileSync(join(storeRoot, 'sessions', `${SESSION}.jsonl`), 'utf8');
        atCall.push({ undoId: point.undoId, recorded: log.includes(`"pointId":"${point.undoId}"`), aTxt: readFileSync(join(projectRoot, 'a.txt'), 'utf8') });
      },
    });
    expect(atCall).toEqual([{ undoId: result.undoPoint?.undoId, recorded: true, aTxt: AFTER_CHECKPOINT }]);
    expect(await tree(projectRoot)).toEqual(AT_U2);

    let calls = 0;
    await session.restore({ messageId: 'u2', mode: 'code', onUndoPointSaved: () => (calls += 1) });
    expect(calls).toBe(0);
  });

  it('both: rewinds the files, then the conversation, and hands back the prompt', async () => {
    const { session, projectRoot, messages } = await setUp();
    const events: MessagesRemovedEvent[] = [];
    session.on('messagesRemoved', (event) => events.push(event));
    const result = await session.restore({ messageId: 'u2', mode: 'both' });
    expect(result.codeApplied).toBe(true);
    expect(result.conversationApplied).toBe(true);
    expect(result.code).toEqual({ messageId: 'u2', restored: ['a.txt', 'run.sh'], deleted: [], skipped: [], failed: [] });
    expect(await tree(projectRoot)).toEqual(AT_U2);
    expect(session.messages).toEqual(messages.slice(0, 2));
    expect(session.conversationId).toBe('id-0002');
    expect(result.conversation?.prompt).toEqual({ text: 'Make run.sh say hi', mode: 'prompt', images: [], permissionMode: 'acceptEdits' });
    expect(result.conversation?.permissionMode).toBe('acceptEdits');
    expect(events).toEqual([{ reason: 'rewind', messageId: 'u2', removedMessageIds: ['u2', 'a2'] }]);
    expect(result.undoPoint?.entries.map((entry) => [entry.path, entry.kind, entry.mode, entry.size])).toEqual([
      ['a.txt', 'file', 0o644, AFTER_CHECKPOINT.length],
      ['run.sh', 'file', 0o700, '#!/bin/sh\necho hi\n'.length],
    ]);
  });

  it('conversation: leaves every file alone', async () => {
    const { session, projectRoot, messages } = await setUp();
    const result = await session.restore({ messageId: 'u1', mode: 'conversation' });
    expect([result.codeApplied, result.conversationApplied, result.code, result.undoPoint]).toEqual([false, true, undefined, undefined]);
    expect(session.messages).toEqual([]);
    expect(result.conversation?.removedMessageIds).toEqual(messages.map((message) => message['uuid']));
    expect(await tree(projectRoot)).toEqual(NOW);
  });

  it('code: rewinds the files only, deleting a file created after the snapshot', async () => {
    const { session, projectRoot, messages } = await setUp();
    const result = await session.restore({ messageId: 'u1', mode: 'code' });
    expect(result.code).toEqual({ messageId: 'u1', restored: ['a.txt', 'run.sh'], deleted: ['new.txt'], skipped: [], failed: [] });
    expect(await tree(projectRoot)).toEqual({ 'a.txt': '644 one\n', 'run.sh': '755 #!/bin/sh\n' });
    expect(session.messages).toEqual(messages);
    expect(result.conversationApplied).toBe(false);
  });

  it('code with paths: rewinds only the named files (per-file rewind)', async () => {
    const { session, projectRoot } = await setUp();
    const result = await session.restore({ messageId: 'u1', mode: 'code', paths: ['run.sh', join(projectRoot, 'new.txt')] });
    expect(result.code).toEqual({ messageId: 'u1', restored: ['run.sh'], deleted: ['new.txt'], skipped: [], failed: [] });
    expect(await tree(projectRoot)).toEqual({ 'a.txt': NOW['a.txt'], 'run.sh': '755 #!/bin/sh\n' });
    expect(result.undoPoint?.entries.map((entry) => entry.path)).toEqual(['new.txt', 'run.sh']);
    expect((await session.preview('u1', { paths: ['a.txt'] })).filesChanged).toEqual(['a.txt']);
  });

  it('summarize and summarize_up_to replace messages with one summary; a failing summariser changes nothing', async () => {
    const { session, history, messages } = await setUp();
    const from = await session.restore({ messageId: 'u2', mode: 'summarize', instructions: 'short' });
    expect(from.conversationApplied).toBe(true);
    expect(session.messages.map((message) => [message['uuid'], message['parentUuid']])).toEqual([
      ['u1', null],
      ['a1', 'u1'],
      ['id-0001', 'a1'],
    ]);
    expect(session.messages[2]).toMatchObject({ isCompactSummary: true, message: { role: 'user', content: 'Summary of u2, a2' } });

    const upTo = new RewindSession({ history, messages, generateId: () => 'summary-1', summarize: async () => 'Earlier: u1' });
    await upTo.restore({ messageId: 'u2', mode: 'summarize_up_to' });
    expect(upTo.messages.map((message) => [message['uuid'], message['parentUuid']])).toEqual([
      ['summary-1', null],
      ['u2', 'summary-1'],
      ['a2', 'u2'],
    ]);

    const failure = new Error('model down');
    const failing = new RewindSession({ history, messages, summarize: async () => Promise.reject(failure) });
    const result = await failing.restore({ messageId: 'u2', mode: 'summarize' });
    expect([result.conversationApplied, result.conversationError]).toEqual([false, failure]);
    expect(failing.messages).toEqual(messages);
    await expect(new RewindSession({ history, messages }).restore({ messageId: 'u2', mode: 'summarize' })).rejects.toThrow(
      new InvalidArgumentError('restore mode summarize needs a summarize callback (RewindSessionOptions.summarize)'),
    );
  });

  it('nevermind does nothing', async () => {
    const { session, projectRoot, messages } = await setUp();
    expect(await session.restore({ messageId: 'u1', mode: 'nevermind' })).toEqual({
      messageId: 'u1', mode: 'nevermind', codeApplied: false, conversationApplied: false, listenerErrors: [],
    });
    expect(session.messages).toEqual(messages);
    expect(await tree(projectRoot)).toEqual(NOW);
  });

  it('refuses, changing nothing, when a backup is missing, the message is unknown, or a path is untracked', async () => {
    const { session, projectRoot, storeRoot, messages, store } = await setUp();
    const backups = await store.listBackups(SESSION);
    const runBackup = backups.find((name) => name.endsWith('@v1') && name.startsWith(runShHash(projectRoot)));
    expect(runBackup).toBeDefined();
    await rm(join(storeRoot, 'file-history', SESSION, runBackup as string));
    const logBefore = await readFile(join(storeRoot, 'sessions', `${SESSION}.jsonl`), 'utf8');

    await expect(session.restore({ messageId: 'u1', mode: 'both' })).rejects.toThrow(BackupMissingError);
    await expect(session.restore({ messageId: 'nope', mode: 'both' })).rejects.toThrow(new NotFoundError('No message with id nope in the conversation'));
    await expect(session.restore({ messageId: 'u1', mode: 'code', paths: ['README.md'] })).rejects.toThrow(new InvalidArgumentError('README.md is not a tracked file'));
    await expect(session.restore({ messageId: 'u1', mode: 'conversation', paths: ['a.txt'] })).rejects.toThrow(InvalidArgumentError);
    await expect(session.restore({ messageId: 'a1', mode: 'conversation' })).rejects.toThrow(InvalidArgumentError);

    expect(await tree(projectRoot)).toEqual(NOW);
    expect(session.messages).toEqual(messages);
    expect(await session.undoPoints()).toEqual([]);
    expect(await readFile(join(storeRoot, 'sessions', `${SESSION}.jsonl`), 'utf8')).toBe(logBefore);
    expect((await store.listBackups(SESSION)).filter((name) => name.includes('@undo-'))).toEqual([]);
  });

  it('both: a file that cannot be written is reported and the conversation is still rewound', async () => {
    const failing = {
      ...fsPromises,
      rename: async (from: string, to: string) => {
        if (to.endsWith('/run.sh')) throw Object.assign(new Error(`EIO: injected, rename '${from}'`), { code: 'EIO' });
        return fsPromises.rename(from, to);
      },
    } as typeof fsPromises;
    const { session, projectRoot } = await setUp({ fs: failing });
    const result = await session.restore({ messageId: 'u2', mode: 'both' });
    expect(result.codeApplied).toBe(false);
    expect(result.conversationApplied).toBe(true);
    expect(result.code?.restored).toEqual(['a.txt']);
    expect(result.code?.failed.map((failure) => [failure.path, failure.error.message])).toEqual([['run.sh', expect.stringContaining('EIO: injected')]]);
    expect(await tree(projectRoot)).toEqual({ ...NOW, 'a.txt': AT_U2['a.txt'] });
    expect(session.messages.map((message) => message['uuid'])).toEqual(['u1', 'a1']);
  });
});

describe('RewindSession.isLosslessRewind', () => {
  it('is true only when no file would change and only synthetic messages follow', async () => {
    const { session, history, projectRoot } = await setUp();
    expect(await session.isLosslessRewind('u2')).toBe(false);
    await history.makeSnapshot('u3');
    const messages = [
      ...session.messages,
      user('u3', 'a2', 'oops, sent too early'),
      user('i3', 'u3', '', { message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] } }),
    ];
    session.setMessages(messages);
    expect(await session.isLosslessRewind('u3')).toBe(true);
    await writeFile(join(projectRoot, 'new.txt'), 'changed after u3\n');
    expect(await session.isLosslessRewind('u3')).toBe(false);
  });
});

describe('RewindSession.undoRewind', () => {
  it('brings back a user edit made after the last checkpoint, byte for byte, after a rewind', async () => {
    const { session, projectRoot } = await setUp();
    const before = await fsPromises.readFile(join(projectRoot, 'a.txt'));
    await session.restore({ messageId: 'u1', mode: 'both' });
    expect(await tree(projectRoot)).toEqual({ 'a.txt': '644 one\n', 'run.sh': '755 #!/bin/sh\n' });
    const undo = await session.undoRewind();
    expect(undo.restored).toEqual(['a.txt', 'new.txt', 'run.sh']);
    expect(undo.deleted).toEqual([]);
    expect(undo.failed).toEqual([]);
    expect(Buffer.compare(await fsPromises.readFile(join(projectRoot, 'a.txt')), before)).toBe(0);
    expect(await tree(projectRoot)).toEqual(NOW);
  });

  it('works from a fresh store and history (a later process); redo goes forward again, undo back again', async () => {
    const { session, projectRoot, storeRoot, history } = await setUp();
    await unlink(join(projectRoot, 'run.sh'));
    await writeFile(join(projectRoot, 'untracked.txt'), 'not tracked, never touched\n');
    const before = await tree(projectRoot);
    const result = await session.restore({ messageId: 'u1', mode: 'code' });
    expect(result.code).toEqual({ messageId: 'u1', restored: ['a.txt', 'run.sh'], deleted: ['new.txt'], skipped: [], failed: [] });
    const afterRewind = await tree(projectRoot);
    await history.close();

    const store = new FsBackupStore({ root: storeRoot });
    const later = new RewindSession({ history: await openHistory({ projectRoot, sessionId: SESSION, store }) });
    const points = await later.undoPoints();
    expect(points.map((point) => [point.operation, point.status, point.messageId, point.entries.map((entry) => `${entry.path}:${entry.kind}`)])).toEqual([
      ['rewind', 'done', 'u1', ['a.txt:file', 'new.txt:file', 'run.sh:missing']],
    ]);
    const undo = await later.undo();
    expect([undo.operation, undo.target, undo.restored, undo.deleted]).toEqual(['undo', points[0]?.undoId, ['a.txt', 'new.txt'], ['run.sh']]);
    expect(await tree(projectRoot)).toEqual(before);
    await expect(later.undo()).rejects.toThrow(new NotFoundError(`session ${SESSION} has no rewind to undo`));

    const redo = await later.redo();
    expect([redo.operation, redo.target, redo.restored, redo.deleted]).toEqual(['redo', points[0]?.undoId, ['a.txt', 'run.sh'], ['new.txt']]);
    expect(await tree(projectRoot)).toEqual(afterRewind);
    await expect(later.redo()).rejects.toThrow(new NotFoundError(`session ${SESSION} has nothing to redo`));
    expect((await later.undo()).restored).toEqual(['a.txt', 'new.txt']);
    expect(await tree(projectRoot)).toEqual(before);
    const timeline = await later.timeline();
    expect(timeline.points.map((point) => [point.operation, point.status])).toEqual([
      ['rewind', 'done'],
      ['undo', 'done'],
      ['redo', 'done'],
      ['undo', 'done'],
    ]);
    expect([timeline.steps, timeline.cursor]).toEqual([[points[0]?.undoId], 0]);
  });

  it('restores a symlink the rewind replaced', async () => {
    const { session, projectRoot } = await setUp();
    await unlink(join(projectRoot, 'a.txt'));
    await fsPromises.symlink('run.sh', join(projectRoot, 'a.txt'));
    await session.restore({ messageId: 'u2', mode: 'code' });
    expect((await fsPromises.lstat(join(projectRoot, 'a.txt'))).isFile()).toBe(true);
    await session.undoRewind();
    expect(await fsPromises.readlink(join(projectRoot, 'a.txt'))).toBe('run.sh');
    expect(await tree(projectRoot)).toEqual({ ...NOW, 'a.txt': '-> run.sh' });
  });

  it('never evicts a point: after 12 rewinds, 12 undos walk back through every state', async () => {
    const { session, projectRoot, store } = await setUp();
    const made: string[] = [];
    for (let round = 0; round < 12; round += 1) {
      await writeFile(join(projectRoot, 'a.txt'), `round ${round}\n`);
      const result = await session.restore({ messageId: 'u1', mode: 'code', paths: ['a.txt'] });
      made.push(result.undoPoint?.undoId as string);
    }
    const points = await session.undoPoints();
    expect(points.map((point) => point.undoId)).toEqual(made);
    const undoBackups = (await store.listBackups(SESSION)).filter((name) => name.includes('@undo-')).sort();
    expect(undoBackups).toEqual(points.map((point) => point.entries[0]?.backupFileName).sort());
    for (let round = 11; round >= 0; round -= 1) {
      await session.undo();
      expect(await readFile(join(projectRoot, 'a.txt'), 'utf8')).toBe(`round ${round}\n`);
    }
  });

  it('refuses with nothing to undo, and when an undo backup is gone changes nothing', async () => {
    const { session, projectRoot, storeRoot } = await setUp();
    await expect(session.undoRewind()).rejects.toThrow(new NotFoundError(`session ${SESSION} has no rewind to undo`));
    const result = await session.restore({ messageId: 'u1', mode: 'code' });
    const backup = result.undoPoint?.entries.find((entry) => entry.path === 'a.txt')?.backupFileName as string;
    await rm(join(storeRoot, 'file-history', SESSION, backup));
    const rewound = await tree(projectRoot);
    await expect(session.undoRewind()).rejects.toThrow(BackupMissingError);
    expect(await tree(projectRoot)).toEqual(rewound);
    expect((await session.undoPoints()).map((point) => point.status)).toEqual(['done']);
  });

  it('undo can be turned off', async () => {
    const { history, messages, projectRoot } = await setUp();
    const session = new RewindSession({ history, messages, undo: false });
    const result = await session.restore({ messageId: 'u1', mode: 'code' });
    expect(result.undoPoint).toBeNull();
    expect(await session.undoPoints()).toEqual([]);
    await expect(session.undoRewind()).rejects.toThrow('undo is off for this RewindSession (options.undo is false)');
    expect(Object.keys(await tree(projectRoot))).toEqual(['a.txt', 'run.sh']);
    expect((await stat(join(projectRoot, 'run.sh'))).mode & 0o777).toBe(0o755);
  });
});

/** First 16 hex of sha256 of the absolute path of run.sh: the prefix of its backups' names. */
function runShHash(projectRoot: string): string {
  return createHash('sha256').update(join(projectRoot, 'run.sh')).digest('hex').slice(0, 16);
}

describe("RewindSession: only one sub-agent's changes (issue 14)", () => {
  const AGENT_A = 'a96cf8a57447af436';
  const AGENT_B = 'b0b1b2b3b4b5b6b7';

  /** One turn: the main agent edits main.txt; sub-agent A edits a.txt and shared.txt and creates made.txt; sub-agent B edits shared.txt. */
  async function subagentTurn() {
    const base = await temporaryFolder();
    const projectRoot = join(base, 'project');
    await mkdir(projectRoot, { recursive: true });
    for (const name of ['main.txt', 'a.txt', 'shared.txt']) await writeFile(join(projectRoot, name), `${name} before\n`);
    const history = await openHistory({ projectRoot, sessionId: SESSION, store: new FsBackupStore({ root: join(base, 'store') }) });
    await history.makeSnapshot('u1');
    const a = history.forSubagent({ agentId: AGENT_A, agentType: 'general-purpose' });
    const b = history.forSubagent({ agentId: AGENT_B });
    await history.trackEdit('main.txt');
    await a.trackEdit('a.txt');
    await a.trackEdit('shared.txt');
    await a.trackEdit('made.txt');
    await b.trackEdit('shared.txt');
    for (const name of ['main.txt', 'a.txt', 'shared.txt', 'made.txt']) await writeFile(join(projectRoot, name), `${name} after\n`);
    const session = new RewindSession({ history, messages: [user('u1', null, 'Split the work'), assistant('a1', 'u1', 'Done.')] });
    return { projectRoot, history, session };
  }

  it("restoreOptions offers one 'only this sub-agent's changes' option per sub-agent after Restore code, with its own dry run and conflicts", async () => {
    const { session } = await subagentTurn();
    const options = await session.restoreOptions('u1');
    expect(options.map((option) => [option.mode, option.label, option.isDefault, option.agent])).toEqual([
      ['both', 'Restore code and conversation', true, undefined],
      ['conversation', 'Restore conversation', false, undefined],
      ['code', 'Restore code', false, undefined],
      ['code', `Restore code: only the changes of sub-agent ${AGENT_A} (general-purpose)`, false, { by: 'subagent', agentId: AGENT_A, agentType: 'general-purpose' }],
      ['code', `Restore code: only the changes of sub-agent ${AGENT_B}`, false, { by: 'subagent', agentId: AGENT_B }],
      ['nevermind', 'Never mind', false, undefined],
    ]);
    const onlyA = options[3]?.diffStats;
    expect(onlyA?.filesChanged).toEqual(['a.txt', 'made.txt']);
    expect(onlyA?.agent).toEqual({
      agent: { by: 'subagent', agentId: AGENT_A, agentType: 'general-purpose' },
      paths: ['a.txt', 'made.txt'],
      conflicts: [{ path: 'shared.txt', changedBy: [{ by: 'subagent', agentId: AGENT_B }] }],
    });
    expect(options[4]?.diffStats.filesChanged).toEqual([]);
    expect(options[4]?.diffStats.agent?.conflicts).toEqual([{ path: 'shared.txt', changedBy: [{ by: 'subagent', agentId: AGENT_A, agentType: 'general-purpose' }] }]);
    expect(await session.subagentOptions('no-such-turn')).toEqual([]);
  });

  it("restoring the option rewinds exactly that sub-agent's files, leaves the conflict and the others, and undo brings all back", async () => {
    const { projectRoot, session } = await subagentTurn();
    const option = (await session.subagentOptions('u1'))[0];
    expect(option?.agent?.agentId).toBe(AGENT_A);
    const result = await session.restore({ messageId: 'u1', mode: option?.mode ?? 'code', agent: option?.agent?.agentId as string });
    expect(result.code?.restored).toEqual(['a.txt']);
    expect(result.code?.deleted).toEqual(['made.txt']);
    expect(result.code?.skipped.map((entry) => entry.path)).toEqual(['shared.txt']);
    expect(result.agent?.conflicts).toEqual([{ path: 'shared.txt', changedBy: [{ by: 'subagent', agentId: AGENT_B }] }]);
    expect(await tree(projectRoot)).toEqual({ 'a.txt': '644 a.txt before\n', 'main.txt': '644 main.txt after\n', 'shared.txt': '644 shared.txt after\n' });
    await session.undo();
    expect(await tree(projectRoot)).toEqual({
      'a.txt': '644 a.txt after\n',
      'made.txt': '644 made.txt after\n',
      'main.txt': '644 main.txt after\n',
      'shared.txt': '644 shared.txt after\n',
    });
  });
});

describe('RewindSession: files outside the project (issue 13, library)', () => {
  it('a code rewind leaves them and lists them in outside.left; includeOutside rewinds them too', async () => {
    const base = await temporaryFolder();
    const projectRoot = join(base, 'project');
    const elsewhere = join(base, 'elsewhere');
    await mkdir(projectRoot, { recursive: true });
    await mkdir(elsewhere, { recursive: true });
    await writeFile(join(projectRoot, 'app.txt'), 'app before\n');
    await writeFile(join(elsewhere, 'plan.md'), 'plan before\n');
    const store = new FsBackupStore({ root: join(base, 'store') });
    const history = await openHistory({ projectRoot, sessionId: SESSION, store });
    // The files outside the project: a history rooted at / (as ClaudeCodeStore.openOutsideFileHistory opens it).
    const outside = await openHistory({ projectRoot: '/', sessionId: `${SESSION}.outside`, store });
    await history.makeSnapshot('u1');
    await outside.makeSnapshot('u1');
    await history.trackEdit('app.txt');
    await outside.trackEdit(join(elsewhere, 'plan.md'));
    await writeFile(join(projectRoot, 'app.txt'), 'app after\n');
    await writeFile(join(elsewhere, 'plan.md'), 'plan after\n');
    const session = new RewindSession({ history, messages: [user('u1', null, 'Plan and build')], outside: { history: outside } });

    const left = await session.restore({ messageId: 'u1', mode: 'code' });
    expect(left.code?.restored).toEqual(['app.txt']);
    expect(left.outside?.left).toEqual([join(elsewhere, 'plan.md')]);
    expect(await readFile(join(elsewhere, 'plan.md'), 'utf8')).toBe('plan after\n');

    const included = await session.restore({ messageId: 'u1', mode: 'code', includeOutside: true });
    expect(included.outside?.code?.restored).toEqual([join(elsewhere, 'plan.md')]);
    expect(await readFile(join(elsewhere, 'plan.md'), 'utf8')).toBe('plan before\n');
    expect(await readFile(join(projectRoot, 'app.txt'), 'utf8')).toBe('app before\n');
  });
});

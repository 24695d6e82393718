import { createHash } from 'node:crypto';
import {
  FileHistory,
  InvalidArgumentError,
  NotFoundError,
  UnsupportedError,
  copyFileHistoryForResume,
  restoreStateFromLog,
  type FileHistoryBackup,
} from '@fh/core';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeCodeStore, claudeProjectSlug, defaultClaudeConfigDir } from '../src/index.js';
import {
  BACKUP_TIME,
  CONTENT,
  ORPHAN_SESSION,
  OTHER_SESSION,
  SESSION,
  slugOf,
  writeClaudeCodeFixture,
  type ClaudeCodeFixture,
} from './claude-code-fixture.js';
import { listTree, temporaryFolder } from './helpers.js';

const NEW_SESSION = '99999999-8888-4777-8666-555555555555';

function at(seconds: number): Date {
  return new Date(Date.UTC(2026, 4, 19, 23, 30, seconds));
}

function backupIn(fixture: ClaudeCodeFixture, path: string, version: number, seconds: number): FileHistoryBackup {
  return { backupFileName: fixture.backupName(path, version), version, backupTime: at(seconds) };
}

async function setUp() {
  const fixture = await writeClaudeCodeFixture(await temporaryFolder());
  return { fixture, store: new ClaudeCodeStore({ configDir: fixture.configDir }) };
}

/** Every file under the config folder with its bytes, to prove nothing was written. */
async function snapshotFolder(folder: string): Promise<Record<string, string>> {
  const contents: Record<string, string> = {};
  for (const path of await listTree(folder)) {
    const full = join(folder, path);
    if ((await stat(full)).isFile()) contents[path] = await readFile(full, 'utf8');
  }
  return contents;
}

describe('claudeProjectSlug', () => {
  it('replaces every character other than A-Z, a-z, 0-9 with a dash', () => {
    expect(claudeProjectSlug('/Users/foo/my_project.v2')).toBe('-Users-foo-my-project-v2');
    expect(claudeProjectSlug('C:\\git\\cc-plus')).toBe('C--git-cc-plus');
    expect(claudeProjectSlug('/home/u/文档 x')).toBe('-home-u----x');
  });

  it('cuts a slug longer than 200 characters and appends a base-36 hash of the path', () => {
    const path = `/${'a'.repeat(250)}`;
    const slug = claudeProjectSlug(path);
    expect(slug.slice(0, 201)).toBe(`-${'a'.repeat(199)}-`);
    expect(slug.slice(201)).toMatch(/^[0-9a-z]+$/);
    expect(claudeProjectSlug(path)).toBe(slug);
    expect(claudeProjectSlug(`${path}b`)).not.toBe(slug);
  });
});

describe('defaultClaudeConfigDir', () => {
  it('uses CLAUDE_CONFIG_DIR, else ~/.claude', () => {
    expect(defaultClaudeConfigDir({ CLAUDE_CONFIG_DIR: '/opt/claude' }, '/home/u')).toBe('/opt/claude');
    expect(defaultClaudeConfigDir({}, '/home/u')).toBe('/home/u/.claude');
    expect(defaultClaudeConfigDir({ CLAUDE_CONFIG_DIR: '' }, '/home/u')).toBe('/home/u/.claude');
  });
});

describe('ClaudeCodeStore', () => {
  it('lists sessions newest first with their project path, transcript, bytes and backups', async () => {
    const { fixture, store } = await setUp();
    const transcriptBytes = (await stat(fixture.transcriptPath)).size;
    const backupBytes = CONTENT.appV1.length + CONTENT.appV2.length + CONTENT.appV3.length + CONTENT.runV1.length;
    const otherTranscript = join(fixture.configDir, 'projects', slugOf(fixture.otherProjectRoot), `${OTHER_SESSION}.jsonl`);
    expect(await store.listClaudeSessions()).toEqual([
      {
        sessionId: OTHER_SESSION,
        projectPath: fixture.otherProjectRoot,
        transcriptPath: otherTranscript,
        projectFolder: slugOf(fixture.otherProjectRoot),
        lastModified: new Date('2026-05-21T00:00:00Z'),
        bytes: (await stat(otherTranscript)).size,
        backups: 0,
      },
      {
        sessionId: SESSION,
        projectPath: fixture.projectRoot,
        transcriptPath: fixture.transcriptPath,
        projectFolder: slugOf(fixture.projectRoot),
        lastModified: new Date('2026-05-20T00:00:00Z'),
        bytes: transcriptBytes + backupBytes,
        backups: 4,
      },
      { sessionId: ORPHAN_SESSION, projectPath: undefined, transcriptPath: undefined, projectFolder: undefined, lastModified: new Date('2026-01-01T00:00:00Z'), bytes: 3, backups: 1 },
    ]);
    expect((await store.listSessions()).map((session) => session.sessionId)).toEqual([OTHER_SESSION, SESSION, ORPHAN_SESSION]);
    expect(BACKUP_TIME.getTime()).toBeLessThan(new Date('2026-05-20T00:00:00Z').getTime());
  });

  it('rebuilds a session: absolute and relative keys, updates, deltas, null and pruned backups, prompts', async () => {
    const { fixture, store } = await setUp();
    const session = await store.readSession(SESSION);
    const u1 = { 'src/app.ts': backupIn(fixture, 'src/app.ts', 1, 2), 'scripts/run.sh': backupIn(fixture, 'scripts/run.sh', 1, 4) };
    const u2 = {
      'src/app.ts': backupIn(fixture, 'src/app.ts', 2, 10),
      'scripts/run.sh': backupIn(fixture, 'scripts/run.sh', 1, 4),
      'notes.txt': { backupFileName: null, version: 1, backupTime: at(11) },
    };
    const notesV2 = fixture.backupName('notes.txt', 2);
    const u3 = {
      'src/app.ts': backupIn(fixture, 'src/app.ts', 3, 20),
      'scripts/run.sh': backupIn(fixture, 'scripts/run.sh', 1, 4),
      'notes.txt': { ...backupIn(fixture, 'notes.txt', 2, 20), error: `backup ${notesV2} missing from Claude Code session ${SESSION}` },
    };
    expect(session.projectRoot).toBe(fixture.projectRoot);
    expect(session.transcriptPath).toBe(fixture.transcriptPath);
    expect(session.state).toEqual({
      snapshots: [
        { messageId: 'u1', timestamp: at(1), trackedFileBackups: u1 },
        { messageId: 'u2', timestamp: at(10), trackedFileBackups: u2 },
        { messageId: 'u3', timestamp: at(20), trackedFileBackups: u3 },
      ],
      trackedFiles: new Set(['src/app.ts', 'scripts/run.sh', 'notes.txt']),
      snapshotSequence: 3,
    });
    expect(session.snapshots).toEqual([
      { messageId: 'u1', timestamp: at(1), prompt: 'Make the app print hello', files: ['scripts/run.sh', 'src/app.ts'], unavailable: [] },
      { messageId: 'u2', timestamp: at(10), prompt: 'Add a notes file', files: ['notes.txt', 'scripts/run.sh', 'src/app.ts'], unavailable: [] },
      { messageId: 'u3', timestamp: at(20), prompt: 'Tidy up', files: ['notes.txt', 'scripts/run.sh', 'src/app.ts'], unavailable: ['notes.txt'] },
    ]);
    expect(session.skipped).toEqual([
      { line: 14, reason: 'invalid JSON' },
      { line: 18, reason: 'torn last line' },
    ]);
    expect(session.records).toHaveLength(16);
    expect(session.warnings).toEqual([]);
    expect(session.outside.files).toEqual(['/etc/hosts']);
    expect(Object.keys(session.outside.state.snapshots[1]?.trackedFileBackups ?? {})).toEqual(['etc/hosts']);
  });

  it('rebuilds against another project folder: absolute keys of the old folder and relative ones map into it', async () => {
    const { fixture, store } = await setUp();
    const moved = join(fixture.projectRoot, '..', 'moved');
    const session = await store.readSession(SESSION, { projectRoot: moved });
    expect(session.projectRoot).toBe(moved);
    expect(Object.keys(session.state.snapshots[0]?.trackedFileBackups ?? {}).sort()).toEqual(['scripts/run.sh', 'src/app.ts']);
    expect(session.outside.files).toEqual(['/etc/hosts']);
    expect(session.warnings).toEqual([]);
  });

  it('rebuilds against a fallback folder only when the transcript records no cwd, and says which it used', async () => {
    const { fixture, store } = await setUp();
    const elsewhere = join(fixture.projectRoot, '..', 'elsewhere');
    const recorded = await store.readSession(SESSION, { fallbackProjectRoot: elsewhere });
    expect([recorded.projectRoot, recorded.recordedProjectRoot]).toEqual([fixture.projectRoot, fixture.projectRoot]);
    const transcript = join(fixture.configDir, 'projects', 'no-cwd', `${NEW_SESSION}.jsonl`);
    await mkdir(join(fixture.configDir, 'projects', 'no-cwd'), { recursive: true });
    await writeFile(transcript, `${JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: NEW_SESSION, message: { role: 'user', content: 'hi' } })}\n`);
    await expect(store.readSession(NEW_SESSION)).rejects.toThrow(
      new InvalidArgumentError(`Claude Code session "${NEW_SESSION}" records no working folder (no cwd in its transcript); nothing was read: give the folder it ran in as projectRoot`),
    );
    const fallback = await store.readSession(NEW_SESSION, { fallbackProjectRoot: elsewhere });
    expect([fallback.projectRoot, fallback.recordedProjectRoot]).toEqual([elsewhere, undefined]);
  });

  it('reads a session without file history, and refuses an unknown one', async () => {
    const { fixture, store } = await setUp();
    const other = await store.readSession(OTHER_SESSION);
    expect(other).toMatchObject({ projectRoot: fixture.otherProjectRoot, snapshots: [], skipped: [] });
    expect(other.state).toEqual({ snapshots: [], trackedFiles: new Set(), snapshotSequence: 0 });
    await expect(store.readSession('00000000-0000-4000-8000-000000000000')).rejects.toThrow(
      new NotFoundError(`Claude Code session "00000000-0000-4000-8000-000000000000" not found in ${fixture.configDir}`),
    );
  });

  it('serves backups of existing sessions read-only', async () => {
    const { fixture, store } = await setUp();
    const name = fixture.backupName('scripts/run.sh', 1);
    expect(await store.statBackup(SESSION, name)).toEqual({ size: CONTENT.runV1.length, mode: 0o755 });
    expect((await store.listBackups(SESSION)).sort()).toEqual(
      [fixture.backupName('src/app.ts', 1), fixture.backupName('src/app.ts', 2), fixture.backupName('src/app.ts', 3), name].sort(),
    );
    const chunks: Uint8Array[] = [];
    for await (const chunk of await store.openBackup(SESSION, name)) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(CONTENT.runV1);
    const restored = join(fixture.projectRoot, 'restored.sh');
    await store.restoreBackup(SESSION, name, restored);
    expect(await readFile(restored, 'utf8')).toBe(CONTENT.runV1);
    expect(store.containsPath(join(fixture.configDir, 'file-history', SESSION, name))).toBe(true);
    expect(store.containsPath(fixture.projectRoot)).toBe(false);
    expect(store.containsPath(join(fixture.configDir, 'projects', 'x', `${SESSION}.jsonl`))).toBe(true);
    expect(store.containsPath(fixture.configDir)).toBe(true);
    expect(store.containsPath(join(fixture.configDir, 'settings.json'))).toBe(false);
    expect(store.capabilities).toEqual({ hardLinks: true, serverSideCopy: false, locking: false, sha256: false });
  });

  it('refuses every write to an existing Claude Code session and changes nothing', async () => {
    const { fixture, store } = await setUp();
    const before = await snapshotFolder(fixture.configDir);
    const refusal = (operation: string, sessionId = SESSION) =>
      new UnsupportedError(`${operation} Claude Code session "${sessionId}": existing Claude Code sessions are read-only`);
    await expect(store.putBackup(SESSION, fixture.backupName('src/app.ts', 4), join(fixture.projectRoot, 'src/app.ts'))).rejects.toThrow(refusal('putBackup'));
    await expect(store.deleteBackup(SESSION, fixture.backupName('src/app.ts', 1))).rejects.toThrow(refusal('deleteBackup'));
    await expect(store.deleteSession(SESSION)).rejects.toThrow(refusal('deleteSession'));
    await expect(store.deleteSession(ORPHAN_SESSION)).rejects.toThrow(refusal('deleteSession', ORPHAN_SESSION));
    await expect(store.carryBackup(SESSION, OTHER_SESSION, fixture.backupName('src/app.ts', 1))).rejects.toThrow(refusal('carryBackup', OTHER_SESSION));
    await expect(store.sessionLog(SESSION).append([{ type: 'user', uuid: 'x' }])).rejects.toThrow(refusal('append to the transcript of'));
    await store.sessionLog(SESSION).append([{ type: 'fh-session', sessionId: SESSION, projectRoot: fixture.projectRoot }]);
    expect(await snapshotFolder(fixture.configDir)).toEqual(before);
  });

  it('resumes a Claude Code session into a new one: linked backups, transcript under the project slug, pruned backups marked', async () => {
    const { fixture } = await setUp();
    const store = new ClaudeCodeStore({ configDir: fixture.configDir, projectRoot: fixture.projectRoot });
    const result = await copyFileHistoryForResume({
      store,
      fromSessionId: SESSION,
      toSessionId: NEW_SESSION,
      projectRoot: fixture.projectRoot,
      throwOnMissing: false,
    });
    const notesV2 = fixture.backupName('notes.txt', 2);
    expect(result.linked).toEqual(
      [fixture.backupName('src/app.ts', 1), fixture.backupName('src/app.ts', 2), fixture.backupName('src/app.ts', 3), fixture.backupName('scripts/run.sh', 1)].sort(),
    );
    expect(result.missing).toEqual([{ backupFileName: notesV2, references: [{ messageId: 'u3', path: 'notes.txt' }] }]);
    for (const name of result.linked) {
      const [from, to] = await Promise.all([
        stat(join(fixture.configDir, 'file-history', SESSION, name)),
        stat(join(fixture.configDir, 'file-history', NEW_SESSION, name)),
      ]);
      expect(to.ino).toBe(from.ino);
    }
    const transcript = join(fixture.configDir, 'projects', slugOf(fixture.projectRoot), `${NEW_SESSION}.jsonl`);
    expect(await store.findTranscript(NEW_SESSION)).toBe(transcript);
    const written = (await readFile(transcript, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string });
    expect(written.map((record) => record.type)).toEqual([
      'summary', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'worktree-state', 'user', 'assistant',
      'file-history-snapshot', 'file-history-snapshot', 'file-history-snapshot',
    ]);

    const reopened = new ClaudeCodeStore({ configDir: fixture.configDir });
    const resumed = await reopened.readSession(NEW_SESSION);
    expect(resumed.state).toEqual(result.state);
    expect(resumed.state.snapshots[2]?.trackedFileBackups['notes.txt']?.error).toBe(`backup ${notesV2} missing from session ${SESSION}`);
    expect(resumed.snapshots.map((snapshot) => snapshot.prompt)).toEqual(['Make the app print hello', 'Add a notes file', 'Tidy up']);
    expect(restoreStateFromLog((await reopened.sessionLog(NEW_SESSION).read()).records, { projectRoot: fixture.projectRoot })).toEqual(
      (await store.readSession(NEW_SESSION)).state,
    );

    await writeFile(join(fixture.projectRoot, 'extra.txt'), 'extra');
    const info = await store.putBackup(NEW_SESSION, fixture.backupName('extra.txt', 1), join(fixture.projectRoot, 'extra.txt'));
    expect(info).toEqual({ size: 5, mode: 0o644, sha256: createHash('sha256').update('extra').digest('hex') });
    await expect(reopened.putBackup(NEW_SESSION, fixture.backupName('extra.txt', 2), join(fixture.projectRoot, 'extra.txt'))).rejects.toThrow(UnsupportedError);
  });

  it('needs projectRoot to create a session transcript', async () => {
    const { store } = await setUp();
    await expect(store.sessionLog(NEW_SESSION).append([{ type: 'user', uuid: 'x' }])).rejects.toThrow(
      new UnsupportedError(`creating the transcript of Claude Code session "${NEW_SESSION}" needs the store's projectRoot option`),
    );
  });

  it('leaves fh-only records out of Claude Code transcripts', async () => {
    const { fixture } = await setUp();
    const store = new ClaudeCodeStore({ configDir: fixture.configDir, projectRoot: fixture.projectRoot });
    await store.sessionLog(NEW_SESSION).append([{ type: 'fh-session', sessionId: NEW_SESSION }]);
    expect(await store.findTranscript(NEW_SESSION)).toBeUndefined();
    await store.sessionLog(NEW_SESSION).append([{ type: 'fh-session', sessionId: NEW_SESSION }, { type: 'user', uuid: 'u9' }]);
    expect(await store.sessionLog(NEW_SESSION).read()).toEqual({ records: [{ type: 'user', uuid: 'u9' }], skipped: [] });
  });
  it('previews and rewinds a Claude Code session into its project folder, writing nothing to the Claude Code folder', async () => {
    const { fixture, store } = await setUp();
    const before = await snapshotFolder(fixture.configDir);
    const history = await store.openFileHistory(SESSION);
    try {
      expect(history.canRestore('u1')).toBe(true);
      const stats = await history.getDiffStats('u1');
      expect([stats.filesChanged, stats.insertions, stats.deletions]).toEqual([['notes.txt', 'scripts/run.sh', 'src/app.ts'], 2, 5]);
      expect(stats.files.map((file) => [file.path, file.status, file.insertions, file.deletions])).toEqual([
        ['notes.txt', 'created', 0, 1],
        ['scripts/run.sh', 'modified', 1, 2],
        ['src/app.ts', 'modified', 1, 2],
      ]);
      expect(await history.rewind('u1')).toEqual({ messageId: 'u1', restored: ['scripts/run.sh', 'src/app.ts'], deleted: ['notes.txt'], skipped: [], failed: [] });
      expect(await readFile(join(fixture.projectRoot, 'src/app.ts'), 'utf8')).toBe(CONTENT.appV1);
      expect((await stat(join(fixture.projectRoot, 'src/app.ts'))).mode & 0o7777).toBe(0o644);
      expect(await readFile(join(fixture.projectRoot, 'scripts/run.sh'), 'utf8')).toBe(CONTENT.runV1);
      expect((await stat(join(fixture.projectRoot, 'scripts/run.sh'))).mode & 0o7777).toBe(0o755);
      expect(await listTree(fixture.projectRoot)).toEqual(['scripts', 'scripts/run.sh', 'src', 'src/app.ts']);

      await writeFile(join(fixture.projectRoot, 'notes.txt'), CONTENT.notesNow);
      const pruned = await history.rewind('u3');
      expect(pruned.restored).toEqual(['src/app.ts']);
      expect(pruned.failed.map(({ path, error }) => [path, error.message])).toEqual([
        ['notes.txt', `notes.txt: its backup at this snapshot failed: backup ${fixture.backupName('notes.txt', 2)} missing from Claude Code session ${SESSION}`],
      ]);
      expect(await readFile(join(fixture.projectRoot, 'src/app.ts'), 'utf8')).toBe(CONTENT.appV3);
      expect(await readFile(join(fixture.projectRoot, 'notes.txt'), 'utf8')).toBe(CONTENT.notesNow);
      await writeFile(join(fixture.projectRoot, 'fresh.txt'), 'fresh\n');
      await expect(history.trackEdit('fresh.txt')).rejects.toThrow(UnsupportedError);
      expect(history.state.trackedFiles.has('fresh.txt')).toBe(false);
    } finally {
      await history.close();
    }
    expect(await snapshotFolder(fixture.configDir)).toEqual(before);
  });

  it('FileHistory.open over a Claude Code session rebuilds its state from the transcript', async () => {
    const { fixture, store } = await setUp();
    const history = await FileHistory.open({ projectRoot: fixture.projectRoot, sessionId: SESSION, store });
    try {
      expect(history.state.snapshots.map((snapshot) => snapshot.messageId)).toEqual(['u1', 'u2', 'u3']);
      expect(await history.rewind('u2')).toEqual({ messageId: 'u2', restored: ['scripts/run.sh', 'src/app.ts'], deleted: ['notes.txt'], skipped: [], failed: [] });
      expect(await readFile(join(fixture.projectRoot, 'src/app.ts'), 'utf8')).toBe(CONTENT.appV2);
    } finally {
      await history.close();
    }
  });

  it('resumes a Claude Code session with FileHistory.resume and rewinds in the new session', async () => {
    const { fixture } = await setUp();
    const store = new ClaudeCodeStore({ configDir: fixture.configDir, projectRoot: fixture.projectRoot });
    const history = await FileHistory.resume({ projectRoot: fixture.projectRoot, sessionId: NEW_SESSION, fromSessionId: SESSION, store, allowMissingBackups: true });
    try {
      expect(history.resumeResult?.missing.map((missing) => missing.backupFileName)).toEqual([fixture.backupName('notes.txt', 2)]);
      expect(await history.rewind('u1')).toEqual({ messageId: 'u1', restored: ['scripts/run.sh', 'src/app.ts'], deleted: ['notes.txt'], skipped: [], failed: [] });
      await writeFile(join(fixture.projectRoot, 'src/app.ts'), 'edited in the resumed session\n');
      const snapshot = await history.makeSnapshot('u9');
      expect(snapshot?.trackedFileBackups['src/app.ts']).toMatchObject({ backupFileName: fixture.backupName('src/app.ts', 4), version: 4 });
      expect(await readFile(join(fixture.configDir, 'file-history', NEW_SESSION, fixture.backupName('src/app.ts', 4)), 'utf8')).toBe('edited in the resumed session\n');
    } finally {
      await history.close();
    }
  });
});

/**
 * Real agent sessions in real git worktrees, for the end-to-end tests. A repository is made with
 * the real git binary, a worktree is added on its own branch, and a session runs in the worktree
 * with `@fh/core`'s FileHistory over an FsBackupStore: three user turns (m1, m2, m3) with tracked
 * edits between them (a changed file, a new file, a file committed on the branch, a mode change, a
 * deleted file, a binary file), and the `worktree-state` record in the session's log. The tree of
 * the worktree is read at each snapshot so tests can compare restored files byte for byte.
 *
 * The Claude Code flavour writes the same session into a Claude Code config folder: backups under
 * `file-history/{sessionId}/`, the transcript (user messages with `cwd`, an assistant message, a
 * summary, snapshot records, the worktree-state record) under `projects/{slug}/{sessionId}.jsonl`.
 */
import * as fsPromises from 'node:fs/promises';
import { chmod, mkdir, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  FileHistory,
  fhSessionRecord,
  snapshotRecord,
  userMessageRecord,
  worktreeStateRecord,
  type BackupStore,
  type LogRecord,
  type SessionLog,
  type WorktreeSession,
} from '@fh/core';
import { claudeProjectSlug, FsBackupStore, FsSessionLog } from '@fh/store-fs';
import { git, readTree, tempFolder, type FileState } from './helpers.js';

/** The files of a worktree (without `.git`) as {@link readTree} reads them. */
export type Tree = Record<string, FileState | 'symlink'>;

/** A finished session in a worktree that still exists. */
export interface WorktreeFixture {
  /** A fresh HOME for the tool. */
  home: string;
  /** The main checkout (the session's originalCwd). */
  repo: string;
  worktreePath: string;
  branch: string;
  /** The commit the worktree was made from. */
  originalHead: string;
  sessionId: string;
  /** The record the session wrote. */
  worktreeSession: WorktreeSession;
  /** The worktree's files at each snapshot. */
  trees: { m1: Tree; m2: Tree; m3: Tree };
  /** The arguments that name the session's source: `--session <id> --store fs:<folder>` or `--claude <folder>`. */
  sourceArgs: string[];
  /** The store folder (fh) or the Claude Code config folder. */
  dataFolder: string;
}

/** Options of {@link worktreeSession}. */
export interface WorktreeSessionOptions {
  /** `inside`: `<repo>/.claude/worktrees/feature` (Claude Code's place); `sibling`: `<root>/repo-feature`. Default inside. */
  layout?: 'inside' | 'sibling';
  /**
   * fh flavour: the project root the session's `fh-session` record names: the worktree (default),
   * the main checkout around it, or no record at all.
   */
  projectRoot?: 'worktree' | 'repository' | 'unrecorded';
  /**
   * `fh` (default) or `claude`. Claude Code: `start` means the session was launched in the
   * worktree (`claude -w`); `mid` that it began in the main checkout, took snapshot m0 there and
   * entered the worktree afterwards.
   */
  flavour?: 'fh' | 'claude-start' | 'claude-mid';
}

const SESSION_ID = '0f5b3c1e-8d2a-4c6b-9e7f-1a2b3c4d5e6f';

async function write(path: string, content: string | Uint8Array, mode?: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
  if (mode !== undefined) await chmod(path, mode);
}

/** A repository with three committed files on `main`; returns the repo folder and its HEAD. */
export async function makeRepository(root: string): Promise<{ repo: string; head: string }> {
  const repo = join(root, 'repo');
  await mkdir(repo);
  git(repo, ['init', '-q', '-b', 'main']);
  await write(join(repo, 'README.md'), '# demo\n');
  await write(join(repo, 'src/app.ts'), 'export const answer = 41;\n');
  await write(join(repo, 'run.sh'), '#!/bin/sh\necho hi\n', 0o755);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'initial']);
  return { repo, head: git(repo, ['rev-parse', 'HEAD']) };
}

/** Bytes of a small binary file (every byte value, NULs included). */
export const BINARY = Uint8Array.from({ length: 1024 }, (_, index) => (index * 37) % 256);

/** Run the session described in the module comment; the worktree is left in place. */
export async function worktreeSession(options: WorktreeSessionOptions = {}): Promise<WorktreeFixture> {
  const root = await tempFolder();
  const home = join(root, 'home');
  await mkdir(home);
  const { repo, head } = await makeRepository(root);
  const worktreePath = options.layout === 'sibling' ? join(root, 'repo-feature') : join(repo, '.claude', 'worktrees', 'feature');
  const branch = 'worktree-feature';
  git(repo, ['worktree', 'add', '-q', '-b', branch, worktreePath]);
  const worktree: WorktreeSession = {
    originalCwd: repo,
    worktreePath,
    worktreeName: 'feature',
    worktreeBranch: branch,
    originalBranch: 'main',
    originalHeadCommit: head,
  };

  const flavour = options.flavour ?? 'fh';
  const dataFolder = join(root, flavour === 'fh' ? 'store' : 'claude');
  const store: BackupStore = new FsBackupStore({ root: dataFolder });
  let log: SessionLog;
  let projectRoot = worktreePath;
  if (flavour === 'fh') {
    log = store.sessionLog(SESSION_ID);
    if (options.projectRoot === 'repository') projectRoot = repo;
    if (options.projectRoot !== 'unrecorded') await log.append([fhSessionRecord({ sessionId: SESSION_ID, projectRoot, createdAt: new Date() })]);
  } else {
    log = new FsSessionLog(fsPromises, join(dataFolder, 'projects', claudeProjectSlug(repo), `${SESSION_ID}.jsonl`));
  }

  let parentUuid: string | null = null;
  const prompt = async (uuid: string, text: string, cwd: string): Promise<void> => {
    if (flavour === 'fh') return;
    await log.append([userMessageRecord({ uuid, parentUuid, sessionId: SESSION_ID, text, timestamp: new Date(), cwd })]);
    await log.append([
      {
        type: 'assistant',
        uuid: `${uuid}-reply`,
        parentUuid: uuid,
        sessionId: SESSION_ID,
        cwd,
        message: { role: 'assistant', content: [{ type: 'text', text: 'on it' }] },
        timestamp: new Date().toISOString(),
      },
    ]);
    parentUuid = `${uuid}-reply`;
  };

  if (flavour === 'claude-mid') {
    await prompt('m0', 'look around first', repo);
    await log.append([snapshotRecord({ messageId: 'm0', trackedFileBackups: {}, timestamp: new Date() }, false) as unknown as LogRecord]);
  }
  await log.append([worktreeStateRecord(SESSION_ID, worktree)]);
  if (flavour !== 'fh') await log.append([{ type: 'summary', summary: 'Worktree session', leafUuid: 'm0' }]);

  const history = await FileHistory.open({ projectRoot, sessionId: SESSION_ID, store, log });
  const inWorktree = (path: string): string => join(worktreePath, path);

  await prompt('m1', 'make the answer 42 and write a plan', worktreePath);
  await history.makeSnapshot('m1');
  const m1 = await readTree(worktreePath);
  await history.trackEdit(inWorktree('src/app.ts'));
  await write(inWorktree('src/app.ts'), 'export const answer = 42;\n');
  await history.trackEdit(inWorktree('notes/plan.md'));
  await write(inWorktree('notes/plan.md'), '# plan\n- step one\n');
  await write(inWorktree('CHANGELOG.md'), '## next\n- answer is 42\n');
  git(worktreePath, ['add', 'CHANGELOG.md']);
  git(worktreePath, ['commit', '-q', '-m', 'changelog']);

  await prompt('m2', 'tidy up', worktreePath);
  await history.makeSnapshot('m2');
  const m2 = await readTree(worktreePath);
  await history.trackEdit(inWorktree('run.sh'));
  await write(inWorktree('run.sh'), '#!/bin/sh\necho hello\n', 0o700);
  await history.trackEdit(inWorktree('README.md'));
  await unlink(inWorktree('README.md'));
  await history.trackEdit(inWorktree('data.bin'));
  await write(inWorktree('data.bin'), BINARY, 0o600);
  await history.trackEdit(inWorktree('src/app.ts'));
  await write(inWorktree('src/app.ts'), 'export const answer = 43;\n');

  await prompt('m3', 'what next?', worktreePath);
  await history.makeSnapshot('m3');
  const m3 = await readTree(worktreePath);
  await history.close();

  const sourceArgs = flavour === 'fh' ? ['--session', SESSION_ID, '--store', `fs:${dataFolder}`] : ['--session', SESSION_ID, '--claude', dataFolder];
  return { home, repo, worktreePath, branch, originalHead: head, sessionId: SESSION_ID, worktreeSession: worktree, trees: { m1, m2, m3 }, sourceArgs, dataFolder };
}

/** `git worktree list --porcelain` of the repository, for before/after comparisons. */
export function worktreeList(repo: string): string {
  return git(repo, ['worktree', 'list', '--porcelain']);
}

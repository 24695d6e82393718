/**
 * The two-process test (issue 3): process 1 tracks, edits and snapshots over several turns in a
 * real folder with FsBackupStore and exits; process 2 resumes into a new session id and rewinds to
 * process 1's first turn. Exact bytes and modes; repeated with process 2 (and process 1) started
 * from other current folders. The children run the packages' sources through tsx.
 */
import { FileHistory, LockedError } from '@fh/core';
import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { listTree, temporaryFolder } from './helpers.js';

const run = promisify(execFile);
const TSX = fileURLToPath(new URL('../../../node_modules/.bin/tsx', import.meta.url));
const CHILDREN = fileURLToPath(new URL('./two-process/', import.meta.url));
const TSCONFIG = join(CHILDREN, 'tsconfig.json');

const OLD_SESSION = 'a0a0a0a0-0000-4000-8000-000000000001';
const NEW_SESSION = 'b0b0b0b0-0000-4000-8000-000000000002';

const ORIGINAL = {
  'src/app.ts': { content: 'console.log("v0");\n', mode: 0o644 },
  'bin/run.sh': { content: '#!/bin/sh\necho original\n', mode: 0o755 },
  'README.md': { content: 'not tracked\n', mode: 0o600 },
} as const;

async function child(script: string, args: string[], cwd: string): Promise<string> {
  const { stdout } = await run(TSX, ['--tsconfig', TSCONFIG, join(CHILDREN, script), ...args], { cwd, env: { ...process.env, FH_DISABLE_FILE_CHECKPOINTING: '' } });
  return stdout;
}

async function writeProject(projectRoot: string): Promise<void> {
  for (const [path, { content, mode }] of Object.entries(ORIGINAL)) {
    await mkdir(join(projectRoot, path, '..'), { recursive: true });
    await writeFile(join(projectRoot, path), content);
    await chmod(join(projectRoot, path), mode);
  }
}

/** Every file of a folder with its bytes (hex) and permission bits. */
async function filesOf(folder: string): Promise<Record<string, { hex: string; mode: number }>> {
  const files: Record<string, { hex: string; mode: number }> = {};
  for (const path of await listTree(folder)) {
    const stats = await stat(join(folder, path));
    if (stats.isFile()) files[path] = { hex: (await readFile(join(folder, path))).toString('hex'), mode: stats.mode & 0o7777 };
  }
  return files;
}

async function inodes(folder: string): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const name of await readdir(folder)) result[name] = (await stat(join(folder, name))).ino;
  return result;
}

async function scenario(options: { firstCwd: (projectRoot: string, elsewhere: string) => string; secondCwd: (projectRoot: string, elsewhere: string) => string }) {
  const base = await temporaryFolder();
  const projectRoot = join(base, 'project');
  const storeRoot = join(base, 'store');
  const elsewhere = join(base, 'elsewhere', 'deeper');
  await mkdir(elsewhere, { recursive: true });
  await writeProject(projectRoot);
  const expected = await filesOf(projectRoot);

  const first = JSON.parse(await child('record-turns.ts', [storeRoot, projectRoot, OLD_SESSION], options.firstCwd(projectRoot, elsewhere)));
  expect(first).toEqual({ snapshots: ['turn-1', 'turn-2', 'turn-3', 'turn-4'] });
  expect(await readFile(join(projectRoot, 'src/app.ts'), 'utf8')).toBe('console.log("turn 3, longer");\n');
  const oldFolder = join(storeRoot, 'file-history', OLD_SESSION);
  const oldBackups = await filesOf(oldFolder);
  const oldInodes = await inodes(oldFolder);

  const secondCwd = options.secondCwd(projectRoot, elsewhere);
  const second = JSON.parse(await child('resume-and-rewind.ts', [storeRoot, projectRoot, OLD_SESSION, NEW_SESSION, 'turn-1'], secondCwd));
  return { projectRoot, storeRoot, expected, first, second, secondCwd, oldFolder, oldBackups, oldInodes };
}

async function expectResumedRewind(result: Awaited<ReturnType<typeof scenario>>) {
  const { projectRoot, storeRoot, expected, second, oldFolder, oldBackups, oldInodes } = result;
  expect(second.cwd).toBe(result.secondCwd);
  expect(second.canRestore).toBe(true);
  expect(second.diffStats.filesChanged).toEqual(['bin/run.sh', 'data.bin', 'notes/new.txt', 'src/app.ts']);
  expect(second.rewind.restored.sort()).toEqual(['bin/run.sh', 'src/app.ts']);
  expect(second.rewind.deleted.sort()).toEqual(['data.bin', 'notes/new.txt']);
  expect(second.rewind.skipped).toEqual([]);
  expect(second.rewind.failed).toEqual([]);
  expect(second.resume.missing).toEqual([]);
  expect(second.resume.copied).toEqual([]);
  expect(second.resume.linked.length).toBeGreaterThan(0);
  expect(second.snapshots).toEqual(['turn-1', 'turn-2', 'turn-3', 'turn-4', 'resumed-turn']);

  expect(await filesOf(projectRoot)).toEqual(expected);
  // notes/ was made in turn 1, after the state rewound to: emptied by the rewind, it goes too.
  expect(await listTree(projectRoot)).toEqual(['README.md', 'bin', 'bin/run.sh', 'src', 'src/app.ts']);

  expect(await filesOf(oldFolder)).toEqual(oldBackups);
  expect(await inodes(oldFolder)).toEqual(oldInodes);
  const newFolder = join(storeRoot, 'file-history', NEW_SESSION);
  const newInodes = await inodes(newFolder);
  for (const name of second.resume.linked as string[]) expect(newInodes[name]).toBe(oldInodes[name]);
  const madeAfterResume = Object.keys(newInodes).filter((name) => oldInodes[name] === undefined);
  expect(madeAfterResume.length).toBeGreaterThan(0);
  const highestOld = (prefix: string) => Math.max(...Object.keys(oldInodes).filter((name) => name.startsWith(prefix)).map((name) => Number(name.split('@v')[1])));
  for (const name of madeAfterResume) {
    const [prefix, version] = name.split('@v') as [string, string];
    expect(Number(version)).toBeGreaterThan(highestOld(prefix));
  }
  const appEntry = second.after.trackedFileBackups['src/app.ts'];
  const appBackup = await readFile(join(newFolder, appEntry.backupFileName), 'utf8');
  expect(appBackup).toBe(ORIGINAL['src/app.ts'].content);
}

describe('two processes: record in one, resume and rewind in another', () => {
  it('restores the first turn exactly (bytes and modes) from a resumed session', async () => {
    await expectResumedRewind(await scenario({ firstCwd: (projectRoot) => projectRoot, secondCwd: (projectRoot) => projectRoot }));
  });

  it('does the same when each process runs from a different current folder', async () => {
    await expectResumedRewind(
      await scenario({ firstCwd: (projectRoot) => join(projectRoot, 'src'), secondCwd: (_projectRoot, elsewhere) => elsewhere }),
    );
  });

  it('refuses to open a session another process has open, with a clear error', async () => {
    const base = await temporaryFolder();
    const projectRoot = join(base, 'project');
    const storeRoot = join(base, 'store');
    await mkdir(projectRoot, { recursive: true });
    const holder = spawn(TSX, ['--tsconfig', TSCONFIG, join(CHILDREN, 'hold-history.ts'), storeRoot, projectRoot, OLD_SESSION], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (data: Buffer) => {
          if (data.toString().includes('open')) resolve();
        });
        holder.on('exit', (code) => reject(new Error(`holder exited early with ${String(code)}`)));
      });
      const store = new FsBackupStore({ root: storeRoot });
      const error = await FileHistory.open({ projectRoot, sessionId: OLD_SESSION, store }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LockedError);
      expect((error as Error).message).toBe(
        `session "${OLD_SESSION}" is locked: another process or handle has it open (${join(storeRoot, 'locks', `${OLD_SESSION}.lock`)}); a lock left by a process that died goes stale after 10 s`,
      );
    } finally {
      holder.stdin.end();
      await new Promise((resolve) => holder.on('exit', resolve));
    }
    const history = await FileHistory.open({ projectRoot, sessionId: OLD_SESSION, store: new FsBackupStore({ root: storeRoot }) });
    await history.close();
  });
});

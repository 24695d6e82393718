/**
 * Helpers for the end-to-end tests: run the built `fh-worktree-restore` as a subprocess with a
 * clean environment (HOME in a temp folder), temp folders removed after each test file, the real
 * git binary with a fixed identity and no user or system config, and reading a folder's files with
 * their exact bytes and permission bits.
 */
import { execFileSync, spawn } from 'node:child_process';
import { lstat, mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

/** The built binary the tests run. */
export const binaryPath = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** What one run gave. */
export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const cleanups: string[] = [];
afterAll(async () => {
  await Promise.all(cleanups.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A new empty temp folder (its real path), removed after the test file. */
export async function tempFolder(prefix = 'fh-worktree-test-'): Promise<string> {
  const folder = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  cleanups.push(folder);
  return folder;
}

/** git's environment in tests: fixed identity and dates source, no user or system config. */
export const gitEnvironment: Record<string, string> = {
  GIT_AUTHOR_NAME: 'fh test',
  GIT_AUTHOR_EMAIL: 'fh@example.com',
  GIT_COMMITTER_NAME: 'fh test',
  GIT_COMMITTER_EMAIL: 'fh@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

function cleanEnvironment(home: string): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (key.startsWith('FH_') || key.startsWith('CLAUDE_') || key.startsWith('GIT_') || key.startsWith('VITEST') || key === 'NODE_OPTIONS') continue;
    environment[key] = value;
  }
  return { ...environment, ...gitEnvironment, HOME: home };
}

/** Run git synchronously in `cwd`; returns trimmed stdout. */
export function git(cwd: string, args: readonly string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...gitEnvironment }, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Run `node dist/cli.js <args>` and collect its output and exit code. */
export function runTool(args: readonly string[], options: { home: string; cwd?: string; env?: Record<string, string> }): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [binaryPath, ...args], {
      cwd: options.cwd ?? options.home,
      env: { ...cleanEnvironment(options.home), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolvePromise({ exitCode: code ?? -1, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') }),
    );
  });
}

/** Run with `--json` and parse stdout, which must be exactly one JSON document. */
export async function runJson<T = Record<string, unknown>>(
  args: readonly string[],
  options: { home: string; cwd?: string; env?: Record<string, string> },
): Promise<{ result: RunResult; json: T }> {
  const result = await runTool([...args, '--json'], options);
  try {
    return { result, json: JSON.parse(result.stdout) as T };
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${result.exitCode}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

/** One file as read back: its bytes (base64, so binary compares exactly) and permission bits. */
export interface FileState {
  base64: string;
  mode: number;
}

/** Every regular file under `root` except `.git`: relative path → bytes and mode. Symlinks are listed as `symlink`. */
export async function readTree(root: string): Promise<Record<string, FileState | 'symlink'>> {
  const result: Record<string, FileState | 'symlink'> = {};
  const walk = async (folder: string): Promise<void> => {
    for (const entry of (await readdir(folder, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(folder, entry.name);
      if (entry.name === '.git') continue;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isSymbolicLink()) result[relative(root, path)] = 'symlink';
      else if (entry.isFile()) {
        const stats = await lstat(path);
        result[relative(root, path)] = { base64: (await readFile(path)).toString('base64'), mode: stats.mode & 0o7777 };
      }
    }
  };
  await walk(root);
  return result;
}

/** Whether anything is at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

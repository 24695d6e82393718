/**
 * Helpers for the CLI's end-to-end tests: run the built `fh` as a subprocess with a clean
 * environment (HOME in a temp folder, so the real ~/.fh and ~/.claude are never touched), make
 * temp folders that are removed after the test file, write and read real files, build git repos.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

/** The built binary the tests run. */
export const cliPath = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** The root of this repository (the fh monorepo), found relative to this file. */
export const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');

/** What one run of `fh` gave. */
export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCli}. */
export interface RunOptions {
  cwd?: string;
  /** Extra environment variables (on top of the clean base: PATH, HOME, no FH_*, no colour settings). */
  env?: Record<string, string | undefined>;
  /** Bytes for stdin (default: empty stdin, closed at once). */
  input?: string;
}

const cleanups: string[] = [];
afterAll(async () => {
  await Promise.all(cleanups.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A new empty temp folder (real path), removed after the test file. */
export async function tempFolder(prefix = 'fh-cli-test-'): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(folder);
  return folder;
}

/**
 * The base environment of every run: no FH_*, CLAUDE_* or colour variables leak in from the test
 * runner, and PATH holds only node and the system folders (no node_modules/.bin with an `fh`).
 */
export function baseEnvironment(home: string): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (key.startsWith('FH_') || key.startsWith('CLAUDE_') || key === 'NO_COLOR' || key === 'FORCE_COLOR' || key === 'CI') continue;
    if (key.startsWith('VITEST') || key === 'NODE_OPTIONS') continue;
    environment[key] = value;
  }
  environment.HOME = home;
  environment.PATH = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
  return environment;
}

/** Run `node dist/cli.js <args>` and collect its output and exit code. */
export function runCli(args: readonly string[], options: RunOptions & { home: string }): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const environment: Record<string, string> = baseEnvironment(options.home);
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete environment[key];
      else environment[key] = value;
    }
    const child = spawn(process.execPath, [cliPath, ...args], { cwd: options.cwd ?? options.home, env: environment, stdio: 'pipe' });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolvePromise({ exitCode: code ?? -1, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') }),
    );
    child.stdin.end(options.input ?? '');
  });
}

/**
 * A sandbox for one test: a HOME, a project folder and a store folder, and `fh` bound to them
 * (`--store fs:<store>` and `--project <project>` are passed unless the test gives its own).
 */
export interface Sandbox {
  home: string;
  project: string;
  store: string;
  /** Run fh with `--store` and `--project` of this sandbox, in the project folder. */
  fh(args: readonly string[], options?: RunOptions): Promise<CliResult>;
  /** Run fh with `--json` and parse stdout (which must be exactly one JSON document). */
  fhJson<T = unknown>(args: readonly string[], options?: RunOptions): Promise<{ result: CliResult; json: T }>;
}

/** Make a {@link Sandbox}. */
export async function sandbox(): Promise<Sandbox> {
  const root = await tempFolder();
  const home = join(root, 'home');
  const project = join(root, 'project');
  const store = join(root, 'store');
  await mkdir(home);
  await mkdir(project);
  const fh = (args: readonly string[], options: RunOptions = {}): Promise<CliResult> =>
    runCli(['--store', `fs:${store}`, '--project', project, ...args], { cwd: project, ...options, home });
  return {
    home,
    project,
    store,
    fh,
    async fhJson<T>(args: readonly string[], options: RunOptions = {}) {
      const result = await fh(['--json', ...args], options);
      let json: T;
      try {
        json = JSON.parse(result.stdout) as T;
      } catch {
        throw new Error(`stdout is not one JSON document (exit ${result.exitCode}):\n${result.stdout}\nstderr:\n${result.stderr}`);
      }
      return { result, json };
    },
  };
}

/** A file to write: its text (or bytes) and optional permission bits. */
export type FileSpec = string | Uint8Array | { content: string | Uint8Array; mode?: number };

/** Write files under `root` (creating folders); paths use `/`. */
export async function writeFiles(root: string, files: Record<string, FileSpec>): Promise<void> {
  for (const [path, spec] of Object.entries(files)) {
    const absolute = join(root, path);
    await mkdir(dirname(absolute), { recursive: true });
    const content = typeof spec === 'string' || spec instanceof Uint8Array ? spec : spec.content;
    await writeFile(absolute, content);
    const mode = typeof spec === 'object' && !(spec instanceof Uint8Array) ? spec.mode : undefined;
    if (mode !== undefined) await chmod(absolute, mode);
  }
}

/** Every regular file under `root` (skipping `skip` folder names): path → text and permission bits. */
export async function readTree(root: string, skip: readonly string[] = ['.git', '.claude']): Promise<Record<string, { content: string; mode: number }>> {
  const result: Record<string, { content: string; mode: number }> = {};
  const walk = async (folder: string): Promise<void> => {
    for (const entry of (await readdir(folder, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!skip.includes(entry.name)) await walk(path);
      } else if (entry.isFile()) {
        const stats = await lstat(path);
        result[relative(root, path)] = { content: await readFile(path, 'utf8'), mode: stats.mode & 0o777 };
      }
    }
  };
  await walk(root);
  return result;
}

/** Run git synchronously in `cwd` with a fixed identity; returns trimmed stdout. */
export function git(cwd: string, args: readonly string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'fh test',
      GIT_AUTHOR_EMAIL: 'fh@example.com',
      GIT_COMMITTER_NAME: 'fh test',
      GIT_COMMITTER_EMAIL: 'fh@example.com',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
    },
  }).trim();
}

/** Run a shell-free command and resolve with its stdout. */
export function run(command: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(command, args, { cwd, encoding: 'utf8' }, (error, stdout) => (error ? reject(error) : resolvePromise(stdout)));
  });
}

/**
 * A git repository whose history has every kind of change the demo replays: added, modified,
 * deleted, renamed (with and without edits), executable bit on and off, a binary file, a symlink
 * (skipped), a folder that becomes a file and back, and a merge on the first-parent chain.
 * Returns its folder.
 */
export async function makeScenarioRepository(): Promise<string> {
  const repository = await tempFolder('fh-demo-repo-');
  const commit = (message: string): void => {
    git(repository, ['add', '-A']);
    git(repository, ['commit', '-q', '-m', message]);
  };
  git(repository, ['init', '-q', '-b', 'main']);
  await writeFiles(repository, {
    'a.txt': 'one\ntwo\n',
    'bin/run.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 },
    'docs/readme.md': '# docs\n',
    'src/x.ts': 'export const x = 1;\n',
  });
  await symlink('a.txt', join(repository, 'link'));
  commit('root: files, an executable, a symlink');
  await writeFiles(repository, { 'a.txt': 'one\nTWO\nthree\n', 'bin/run.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o644 } });
  commit('modify a.txt, executable bit off');
  git(repository, ['mv', 'docs/readme.md', 'docs/README.md']);
  await writeFiles(repository, { 'data.bin': new Uint8Array([0x62, 0x00, 0xff, 0x01]) });
  commit('rename docs, add a binary file');
  git(repository, ['mv', 'src/x.ts', 'src/y.ts']);
  await writeFiles(repository, { 'src/y.ts': 'export const x = 1;\nexport const y = 2;\n' });
  git(repository, ['rm', '-q', 'data.bin']);
  commit('rename with edits, delete the binary file');
  await unlink(join(repository, 'link'));
  await symlink('docs/README.md', join(repository, 'link'));
  await writeFiles(repository, { 'tool.sh': { content: '#!/bin/sh\n', mode: 0o755 }, 'bin/run.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 } });
  commit('retarget the symlink, executable bits on');
  await rm(join(repository, 'bin'), { recursive: true });
  await writeFiles(repository, { bin: 'bin is one file now\n' });
  commit('a folder becomes a file: bin');
  await unlink(join(repository, 'bin'));
  await writeFiles(repository, { 'bin/run.sh': { content: '#!/bin/sh\necho again\n', mode: 0o755 } });
  commit('a file becomes a folder: bin');
  await writeFiles(repository, { 'a.txt': '' });
  commit('empty a.txt');
  git(repository, ['checkout', '-q', '-b', 'side']);
  await writeFiles(repository, { 'side.txt': 'side\n' });
  commit('side work');
  git(repository, ['checkout', '-q', 'main']);
  await writeFiles(repository, { 'main.txt': 'main\n' });
  commit('main work');
  git(repository, ['merge', '-q', '--no-ff', 'side', '-m', 'merge side']);
  await writeFiles(repository, { 'main.txt': 'main\nafter\n' });
  commit('after the merge');
  return repository;
}

/**
 * A git repository with `count` commits, each rewriting 20 files of 200 lines (made with
 * `git fast-import`, so building it takes a moment). Returns its folder.
 */
export async function makeLongRepository(count: number): Promise<string> {
  const repository = await tempFolder('fh-demo-long-');
  git(repository, ['init', '-q', '-b', 'main']);
  const chunks: string[] = [];
  for (let commit = 1; commit <= count; commit += 1) {
    const message = `commit ${commit}`;
    chunks.push(`commit refs/heads/main\ncommitter fh test <fh@example.com> ${1_700_000_000 + commit} +0000\ndata ${message.length}\n${message}\n`);
    for (let file = 0; file < 20; file += 1) {
      const body = Array.from({ length: 200 }, (_, line) => `file ${file} line ${line} version ${line % 10 === commit % 10 ? commit : 0}`).join('\n') + '\n';
      chunks.push(`M 100644 inline src/file-${file}.txt\ndata ${Buffer.byteLength(body)}\n${body}\n`);
    }
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: repository, input: chunks.join('') });
  git(repository, ['checkout', '-q', 'main']);
  return repository;
}

/**
 * The real `git` binary, run for the command window: `status --porcelain=v2 -z` against a saved
 * copy of the index (`GIT_INDEX_FILE`), and `cat-file --batch` for blobs. Every call passes
 * `--no-optional-locks`, so git never refreshes (writes) an index, and the user's `.git` is only
 * read. Variables that would point git elsewhere (`GIT_DIR`, `GIT_INDEX_FILE`, `GIT_WORK_TREE`,
 * ...) are removed from the environment first.
 */
import { spawn } from 'node:child_process';

/** A finished git call. */
export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** The environment for git: the process's, without the variables that redirect git, plus `extra`. */
export function gitEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['GIT_DIR', 'GIT_INDEX_FILE', 'GIT_WORK_TREE', 'GIT_OBJECT_DIRECTORY', 'GIT_COMMON_DIR', 'GIT_PREFIX']) delete environment[name];
  return { ...environment, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', ...extra };
}

/** Run `git args…` in `cwd`, feeding `input` on stdin; resolves with the exit code and output (never rejects on a non-zero exit). */
export function runGit(gitBinary: string, cwd: string, args: readonly string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(gitBinary, ['--no-optional-locks', ...args], { cwd, env: gitEnvironment(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString('utf8') }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** One entry of `git status --porcelain=v2 -z`, paths relative to the top of the work tree. */
export type StatusEntry =
  /** Changed tracked entry (`1`); `worktree` is the Y column (`.` = work tree equals the index). */
  | { kind: 'changed'; path: string; worktree: string; submodule: boolean; indexMode: number; indexBlob: string }
  /** Unmerged entry (`u`). */
  | { kind: 'unmerged'; path: string }
  /** Untracked (`?`). */
  | { kind: 'untracked'; path: string }
  /** Ignored (`!`); a folder ends with `/`. */
  | { kind: 'ignored'; path: string };

/**
 * Parse `git status --porcelain=v2 -z --no-renames` output. Throws on a line it does not know
 * (a rename record `2`, which `--no-renames` rules out, included).
 */
export function parseStatus(output: Buffer): StatusEntry[] {
  const entries: StatusEntry[] = [];
  const text = output.toString('utf8');
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf('\0', start);
    const line = text.slice(start, end === -1 ? text.length : end);
    start = end === -1 ? text.length : end + 1;
    if (line === '') continue;
    const kind = line[0];
    if (kind === '1') {
      // 1 XY sub mH mI mW hH hI path
      const fields = splitFields(line, 8);
      const [, xy, sub, , mI, , , hI, path] = fields;
      entries.push({ kind: 'changed', path: path as string, worktree: (xy as string)[1] ?? '.', submodule: (sub as string)[0] === 'S', indexMode: Number.parseInt(mI as string, 8), indexBlob: hI as string });
    } else if (kind === 'u') {
      // u XY sub m1 m2 m3 mW h1 h2 h3 path
      entries.push({ kind: 'unmerged', path: splitFields(line, 10)[10] as string });
    } else if (kind === '?') {
      entries.push({ kind: 'untracked', path: line.slice(2) });
    } else if (kind === '!') {
      entries.push({ kind: 'ignored', path: line.slice(2) });
    } else if (kind !== '#') {
      throw new Error(`git status printed a line fh does not read: ${JSON.stringify(line.slice(0, 80))}`);
    }
  }
  return entries;
}

/** Split `line` into `count` space-separated fields and the rest (a path may hold spaces). */
function splitFields(line: string, count: number): string[] {
  const fields: string[] = [];
  let start = 0;
  for (let index = 0; index < count; index += 1) {
    const space = line.indexOf(' ', start);
    if (space === -1) throw new Error(`git status line has too few fields: ${JSON.stringify(line.slice(0, 80))}`);
    fields.push(line.slice(start, space));
    start = space + 1;
  }
  fields.push(line.slice(start));
  return fields;
}

/**
 * Read blobs with one `git cat-file --batch`: for each id, its bytes, or `undefined` when it is
 * larger than `maxBytes` (its bytes are skipped, never kept). Throws naming the id when git does
 * not have it.
 */
export async function readBlobs(gitBinary: string, cwd: string, blobIds: readonly string[], maxBytes: number, onBlob: (index: number, bytes: Buffer | undefined) => Promise<void>): Promise<void> {
  if (blobIds.length === 0) return;
  const child = spawn(gitBinary, ['--no-optional-locks', 'cat-file', '--batch'], { cwd, env: gitEnvironment(), stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.on('error', () => undefined);
  child.stdin.end(`${blobIds.join('\n')}\n`);
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
  // Awaited only after stdout ends; until then a spawn failure (the folder is gone) must not be
  // an unhandled rejection that ends the embedding process.
  exited.catch(() => undefined);
  // Bytes not consumed yet: `parts` (concatenated only once a whole header or blob is there, so
  // a large blob is copied once, not once per chunk). A blob over `maxBytes` is counted and dropped.
  let parts: Buffer[] = [];
  let available = 0;
  let index = 0;
  let pending: { size: number; keep: boolean; skipped: number } | undefined;
  const take = (count: number): Buffer => {
    const whole = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, available);
    parts = whole.length > count ? [whole.subarray(count)] : [];
    available -= count;
    return whole.subarray(0, count);
  };
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    parts.push(chunk);
    available += chunk.length;
    for (;;) {
      if (pending === undefined) {
        const whole = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, available);
        parts = whole.length === 0 ? [] : [whole];
        const newline = whole.indexOf(0x0a);
        if (newline === -1) break;
        const header = take(newline + 1).subarray(0, newline).toString('utf8');
        const [id, type, size] = header.split(' ');
        if (type !== 'blob' || size === undefined) {
          child.kill();
          throw new Error(`git cat-file has no blob ${blobIds[index] ?? id}: ${header}`);
        }
        pending = { size: Number(size), keep: Number(size) <= maxBytes, skipped: 0 };
      }
      if (!pending.keep && pending.skipped < pending.size) {
        const drop = Math.min(available, pending.size - pending.skipped);
        take(drop);
        pending.skipped += drop;
        if (pending.skipped < pending.size) break;
      }
      const needed = pending.keep ? pending.size + 1 : 1;
      if (available < needed) break;
      const taken = take(needed);
      const bytes = pending.keep ? Buffer.from(taken.subarray(0, pending.size)) : undefined;
      pending = undefined;
      await onBlob(index, bytes);
      index += 1;
    }
  }
  const code = await exited;
  if (code !== 0 || index !== blobIds.length) throw new Error(`git cat-file --batch failed (exit ${code}): ${Buffer.concat(stderr).toString('utf8').trim()}`);
}

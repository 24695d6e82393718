/**
 * The little of git that `fh demo` needs, run through the real `git` binary: the repository root,
 * the commits to replay, tree listings, tree-to-tree changes with line counts, and blob bytes
 * (one long-lived `git cat-file --batch` process).
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { UsageError } from '../cli-errors.js';

/** git modes of the entries the demo replays (regular files) and skips (symlinks, submodules). */
export const GitMode = { file: '100644', executable: '100755', symlink: '120000', submodule: '160000' } as const;

/** One commit to replay. */
export interface CommitInfo {
  /** Full object id. */
  id: string;
  /** Parent ids (first parent first); empty for a root commit. */
  parents: string[];
  /** First line of the message. */
  subject: string;
}

/** One entry of a tree listing. */
export interface TreeEntry {
  /** git mode, e.g. `100644`. */
  mode: string;
  /** Blob (or commit, for a submodule) id. */
  id: string;
}

/** One path a tree-to-tree diff changes (`git diff-tree --raw -M`). */
export interface TreeChange {
  /** `A` added, `D` deleted, `M` modified (content or mode), `T` type changed, `R` renamed. */
  status: 'A' | 'D' | 'M' | 'T' | 'R';
  /** The path before (renames) or the path. */
  fromPath: string;
  /** The path after; equal to `fromPath` except for renames. */
  toPath: string;
  fromMode: string;
  toMode: string;
  /** Blob id after the change (all zeros when deleted). */
  toId: string;
}

/** Runs git commands in one repository. */
export class Git {
  constructor(readonly repositoryRoot: string) {}

  /** Run `git <arguments>` in the repository; resolves with stdout bytes, rejects with git's stderr. */
  run(arguments_: readonly string[]): Promise<Buffer> {
    return runGit(this.repositoryRoot, arguments_);
  }

  /** Run and decode as UTF-8, without the trailing newline. */
  async text(arguments_: readonly string[]): Promise<string> {
    return (await this.run(arguments_)).toString('utf8').replace(/\n$/, '');
  }

  /** `sha1` or `sha256`: how this repository names objects. */
  async objectFormat(): Promise<'sha1' | 'sha256'> {
    const format = await this.text(['rev-parse', '--show-object-format']);
    return format === 'sha256' ? 'sha256' : 'sha1';
  }

  /** The id of the empty tree (the "parent" of a root commit). */
  emptyTreeId(): Promise<string> {
    return this.text(['hash-object', '-t', 'tree', '/dev/null']);
  }

  /** Whether an object exists locally (false past a shallow clone's boundary). */
  async hasObject(id: string): Promise<boolean> {
    try {
      await this.run(['cat-file', '-e', `${id}^{commit}`]);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The newest `count` non-merge commits along the first-parent chain of HEAD, oldest first.
   * Fewer when the history is shorter.
   */
  async listCommits(count: number): Promise<CommitInfo[]> {
    const output = await this.run(['log', '--first-parent', '--no-merges', `--max-count=${count}`, '-z', '--format=%H%x1f%P%x1f%s', 'HEAD']);
    return output
      .toString('utf8')
      .split('\0')
      .filter((record) => record.trim() !== '')
      .map((record) => {
        const [id = '', parents = '', subject = ''] = record.replace(/^\n/, '').split('\x1f');
        return { id, parents: parents.split(' ').filter((parent) => parent !== ''), subject };
      })
      .reverse();
  }

  /** Every entry of a tree (recursively), by path. */
  async listTree(treeish: string): Promise<Map<string, TreeEntry>> {
    const output = (await this.run(['ls-tree', '-r', '-z', '--full-tree', treeish])).toString('utf8');
    const entries = new Map<string, TreeEntry>();
    for (const record of output.split('\0')) {
      if (record === '') continue;
      const tab = record.indexOf('\t');
      const [mode = '', , id = ''] = record.slice(0, tab).split(' ');
      entries.set(record.slice(tab + 1), { mode, id });
    }
    return entries;
  }

  /** What changes from one tree to another (renames detected), in git's order. */
  async diffTrees(from: string, to: string): Promise<TreeChange[]> {
    const fields = (await this.run(['diff-tree', '-r', '-z', '-M', '--raw', '--no-commit-id', from, to])).toString('utf8').split('\0');
    const changes: TreeChange[] = [];
    for (let index = 0; index < fields.length; ) {
      const header = fields[index++] ?? '';
      if (header === '') continue;
      const [fromMode = '', toMode = '', , toId = '', statusField = ''] = header.slice(1).split(' ');
      const status = statusField.charAt(0) as TreeChange['status'];
      const fromPath = fields[index++] ?? '';
      const toPath = status === 'R' ? (fields[index++] ?? '') : fromPath;
      changes.push({ status, fromPath, toPath, fromMode, toMode, toId });
    }
    return changes;
  }

  /** Lines added and deleted from one tree to another (binary files count 0). */
  async lineCounts(from: string, to: string): Promise<{ insertions: number; deletions: number }> {
    const fields = (await this.run(['diff-tree', '-r', '-z', '-M', '--numstat', '--no-commit-id', from, to])).toString('utf8').split('\0');
    let insertions = 0;
    let deletions = 0;
    for (const field of fields) {
      const match = /^(\d+|-)\t(\d+|-)\t/.exec(field);
      if (match === null) continue;
      insertions += match[1] === '-' ? 0 : Number(match[1]);
      deletions += match[2] === '-' ? 0 : Number(match[2]);
    }
    return { insertions, deletions };
  }
}

function runGit(cwd: string, arguments_: readonly string[]): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    execFile('git', arguments_, { cwd, encoding: 'buffer', maxBuffer: 1 << 30 }, (error, stdout, stderr) => {
      if (error) {
        const message = stderr.toString('utf8').trim() || error.message;
        reject(new Error(`git ${arguments_.join(' ')}: ${message}`));
      } else {
        resolvePromise(stdout);
      }
    });
  });
}

/**
 * The root of the git repository around `folder`. Throws {@link UsageError} naming the folder when
 * it is not inside a git work tree.
 */
export async function findRepositoryRoot(folder: string): Promise<string> {
  try {
    return (await runGit(folder, ['rev-parse', '--show-toplevel'])).toString('utf8').trim();
  } catch {
    throw new UsageError(`${folder} is not inside a git repository (pass --repo <path>)`);
  }
}

/** The git object id of `bytes` as a blob (what `git hash-object` prints). */
export function blobId(bytes: Uint8Array, format: 'sha1' | 'sha256'): string {
  return createHash(format).update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** Reads blob bytes through one `git cat-file --batch` process. Call {@link close} when done. */
export class BlobReader {
  private readonly process: ChildProcessWithoutNullStreams;
  /** Output not consumed yet, as received (joined only when a whole answer is there). */
  private chunks: Buffer[] = [];
  private length = 0;
  /** Bytes the answer at the head needs in all, once its header was read. */
  private needed = 0;
  private readonly waiting: Array<{ resolve(bytes: Buffer): void; reject(error: Error): void; id: string }> = [];
  private failure: Error | undefined;

  constructor(repositoryRoot: string) {
    this.process = spawn('git', ['cat-file', '--batch'], { cwd: repositoryRoot, stdio: ['pipe', 'pipe', 'pipe'] });
    this.process.stdout.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.length += chunk.length;
      this.drain();
    });
    this.process.on('error', (error) => this.fail(error));
    this.process.on('exit', () => this.fail(new Error('git cat-file --batch exited')));
  }

  /** The bytes of blob `id`. */
  read(id: string): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject, id });
      this.process.stdin.write(`${id}\n`);
    });
  }

  /** End the git process. */
  close(): void {
    this.process.stdin.end();
  }

  private drain(): void {
    while (this.waiting.length > 0 && this.length > 0 && this.length >= this.needed) {
      const buffered = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.length);
      this.chunks = [buffered];
      const newline = buffered.indexOf(0x0a);
      if (newline < 0) return;
      const header = buffered.subarray(0, newline).toString('utf8');
      const [, type, sizeText] = header.split(' ');
      const request = this.waiting[0] as (typeof this.waiting)[number];
      if (type === undefined || sizeText === undefined) {
        this.consume(buffered, newline + 1);
        this.waiting.shift();
        request.reject(new Error(`git cat-file: ${header}`));
        continue;
      }
      const size = Number(sizeText);
      this.needed = newline + 1 + size + 1;
      if (this.length < this.needed) return;
      const bytes = Buffer.from(buffered.subarray(newline + 1, newline + 1 + size));
      this.consume(buffered, this.needed);
      this.waiting.shift();
      if (type === 'blob') request.resolve(bytes);
      else request.reject(new Error(`git object ${request.id} is a ${type}, not a blob`));
    }
  }

  /** Drop the first `count` bytes of the joined buffer. */
  private consume(buffered: Buffer, count: number): void {
    const rest = buffered.subarray(count);
    this.chunks = rest.length === 0 ? [] : [rest];
    this.length = rest.length;
    this.needed = 0;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const request of this.waiting.splice(0)) request.reject(error);
  }
}

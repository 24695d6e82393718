/**
 * `WarmBlobReader`: one long-lived `git cat-file --batch` for a feed-backed probe, so the end of a
 * command that changed clean files does not start a `git` for their blobs (a start costs a few ms,
 * as much as the whole feed-backed window). git finds objects written after it started (a
 * lookup that misses re-reads the pack list), so the process stays valid while the repository
 * changes. Requests are served one batch at a time; the process and its pipes do not keep the
 * host alive between batches.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { gitEnvironment } from './git.js';

/**
 * The bytes of blob `blobId` when git keeps it as a loose object in `objectsDir` (read and inflated
 * in-process, its id checked against the bytes), or undefined when it is not loose (packed, or not
 * there), is not a whole blob, or inflates to more than `maxBytes` plus its header (the caller still
 * checks the size: one of up to 32 bytes more comes back).
 */
export function readLooseBlob(objectsDir: string, blobId: string, maxBytes: number): Buffer | undefined {
  let inflated: Buffer;
  try {
    // Never inflates more than a blob of maxBytes and its header (a larger one is left to cat-file, which skips it).
    inflated = inflateSync(readFileSync(join(objectsDir, blobId.slice(0, 2), blobId.slice(2))), { maxOutputLength: Math.max(1, maxBytes + 32) });
  } catch {
    return undefined;
  }
  const nul = inflated.indexOf(0);
  const header = nul === -1 ? '' : inflated.toString('latin1', 0, nul);
  const match = /^blob (\d+)$/.exec(header);
  if (match === null || Number(match[1]) !== inflated.length - nul - 1) return undefined;
  if (createHash(blobId.length === 64 ? 'sha256' : 'sha1').update(inflated).digest('hex') !== blobId) return undefined;
  return inflated.subarray(nul + 1);
}

/** See the top of this file. */
export class WarmBlobReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private parts: Buffer[] = [];
  private available = 0;
  private wake: (() => void) | undefined;
  private closed: string | undefined;
  private queue: Promise<void> = Promise.resolve();

  /** Start `git cat-file --batch` in `cwd` (the work tree's top). */
  constructor(gitBinary: string, cwd: string) {
    this.child = spawn(gitBinary, ['--no-optional-locks', 'cat-file', '--batch'], { cwd, env: gitEnvironment(), stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdin.on('error', () => undefined);
    this.child.stderr.on('data', () => undefined);
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.parts.push(chunk);
      this.available += chunk.length;
      this.wake?.();
    });
    const end = (why: string): void => {
      this.closed ??= why;
      this.wake?.();
    };
    this.child.on('error', (error) => end(`git cat-file could not run: ${error.message}`));
    this.child.on('close', (code) => end(`git cat-file --batch exited (${code ?? 'signal'})`));
    this.hold(false);
  }

  /** Keep the host alive (while a batch is read) or not. */
  private hold(on: boolean): void {
    for (const handle of [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as Array<{ ref?: () => void; unref?: () => void }>) (on ? handle.ref : handle.unref)?.call(handle);
  }

  /** Wait until `count` bytes are buffered; throws once the process is gone. */
  private async need(count: number): Promise<void> {
    while (this.available < count) {
      if (this.closed !== undefined) throw new Error(this.closed);
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  /** Take `count` buffered bytes. */
  private take(count: number): Buffer {
    const whole = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.available);
    this.parts = whole.length > count ? [whole.subarray(count)] : [];
    this.available -= count;
    return whole.subarray(0, count);
  }

  /** The next header line. */
  private async line(): Promise<string> {
    for (;;) {
      const whole = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts, this.available);
      this.parts = whole.length === 0 ? [] : [whole];
      const newline = whole.indexOf(0x0a);
      if (newline !== -1) return this.take(newline + 1).toString('utf8', 0, newline);
      await this.need(this.available + 1);
    }
  }

  /**
   * Each blob's bytes, in order, or `undefined` for one larger than `maxBytes` (its bytes are
   * skipped). Throws naming the id when git does not have it, or when the process is gone (the
   * caller then reads the blobs another way).
   */
  read(blobIds: readonly string[], maxBytes: number): Promise<Array<Buffer | undefined>> {
    const run = async (): Promise<Array<Buffer | undefined>> => {
      if (this.closed !== undefined) throw new Error(this.closed);
      this.hold(true);
      try {
        this.child.stdin.write(`${blobIds.join('\n')}\n`);
        const blobs: Array<Buffer | undefined> = [];
        for (const id of blobIds) {
          const header = await this.line();
          const [, type, size] = header.split(' ');
          if (type !== 'blob' || size === undefined) throw new Error(`git cat-file has no blob ${id}: ${header}`);
          const length = Number(size);
          if (length > maxBytes) {
            // Over the cap: skipped as it streams, never kept whole.
            for (let left = length + 1; left > 0; ) {
              await this.need(1);
              left -= this.take(Math.min(this.available, left)).length;
            }
            blobs.push(undefined);
            continue;
          }
          await this.need(length + 1);
          blobs.push(Buffer.from(this.take(length + 1).subarray(0, length)));
        }
        return blobs;
      } catch (error) {
        // The stream may be out of step now: this process is not used again.
        this.close();
        throw error;
      } finally {
        this.hold(false);
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Whether the process is gone (a new reader is needed). */
  get gone(): boolean {
    return this.closed !== undefined;
  }

  /** Stop the process. Idempotent. */
  close(): void {
    this.closed ??= 'closed';
    this.child.stdin.end();
    this.child.kill();
  }
}

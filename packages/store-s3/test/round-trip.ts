/**
 * Shared by the streaming-memory test and `scripts/measure-peak-memory.ts`: write a large file by
 * streaming (never holding it in memory), hash a file by streaming, and run
 * `fixtures/round-trip-child.ts` in a child process so its peak RSS measures the store alone
 * (s3rver stays in the calling process).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { BackupInfo } from '@fh/core';
import { runFixture } from './child-process.js';

/** What the child reports. */
export interface RoundTripResult {
  put: BackupInfo;
  stat: BackupInfo | null;
  putMs: number;
  restoreMs: number;
  /** Peak resident set size of the child, bytes. */
  peakRssBytes: number;
}

const CHUNK_BYTES = 1024 * 1024;

/** Write `size` random bytes to `path` one 1 MiB chunk at a time; returns their sha256 (hex). */
export async function writeRandomFile(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const output = createWriteStream(path);
  for (let written = 0; written < size; written += CHUNK_BYTES) {
    const chunk = randomBytes(Math.min(CHUNK_BYTES, size - written));
    hash.update(chunk);
    if (!output.write(chunk)) await once(output, 'drain');
  }
  output.end();
  await once(output, 'close');
  return hash.digest('hex');
}

/** sha256 (hex) of a file, streamed. */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Back `source` up to the s3rver at `endpoint` and restore it to `destination`, in a child process. */
export async function runRoundTripChild(endpoint: string, bucket: string, source: string, destination: string): Promise<RoundTripResult> {
  return JSON.parse(await runFixture('round-trip-child.ts', [endpoint, bucket, source, destination])) as RoundTripResult;
}

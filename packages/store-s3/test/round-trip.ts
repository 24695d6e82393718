/**
 * Shared by the streaming-memory test and `scripts/measure-peak-memory.ts`: write a large file by
 * streaming (never holding it in memory), hash a file by streaming, and run
 * `fixtures/round-trip-child.ts` in a child process so its peak RSS measures the store alone
 * (s3rver stays in the calling process).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import type { BackupInfo } from '@fh/core';

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
export function runRoundTripChild(endpoint: string, bucket: string, source: string, destination: string): Promise<RoundTripResult> {
  const child = fileURLToPath(new URL('./fixtures/round-trip-child.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', child, endpoint, bucket, source, destination],
      {
        env: {
          ...process.env,
          NODE_OPTIONS: '',
          TSX_TSCONFIG_PATH: fileURLToPath(new URL('./fixtures/tsconfig.json', import.meta.url)),
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
        maxBuffer: 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`round-trip child failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as RoundTripResult);
      },
    );
  });
}

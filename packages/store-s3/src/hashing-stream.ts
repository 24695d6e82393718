import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { Transform, type TransformCallback } from 'node:stream';

/** Bytes read per chunk when streaming a workspace file. */
export const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * A pass-through stream that counts the bytes and computes their sha256 on the way.
 * `bytes` and `digest()` are final once the stream has ended.
 */
export class HashingStream extends Transform {
  /** Bytes seen so far. */
  bytes = 0;
  private readonly hash: Hash = createHash('sha256');

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    this.hash.update(chunk);
    callback(null, chunk);
  }

  /** Lower-case hex sha256 of every byte seen; call once, after the stream ended. */
  digest(): string {
    return this.hash.digest('hex');
  }
}

/**
 * Stream an open file from offset 0 to its end and return its size (bytes) and lower-case hex
 * sha256, holding at most one {@link READ_CHUNK_BYTES} chunk in memory. The handle stays open.
 */
export async function hashFileHandle(handle: FileHandle): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of handle.createReadStream({ start: 0, autoClose: false, highWaterMark: READ_CHUNK_BYTES })) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha256: hash.digest('hex') };
}

/**
 * Copies that keep a sparse file sparse (issue 15). `copyFile` writes every byte, so a 1.5 GiB file
 * with no blocks on disk would be backed up — and restored — as 1.5 GiB of allocated zeros. A file
 * whose allocated blocks cover clearly less than its size is copied chunk by chunk instead: chunks
 * that are all zero bytes are not written (they stay holes), and the copy is truncated to the
 * source's size, so its bytes are the same and only its data is allocated.
 */
import { createHash } from 'node:crypto';
import type * as nodeFsPromises from 'node:fs/promises';

/** Bytes read per step. */
const READ_BYTES = 4 * 1024 * 1024;

/** Granularity of holes: an all-zero run of this many bytes (aligned) is not written. */
const CHUNK_BYTES = 64 * 1024;

/** Files smaller than this are always copied with copyFile. */
const MIN_SPARSE_BYTES = 256 * 1024;

/** What {@link isSparse} reads of a file's stat. */
export interface SparseStats {
  size: number;
  /** 512-byte blocks allocated (`st_blocks`); undefined where the file system does not say. */
  blocks?: number;
}

/**
 * True when the file is worth copying as sparse: at least {@link MIN_SPARSE_BYTES} long, with
 * allocated blocks covering less than its size by more than one hole-sized chunk.
 */
export function isSparse(stats: SparseStats): boolean {
  return typeof stats.blocks === 'number' && stats.size >= MIN_SPARSE_BYTES && stats.blocks * 512 + CHUNK_BYTES < stats.size;
}

/**
 * Copy `sourcePath` to the new file `destinationPath` (created exclusively, permission bits
 * `mode`), leaving all-zero chunks as holes; returns the lower-case hex sha256 of the bytes.
 * `readFlags` opens the source (O_NOFOLLOW where available). Errno errors as thrown; a partly
 * written destination is left for the caller to remove.
 */
export async function copySparse(
  fs: Pick<typeof nodeFsPromises, 'open'>,
  sourcePath: string,
  destinationPath: string,
  mode: number,
  readFlags: string | number = 'r',
): Promise<string> {
  const source = await fs.open(sourcePath, readFlags);
  try {
    const destination = await fs.open(destinationPath, 'wx', mode);
    try {
      const hash = createHash('sha256');
      const buffer = Buffer.alloc(READ_BYTES);
      const zeros = Buffer.alloc(CHUNK_BYTES);
      let position = 0;
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, READ_BYTES, position);
        if (bytesRead === 0) break;
        hash.update(buffer.subarray(0, bytesRead));
        for (let offset = 0; offset < bytesRead; offset += CHUNK_BYTES) {
          const length = Math.min(CHUNK_BYTES, bytesRead - offset);
          const chunk = buffer.subarray(offset, offset + length);
          if (!chunk.equals(zeros.subarray(0, length))) await destination.write(chunk, 0, length, position + offset);
        }
        position += bytesRead;
      }
      await destination.truncate(position);
      await destination.chmod(mode);
      return hash.digest('hex');
    } finally {
      await destination.close();
    }
  } finally {
    await source.close();
  }
}

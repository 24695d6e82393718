/**
 * Reads git's index file (`.git/index`, formats 2, 3 and 4) in-process, read-only, for the command
 * window's scan (`git-scan.ts`): each entry's path, mode, object id and the stat data git recorded
 * for it, so a file can be proven clean without starting `git`. An index this reader does not
 * handle exactly (a split index, a sparse index, entries marked assume-unchanged, skip-worktree or
 * intent-to-add, unmerged stages) is reported as unsupported, and the probe falls back to
 * `git status`.
 *
 * Format: https://git-scm.com/docs/index-format ("DIRC", version, count, entries, extensions,
 * checksum).
 */

/**
 * The stage-0 entries of an index, without an object per entry: entry `k` has path `paths[k]`
 * (relative to the work tree's top, `/` separators) and its fixed fields in `bytes` from
 * `offsets[k]` on, read with {@link indexField} and {@link oidAt}.
 */
export interface IndexEntries {
  count: number;
  paths: string[];
  offsets: Uint32Array;
  /** The index file's bytes. */
  bytes: Buffer;
  /** Length of an object id in bytes: 20 (SHA-1) or 32 (SHA-256). */
  oidBytes: number;
}

/**
 * Offsets of the 32-bit fields of an entry (git's numbers, truncated to 32 bits as stored):
 * times in seconds and nanoseconds, inode, git's mode (`0o100644`, `0o100755`, `0o120000`
 * symlink, `0o160000` submodule), uid, gid, size in bytes.
 */
export const I_CTIME_SEC = 0;
export const I_CTIME_NSEC = 4;
export const I_MTIME_SEC = 8;
export const I_MTIME_NSEC = 12;
export const I_INO = 20;
export const I_MODE = 24;
export const I_UID = 28;
export const I_GID = 32;
export const I_SIZE = 36;

/** Field `field` (an `I_…` offset) of entry `k`. */
export function indexField(index: IndexEntries, k: number, field: number): number {
  return index.bytes.readUInt32BE((index.offsets[k] as number) + field);
}

/** The object id of entry `k`, hex. */
export function oidAt(index: IndexEntries, k: number): string {
  const at = (index.offsets[k] as number) + 40;
  return index.bytes.toString('hex', at, at + index.oidBytes);
}

/** {@link readIndex}'s answer: the entries, or why the reader does not handle this index. */
export type ParsedIndex = IndexEntries | { unsupported: string };

/**
 * Parse the bytes of an index file whose object ids are `oidBytes` long (20 for SHA-1, 32 for
 * SHA-256). An empty buffer is an empty index (git reads a missing index file so).
 */
export function readIndex(bytes: Buffer, oidBytes: number): ParsedIndex {
  if (bytes.length === 0) return { count: 0, paths: [], offsets: new Uint32Array(0), bytes, oidBytes };
  if (bytes.length < 12 || bytes.toString('latin1', 0, 4) !== 'DIRC') return { unsupported: 'the index does not start with DIRC' };
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return { unsupported: `index version ${version}` };
  const count = bytes.readUInt32BE(8);
  const paths: string[] = new Array(count);
  const offsets = new Uint32Array(count);
  let offset = 12;
  let previousBytes = Buffer.alloc(0);
  for (let index = 0; index < count; index += 1) {
    const start = offset;
    if (offset + 62 + oidBytes > bytes.length) return { unsupported: 'the index is truncated' };
    const gitMode = bytes.readUInt32BE(offset + 24);
    const flags = bytes.readUInt16BE(offset + 40 + oidBytes);
    offset += 42 + oidBytes;
    if ((flags & 0x8000) !== 0) return { unsupported: 'an entry is marked assume-unchanged' };
    if ((flags & 0x3000) !== 0) return { unsupported: 'the index has unmerged entries' };
    if ((flags & 0x4000) !== 0) {
      if (version < 3) return { unsupported: 'an extended entry in a version 2 index' };
      const extended = bytes.readUInt16BE(offset);
      offset += 2;
      if (extended !== 0) return { unsupported: 'an entry is marked skip-worktree or intent-to-add' };
    }
    let path: string;
    if (version === 4) {
      let byte = bytes[offset++] as number;
      let strip = byte & 0x7f;
      while ((byte & 0x80) !== 0) {
        byte = bytes[offset++] as number;
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const end = bytes.indexOf(0, offset);
      // `strip` counts bytes of the previous path's UTF-8, not characters.
      if (end === -1 || strip > previousBytes.length) return { unsupported: 'a malformed path in the index' };
      const kept = previousBytes.length - strip;
      const pathBytes = Buffer.allocUnsafe(kept + end - offset);
      previousBytes.copy(pathBytes, 0, 0, kept);
      bytes.copy(pathBytes, kept, offset, end);
      path = pathBytes.toString('utf8');
      previousBytes = pathBytes;
      offset = end + 1;
    } else {
      const end = bytes.indexOf(0, offset);
      if (end === -1) return { unsupported: 'a malformed path in the index' };
      path = bytes.toString('utf8', offset, end);
      offset = start + ((end - start + 8) & ~7);
    }
    if ((gitMode & 0o170000) === 0o040000) return { unsupported: 'a sparse index' };
    paths[index] = path;
    offsets[index] = start;
  }
  const checksumStart = bytes.length - oidBytes;
  while (offset + 8 <= checksumStart) {
    const signature = bytes.toString('latin1', offset, offset + 4);
    if (signature === 'link') return { unsupported: 'a split index' };
    if (signature === 'sdir') return { unsupported: 'a sparse index' };
    offset += 8 + bytes.readUInt32BE(offset + 4);
  }
  return { count, paths, offsets, bytes, oidBytes };
}

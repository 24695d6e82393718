/**
 * Files a command window's record names (the begin's tree, a feed window's delta, the index copy)
 * are durable before the record is written: bytes before the record that references them, so
 * after a power loss a window record never outlives what its end needs to find the command's
 * changes.
 */
import { closeSync, constants, fsyncSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Write `bytes` to the new file `file` (it must not exist; mode 0o600), fsync it, then fsync its
 * folder (its name). Throws the file system's error; a file left half written is never named by a
 * record.
 */
export function writeFileDurably(file: string, bytes: Uint8Array | string): void {
  const descriptor = openSync(file, 'wx', 0o600);
  try {
    const buffer = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
    for (let offset = 0; offset < buffer.length; ) offset += writeSync(descriptor, buffer, offset, buffer.length - offset);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  syncFolder(dirname(file));
}

/** fsync the existing file `file`, then its folder. Throws the file system's error. */
export function syncFileAndFolder(file: string): void {
  const descriptor = openSync(file, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  syncFolder(dirname(file));
}

/** fsync a folder (its entries); skipped where folders cannot be opened (Windows). */
function syncFolder(folder: string): void {
  let descriptor: number;
  try {
    descriptor = openSync(folder, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
  } catch (error) {
    if (process.platform === 'win32') return;
    throw error;
  }
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

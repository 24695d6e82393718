/**
 * The bytes a tracked file had at a snapshot, for printing a patch. Which backup that is (a file
 * first tracked after the snapshot takes its first later entry) is the core's rule:
 * `snapshotFileBackups` from `@fh/core`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BackupStore, FileHistoryBackup } from '@fh/core';

/** The backup's bytes (null when the entry says the file did not exist). */
export async function readEntryBytes(store: BackupStore, sessionId: string, entry: FileHistoryBackup): Promise<Uint8Array | null> {
  if (entry.backupFileName === null) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of await store.openBackup(sessionId, entry.backupFileName)) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** The workspace file's bytes now, or null when it does not exist. */
export async function readCurrentBytes(projectRoot: string, trackingPath: string): Promise<Uint8Array | null> {
  try {
    return await readFile(join(projectRoot, trackingPath));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw error;
  }
}

/**
 * The bytes a tracked file had at a snapshot, for printing a patch. A file first tracked after the
 * snapshot takes its first later entry (how the core's rewind plans it: the backup made just before
 * the agent's first edit, which is also how the file was at the earlier snapshot).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BackupStore, FileHistoryBackup, FileHistoryState } from '@fh/core';

/** The entry a rewind to `messageId` uses for `trackingPath`, or undefined. */
export function entryAtSnapshot(state: Readonly<FileHistoryState>, messageId: string, trackingPath: string): FileHistoryBackup | undefined {
  const index = state.snapshots.findLastIndex((snapshot) => snapshot.messageId === messageId);
  if (index < 0) return undefined;
  for (let later = index; later < state.snapshots.length; later += 1) {
    const entry = state.snapshots[later]?.trackedFileBackups[trackingPath];
    if (entry !== undefined) return entry;
  }
  return undefined;
}

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

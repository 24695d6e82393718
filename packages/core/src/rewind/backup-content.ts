/** Reading a whole backup into memory, for the few callers that need its bytes (diff stats, events). */
import type { FileHistoryContext } from '../file-history-context.js';
import type { BackupStore } from '../store.js';

/** Backups up to this size (bytes) are read with one synchronous read where the store offers it. */
export const SYNC_BACKUP_READ_LIMIT_BYTES = 256 * 1024;

/**
 * All bytes of backup `backupFileName` of the context's session. Throws `NotFoundError` when the
 * backup does not exist (and whatever the store refuses, see `BackupStore.openBackup`). Callers
 * check the size first: this holds the whole backup in memory. A backup of at most
 * {@link SYNC_BACKUP_READ_LIMIT_BYTES} is read synchronously where the store offers
 * `readBackupSync`, else streamed.
 */
export async function readBackupBytes(context: FileHistoryContext, backupFileName: string): Promise<Uint8Array> {
  return readStoreBackup(context.store, context.sessionId, backupFileName);
}

/** {@link readBackupBytes} for any store and session (undo pre-images, points' plans). */
export async function readStoreBackup(store: BackupStore, sessionId: string, backupFileName: string): Promise<Uint8Array> {
  const now = store.readBackupSync?.(sessionId, backupFileName, SYNC_BACKUP_READ_LIMIT_BYTES);
  if (now !== undefined) return now;
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of await store.openBackup(sessionId, backupFileName)) {
    chunks.push(chunk);
    length += chunk.length;
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/** Reading a whole backup into memory, for the few callers that need its bytes (diff stats, events). */
import type { FileHistoryContext } from '../file-history-context.js';

/**
 * All bytes of backup `backupFileName` of the context's session. Throws `NotFoundError` when the
 * backup does not exist. Callers check the size first: this holds the whole backup in memory.
 */
export async function readBackupBytes(context: FileHistoryContext, backupFileName: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of await context.store.openBackup(context.sessionId, backupFileName)) {
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

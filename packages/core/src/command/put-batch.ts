/**
 * Before-images of a command window stored from bytes in batches (issue 12), through the store's
 * optional `putBackups`: each file's bytes are written once, straight into the store, and every
 * backup of a batch is durable when the batch resolves (for `FsBackupStore`: one parallel fsync
 * pass of the files and their folder), so the record that names them (the window record at
 * `beginCommand`, the session log at `endCommand`) may follow at once.
 */
import { FhError } from '../errors.js';
import type { FileHistoryContext } from '../file-history-context.js';
import { backupFileName, toAbsolutePath } from '../paths.js';
import type { FileHistoryBackup } from '../types.js';

/** Most before-images one `putBackups` call stores. */
export const BATCH_COUNT = 256;

/** Bytes of before-images past which a batch is stored (it is held in memory until then). */
export const BATCH_BYTES = 16 * 1024 * 1024;

/** Names already taken (by unattached objects) tried past before an item gives up, as `putBackup`'s callers do. */
const MAX_TAKEN_NAMES_SKIPPED = 16;

/** One before-image to store: the file's tracking path, its bytes and permission bits, the first version to try, its backup time. */
export interface BatchItem {
  path: string;
  bytes: Uint8Array;
  mode: number;
  version: number;
  backupTime: Date;
}

/** The store's `putBackups`, bound; undefined when the store has none. */
export function batchPut(context: FileHistoryContext): NonNullable<FileHistoryContext['store']['putBackups']> | undefined {
  return context.store.putBackups?.bind(context.store);
}

/**
 * Store each item as the backup of its file (its version, or past one whose name an unattached
 * object holds: the next, up to 16 times). Returns, in item order, the backup (durable now, with
 * the size, mode and sha256 the store reports) or the item's error; the other items are stored
 * whatever one of them does.
 */
export async function putBatch(context: FileHistoryContext, putBackups: NonNullable<FileHistoryContext['store']['putBackups']>, items: readonly BatchItem[]): Promise<Array<FileHistoryBackup | Error>> {
  const results: Array<FileHistoryBackup | Error> = items.map(() => new Error('not stored'));
  let pending = items.map((item, index) => ({ index, version: item.version }));
  for (let skipped = 0; pending.length > 0; skipped += 1) {
    const names = pending.map(({ index, version }) => backupFileName(toAbsolutePath(context.projectRoot, (items[index] as BatchItem).path), version));
    const stored = await putBackups(
      context.sessionId,
      pending.map(({ index }, at) => ({ backupFileName: names[at] as string, bytes: (items[index] as BatchItem).bytes, mode: (items[index] as BatchItem).mode })),
    );
    const retry: typeof pending = [];
    for (const [at, result] of stored.entries()) {
      const { index, version } = pending[at] as (typeof pending)[number];
      if (result instanceof Error) {
        if (FhError.hasCode(result, 'FH_CONFLICT') && skipped < MAX_TAKEN_NAMES_SKIPPED) retry.push({ index, version: version + 1 });
        else results[index] = result;
        continue;
      }
      const { backupTime } = items[index] as BatchItem;
      results[index] = { backupFileName: names[at] as string, version, backupTime, size: result.size, mode: result.mode, ...(result.sha256 === undefined ? {} : { sha256: result.sha256 }) };
    }
    pending = retry;
  }
  return results;
}

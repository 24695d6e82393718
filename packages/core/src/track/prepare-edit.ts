/**
 * Copying a file's bytes into the store before the session's lock (issue 10): a hook among
 * hundreds holds the lock only to name the copy and append its record (`trackEdit` with
 * `prepared`), not for the copy itself.
 */
import { FhError } from '../errors.js';
import type { BackupStore, PreparedBackup } from '../store.js';

/** A prepared copy of a workspace file and when the copy started (the backup's `backupTime`). */
export interface PreparedEdit {
  backup: PreparedBackup;
  startedAt: Date;
}

/**
 * Copy the workspace file at `absolutePath` (the file itself: a path through a symlink must be
 * resolved first) into `store` for session `sessionId`, durable, under a name no record can
 * reference (`BackupStore.prepareBackup`). Undefined when the store cannot prepare, the file does
 * not exist or is not a regular file: `trackEdit` then decides under the lock as usual. Throws the
 * store's other errors. Pass the result to `trackEdit`'s `prepared`, which commits or removes it;
 * a process killed before then leaves a temp the store removes at the session's next lock.
 */
export async function prepareTrackEdit(store: BackupStore, sessionId: string, absolutePath: string): Promise<PreparedEdit | undefined> {
  if (typeof store.prepareBackup !== 'function') return undefined;
  const startedAt = new Date();
  try {
    return { backup: await store.prepareBackup(sessionId, absolutePath), startedAt };
  } catch (error) {
    if (FhError.hasCode(error, 'FH_NOT_FOUND') || FhError.hasCode(error, 'FH_INVALID_ARGUMENT')) return undefined;
    throw error;
  }
}

/**
 * Remove old sessions from a store (like Claude Code's `cleanupPeriodDays`, default 30).
 */
import { FhError, InvalidArgumentError } from '../errors.js';
import type { BackupStore, SessionSummary } from '../store.js';

/** Options of {@link cleanup}. */
export interface CleanupOptions {
  store: BackupStore;
  /** Sessions whose last change is more than this many days old are removed. Default 30. */
  olderThanDays?: number;
  /** The current time. Default `new Date()`. */
  now?: Date;
  /** List what would be removed without removing anything. Default false. */
  dryRun?: boolean;
  /**
   * Progress in sessions examined: called with `(0, total)` once the sessions are listed, then
   * `(done, total)` after each session is kept or removed, ending with `(total, total)`. For a
   * progress bar; it must not throw.
   */
  onProgress?: (done: number, total: number) => void;
}

/** Why {@link cleanup} kept a session. */
export type CleanupKeptReason = 'recent' | 'locked';

/** What {@link cleanup} did. */
export interface CleanupResult {
  /** Sessions removed (or, with `dryRun`, that would be), oldest first. */
  removed: SessionSummary[];
  /** Sessions left in place, each with why. */
  kept: Array<{ session: SessionSummary; reason: CleanupKeptReason }>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Remove every session of `store` not modified for more than `olderThanDays` days: its backups,
 * records and lock files. A session that is open (its lock is held by a `FileHistory`, in this
 * process or another) is never removed: where the store can lock, cleanup takes the session's
 * lock before removing it, so a session being opened at the same moment is either kept or removed
 * before it is opened, never half-removed under an open history.
 *
 * Throws `InvalidArgumentError` for a negative or non-finite `olderThanDays`, and the store's
 * error if listing or deleting fails (sessions already removed stay removed).
 */
export async function cleanup(options: CleanupOptions): Promise<CleanupResult> {
  const olderThanDays = options.olderThanDays ?? 30;
  if (!Number.isFinite(olderThanDays) || olderThanDays < 0) {
    throw new InvalidArgumentError(`olderThanDays must be a non-negative number, got ${String(olderThanDays)}`);
  }
  const { store } = options;
  const cutoff = (options.now ?? new Date()).getTime() - olderThanDays * DAY_MS;
  const sessions = [...(await store.listSessions())].sort((a, b) => a.lastModified.getTime() - b.lastModified.getTime());
  const result: CleanupResult = { removed: [], kept: [] };
  options.onProgress?.(0, sessions.length);
  for (const [index, session] of sessions.entries()) {
    await examineSession(options, session, cutoff, result);
    options.onProgress?.(index + 1, sessions.length);
  }
  return result;
}

/** Keep or remove one session (see {@link cleanup}), adding it to `result`. */
async function examineSession(options: CleanupOptions, session: SessionSummary, cutoff: number, result: CleanupResult): Promise<void> {
  const { store } = options;
  if (session.lastModified.getTime() >= cutoff) {
    result.kept.push({ session, reason: 'recent' });
    return;
  }
  if (options.dryRun === true || store.lockSession === undefined) {
    if (store.isSessionLocked !== undefined && (await store.isSessionLocked(session.sessionId))) {
      result.kept.push({ session, reason: 'locked' });
      return;
    }
    if (options.dryRun !== true) await store.deleteSession(session.sessionId);
    result.removed.push(session);
    return;
  }
  let lock;
  try {
    lock = await store.lockSession(session.sessionId);
  } catch (error) {
    if (FhError.hasCode(error, 'FH_LOCKED')) {
      result.kept.push({ session, reason: 'locked' });
      return;
    }
    throw error;
  }
  try {
    await store.deleteSession(session.sessionId);
  } finally {
    await lock.release();
  }
  result.removed.push(session);
}

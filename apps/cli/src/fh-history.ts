/**
 * Opening a FileHistory on one of fh's own sessions, shared by the commands and `fh hook`.
 * `FileHistory.open` takes the session's lock, then reads the log and rebuilds the state under it.
 * A session held by another process (an agent's hook running at that moment) is waited for, up
 * to a limit, before its `LockedError` is passed on.
 */
import { FhError, FileHistory, type BackupStore, type LogEnds, type SessionLock } from '@fh/core';

/** Options of {@link openFhHistory}. */
export interface OpenFhHistoryOptions {
  /** Hold the session's lock (commands that write); read-only commands pass false. */
  lock: boolean;
  /** How long to wait for a session another process holds, in ms. */
  waitMs: number;
  /** Receives warnings (skipped log lines, a project root other than the recorded one). */
  onWarning?: (message: string) => void;
  /** `'latest'`: rebuild only the newest snapshot, for trackEdit (see `FileHistoryOptions.rebuild`). Default `'all'`. */
  rebuild?: 'all' | 'latest';
  /** A lock on the session the caller already holds, handed to the history (see `FileHistoryOptions.sessionLock`). */
  sessionLock?: SessionLock;
  /** The log's ends read under `sessionLock` (see `FileHistoryOptions.logEnds`). */
  logEnds?: LogEnds;
}

/** Pause between attempts to open a held session, in ms. */
const RETRY_MS = 25;

/** Open `sessionId` of `store` for `projectRoot` (see the module comment). */
export async function openFhHistory(store: BackupStore, sessionId: string, projectRoot: string, options: OpenFhHistoryOptions): Promise<FileHistory> {
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    try {
      return await FileHistory.open({
        projectRoot,
        sessionId,
        store,
        lock: options.lock,
        ...(options.rebuild === undefined ? {} : { rebuild: options.rebuild }),
        ...(options.sessionLock === undefined ? {} : { sessionLock: options.sessionLock }),
        ...(options.logEnds === undefined ? {} : { logEnds: options.logEnds }),
        ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
      });
    } catch (error) {
      if (!FhError.hasCode(error, 'FH_LOCKED') || Date.now() >= deadline) throw error;
      await new Promise((wake) => setTimeout(wake, RETRY_MS));
    }
  }
}

/**
 * Opening a FileHistory on one of fh's own sessions, with its state rebuilt from the session's
 * records, shared by the commands and `fh hook`.
 */
import { FileHistory, restoreStateFromLog, type BackupStore, type LogRecord } from '@fh/core';

/** Open `sessionId` of `store` for `projectRoot`, its state rebuilt from `records` (the session log). */
export function openFhHistory(store: BackupStore, sessionId: string, projectRoot: string, records: readonly LogRecord[]): Promise<FileHistory> {
  return FileHistory.open({ projectRoot, sessionId, store, initialState: restoreStateFromLog(records, { projectRoot }) });
}

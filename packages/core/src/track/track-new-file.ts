/**
 * `trackEdit` of a file the session's newest snapshot does not track, from the log's newest
 * records alone (issue 16): `fh hook` before an agent writes a new file. Such an edit needs to
 * know only the newest snapshot's message id and that the file is not in it; the records from the
 * newest full snapshot record on tell both without parsing an entry (`newestSnapshotTracking`), so
 * no snapshot is rebuilt, no `FileHistory` opened. What is written is exactly what `trackEdit`
 * writes there: the prepared copy named as the file's first backup, then one `file-history-delta`
 * record attaching it (with who changed the file) to the newest snapshot, durable, in that order.
 */
import { attributionFor, withAttribution, type AgentIdentity } from '../attribution/agents.js';
import { newestSnapshotTracking, type NewestRecords } from '../state/newest-records.js';
import { deltaRecord, FH_SESSION_RECORD_TYPE } from '../state/records.js';
import type { LogRecord, SessionLog } from '../store.js';
import { commitPrepared } from './create-backup.js';
import type { PreparedEdit } from './prepare-edit.js';

/** What {@link trackNewFileFromNewest} takes. */
export interface NewFileEdit {
  /** The session's log, whose lock the caller holds (so nothing is appended meanwhile). */
  log: SessionLog;
  /** The log's newest records, read under that lock (`readNewestRecords`). */
  newest: NewestRecords;
  /** The project root (absolute) the session recorded; its `fh-session` record must name it. */
  projectRoot: string;
  /** The file's tracking path (`toTrackingPath`). */
  trackingPath: string;
  /** The file (absolute; the file itself, no symlink on the way: what was prepared). */
  absolutePath: string;
  /** The file's bytes already copied into the store (`prepareTrackEdit`). */
  prepared: PreparedEdit;
  /** Who is about to change the file (issue 14). */
  agent: AgentIdentity;
}

/**
 * Back up a new file as `trackEdit` would (see the module comment) and resolve with true once its
 * backup and record are durable; resolve with false, having done nothing (the prepared copy is
 * left to the caller), when the newest records do not settle it: the newest snapshot may track the
 * file, the records are not plainly fh's own (`newestSnapshotTracking`), the log is kept in Claude
 * Code's form, the session recorded another project root, or the copy is of another file. The
 * caller then opens the history and calls `trackEdit`. Throws the store's and the log's errors
 * (after a failed append the named backup stays, as after `trackEdit`'s).
 */
export async function trackNewFileFromNewest(edit: NewFileEdit): Promise<boolean> {
  const { log, newest, prepared, absolutePath } = edit;
  if (log.recordForm === 'claude-code' || prepared.backup.sourcePath !== absolutePath) return false;
  const sessions = newest.ends.head.filter((record: LogRecord) => record.type === FH_SESSION_RECORD_TYPE);
  if (sessions.length === 0 || sessions.some((record) => record.projectRoot !== edit.projectRoot)) return false;
  const snapshot = newestSnapshotTracking(newest.ends.tail, edit.trackingPath);
  if (snapshot === undefined || snapshot.tracks) return false;
  // Version 1: no kept snapshot names the file (a rebuild's nextVersion), and a name taken by a
  // backup no record names is skipped (commitPrepared).
  const backup = await commitPrepared(prepared, absolutePath, 1);
  const entry = withAttribution(backup, attributionFor(edit.agent, new Date()));
  await log.append([deltaRecord(snapshot.messageId, edit.trackingPath, entry) as unknown as LogRecord]);
  return true;
}

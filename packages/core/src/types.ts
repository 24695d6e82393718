/**
 * The file-history data model (seed 004 §2). These shapes serialise exactly like the `snapshot`
 * field of a Claude Code `file-history-snapshot` transcript record: Dates become ISO-8601
 * strings through `JSON.stringify`. The optional fields are fh's additions; Claude Code ignores
 * unknown fields, and fh accepts records without them.
 */

/** Most snapshots a state keeps; older ones are dropped first (seed 004 §7.2). */
export const MAX_SNAPSHOTS = 100;

/** One tracked file's backup as referenced by a snapshot (seed 004 §2.1). */
export interface FileHistoryBackup {
  /**
   * Name of the backup object in the store (`{sha256(absolutePath)[:16]}@v{version}`), or `null`
   * when the file did not exist at this version: a rewind then deletes it.
   */
  backupFileName: string | null;
  /** Version number of this file's backups; increases by one per new backup. */
  version: number;
  /**
   * When the backup's bytes were known to equal the file: the time the copy started, or the time
   * a later snapshot verified the file was still unchanged.
   */
  backupTime: Date;
  /** fh: size of the backup in bytes, as recorded when it was made. Absent in Claude Code data. */
  size?: number;
  /** fh: permission bits of the file when backed up (`mode & 0o7777`). Absent in Claude Code data. */
  mode?: number;
  /**
   * fh: lower-case hex sha256 of the backup's bytes, computed by the store as it made the backup
   * (fs: while copying; S3: while uploading). `fh verify` and rewinds check backups against it.
   * Absent in Claude Code data and in entries of stores that do not hash.
   */
  sha256?: string;
  /**
   * fh: set when this version could not be captured (the backup failed) or is known to be gone
   * (resume could not carry it). A rewind reports such a file as failed and leaves it alone; it is
   * never read as "the file did not exist".
   */
  error?: string;
}

/** The state of every tracked file at one main-conversation message (seed 004 §2.1). */
export interface FileHistorySnapshot {
  /** The user message this snapshot belongs to. */
  messageId: string;
  /** Tracking path (relative to the project root, `/` separators) → backup at this message. */
  trackedFileBackups: Record<string, FileHistoryBackup>;
  /** When the snapshot was made. */
  timestamp: Date;
}

/** The whole file-history state of one session (seed 004 §2.1). */
export interface FileHistoryState {
  /** Snapshots, oldest first; at most {@link MAX_SNAPSHOTS}. */
  snapshots: FileHistorySnapshot[];
  /** Every tracking path ever tracked in this session. */
  trackedFiles: Set<string>;
  /** Counts snapshots ever made; never goes down, even when old snapshots are dropped. */
  snapshotSequence: number;
}

/** A fresh, empty state. */
export function emptyFileHistoryState(): FileHistoryState {
  return { snapshots: [], trackedFiles: new Set(), snapshotSequence: 0 };
}

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
  /**
   * fh: who changed the file during this entry's turn (after the snapshot was taken), each agent
   * once, in the order of its first change: the first element is who first changed it. Absent
   * when no tracked change was seen. Claude Code ignores the field (issue 14, see
   * `attribution/agents.ts`).
   */
  changedBy?: EditAttribution[];
}

/**
 * Who changed a tracked file in a turn (issue 14): the main agent, or a sub-agent with Claude
 * Code's `agent_id` / `agent_type` (seed 004 §8). Serialised as
 * `{"by":"main","at":"<ISO>"}` or `{"by":"subagent","agentId":"…","agentType":"…","at":"<ISO>"}`.
 */
export type EditAttribution =
  | { by: 'main'; /** When this agent first changed the file in the turn. */ at: Date }
  | {
      by: 'subagent';
      /** The sub-agent's id (Claude Code's `agent_id`, e.g. `a96cf8a57447af436`). */
      agentId: string;
      /** The sub-agent's type (`agent_type`, e.g. `general-purpose`), when known. */
      agentType?: string;
      /** When this agent first changed the file in the turn. */
      at: Date;
    };

/** The state of every tracked file at one main-conversation message (seed 004 §2.1). */
export interface FileHistorySnapshot {
  /** The user message this snapshot belongs to. */
  messageId: string;
  /**
   * Tracking path (relative to the project root, `/` separators) → backup at this message. A
   * rebuilt snapshot may build this object on first read (`state/snapshot-chain.ts`); the newest
   * snapshot's object gains entries in place when `trackEdit` attaches backups (no other change
   * is ever made to a snapshot).
   */
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
  /**
   * fh's retention index, kept by `makeSnapshot` and the rebuild: for the sequence number `s` of a
   * held snapshot (the newest is `snapshotSequence`), the backups (tracking path → backup name)
   * snapshot `s` replaced, which retention deletes when snapshot `s − 1` is dropped. So retention
   * looks only at what the dropped snapshot referenced. Absent or without an entry for `s`:
   * retention compares the dropped snapshot with the kept ones instead. Non-enumerable (see
   * {@link setStateBookkeeping}), so a spread copy of a state leaves it out.
   */
  superseded?: ReadonlyMap<number, Readonly<Record<string, string>>>;
  /**
   * How many snapshots the session holds when `snapshots` holds only the newest ones (a history
   * opened with `rebuild: 'latest'`); absent: `snapshots.length`. Non-enumerable, like `superseded`.
   */
  heldSnapshots?: number;
}

/** A fresh, empty state. */
export function emptyFileHistoryState(): FileHistoryState {
  return { snapshots: [], trackedFiles: new Set(), snapshotSequence: 0 };
}

/**
 * Set a state's bookkeeping fields (`superseded`, `heldSnapshots`) as non-enumerable properties,
 * so they follow the state through fh's own updates without showing in comparisons, logs or
 * `JSON.stringify` of a state. An `undefined` value removes the field. Returns `state`.
 */
export function setStateBookkeeping(
  state: FileHistoryState,
  fields: { superseded?: FileHistoryState['superseded']; heldSnapshots?: number | undefined },
): FileHistoryState {
  for (const name of ['superseded', 'heldSnapshots'] as const) {
    if (!(name in fields)) continue;
    const value = fields[name];
    if (value === undefined) delete state[name];
    else Object.defineProperty(state, name, { value, enumerable: false, writable: true, configurable: true });
  }
  return state;
}

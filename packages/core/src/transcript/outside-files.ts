/**
 * Files a session tracked outside its project (issue 13). Claude Code keys a tracked file by its
 * absolute path when it is outside the session's working folder: plan files under its config
 * folder, files in `/tmp`, a sibling project the agent edited. fh's file history is rooted at the
 * project, so those entries are kept apart, in a second state rooted at the file system root
 * (`/`), which a front end lists as "outside the project" and rewinds only when asked to.
 */
import { posix } from 'node:path';
import { InvalidArgumentError } from '../errors.js';
import { restoreStateFromLog } from '../state/restore-state.js';
import type { RecordWarningHandler } from '../state/records.js';
import type { FileHistoryBackup, FileHistorySnapshot, FileHistoryState } from '../types.js';

/** The root the state of files outside the project is relative to. */
export const OUTSIDE_ROOT = '/';

/** Options of {@link restoreStateWithOutside}. */
export interface RestoreWithOutsideOptions {
  /** Absolute POSIX project root. */
  projectRoot: string;
  /**
   * The folder the session recorded as its project when it is opened for another one (`--project`):
   * absolute keys inside it are the project's files and map into `projectRoot`. Default: `projectRoot`.
   */
  recordedRoot?: string;
  /** The base folder of each record (see `baseFolderTracker`). Default: `projectRoot` for every record. */
  baseFolder?: (record: unknown) => string;
  /** Receives one message per skipped record or repaired entry. */
  onWarning?: RecordWarningHandler;
  /** Most snapshots kept. Default 100. */
  maxSnapshots?: number;
}

/** A session's state split at its project root. */
export interface SplitFileHistoryState {
  /** Tracking paths relative to the project root: what `FileHistory` rewinds. */
  project: FileHistoryState;
  /**
   * The files outside the project, tracking paths relative to {@link OUTSIDE_ROOT} (`tmp/plan.md`
   * for `/tmp/plan.md`), with the same snapshots (message ids, timestamps) as `project`.
   */
  outside: FileHistoryState;
  /** Absolute paths of the files outside the project, sorted. */
  outsideFiles: string[];
}

/** The project key of a key relative to `/`, or undefined when it is outside the project. */
function projectKey(key: string, prefixes: readonly string[]): string | undefined {
  for (const prefix of prefixes) {
    if (prefix === '') return key;
    if (key.startsWith(prefix)) return key.slice(prefix.length);
  }
  return undefined;
}

function splitSnapshot(snapshot: FileHistorySnapshot, prefixes: readonly string[]): [FileHistorySnapshot, FileHistorySnapshot] {
  const inside: Record<string, FileHistoryBackup> = {};
  const outside: Record<string, FileHistoryBackup> = {};
  for (const [key, backup] of Object.entries(snapshot.trackedFileBackups)) {
    const mapped = projectKey(key, prefixes);
    if (mapped === undefined) outside[key] = backup;
    else if (inside[mapped] === undefined || inside[mapped].version < backup.version) inside[mapped] = backup;
  }
  return [
    { messageId: snapshot.messageId, timestamp: snapshot.timestamp, trackedFileBackups: inside },
    { messageId: snapshot.messageId, timestamp: snapshot.timestamp, trackedFileBackups: outside },
  ];
}

/**
 * Rebuild a session's state from its records (as `restoreStateFromLog` does) keeping the files
 * outside `projectRoot` instead of dropping them: every key is resolved to an absolute path (a
 * relative key against its record's base folder), then split into the project's state (keys in
 * `projectRoot`, or in `recordedRoot`, mapped into `projectRoot`; of two keys naming one file the
 * higher version wins) and the
 * outside state (see {@link SplitFileHistoryState}). Both have every snapshot, so a message id
 * names the same checkpoint in both. Throws `InvalidArgumentError` when `projectRoot` is not an
 * absolute POSIX path. Never throws for bad records.
 */
export function restoreStateWithOutside(records: Iterable<unknown>, options: RestoreWithOutsideOptions): SplitFileHistoryState {
  if (typeof options.projectRoot !== 'string' || !posix.isAbsolute(options.projectRoot)) {
    throw new InvalidArgumentError(`projectRoot must be an absolute POSIX path, got ${JSON.stringify(options.projectRoot)}`);
  }
  const root = posix.resolve(options.projectRoot);
  const baseFolder = options.baseFolder ?? (() => root);
  const whole = restoreStateFromLog(records, {
    projectRoot: OUTSIDE_ROOT,
    baseFolder,
    ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    ...(options.maxSnapshots === undefined ? {} : { maxSnapshots: options.maxSnapshots }),
  });
  const prefixOf = (folder: string) => (folder === OUTSIDE_ROOT ? '' : `${folder.slice(1)}/`);
  const recorded = options.recordedRoot === undefined ? root : posix.resolve(options.recordedRoot);
  const prefixes = recorded === root ? [prefixOf(root)] : [prefixOf(root), prefixOf(recorded)];
  const projectSnapshots: FileHistorySnapshot[] = [];
  const outsideSnapshots: FileHistorySnapshot[] = [];
  for (const snapshot of whole.snapshots) {
    const [inside, outside] = splitSnapshot(snapshot, prefixes);
    projectSnapshots.push(inside);
    outsideSnapshots.push(outside);
  }
  const projectFiles = new Set<string>();
  const outsideFiles = new Set<string>();
  for (const key of whole.trackedFiles) {
    const mapped = projectKey(key, prefixes);
    if (mapped === undefined) outsideFiles.add(key);
    else projectFiles.add(mapped);
  }
  return {
    project: { snapshots: projectSnapshots, trackedFiles: projectFiles, snapshotSequence: whole.snapshotSequence },
    outside: { snapshots: outsideSnapshots, trackedFiles: outsideFiles, snapshotSequence: whole.snapshotSequence },
    outsideFiles: [...outsideFiles].map((key) => `/${key}`).sort(),
  };
}

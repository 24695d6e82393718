/** Result shapes of the file-history operations. */

/** What rewinding one tracked file would do (part of {@link DiffStats}). */
export interface FileDiffStat {
  /** Tracking path: relative to the project root, `/` separators. */
  path: string;
  /** `created`: exists now, did not at the snapshot (a rewind deletes it); `deleted`: the reverse. */
  status: 'modified' | 'created' | 'deleted';
  /** Lines a rewind would add back (jsdiff `diffLines`); 0 for binary or over-cap files. */
  insertions: number;
  /** Lines a rewind would remove; 0 for binary or over-cap files. */
  deletions: number;
  /** True when either side has a NUL byte in its first 8 KiB: changed, no line counts. */
  binary: boolean;
  /** True when either side is larger than the diff size cap: changed, no line counts. */
  tooLarge?: boolean;
  /**
   * True when the line diff gave up after its time budget (`DIFF_TIMEOUT_MS`): so many lines
   * changed (a reformatted or regenerated file) that counting them would take too long. Changed,
   * no line counts.
   */
  tooManyChanges?: boolean;
  /** True when only the permission bits differ. */
  modeOnly?: boolean;
}

/** The dry run of a rewind (seed: fileHistoryGetDiffStats). Nothing is written to compute it. */
export interface DiffStats {
  /** Tracking paths a rewind would change, sorted. */
  filesChanged: string[];
  /** Sum of `insertions` over `files`. */
  insertions: number;
  /** Sum of `deletions` over `files`. */
  deletions: number;
  /** One entry per changed file, sorted by path. */
  files: FileDiffStat[];
  /** fh: tracked files a rewind would leave alone on purpose, with why (as in {@link RewindResult}). */
  skipped?: Array<{ path: string; reason: string }>;
  /**
   * fh: tracked files a rewind could not put back: their backup at the snapshot failed, or the
   * backup is missing from the store (then `rewind` refuses with `BackupMissingError`).
   */
  failed?: Array<{ path: string; reason: string }>;
  /**
   * fh: the entries of `failed` whose backup is missing from the store or damaged, as data: while
   * any is listed, `rewind` (of all files) refuses with `BackupMissingError` and changes nothing;
   * a rewind of the other files (`paths`) works.
   */
  missing?: Array<{ path: string; backupFileName: string; reason: string }>;
  /**
   * fh: the files of `filesChanged` that changed after the session's latest snapshot (edits the
   * agent or the user made since the last turn began, which no snapshot holds), sorted. Filled by
   * `rewindPreview` / `RewindSession`; a front end warns before they are overwritten.
   */
  changedSinceLatestSnapshot?: string[];
}

/** Outcome of a rewind, file by file. */
export interface RewindResult {
  /** The snapshot rewound to. */
  messageId: string;
  /** Tracking paths whose content or mode was written back. */
  restored: string[];
  /** Tracking paths deleted because they did not exist at the snapshot. */
  deleted: string[];
  /** Tracking paths left alone on purpose, each with why (already equal paths are not listed). */
  skipped: Array<{ path: string; reason: string }>;
  /** Tracking paths that could not be rewound, each with the error. */
  failed: Array<{ path: string; error: Error }>;
}

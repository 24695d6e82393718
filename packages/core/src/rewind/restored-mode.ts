/**
 * The permission bits a rewind or an undo gives a file it restores (issue 10, shared design:
 * "restored modes are masked"). A record is text anyone who can write the session log can craft,
 * so the setuid and setgid bits (`0o6000`) it names are kept only when the store's own copy of the
 * backup carries them too (the fs and memfs stores keep a backup's mode on the backup file itself,
 * the S3 store in the object's metadata written with it); every other bit is `mode & 0o7777`.
 */

/** setuid | setgid. */
const SET_ID_BITS = 0o6000;

/**
 * `recordedMode & 0o7777`, without the setuid/setgid bits unless `storedMode` (the mode the store
 * reports for the backup object, `BackupInfo.mode`) has the same ones. Both are `st_mode`-style
 * numbers; file-type bits are ignored.
 */
export function restoredMode(recordedMode: number, storedMode?: number): number {
  const confirmedSetId = storedMode === undefined ? 0 : recordedMode & storedMode & SET_ID_BITS;
  return (recordedMode & 0o7777 & ~SET_ID_BITS) | confirmedSetId;
}

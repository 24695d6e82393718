/**
 * Checking one backup against what was recorded when it was made (issue 10): it must exist in the
 * store, have the recorded size, and — when the record carries one — bytes whose sha256 is the
 * recorded content hash. Used by `fh verify` (`verify-session.ts`) and, before anything is
 * written, by every rewind, undo and redo (a backup that fails refuses the whole operation).
 */
import { createHash } from 'node:crypto';
import { FhError } from '../errors.js';
import type { BackupStore } from '../store.js';

/** What a backup's record says about it: the size and content hash recorded when it was made. */
export interface RecordedBackup {
  backupFileName: string;
  /** Bytes recorded when the backup was made; `undefined` when the record has none. */
  size?: number;
  /** Lower-case hex sha256 recorded when the backup was made; `undefined` for older records. */
  sha256?: string;
}

/**
 * The outcome of checking one backup:
 * - `ok`: it exists, has the recorded size and its bytes hash to the recorded sha256;
 * - `unverifiable`: it exists with the recorded size, but its record has no content hash (made by
 *   an fh before hashes were recorded, or by Claude Code), so its bytes cannot be checked: not
 *   counted as damage;
 * - `missing`: the store has no such backup;
 * - `size`: the store's backup has another size than recorded (truncated, grown, replaced);
 * - `hash`: the size is right but the bytes do not hash to the recorded sha256 (a flipped byte);
 * - `refused`: the store refused to read it as not what it wrote (`CorruptError`: a symbolic link
 *   or another non-file in an fs store); `reason` is the store's message.
 */
export type BackupCheck =
  | { status: 'ok' | 'unverifiable'; size: number }
  | { status: 'missing' }
  | { status: 'refused'; reason: string }
  | { status: 'size'; size: number; recordedSize: number }
  | { status: 'hash'; sha256: string; recordedSha256: string };

/** A check that found damage. */
export type DamagedCheck = Extract<BackupCheck, { status: 'missing' | 'size' | 'hash' | 'refused' }>;

/** Whether a check found damage (`missing`, `size`, `hash`, `refused`). */
export function isDamaged(check: BackupCheck): check is DamagedCheck {
  return check.status !== 'ok' && check.status !== 'unverifiable';
}

/**
 * Check backup `recorded.backupFileName` of `sessionId` against its record (see {@link BackupCheck}):
 * one `statBackup`, then, when the record has a sha256 and the size is right, all its bytes are
 * read and hashed. A backup the store refuses as not what it wrote (`CorruptError`) is `refused`;
 * other store failures are thrown.
 */
export async function checkBackup(store: BackupStore, sessionId: string, recorded: RecordedBackup): Promise<BackupCheck> {
  let info;
  try {
    info = await store.statBackup(sessionId, recorded.backupFileName);
  } catch (error) {
    if (FhError.hasCode(error, 'FH_CORRUPT')) return { status: 'refused', reason: error.message };
    throw error;
  }
  if (info === null) return { status: 'missing' };
  if (recorded.size !== undefined && info.size !== recorded.size) return { status: 'size', size: info.size, recordedSize: recorded.size };
  if (recorded.sha256 === undefined) return { status: 'unverifiable', size: info.size };
  return checkBackupBytes(store, sessionId, recorded.backupFileName, recorded.sha256, info.size);
}

/**
 * The content half of {@link checkBackup}, for a caller that checked presence and size already:
 * read all bytes of the backup and compare their sha256 with `recordedSha256`.
 */
export async function checkBackupBytes(store: BackupStore, sessionId: string, backupFileName: string, recordedSha256: string, size: number): Promise<BackupCheck> {
  const hash = createHash('sha256');
  let length = 0;
  try {
    for await (const chunk of await store.openBackup(sessionId, backupFileName)) {
      hash.update(chunk);
      length += chunk.length;
    }
  } catch (error) {
    if (FhError.hasCode(error, 'FH_NOT_FOUND')) return { status: 'missing' };
    // A store that checks bytes against its own metadata (S3) throws once it has streamed them
    // all: what was hashed is the whole backup, compared below like any other.
    if (!FhError.hasCode(error, 'FH_CORRUPT')) throw error;
  }
  if (length !== size) return { status: 'size', size: length, recordedSize: size };
  const actual = hash.digest('hex');
  const expected = recordedSha256.toLowerCase();
  return actual === expected ? { status: 'ok', size } : { status: 'hash', sha256: actual, recordedSha256: expected };
}

/**
 * A damaged check as the end of a sentence about the backup: `the backup does not exist in the
 * store`, …; for `refused`, the store's own message (`<path> is a symbolic link: …`).
 */
export function describeDamage(check: DamagedCheck): string {
  if (check.status === 'missing') return 'the backup does not exist in the store';
  if (check.status === 'refused') return check.reason;
  if (check.status === 'size') return `the backup has ${check.size} bytes, not the ${check.recordedSize} recorded when it was made`;
  return `its bytes do not match the content hash recorded when it was made (sha256 ${check.recordedSha256.slice(0, 12)}…, now ${check.sha256.slice(0, 12)}…)`;
}

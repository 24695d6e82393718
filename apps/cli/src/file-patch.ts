/**
 * The git-style patch of one tracked file of a rewind's dry run, from the file as it is now to
 * the file at the checkpoint (`fh diff --patch`, the menu's patch preview). Which backup holds the
 * file at the checkpoint is the core's rule (`snapshotFileBackups`).
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { DIFF_TIMEOUT_MS, snapshotFileBackups, type FileDiffStat, type FileHistoryBackup } from '@fh/core';
import { gitFilePatch, type PatchSide } from './git-patch.js';
import type { OpenedSession } from './open-session.js';
import { readCurrentBytes, readEntryBytes } from './snapshot-content.js';

/** The bytes and mode of the workspace file now, or null when there is none. */
async function currentSide(projectRoot: string, path: string): Promise<PatchSide | null> {
  const bytes = await readCurrentBytes(projectRoot, path);
  if (bytes === null) return null;
  const stats = await lstat(join(projectRoot, path)).catch(() => undefined);
  return { bytes, mode: stats?.mode };
}

/** The patch of `file` and the bytes read for it (both sides). `entries`: `snapshotFileBackups` of the checkpoint, when the caller has it. */
export async function filePatch(
  session: OpenedSession,
  messageId: string,
  file: FileDiffStat,
  entries: Map<string, FileHistoryBackup | undefined> | undefined = snapshotFileBackups(session.history.state, messageId),
): Promise<{ text: string; bytes: number }> {
  const entry = entries?.get(file.path);
  const targetBytes = entry === undefined ? null : await readEntryBytes(session.store, session.sessionId, entry);
  const from = await currentSide(session.projectRoot, file.path);
  const to = targetBytes === null ? null : { bytes: targetBytes, mode: entry?.mode };
  const binary = file.binary || file.tooLarge === true;
  const text = await gitFilePatch(file.path, from, to, { binary, wholeFile: file.tooManyChanges === true, timeoutMs: DIFF_TIMEOUT_MS });
  return { text, bytes: (from?.bytes.length ?? 0) + (to?.bytes.length ?? 0) };
}

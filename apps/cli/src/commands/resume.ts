/**
 * `fh resume <fromSession> [--to <id>]`: carry a session's file history into a new session
 * (`copyFileHistoryForResume`: hard links, else copies), so the resumed conversation can still
 * rewind to the old session's turns. The new session id is printed (and is the `--to` value when
 * given). The new session records `--project`, else the project the old one recorded; when that
 * folder does not exist here (resuming on another machine) and `--project` is not given, nothing
 * is written and the usage error asks for `--project` (exit 2).
 *
 * JSON: `{ "fromSessionId", "sessionId", "projectRoot", "checkpoints", "linked", "copied",
 * "existed", "missing": [{ "backupFileName", "references": [{ "messageId", "path" }] }],
 * "recordsWritten" }`. Exit 3 when backups were missing (each is named; the rest was carried).
 */
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { copyFileHistoryForResume, NotFoundError, parseFhSessionRecord } from '@fh/core';
import { PartialFailureError, UsageError } from '../cli-errors.js';
import { assertWritable } from '../claude-guard.js';
import { fhCommand } from '../command-hint.js';
import { displayId, displayPath, plural } from '../format.js';
import { assertProjectFolder } from '../open-session.js';
import { describeStoreLocation } from '../store-uri.js';
import type { CommandContext } from '../context.js';

/** Options of `fh resume`. */
export interface ResumeOptions {
  to?: string;
}

/** Run `fh resume`. */
export async function run(context: CommandContext, fromSessionId: string, options: ResumeOptions): Promise<void> {
  assertWritable(context, 'resume');
  await assertProjectFolder(context);
  const store = await context.store();
  const toSessionId = options.to ?? randomUUID();
  const { records } = await store.sessionLog(fromSessionId).read();
  if (records.length === 0 && (await store.listBackups(fromSessionId)).length === 0) {
    throw new NotFoundError(`session "${fromSessionId}" not found in ${describeStoreLocation(context.storeLocation)} (fh sessions lists them)`);
  }
  const recorded = records.map((record) => parseFhSessionRecord(record)).find((record) => record !== undefined);
  const projectRoot = context.options.project !== undefined ? context.projectRoot : (recorded?.projectRoot ?? context.projectRoot);
  if (context.options.project === undefined && !(await isFolder(projectRoot))) {
    throw new UsageError(
      `session ${displayId(fromSessionId)} was recorded for project ${displayPath(projectRoot)}, which does not exist here: ` +
        'pass --project <folder> with the project\'s folder on this machine; nothing was written',
    );
  }
  const result = await context.output.withProgress('carrying backups', (onProgress) =>
    copyFileHistoryForResume({ store, fromSessionId, toSessionId, projectRoot, throwOnMissing: false, onProgress }),
  );
  const document = {
    fromSessionId,
    sessionId: toSessionId,
    projectRoot,
    checkpoints: result.state.snapshots.length,
    linked: result.linked.length,
    copied: result.copied.length,
    existed: result.existed.length,
    missing: result.missing,
    recordsWritten: result.recordsWritten,
  };
  context.output.result(document, () => [
    `resumed ${displayId(fromSessionId)} as ${displayId(toSessionId)}: ${plural(result.state.snapshots.length, 'checkpoint')}, ${plural(result.linked.length, 'backup')} linked, ${result.copied.length} copied`,
    `continue with: ${fhCommand(context, ['list'], { session: toSessionId })}`,
  ]);
  if (result.missing.length > 0) {
    throw new PartialFailureError(
      `${result.missing.length} backup${result.missing.length === 1 ? ' is' : 's are'} missing from session ${fromSessionId}; rewinding those files to the affected turns will fail`,
      result.missing.map((missing) => ({ path: missing.references.map((reference) => reference.path).filter((path, index, all) => all.indexOf(path) === index).join(', '), error: `backup ${missing.backupFileName} missing` })),
    );
  }
}

/** True when `path` is a folder on this machine. */
async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

/**
 * `fh verify [--session <id>]`: check every backup the session references (default: every fh
 * session of the project) — checkpoint backups and rewind-timeline pre-images — for presence,
 * size and the content hash recorded when it was made (`verifySession` of @fh/core), and report
 * each damaged one with what it breaks, like restic's `check`. Writes nothing.
 *
 * Exit code: 0 when nothing is damaged (backups recorded without a hash are reported as
 * unverifiable, not as damage), 1 when any backup is damaged.
 *
 * JSON: `{ "projectRoot", "damaged": <count>, "sessions": [{ "sessionId", "checked", "ok",
 * "unverifiable", "damaged": [{ "backupFileName", "status": "missing"|"size"|"hash"|"refused", "problem",
 * "paths", "checkpoints", "points" }], "brokenCheckpoints", "brokenPoints", "bytesHashed" }] }`.
 */
import { NotFoundError, parseFhSessionRecord, verifySession, type LogRecord, type SessionVerification } from '@fh/core';
import { ExitCode, UsageError } from '../cli-errors.js';
import { fhCommand } from '../command-hint.js';
import type { CommandContext } from '../context.js';
import { displayId, displayPath, formatBytes, plural } from '../format.js';
import { sameProject } from '../open-session.js';
import { describeStoreLocation } from '../store-uri.js';

/** Run `fh verify`; returns 1 when a backup is damaged. */
export async function run(context: CommandContext): Promise<number> {
  if (context.claudeConfigDir !== undefined) {
    throw new UsageError('fh verify checks fh sessions (their backups carry content hashes); Claude Code records none, so there is nothing to verify with --claude');
  }
  const store = await context.store();
  const sessions = await sessionsToVerify(context);
  const reports: SessionVerification[] = [];
  for (const { sessionId, projectRoot, records } of sessions) {
    reports.push(
      await context.output.withProgress(`verifying session ${displayId(sessionId)}`, (onProgress) => verifySession({ store, sessionId, projectRoot, records, onProgress })),
    );
  }
  const damaged = reports.reduce((sum, report) => sum + report.damaged.length, 0);
  context.output.result({ projectRoot: context.projectRoot, damaged, sessions: reports }, () =>
    reports.length === 0 ? [`no fh sessions of ${displayPath(context.projectRoot)} in ${describeStoreLocation(context.storeLocation)}`] : reports.flatMap((report) => reportLines(context, report)),
  );
  return damaged === 0 ? ExitCode.ok : ExitCode.failure;
}

/** `--session`'s session, or every fh session whose recorded project is this project. */
async function sessionsToVerify(context: CommandContext): Promise<Array<{ sessionId: string; projectRoot: string; records: LogRecord[] }>> {
  const store = await context.store();
  const projectOf = (records: LogRecord[]) => records.map((record) => parseFhSessionRecord(record)).find((record) => record !== undefined)?.projectRoot;
  const chosen = context.sessionIdOption;
  if (chosen !== undefined) {
    const { records } = await store.sessionLog(chosen).read();
    if (records.length === 0 && (await store.listBackups(chosen)).length === 0) {
      throw new NotFoundError(`session "${chosen}" not found in ${describeStoreLocation(context.storeLocation)} (fh sessions lists them)`);
    }
    return [{ sessionId: chosen, projectRoot: projectOf(records) ?? context.projectRoot, records }];
  }
  const found: Array<{ sessionId: string; projectRoot: string; records: LogRecord[] }> = [];
  for (const session of [...(await store.listSessions())].sort((a, b) => a.sessionId.localeCompare(b.sessionId))) {
    const { records } = await store.sessionLog(session.sessionId).read();
    const projectRoot = projectOf(records);
    if (projectRoot !== undefined && (await sameProject(projectRoot, context.projectRoot))) found.push({ sessionId: session.sessionId, projectRoot, records });
  }
  return found;
}

/** The lines of one session's report: the counts, each damaged backup and what it breaks, what to do. */
function reportLines(context: CommandContext, report: SessionVerification): string[] {
  const { colors } = context.output;
  const counts = [
    `${report.ok} sound`,
    ...(report.unverifiable === 0 ? [] : [`${report.unverifiable} recorded without a content hash (by an older fh; present with their size, bytes not checkable)`]),
    `${report.damaged.length} damaged`,
  ];
  const head = `session ${displayId(report.sessionId)}: ${plural(report.checked, 'backup')} checked (${formatBytes(report.bytesHashed)} hashed): ${counts.join(', ')}`;
  if (report.damaged.length === 0) return [head];
  const lines = [head];
  for (const backup of report.damaged) {
    lines.push(`  ${colors.red('damaged')} ${backup.paths.map(displayPath).join(', ')}: backup ${backup.backupFileName}: ${backup.problem}`);
    if (backup.checkpoints.length > 0) lines.push(`    breaks the rewind to ${plural(backup.checkpoints.length, 'checkpoint')}: ${backup.checkpoints.map(displayId).join(', ')}`);
    if (backup.points.length > 0) lines.push(`    breaks undo to before ${plural(backup.points.length, 'timeline point')}: ${backup.points.map(displayId).join(', ')}`);
  }
  const broken = [
    ...(report.brokenCheckpoints.length === 0 ? [] : [`the rewind to ${plural(report.brokenCheckpoints.length, 'checkpoint')}`]),
    ...(report.brokenPoints.length === 0 ? [] : [`undo to before ${plural(report.brokenPoints.length, 'timeline point')}`]),
  ];
  lines.push(
    `  This breaks ${broken.join(' and ')}: fh refuses them, changing nothing, while these backups are damaged, and cannot repair them. ` +
      `Rewind the other files by naming them (${fhCommand(context, ['rewind'], { session: report.sessionId })} <checkpoint> --paths <other files>) ` +
      `and take the damaged files from another copy (git, a backup of the store).`,
  );
  return lines;
}

/**
 * `fh sessions`: every session of the store (or, with `--claude`, of the Claude Code folder),
 * newest first, with its project, last change, number of checkpoints and bytes on disk. Checkpoints
 * are counted as `fh list` lists them (`offeredCheckpointIds`: snapshots of prompts on the current
 * branch; for fh's own sessions also those without a recorded prompt).
 *
 * JSON: `{ "source": "fs:<folder>" | "claude:<configDir>", "sessions": [{ "sessionId",
 * "projectRoot" (null when unknown), "lastModified", "checkpoints", "bytes", "backups", "timelinePoints", "timelineBytes" }] }`
 * (`timeline…`: the rewind timeline's points and the bytes of their pre-image backups, counted in
 * `bytes` too; 0 for Claude Code sessions, whose timelines live in the `--store`).
 */
import { resolve } from 'node:path';
import { offeredCheckpointIds, parseFhSessionRecord, readTimelinePoints, restoreStateFromLog, type BackupStore, type LogRecord } from '@fh/core';
import { assertClaudeFolder } from '../claude-guard.js';
import type { CommandContext } from '../context.js';
import { renderTable } from '../output.js';
import { describeStoreLocation } from '../store-uri.js';
import { displayId, displayPath, formatBytes, formatTime } from '../format.js';

/** One row of `fh sessions`. */
export interface SessionRow {
  sessionId: string;
  projectRoot: string | null;
  lastModified: Date;
  checkpoints: number;
  bytes: number;
  backups: number;
  /** Rewind-timeline points of the session and the bytes of their pre-image backups (part of `bytes`). */
  timelinePoints: number;
  timelineBytes: number;
}

/** Run `fh sessions`. */
export async function run(context: CommandContext): Promise<void> {
  const configDir = context.claudeConfigDir;
  const { rows, source } = configDir !== undefined ? await claudeRows(context, configDir) : await fhRows(context);
  const colors = context.output.colors;
  context.output.result({ source, sessions: rows }, () =>
    rows.length === 0
      ? [`no sessions in ${source}`]
      : renderTable<SessionRow>(
          rows,
          [
            { header: 'session', value: (row) => displayId(row.sessionId) },
            { header: 'project', value: (row) => (row.projectRoot === null ? '?' : displayPath(row.projectRoot)) },
            { header: 'last change', value: (row) => formatTime(row.lastModified) },
            { header: 'checkpoints', value: (row) => String(row.checkpoints), right: true },
            { header: 'size', value: (row) => formatBytes(row.bytes), right: true },
            { header: 'timeline', value: (row) => (row.timelinePoints === 0 ? '-' : `${row.timelinePoints} pts, ${formatBytes(row.timelineBytes)}`), right: true },
          ],
          colors,
        ),
  );
}

async function fhRows(context: CommandContext): Promise<{ rows: SessionRow[]; source: string }> {
  const store: BackupStore = await context.store();
  const sessions = [...(await store.listSessions())].sort((a, b) => b.lastModified.getTime() - a.lastModified.getTime() || a.sessionId.localeCompare(b.sessionId));
  const progress = context.output.progress('reading sessions', sessions.length);
  const rows: SessionRow[] = [];
  for (const session of sessions) {
    const { records } = await store.sessionLog(session.sessionId).read();
    const projectRoot = records.map((record) => parseFhSessionRecord(record)).find((record) => record !== undefined)?.projectRoot ?? null;
    const checkpoints = countCheckpoints(records, projectRoot ?? resolve('/'), false);
    const timeline = timelineOf(records);
    rows.push({ sessionId: session.sessionId, projectRoot, lastModified: session.lastModified, checkpoints, bytes: session.bytes, backups: session.backups, ...timeline });
    progress.tick();
  }
  progress.stop();
  return { rows, source: describeStoreLocation(context.storeLocation) };
}

async function claudeRows(context: CommandContext, configDir: string): Promise<{ rows: SessionRow[]; source: string }> {
  await assertClaudeFolder(configDir);
  const { ClaudeCodeStore } = await import('@fh/store-fs');
  const store = new ClaudeCodeStore({ configDir });
  const sessions = await store.listClaudeSessions();
  const progress = context.output.progress('reading Claude Code sessions', sessions.length);
  const rows: SessionRow[] = [];
  for (const session of sessions) {
    let checkpoints = 0;
    if (session.transcriptPath !== undefined) {
      const { records } = await store.sessionLog(session.sessionId).read();
      checkpoints = countCheckpoints(records, session.projectPath ?? resolve('/'), true);
    }
    rows.push({
      sessionId: session.sessionId,
      projectRoot: session.projectPath ?? null,
      lastModified: session.lastModified,
      checkpoints,
      bytes: session.bytes,
      backups: session.backups,
      timelinePoints: 0,
      timelineBytes: 0,
    });
    progress.tick();
  }
  progress.stop();
  return { rows, source: `claude:${configDir}` };
}

/** Points of the rewind timeline in `records` and the bytes of the pre-image backups they name. */
function timelineOf(records: LogRecord[]): { timelinePoints: number; timelineBytes: number } {
  const points = readTimelinePoints(records);
  const sizes = new Map<string, number>();
  for (const point of points) for (const entry of point.entries) if (entry.backupFileName !== null) sizes.set(entry.backupFileName, entry.size ?? 0);
  return { timelinePoints: points.length, timelineBytes: [...sizes.values()].reduce((sum, size) => sum + size, 0) };
}

/** The checkpoints `fh list` would list for a session's records (Claude Code's rule when `claude`). */
function countCheckpoints(records: LogRecord[], projectRoot: string, claude: boolean): number {
  const snapshots = restoreStateFromLog(records, { projectRoot }).snapshots;
  const offered = new Set(offeredCheckpointIds(records, snapshots.map((snapshot) => snapshot.messageId), { unrecordedMessages: !claude }));
  return snapshots.filter((snapshot) => offered.has(snapshot.messageId)).length;
}

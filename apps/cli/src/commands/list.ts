/**
 * `fh list`: the session's checkpoints, oldest first: the turn number (what `fh diff 3` and
 * `fh rewind -2` take), message id, time, the prompt (excerpt) and what rewinding there would
 * change now (files, +/-), and — after the table — why a rewind there would be refused, and, for
 * each turn in which sub-agents changed files, one line per agent with the files it changed in
 * that turn (issue 14).
 *
 * Only checkpoints a person can rewind to are listed (Claude Code's rule, `offeredCheckpointIds`):
 * those of prompts on the current branch of the conversation, and for fh's own sessions also
 * those taken without a recorded prompt. Files a Claude Code session tracked outside the project
 * (plan files, `/tmp`, a sibling project) are counted apart, as "outside the project": a rewind
 * leaves them unless given `--include-outside`.
 *
 * JSON: `{ "sessionId", "projectRoot", "checkpoints": [{ "turn", "messageId", "timestamp", "prompt"
 * (null when not recorded), "filesChanged", "insertions", "deletions", "failed": [{ "path",
 * "reason" }], "refusals": [{ "path", "kind", "reason" }], "outside": { "filesChanged",
 * "insertions", "deletions" } | null, "agents": [{ "by": "main"|"subagent", "agentId",
 * "agentType", "paths" }] }] }` (`outside`: null when the session tracked no file outside the
 * project; `agents`: who changed which tracked files during that turn, the main agent first).
 * Each checkpoint also has `"checkpoint": { "kind": "end-of-turn" | "manual", "label" (null when
 * none) } | null`: the `fh-checkpoint` mark of an end-of-turn checkpoint (the `Stop` hook) or one
 * taken by `fh checkpoint`, null for a turn's own snapshot; the table shows it in the prompt column.
 */
import { checkpointMarks, isTranscriptMessage, offeredCheckpointIds, promptForResubmit, rewindRefusals, turnAgentChanges, type RewindRefusal } from '@fh/core';
import { agentDocument, turnAgentLines } from '../agent-lines.js';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import type { CommandContext } from '../context.js';
import { displayId, displayPath, excerpt, formatTime } from '../format.js';
import { openSession } from '../open-session.js';
import { renderTable, type Colors } from '../output.js';
import { formatLineCounts, refusalText } from '../render-stats.js';

/** One checkpoint as `fh list` shows it. */
export interface CheckpointRow {
  /** 1 for the oldest checkpoint. */
  turn: number;
  messageId: string;
  timestamp: Date;
  prompt: string | null;
  filesChanged: string[];
  insertions: number;
  deletions: number;
  failed: Array<{ path: string; reason: string }>;
  /** The files because of which a rewind there would be refused (empty: it would go ahead). */
  refusals: RewindRefusal[];
  /** What rewinding would change outside the project (absolute paths); null when the session tracked nothing there. */
  outside: { filesChanged: string[]; insertions: number; deletions: number } | null;
  /** Who changed which tracked files during the turn (issue 14). */
  agents: Array<ReturnType<typeof agentDocument> & { paths: string[] }>;
  /** The checkpoint's mark (end of turn, or `fh checkpoint` with its label); null for a turn's snapshot. */
  checkpoint: { kind: 'end-of-turn' | 'manual'; label: string | null } | null;
}

/** Run `fh list`. */
export async function run(context: CommandContext): Promise<void> {
  assertCheckpointingEnabled(context);
  const session = await openSession(context, { lock: false });
  try {
    const prompts = new Map<string, string>();
    for (const record of session.records) {
      if (record.type === 'user' && isTranscriptMessage(record)) prompts.set(record.uuid, promptForResubmit(record).text);
    }
    const marks = checkpointMarks(session.records);
    const offered = new Set(offeredCheckpointIds(session.records, session.history.state.snapshots.map((snapshot) => snapshot.messageId), { unrecordedMessages: !session.claude }));
    const snapshots = session.history.state.snapshots.filter((snapshot) => offered.has(snapshot.messageId));
    const outsideHistory = session.outsideHistory;
    const progress = context.output.progress('computing diff stats', snapshots.length, { unit: 'checkpoints' });
    const checkpoints: CheckpointRow[] = [];
    const agentLines: string[] = [];
    for (const [index, snapshot] of snapshots.entries()) {
      const changes = turnAgentChanges(snapshot);
      if (changes.some((change) => change.agent.by === 'subagent')) agentLines.push(`changed by agents in turn ${index + 1} (${displayId(snapshot.messageId)}):`, ...turnAgentLines(changes));
      const stats = await session.history.getDiffStats(snapshot.messageId);
      const outside = outsideHistory?.canRestore(snapshot.messageId) === true ? await outsideHistory.getDiffStats(snapshot.messageId) : undefined;
      checkpoints.push({
        turn: index + 1,
        messageId: snapshot.messageId,
        timestamp: snapshot.timestamp,
        prompt: prompts.get(snapshot.messageId) ?? null,
        filesChanged: stats.filesChanged,
        insertions: stats.insertions,
        deletions: stats.deletions,
        failed: stats.failed ?? [],
        refusals: rewindRefusals(session.history.state, snapshot.messageId, stats),
        outside: outside === undefined ? null : { filesChanged: outside.filesChanged.map((path) => `/${path}`), insertions: outside.insertions, deletions: outside.deletions },
        agents: changes.map((change) => ({ ...agentDocument(change.agent), paths: change.paths })),
        checkpoint: markOf(marks.get(snapshot.messageId)),
      });
      progress.tick();
    }
    progress.stop();
    const colors = context.output.colors;
    context.output.result({ sessionId: session.sessionId, projectRoot: session.projectRoot, checkpoints }, () =>
      checkpoints.length === 0
        ? [`session ${displayId(session.sessionId)} has no checkpoints yet`]
        : [
            `session ${displayId(session.sessionId)} (${displayPath(session.projectRoot)})`,
            ...renderTable<CheckpointRow>(
              checkpoints,
              [
                { header: '#', value: (row) => String(row.turn), right: true },
                { header: 'message id', value: (row) => displayId(row.messageId) },
                { header: 'time', value: (row) => formatTime(row.timestamp) },
                { header: 'prompt', value: (row) => promptCell(row, colors) },
                { header: 'files', value: (row) => String(row.filesChanged.length) + filesNote(row, colors), right: true },
                { header: '+/-', value: (row) => formatLineCounts(row.insertions, row.deletions, colors), right: true },
                ...(outsideHistory === undefined
                  ? []
                  : [
                      {
                        header: 'outside the project',
                        value: (row: CheckpointRow) =>
                          row.outside === null ? '' : `${row.outside.filesChanged.length} ${formatLineCounts(row.outside.insertions, row.outside.deletions, colors)}`,
                        right: true,
                      },
                    ]),
              ],
              colors,
            ),
            ...refusalLines(checkpoints, colors),
            ...agentLines,
          ],
    );
  } finally {
    await session.close();
  }
}

/** The row's `checkpoint` from its mark, if any. */
function markOf(mark: { kind: 'end-of-turn' | 'manual'; label?: string } | undefined): CheckpointRow['checkpoint'] {
  return mark === undefined ? null : { kind: mark.kind, label: mark.label ?? null };
}

/** The prompt column: the prompt's excerpt, else what the checkpoint's mark says, else "(not recorded)". */
function promptCell(row: CheckpointRow, colors: Colors): string {
  if (row.prompt !== null) return excerpt(row.prompt, 50);
  if (row.checkpoint?.kind === 'end-of-turn') return colors.dim('(end of turn)');
  if (row.checkpoint?.kind === 'manual') return row.checkpoint.label === null ? colors.dim('(checkpoint)') : `${colors.dim('checkpoint:')} ${excerpt(row.checkpoint.label, 38)}`;
  return colors.dim('(not recorded)');
}

/** ` (refused)` for a checkpoint a rewind to would be refused, ` (N unavailable)` for files it would report and skip. */
function filesNote(row: CheckpointRow, colors: Colors): string {
  if (row.refusals.length > 0) return colors.red(' (refused)');
  return row.failed.length > 0 ? colors.red(` (${row.failed.length} unavailable)`) : '';
}

/** One line per distinct reason a rewind would be refused, naming the turns it applies to. */
function refusalLines(checkpoints: readonly CheckpointRow[], colors: Colors): string[] {
  const turnsByReason = new Map<string, number[]>();
  for (const row of checkpoints) {
    const text = refusalText({ filesChanged: [], insertions: 0, deletions: 0, files: [], refusals: row.refusals });
    if (text === undefined) continue;
    turnsByReason.set(text, [...(turnsByReason.get(text) ?? []), row.turn]);
  }
  return [...turnsByReason].map(([text, turns]) => colors.red(`Rewinding to turn${turns.length === 1 ? '' : 's'} ${turns.join(', ')}: ${text}`));
}

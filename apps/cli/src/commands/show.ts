/**
 * `fh show <id>`: one turn — its number and message id, its time, the whole prompt, what rewinding
 * there would change now (files with +/-, and whether the rewind would be refused), and, where the
 * transcript holds them (Claude Code sessions), an excerpt of the assistant's reply. `<id>` is a
 * message id, a unique prefix of one or a turn number (see message-ref.ts). Nothing is written.
 *
 * JSON: `{ "sessionId", "projectRoot", "messageId", "turn" | null, "timestamp" | null, "prompt" |
 * null, "reply" | null, "stats": DiffStats & { "refusals" } | null }` (`reply`: the whole reply
 * text; `stats`: null when the message has no checkpoint), plus `"agents": [{ "by", "agentId",
 * "agentType", "paths" }]`: who changed which tracked files during the turn (issue 14; empty
 * without a checkpoint), printed one line per agent.
 */
import { currentBranchRecords, isTranscriptMessage, promptForResubmit, RewindSession, rewindRefusals, turnAgentChanges, turnReplyText } from '@fh/core';
import { agentDocument, turnAgentLines } from '../agent-lines.js';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import type { CommandContext } from '../context.js';
import { displayId, displayPath, escapeControl, formatTime } from '../format.js';
import { resolveMessageId } from '../message-ref.js';
import { openSession } from '../open-session.js';
import { otherFilesHint } from '../refusal-hint.js';
import { renderDiffStats } from '../render-stats.js';

/** Lines of the reply `fh show` prints; the JSON document has all of it. */
const REPLY_EXCERPT_LINES = 12;

/** Run `fh show`. */
export async function run(context: CommandContext, reference: string): Promise<void> {
  assertCheckpointingEnabled(context);
  const session = await openSession(context, { lock: false });
  try {
    const rewinder = new RewindSession({ history: session.history, messages: currentBranchRecords(session.records), undo: false, unrecordedCheckpoints: !session.claude });
    const messageId = resolveMessageId(context, session, reference, rewinder);
    const branch = currentBranchRecords(session.records);
    const message = branch.find((record) => isTranscriptMessage(record) && record.type === 'user' && record.uuid === messageId);
    const prompt = message !== undefined && isTranscriptMessage(message) ? promptForResubmit(message).text : null;
    const snapshots = session.history.state.snapshots;
    // Turns as fh list numbers them; the last snapshot with the id counts, as everywhere.
    const turnIndex = rewinder.checkpointIds().indexOf(messageId);
    const snapshot = snapshots[snapshots.map((candidate) => candidate.messageId).lastIndexOf(messageId)];
    const timestampText = snapshot?.timestamp ?? (message !== undefined && isTranscriptMessage(message) && typeof message.timestamp === 'string' ? new Date(message.timestamp) : undefined);
    const timestamp = timestampText === undefined || Number.isNaN(timestampText.getTime()) ? null : timestampText;
    const plain = session.history.canRestore(messageId)
      ? await context.output.withProgress('comparing files', (onProgress) => session.history.getDiffStats(messageId, { onProgress }), { unit: 'files' })
      : undefined;
    const stats = plain === undefined ? null : { ...plain, refusals: rewindRefusals(session.history.state, messageId, plain) };
    const reply = turnReplyText(branch, messageId) ?? null;
    const changes = snapshot === undefined ? [] : turnAgentChanges(snapshot);
    const agents = changes.map((change) => ({ ...agentDocument(change.agent), paths: change.paths }));
    const colors = context.output.colors;
    context.output.result(
      { sessionId: session.sessionId, projectRoot: session.projectRoot, messageId, turn: turnIndex === -1 ? null : turnIndex + 1, timestamp, prompt, reply, stats, agents },
      () => {
        const replyLines = reply === null ? [] : escapeControl(reply, { keepLines: true }).split('\n');
        return [
          colors.bold(`${turnIndex === -1 ? 'prompt' : `turn ${turnIndex + 1}`}  ${displayId(messageId)}`) + (timestamp === null ? '' : `  ${formatTime(timestamp)}`),
          `session ${displayId(session.sessionId)} (${displayPath(session.projectRoot)})`,
          '',
          prompt === null ? colors.dim('(prompt not recorded)') : escapeControl(prompt, { keepLines: true }),
          '',
          ...(stats === null
            ? ['No checkpoint: only the conversation can be rewound here.']
            : renderDiffStats(stats, colors, 'Rewinding here', { refusalHint: otherFilesHint(context, session, messageId, stats) })),
          ...(changes.length === 0 ? [] : ['', 'Changed in this turn by:', ...turnAgentLines(changes, '  ')]),
          ...(reply === null
            ? []
            : [
                '',
                colors.bold('Reply:'),
                ...replyLines.slice(0, REPLY_EXCERPT_LINES).map((line) => `  ${line}`),
                ...(replyLines.length > REPLY_EXCERPT_LINES ? [colors.dim(`  … ${replyLines.length - REPLY_EXCERPT_LINES} more lines (--json has all of it)`)] : []),
              ]),
        ];
      },
    );
  } finally {
    await session.close();
  }
}

/**
 * Which records a fork of a conversation keeps (the pure half of writing a fork on disk).
 */
import { randomUUID } from 'node:crypto';
import { currentBranchRecords } from './chain.js';
import { isTranscriptMessage, type ConversationRecord, type TranscriptMessage } from './messages.js';
import { rewindConversation, type ConversationRewind } from './rewind-conversation.js';
import { CURRENT_PROMPT_ID } from './selectable.js';

/** What {@link planFork} decided. */
export interface ForkPlan {
  /** The new session id. */
  sessionId: string;
  /**
   * The kept messages of the current branch, oldest first, as copies whose `sessionId` is the new
   * session id; everything else (uuid, parentUuid, content) is unchanged, so the chain is intact.
   */
  messages: TranscriptMessage[];
  /** Uuids of `messages`, in order. */
  keptMessageIds: string[];
  /**
   * The source's `file-history-snapshot` records whose `messageId`, and `file-history-delta`
   * records whose `snapshotMessageId`, is a kept message: the file history of the fork, in
   * source order, unchanged.
   */
  fileHistoryRecords: ConversationRecord[];
  /** The rewind the fork is made from; `null` for a fork at the current prompt (a full copy). */
  rewind: ConversationRewind | null;
}

/** Options of {@link planFork}. */
export interface PlanForkOptions {
  /** The fork's session id; default a random UUID. */
  sessionId?: string;
}

/**
 * Plan a fork of `records` (a transcript or session log) rewound to before the user message
 * `messageId` of its current branch (see `currentBranchRecords`); {@link CURRENT_PROMPT_ID} forks
 * the whole current branch. Records that are neither messages nor file history (titles,
 * summaries, fh's own session and undo records) describe the source session and are left out.
 *
 * Throws like `rewindConversation` for an unknown id or one that is not a typed prompt. Pure.
 */
export function planFork(records: readonly ConversationRecord[], messageId: string, options: PlanForkOptions = {}): ForkPlan {
  const sessionId = options.sessionId ?? randomUUID();
  const branch = currentBranchRecords(records);
  const rewind = messageId === CURRENT_PROMPT_ID ? null : rewindConversation(branch, messageId, { generateId: () => sessionId });
  const kept = (rewind === null ? branch : rewind.messages).filter(isTranscriptMessage);
  const keptMessageIds = kept.map((message) => message.uuid);
  const keptIds = new Set(keptMessageIds);
  const fileHistoryRecords = records.filter(
    (record) =>
      (record.type === 'file-history-snapshot' && keptIds.has(record['messageId'] as string)) ||
      (record.type === 'file-history-delta' && keptIds.has(record['snapshotMessageId'] as string)),
  );
  return {
    sessionId,
    messages: kept.map((message) => ({ ...message, sessionId })),
    keptMessageIds,
    fileHistoryRecords,
    rewind,
  };
}

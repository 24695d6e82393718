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
   * The source's file-history records of kept messages (see {@link snapshotOwner}): the file
   * history of the fork, in source order, unchanged.
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
  const fileHistoryRecords = records.filter((record) => {
    const owner = snapshotOwner(record);
    return owner !== undefined && keptIds.has(owner);
  });
  return {
    sessionId,
    messages: kept.map((message) => ({ ...message, sessionId })),
    keptMessageIds,
    fileHistoryRecords,
    rewind,
  };
}

/**
 * The message whose snapshot a file-history record belongs to: `snapshot.messageId` of a
 * `file-history-snapshot` record (older Claude Code writes the assistant message's id as the
 * record's top-level `messageId` of a mid-turn update, so that one is only a fallback), the
 * `snapshotMessageId` of a `file-history-delta`; undefined for other records.
 */
export function snapshotOwner(record: ConversationRecord): string | undefined {
  if (record.type === 'file-history-snapshot') {
    const snapshot = record['snapshot'];
    const inner = typeof snapshot === 'object' && snapshot !== null ? (snapshot as { messageId?: unknown }).messageId : undefined;
    if (typeof inner === 'string') return inner;
    return typeof record['messageId'] === 'string' ? record['messageId'] : undefined;
  }
  if (record.type === 'file-history-delta') {
    return typeof record['snapshotMessageId'] === 'string' ? record['snapshotMessageId'] : undefined;
  }
  return undefined;
}

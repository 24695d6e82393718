/**
 * Which records a fork of a conversation keeps (the pure half of writing a fork on disk).
 */
import { randomUUID } from 'node:crypto';
import { currentBranch } from './chain.js';
import { contentBlocks, isToolResultBlock, isToolUseBlock, isTranscriptMessage, type ConversationRecord, type TranscriptMessage } from './messages.js';
import { rewindConversation, type ConversationRewind } from './rewind-conversation.js';
import { CURRENT_PROMPT_ID } from './selectable.js';

/** What {@link planFork} decided. */
export interface ForkPlan {
  /** The new session id. */
  sessionId: string;
  /**
   * The kept messages, in file order, as copies whose `sessionId` is the new session id;
   * everything else (uuid, parentUuid, content) is unchanged, so the chain is intact: the current
   * branch up to the fork point plus the parallel parts of its assistant replies and their tool
   * results (see {@link planFork}).
   */
  messages: TranscriptMessage[];
  /** Uuids of `messages`, in order. */
  keptMessageIds: string[];
  /**
   * What the fork's transcript gets, in file order: `messages` and the carried session records
   * (titles, permission mode, worktree state; see {@link FORK_CARRIED_TYPES}) with the new `sessionId`.
   */
  records: ConversationRecord[];
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
 * Session records a fork carries (with the new `sessionId`): titles apply to the whole session and
 * are all carried; `permission-mode`, `mode` and `worktree-state` describe the session as it was,
 * so only those written before the fork point are carried.
 */
export const FORK_CARRIED_TYPES: ReadonlySet<string> = new Set(['custom-title', 'ai-title', 'tag', 'permission-mode', 'mode', 'worktree-state']);
const TITLE_TYPES: ReadonlySet<string> = new Set(['custom-title', 'ai-title', 'tag']);

type Message = ConversationRecord & TranscriptMessage;

function apiMessageId(record: Message): string | undefined {
  const id = (record.message as { id?: unknown } | undefined)?.id;
  return record.type === 'assistant' && typeof id === 'string' ? id : undefined;
}

function toolUseIds(record: Message): string[] {
  return record.type === 'assistant' ? contentBlocks(record).filter(isToolUseBlock).map((block) => block.id) : [];
}

function toolResultIds(record: Message): string[] {
  return record.type === 'user' ? contentBlocks(record).filter(isToolResultBlock).map((block) => block.tool_use_id) : [];
}

/**
 * The records of a branch's parallel tool calls that walking one parent per message misses
 * (Claude Code writes one record per content block of a reply; parallel `tool_use` blocks are
 * answered by sibling records): starting from `kept`, add every non-side-chain message whose
 * parent is kept and that is another part of a kept reply (same API message id), a tool result
 * for a kept `tool_use`, or a progress record of a kept `tool_use`, until nothing changes.
 */
function addParallelSiblings(records: readonly ConversationRecord[], kept: Set<ConversationRecord>, keptUuids: Set<string>): void {
  const replies = new Set<string>();
  const toolUses = new Set<string>();
  const note = (record: Message) => {
    const id = apiMessageId(record);
    if (id !== undefined) replies.add(id);
    for (const use of toolUseIds(record)) toolUses.add(use);
  };
  for (const record of kept) note(record as Message);
  for (let changed = true; changed; ) {
    changed = false;
    for (const record of records) {
      if (kept.has(record) || !isTranscriptMessage(record) || record.isSidechain === true) continue;
      if (record.parentUuid === null || !keptUuids.has(record.parentUuid) || keptUuids.has(record.uuid)) continue;
      const reply = apiMessageId(record);
      const progressOf = record.type === 'progress' ? record['parentToolUseID'] : undefined;
      const belongs =
        (reply !== undefined && replies.has(reply)) ||
        (toolResultIds(record).length > 0 && toolResultIds(record).every((id) => toolUses.has(id))) ||
        (typeof progressOf === 'string' && toolUses.has(progressOf));
      if (!belongs) continue;
      kept.add(record);
      keptUuids.add(record.uuid);
      note(record);
      changed = true;
    }
  }
}

/**
 * The messages of the current branch (see `currentBranch`) plus the parallel parts of its replies,
 * their tool results and progress records — the records Claude Code's resume recovers after its
 * walk of one parent per message — in file order (an append-only transcript writes every message
 * after its parent, so this is also the chain's order). Side chains and abandoned branches are
 * left out. Pure.
 */
export function branchWithParallelParts(records: readonly ConversationRecord[]): Array<ConversationRecord & TranscriptMessage> {
  const branch = currentBranch(records);
  const kept = new Set<ConversationRecord>(branch);
  addParallelSiblings(records, kept, new Set(branch.map((message) => message.uuid)));
  return records.filter((record): record is ConversationRecord & TranscriptMessage => kept.has(record));
}

/**
 * The kept messages a resumed fork must not hold because the API rejects a `tool_use` without its
 * `tool_result` (an interrupted tool call at the end of the kept part): `dropped` maps the uuid of
 * each assistant record whose content is only unanswered `tool_use` blocks, and of each progress
 * record of an unanswered `tool_use`, to its `parentUuid` (their children are re-parented there);
 * `stripped` maps an assistant record that also holds other blocks to a copy without the
 * unanswered `tool_use` blocks. A `tool_use` is answered when a kept user record holds a
 * `tool_result` for its id.
 */
function unansweredToolUses(kept: ReadonlySet<ConversationRecord>): { dropped: Map<string, string | null>; stripped: Map<Message, Message> } {
  const answered = new Set<string>();
  for (const record of kept) for (const id of toolResultIds(record as Message)) answered.add(id);
  const dropped = new Map<string, string | null>();
  const stripped = new Map<Message, Message>();
  const unanswered = new Set<string>();
  for (const record of kept) {
    const message = record as Message;
    const open = toolUseIds(message).filter((id) => !answered.has(id));
    if (open.length === 0) continue;
    for (const id of open) unanswered.add(id);
    const rest = contentBlocks(message).filter((block) => !(isToolUseBlock(block) && open.includes(block.id)));
    if (rest.length === 0) dropped.set(message.uuid, message.parentUuid);
    else stripped.set(message, { ...message, message: { ...message.message, content: rest } } as Message);
  }
  for (const record of kept) {
    const message = record as Message;
    const progressOf = message.type === 'progress' ? message['parentToolUseID'] : undefined;
    if (typeof progressOf === 'string' && unanswered.has(progressOf)) dropped.set(message.uuid, message.parentUuid);
  }
  return { dropped, stripped };
}

/**
 * Plan a fork of `records` (a whole transcript or session log) rewound to before the user message
 * `messageId` of its current branch (see `currentBranch`); {@link CURRENT_PROMPT_ID} forks the
 * whole current branch. The fork keeps every message on the branch before that point, the parallel
 * parts of its replies and their tool results and progress records (siblings a one-parent walk
 * misses), in file order, so no `tool_use` loses its `tool_result`; a `tool_use` that has no result
 * on the kept part (a tool call interrupted at the fork point) is left out, its record dropped and
 * its children re-parented (see {@link unansweredToolUses}), so the resumed fork is accepted by the
 * API; abandoned branches and side chains are left out. Session records of {@link FORK_CARRIED_TYPES} are carried; other records
 * (summaries, fh's own session and undo records) describe the source session and are left out.
 *
 * Throws like `rewindConversation` for an unknown id or one that is not a prompt. Pure.
 */
export function planFork(records: readonly ConversationRecord[], messageId: string, options: PlanForkOptions = {}): ForkPlan {
  const sessionId = options.sessionId ?? randomUUID();
  const branch = currentBranch(records);
  const rewind = messageId === CURRENT_PROMPT_ID ? null : rewindConversation(branch, messageId, { generateId: () => sessionId });
  const chain: Message[] = rewind === null ? branch : (rewind.messages as Message[]);
  const kept = new Set<ConversationRecord>(chain);
  const keptUuids = new Set(chain.map((message) => message.uuid));
  addParallelSiblings(records, kept, keptUuids);
  const forkPoint = rewind === null ? records.length : records.indexOf(rewind.target as ConversationRecord);
  const { dropped, stripped } = unansweredToolUses(kept);
  const resolveParent = (parentUuid: string | null): string | null => {
    let parent = parentUuid;
    for (let hops = 0; parent !== null && dropped.has(parent) && hops <= dropped.size; hops++) parent = dropped.get(parent) ?? null;
    return parent;
  };
  const messages: TranscriptMessage[] = [];
  const written: ConversationRecord[] = [];
  records.forEach((record, index) => {
    if (kept.has(record)) {
      const message = record as Message;
      if (dropped.has(message.uuid)) return;
      const copy: Message = { ...(stripped.get(message) ?? message), sessionId };
      if (dropped.has(copy.parentUuid ?? '')) copy.parentUuid = resolveParent(copy.parentUuid);
      messages.push(copy);
      written.push(copy);
    } else if (FORK_CARRIED_TYPES.has(record.type) && (TITLE_TYPES.has(record.type) || index < forkPoint)) {
      written.push(typeof record['sessionId'] === 'string' ? { ...record, sessionId } : { ...record });
    }
  });
  const keptMessageIds = messages.map((message) => message.uuid);
  const keptIds = new Set(keptMessageIds);
  const fileHistoryRecords = records.filter((record) => {
    const owner = snapshotOwner(record);
    return owner !== undefined && keptIds.has(owner);
  });
  return { sessionId, messages, keptMessageIds, records: written, fileHistoryRecords, rewind };
}

/**
 * The message whose snapshot a file-history record belongs to: `snapshot.messageId` of a
 * `file-history-snapshot` record (older Claude Code writes the assistant message's id as the
 * record's top-level `messageId` of a mid-turn update, so that one is only a fallback), the
 * `snapshotMessageId` of a `file-history-delta`, the `messageId` of fh's `fh-snapshot`; undefined
 * for other records.
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
  if (record.type === 'fh-snapshot') {
    return typeof record['messageId'] === 'string' ? record['messageId'] : undefined;
  }
  return undefined;
}

/**
 * Rewinding a conversation to a user message (seed 000 §3: rewindConversationTo +
 * restoreMessageSync). Pure: it returns the new conversation and never changes its input.
 */
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, NotFoundError } from '../errors.js';
import { isTranscriptMessage, type ConversationRecord, type PermissionMode, type TranscriptMessage } from './messages.js';
import { promptForResubmit, type PromptForResubmit } from './prompt.js';
import { CURRENT_PROMPT_ID, isSelectableUserMessage, messagesAfterAreOnlySynthetic } from './selectable.js';

/** Why messages left a conversation. */
export type MessagesRemovedReason = 'rewind' | 'summarize' | 'summarize_up_to';

/**
 * Emitted when messages leave a conversation, so a host can drop caches that refer to them (the
 * seed resets its micro-compact state, context-collapse queue and prompt suggestion).
 */
export interface MessagesRemovedEvent {
  reason: MessagesRemovedReason;
  /** The message the operation was anchored on. */
  messageId: string;
  /** Uuids of the chain messages no longer in the conversation, in their old order. */
  removedMessageIds: string[];
}

/** Options of {@link rewindConversation}. */
export interface RewindConversationOptions {
  /** Called once, synchronously, before `rewindConversation` returns (also when nothing was removed). */
  onMessagesRemoved?: (event: MessagesRemovedEvent) => void;
  /** Makes the new conversation id; default `crypto.randomUUID`. Inject for deterministic tests. */
  generateId?: () => string;
}

/** The outcome of {@link rewindConversation}. */
export interface ConversationRewind<R extends ConversationRecord = ConversationRecord> {
  /** The records before the target message, unchanged (same objects, same order). */
  messages: R[];
  /** A fresh id for the rewound conversation (seed: setConversationId(randomUUID())). */
  conversationId: string;
  /** The target message itself (it is not in `messages`). */
  target: TranscriptMessage;
  /** The permission mode of the target message, to switch back to; undefined if not recorded. */
  permissionMode: PermissionMode | undefined;
  /** The target's text, mode and images for the prompt box (edit and resend). */
  prompt: PromptForResubmit;
  /** Uuids of the chain messages removed (the target and everything after it), in order. */
  removedMessageIds: string[];
}

/**
 * Index of the user message `messageId` in `records`, validated as a prompt a person typed.
 * Throws `NotFoundError` if no chain message has that uuid (or it is {@link CURRENT_PROMPT_ID}),
 * `InvalidArgumentError` if the message is not a selectable user message.
 */
export function findSelectableMessageIndex(records: readonly ConversationRecord[], messageId: string): number {
  if (messageId === CURRENT_PROMPT_ID) {
    throw new NotFoundError(`The current prompt ${CURRENT_PROMPT_ID} is not a message; there is nothing to rewind to`);
  }
  const index = records.findLastIndex((record) => isTranscriptMessage(record) && record.uuid === messageId);
  if (index === -1) throw new NotFoundError(`No message with id ${messageId} in the conversation`);
  const record = records[index] as ConversationRecord;
  if (!isSelectableUserMessage(record)) {
    throw new InvalidArgumentError(
      `Message ${messageId} is a ${record.type} record that is not a prompt a person typed; only those can be rewound to`,
    );
  }
  return index;
}

/**
 * Rewind `records` to just before the user message `messageId` (seed 000 §3). Returns the kept
 * records, a new conversation id, the message's permission mode and its prompt (text, mode,
 * images) so a front end can put it back for editing, and the removed message ids — also passed
 * to `options.onMessagesRemoved`. Records of any type after the target are dropped with it.
 *
 * Throws `NotFoundError` for an unknown id and `InvalidArgumentError` when the id names a record
 * that is not a typed prompt (a tool result, a meta or side-chain message, ...). Pure.
 */
export function rewindConversation<R extends ConversationRecord>(
  records: readonly R[],
  messageId: string,
  options: RewindConversationOptions = {},
): ConversationRewind<R> {
  const index = findSelectableMessageIndex(records, messageId);
  const target = records[index] as R & TranscriptMessage;
  const removedMessageIds = messageIds(records.slice(index));
  const prompt = promptForResubmit(target);
  const rewind: ConversationRewind<R> = {
    messages: records.slice(0, index),
    conversationId: (options.generateId ?? randomUUID)(),
    target,
    permissionMode: target.permissionMode,
    prompt,
    removedMessageIds,
  };
  options.onMessagesRemoved?.({ reason: 'rewind', messageId, removedMessageIds });
  return rewind;
}

/** Uuids of the chain messages among `records`, in order. */
export function messageIds(records: readonly ConversationRecord[]): string[] {
  return records.filter(isTranscriptMessage).map((record) => record.uuid);
}

/**
 * The conversation half of a lossless rewind (seed 000 §7): true when every record after the
 * user message `messageId` is synthetic (see `messagesAfterAreOnlySynthetic`), so rewinding to it
 * loses nothing a person wrote or read beyond the prompt itself, which goes back into the prompt
 * box. Throws like {@link findSelectableMessageIndex}. Pure.
 */
export function isLosslessConversationRewind(records: readonly ConversationRecord[], messageId: string): boolean {
  return messagesAfterAreOnlySynthetic(records, findSelectableMessageIndex(records, messageId));
}

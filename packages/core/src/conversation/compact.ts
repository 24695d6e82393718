/**
 * Partial compaction (seed 000 §2, the `summarize` / `summarize_up_to` menu options): part of a
 * conversation is replaced by one summary message. The host writes the summary text (it owns the
 * model); fh does the surgery: a fresh uuid for the summary, an intact `parentUuid` chain, and
 * `isCompactSummary` on the summary so it is never offered as a rewind target.
 */
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../errors.js';
import { isTranscriptMessage, type ConversationRecord, type TranscriptMessage } from './messages.js';
import { findSelectableMessageIndex, type MessagesRemovedEvent } from './rewind-conversation.js';

/** `summarize`: the chosen message and everything after it; `summarize_up_to`: everything before it. */
export type CompactDirection = 'summarize' | 'summarize_up_to';

/** What the summarize callback is told besides the messages. */
export interface SummarizeContext {
  direction: CompactDirection;
  /** The chosen message. */
  messageId: string;
  /** Extra instructions a person gave for the summary, passed through as given. */
  instructions: string | undefined;
}

/**
 * The host's summariser: gets the chain messages to replace (in order) and returns the summary
 * text, used as the summary message's content as is. A rejection is passed on to the caller.
 */
export type SummarizeCallback = (messages: TranscriptMessage[], context: SummarizeContext) => Promise<string>;

/** Options of {@link partialCompact}. */
export interface PartialCompactOptions {
  direction: CompactDirection;
  summarize: SummarizeCallback;
  /** Passed to the callback as `context.instructions`. */
  instructions?: string;
  /** Called once after the summary is made, with the replaced message ids. */
  onMessagesRemoved?: (event: MessagesRemovedEvent) => void;
  /** Makes the summary's uuid; default `crypto.randomUUID`. */
  generateId?: () => string;
  /** The summary's timestamp; default `new Date()`. */
  now?: () => Date;
}

/** The outcome of {@link partialCompact}. */
export interface PartialCompactResult<R extends ConversationRecord = ConversationRecord> {
  /**
   * The new conversation. Kept records are the same objects, except a kept message whose parent
   * was replaced: it is a copy whose `parentUuid` is the summary's uuid (its own uuid is kept, so
   * file-history snapshots keyed by it still apply).
   */
  messages: Array<R | TranscriptMessage>;
  /** The new summary message (`type: 'user'`, `isCompactSummary: true`). */
  summaryMessage: TranscriptMessage;
  /** Uuids of the chain messages the summary replaced, in order. */
  removedMessageIds: string[];
}

/** Envelope fields the summary message copies from the chosen message. */
const ENVELOPE_FIELDS = ['sessionId', 'cwd', 'version', 'gitBranch', 'userType'] as const;

/**
 * Replace part of `records` with one summary message, anchored on the user message `messageId`:
 * `summarize` replaces that message and every chain message after it; `summarize_up_to` replaces
 * every chain message before it. Records of other types stay where they are.
 *
 * The summary gets a fresh uuid, `parentUuid` = the parent of the first replaced message, and the
 * chosen message's envelope (sessionId, cwd, version, gitBranch, userType). Kept messages whose
 * parent was replaced now point to the summary.
 *
 * Throws `NotFoundError`/`InvalidArgumentError` for a bad `messageId` (see
 * `findSelectableMessageIndex`), `InvalidArgumentError` when there is nothing to summarise or the
 * callback returns something other than a non-empty string; a callback rejection propagates.
 * Pure apart from calling the callback; the input is never changed.
 */
export async function partialCompact<R extends ConversationRecord>(
  records: readonly R[],
  messageId: string,
  options: PartialCompactOptions,
): Promise<PartialCompactResult<R>> {
  const index = findSelectableMessageIndex(records, messageId);
  const chosen = records[index] as R & TranscriptMessage;
  const isReplaced = (position: number): boolean =>
    options.direction === 'summarize' ? position >= index : position < index;
  const replaced = records.filter(
    (record, position): record is R & TranscriptMessage => isReplaced(position) && isTranscriptMessage(record),
  );
  const first = replaced[0];
  if (first === undefined) {
    throw new InvalidArgumentError(`Nothing to summarize: message ${messageId} is the first message of the conversation`);
  }
  const text = await options.summarize(replaced, {
    direction: options.direction,
    messageId,
    instructions: options.instructions,
  });
  if (typeof text !== 'string' || text.trim() === '') {
    throw new InvalidArgumentError(`The summarize callback returned ${JSON.stringify(text)}; expected a non-empty string`);
  }

  const summaryMessage: TranscriptMessage = {
    type: 'user',
    uuid: (options.generateId ?? randomUUID)(),
    parentUuid: first.parentUuid ?? null,
    isSidechain: false,
    ...Object.fromEntries(ENVELOPE_FIELDS.filter((field) => chosen[field] !== undefined).map((field) => [field, chosen[field]])),
    timestamp: (options.now?.() ?? new Date()).toISOString(),
    isCompactSummary: true,
    message: { role: 'user', content: text },
  };
  const removedMessageIds = replaced.map((record) => record.uuid);
  const removed = new Set(removedMessageIds);
  const messages: Array<R | TranscriptMessage> = [];
  records.forEach((record, position) => {
    if (record === first) messages.push(summaryMessage);
    if (isReplaced(position) && isTranscriptMessage(record)) return;
    if (isTranscriptMessage(record) && record.parentUuid !== null && removed.has(record.parentUuid)) {
      messages.push({ ...record, parentUuid: summaryMessage.uuid });
      return;
    }
    messages.push(record);
  });
  options.onMessagesRemoved?.({ reason: options.direction, messageId, removedMessageIds });
  return { messages, summaryMessage, removedMessageIds };
}

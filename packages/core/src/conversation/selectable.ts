/**
 * Which messages a person can rewind to (seed 000 §2, selectableUserMessagesFilter), and whether
 * everything after a message is synthetic (seed 000 §7, messagesAfterAreOnlySynthetic).
 */
import {
  contentBlocks,
  isCommandOrOutputMessage,
  isSyntheticMessage,
  isTextBlock,
  isToolResultMessage,
  isToolUseBlock,
  isTranscriptMessage,
  type ConversationRecord,
  type TranscriptMessage,
} from './messages.js';
import { promptForResubmit } from './prompt.js';

/**
 * Id of the virtual "current prompt" entry that {@link selectableUserMessages} appends: choosing
 * it means "stay where I am". Never the uuid of a real message.
 */
export const CURRENT_PROMPT_ID = '<current-prompt>';

/** One entry of the rewind picker. */
export interface SelectableMessage {
  /** The message uuid, or {@link CURRENT_PROMPT_ID} for the virtual last entry. */
  messageId: string;
  /** Index of the message in the records given; the records' length for the current prompt. */
  index: number;
  /** The message; `null` for the current prompt. */
  message: TranscriptMessage | null;
  /** True only for the virtual last entry. */
  isCurrentPrompt: boolean;
  /** The prompt text as a person would edit it again (see `promptForResubmit`); `''` for the current prompt. */
  text: string;
  /** Number of base64 images the prompt carried. */
  imageCount: number;
  /** When the message was sent (its `timestamp`), if recorded. */
  timestamp: string | undefined;
}

/**
 * True when `record` is a prompt a person typed (seed: selectableUserMessagesFilter): a `user`
 * message that is not a tool-result carrier, not an interrupt/cancel marker, not meta, not part
 * of a sub-agent side chain, not a compact summary or transcript-only record, not from a
 * non-human origin, and not slash-command input or local command/shell output.
 */
export function isSelectableUserMessage(record: ConversationRecord): record is ConversationRecord & TranscriptMessage {
  if (!isTranscriptMessage(record) || record.type !== 'user' || record.message === undefined) return false;
  if (record.isMeta === true || record.isSidechain === true) return false;
  if (record.isCompactSummary === true || record.isVisibleInTranscriptOnly === true) return false;
  const origin = record['origin'];
  if (typeof origin === 'object' && origin !== null && (origin as { kind?: unknown }).kind !== 'human') return false;
  if (isToolResultMessage(record) || isSyntheticMessage(record)) return false;
  return !isCommandOrOutputMessage(record);
}

/**
 * The rewind picker's entries (seed 000 §2): every prompt a person typed, oldest first, then one
 * virtual entry for the current prompt (id {@link CURRENT_PROMPT_ID}). Records of other types pass
 * through unread. Pure; never throws.
 */
export function selectableUserMessages(records: readonly ConversationRecord[]): SelectableMessage[] {
  const entries: SelectableMessage[] = [];
  records.forEach((record, index) => {
    if (!isSelectableUserMessage(record)) return;
    const prompt = promptForResubmit(record);
    entries.push({
      messageId: record.uuid,
      index,
      message: record,
      isCurrentPrompt: false,
      text: prompt.text,
      imageCount: prompt.images.length,
      timestamp: record.timestamp,
    });
  });
  entries.push({
    messageId: CURRENT_PROMPT_ID,
    index: records.length,
    message: null,
    isCurrentPrompt: true,
    text: '',
    imageCount: 0,
    timestamp: undefined,
  });
  return entries;
}

/**
 * True when nothing after `records[index]` is something a person would miss (seed 000 §7,
 * messagesAfterAreOnlySynthetic): only interrupt/cancel markers, tool results, meta user
 * records, `system`/`progress`/`attachment` records, assistant records without text or tool
 * calls, and records of other types. A typed prompt or an assistant reply with text or a tool
 * call makes it false. Pure.
 */
export function messagesAfterAreOnlySynthetic(records: readonly ConversationRecord[], index: number): boolean {
  for (const record of records.slice(index + 1)) {
    if (!isTranscriptMessage(record)) continue;
    if (isSyntheticMessage(record) || isToolResultMessage(record)) continue;
    if (record.type === 'system' || record.type === 'progress' || record.type === 'attachment') continue;
    if (record.type === 'user') {
      if (record.isMeta === true) continue;
      return false;
    }
    if (record.type === 'assistant') {
      const meaningful = contentBlocks(record).some(
        (block) => (isTextBlock(block) && block.text.trim() !== '') || isToolUseBlock(block),
      );
      if (meaningful) return false;
    }
  }
  return true;
}

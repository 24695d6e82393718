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
import { currentBranch } from './chain.js';
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
 * True when `record` is a prompt a person can rewind to — Claude Code's
 * selectableUserMessagesFilter (2.0.x to 2.1.27x), the one filter `fh list`, the menu, `rewind`,
 * `fork` and `sessions` use: a `user` message that is not a tool-result carrier, not synthetic
 * (an interrupt/cancel marker), not `isMeta`, not `isCompactSummary`/`isVisibleInTranscriptOnly`,
 * not on a sub-agent side chain, and whose text holds none of the output/notification tags (see
 * `isCommandOrOutputMessage`; the compact continuation message is not a prompt either).
 * Slash-command prompts (`<command-name>`) are prompts.
 */
export function isSelectableUserMessage(record: ConversationRecord): record is ConversationRecord & TranscriptMessage {
  if (!isTranscriptMessage(record) || record.type !== 'user' || record.message === undefined) return false;
  if (record.isMeta === true || record.isSidechain === true) return false;
  if (record.isCompactSummary === true || record.isVisibleInTranscriptOnly === true) return false;
  if (isToolResultMessage(record) || isSyntheticMessage(record)) return false;
  return !isCommandOrOutputMessage(record);
}

/**
 * The message ids of the prompts a person can rewind to on the current branch of `records` (a
 * whole transcript or session log: abandoned branches and side chains are left out, see
 * `currentBranch`), oldest first. A snapshot whose message is not among them is not offered.
 */
export function selectablePromptIds(records: readonly ConversationRecord[]): string[] {
  return currentBranch(records).filter(isSelectableUserMessage).map((message) => message.uuid);
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

/** Options of {@link offeredCheckpointIds}. */
export interface OfferedCheckpointOptions {
  /**
   * Also offer a snapshot whose message is not in `records` at all (an fh checkpoint taken without
   * a recorded prompt). Default false: Claude Code's rule, only prompts on the current chain.
   */
  unrecordedMessages?: boolean;
}

/**
 * The message ids among `snapshotMessageIds` a person is offered as checkpoints (`fh list`, the
 * menu, `fh sessions`' count): those whose message is a selectable prompt on the current branch of
 * `records` (see {@link selectablePromptIds}); with `unrecordedMessages`, also those whose message
 * is not recorded at all. A snapshot of a tool result, a compact continuation, an abandoned
 * branch or a side chain is never offered. In the order given, each id once. Pure.
 */
export function offeredCheckpointIds(
  records: readonly ConversationRecord[],
  snapshotMessageIds: Iterable<string>,
  options: OfferedCheckpointOptions = {},
): string[] {
  const prompts = new Set(selectablePromptIds(records));
  const recorded = new Set<string>();
  if (options.unrecordedMessages === true) {
    for (const record of records) if (isTranscriptMessage(record)) recorded.add(record.uuid);
  }
  const offered = new Set<string>();
  for (const id of snapshotMessageIds) {
    if (prompts.has(id) || (options.unrecordedMessages === true && !recorded.has(id))) offered.add(id);
  }
  return [...offered];
}

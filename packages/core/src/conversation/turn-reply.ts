/**
 * The assistant's reply to one prompt, for showing a turn (`fh show`): the text of the assistant
 * messages between a typed prompt and the next typed prompt, in order.
 */
import { isTranscriptMessage, messageText, type ConversationRecord } from './messages.js';
import { isSelectableUserMessage } from './selectable.js';

/**
 * The reply text to the typed prompt `messageId` in `records` (a current branch, oldest first):
 * the non-empty texts of the `assistant` messages after it, up to the next typed prompt, joined
 * with blank lines. Undefined when `messageId` is not among `records` or no assistant text
 * follows it (a session whose transcript holds no replies, such as one recorded by `fh snapshot`).
 * Pure.
 */
export function turnReplyText(records: readonly ConversationRecord[], messageId: string): string | undefined {
  const start = records.findIndex((record) => isTranscriptMessage(record) && record.uuid === messageId);
  if (start === -1) return undefined;
  const texts: string[] = [];
  for (const record of records.slice(start + 1)) {
    if (!isTranscriptMessage(record)) continue;
    if (record.type === 'assistant') {
      const text = messageText(record).trim();
      if (text !== '') texts.push(text);
    } else if (isSelectableUserMessage(record)) {
      break;
    }
  }
  return texts.length === 0 ? undefined : texts.join('\n\n');
}

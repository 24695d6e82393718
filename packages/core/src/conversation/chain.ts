/**
 * The current branch of a transcript. A Claude Code transcript file is append-only: after a
 * rewind the new messages point (through `parentUuid`) at an earlier message and the abandoned
 * branch stays in the file, and side-chain (sub-agent) messages may be interleaved. The
 * conversation is the chain that ends at the last main-chain message.
 */
import { isTranscriptMessage, type ConversationRecord, type TranscriptMessage } from './messages.js';

/**
 * The messages of the current branch, oldest first: start at the last message in file order that
 * is not a side-chain message and follow `parentUuid` (or, where it is `null`, a compact
 * boundary's `logicalParentUuid`) back to the root. A parent that is not in `records` ends the
 * walk; a cycle is cut at the first repeated uuid. Records of other types are not included. Pure.
 */
export function currentBranch<R extends ConversationRecord>(records: readonly R[]): Array<R & TranscriptMessage> {
  const byUuid = new Map<string, R & TranscriptMessage>();
  let leaf: (R & TranscriptMessage) | undefined;
  for (const record of records) {
    if (!isTranscriptMessage(record)) continue;
    byUuid.set(record.uuid, record);
    if (record.isSidechain !== true) leaf = record;
  }
  const branch: Array<R & TranscriptMessage> = [];
  const seen = new Set<string>();
  for (let message = leaf; message !== undefined && !seen.has(message.uuid); ) {
    seen.add(message.uuid);
    branch.push(message);
    const logicalParent = message['logicalParentUuid'];
    const parent = message.parentUuid ?? (typeof logicalParent === 'string' ? logicalParent : null);
    message = parent === null ? undefined : byUuid.get(parent);
  }
  return branch.reverse();
}

/**
 * `records` reduced to the current branch: the messages of {@link currentBranch} plus every record
 * that is not a message, in file order (abandoned-branch and side-chain messages are left out).
 * On a linear conversation without side chains this is `records` itself, element for element.
 */
export function currentBranchRecords<R extends ConversationRecord>(records: readonly R[]): R[] {
  const onBranch = new Set<ConversationRecord>(currentBranch(records));
  return records.filter((record) => !isTranscriptMessage(record) || onBranch.has(record));
}

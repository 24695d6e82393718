/**
 * The file-history records of a Claude Code transcript as Claude Code's resume reads them (issue
 * 13). A transcript is append-only: after a `/rewind` or an edited prompt the abandoned branch
 * stays in the file, and its `file-history-snapshot` records with it. Claude Code keys those
 * records by their top-level `messageId` (the last record per id wins) and walks the conversation
 * chain, taking a message's record when the walk reaches it (`buildFileHistorySnapshotChain`):
 * records of messages off the current chain are never read, so the files only they tracked are
 * not tracked after a resume. fh rebuilds a transcript's state from the records this module picks,
 * in the order it picks them, so a rewind covers the files Claude Code's would.
 */
import { branchWithParallelParts } from '../conversation/fork-records.js';
import { isTranscriptMessage, type ConversationRecord } from '../conversation/messages.js';

type JsonObject = Record<string, unknown>;

/** fh's own records the state rebuild reads (compact snapshots, the session record). */
const FH_STATE_TYPES: ReadonlySet<string> = new Set(['fh-snapshot', 'fh-session']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The message a file-history record is keyed by in Claude Code's resume: the top-level
 * `messageId` (for an update, Claude Code 2.1.x writes the assistant message that edited there;
 * `snapshot.messageId` names the prompt whose snapshot it replaces), else `snapshot.messageId`,
 * else — for a `file-history-delta` — its `snapshotMessageId`. Undefined for other records.
 */
export function fileHistoryRecordKey(record: unknown): string | undefined {
  if (!isObject(record)) return undefined;
  if (record.type === 'file-history-snapshot') {
    return nonEmpty(record.messageId) ?? (isObject(record.snapshot) ? nonEmpty(record.snapshot.messageId) : undefined);
  }
  if (record.type === 'file-history-delta') return nonEmpty(record.messageId) ?? nonEmpty(record.snapshotMessageId);
  return undefined;
}

/**
 * The file-history records Claude Code's resume uses, in the order it applies them:
 *
 * - The chain is the current branch (the chain ending at the last non-side-chain message in file
 *   order) with the parallel parts of its replies and their tool results (`branchWithParallelParts`).
 * - Each `file-history-snapshot` record is keyed by {@link fileHistoryRecordKey}; of several with
 *   one key, the last in file order is the one (Claude Code keeps one per key in a map).
 * - Walking the chain, a message whose uuid keys a snapshot record contributes that record, then
 *   the `file-history-delta` records keyed by it (2.1.220 on; each adds one file), in file order.
 *   Records keyed by messages off the chain (an abandoned branch, a snapshot of a message the
 *   transcript does not hold) are left out.
 *
 * A transcript with no conversation messages at all (a session fh wrote from backups alone), or
 * one holding fh's own compact snapshot records (`fh-snapshot`: a log fh wrote, which never
 * branches), is not walked: its file-history records — with the `fh-snapshot` and `fh-session`
 * ones — are returned as they are, in file order. Records of other types are never returned.
 * Pure; costs one pass over `records` plus the branch walk.
 */
export function chainFileHistoryRecords<R>(records: readonly R[]): R[] {
  const conversation = records as unknown as readonly ConversationRecord[];
  const fileHistory = records.filter((record) => fileHistoryRecordKey(record) !== undefined);
  const fhWritten = conversation.some((record) => isObject(record) && record.type === 'fh-snapshot');
  if (fhWritten || !conversation.some((record) => isObject(record) && isTranscriptMessage(record))) {
    return records.filter((record) => fileHistoryRecordKey(record) !== undefined || (isObject(record) && FH_STATE_TYPES.has(record.type as string)));
  }
  const snapshotByKey = new Map<string, R>();
  const deltasByKey = new Map<string, R[]>();
  for (const record of fileHistory) {
    const key = fileHistoryRecordKey(record) as string;
    if ((record as JsonObject).type === 'file-history-snapshot') snapshotByKey.set(key, record);
    else {
      const deltas = deltasByKey.get(key);
      if (deltas === undefined) deltasByKey.set(key, [record]);
      else deltas.push(record);
    }
  }
  const picked: R[] = [];
  for (const message of branchWithParallelParts(conversation)) {
    const snapshot = snapshotByKey.get(message.uuid);
    if (snapshot !== undefined) picked.push(snapshot);
    for (const delta of deltasByKey.get(message.uuid) ?? []) picked.push(delta);
  }
  return picked;
}

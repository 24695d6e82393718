/**
 * Reading the two ends of a session log (`SessionLog.readEnds`): the first records (the
 * `fh-session` record) and the newest ones (the current turn), so a process that needs only those
 * (`fh hook`, `FileHistory.open({ rebuild: 'latest' })`) does not read a long session whole.
 */
import { tailAnchor } from './restore-state.js';
import type { LogEnds, SessionLog } from '../store.js';

/** Bytes of the log's start read for its `fh-session` record. */
export const LOG_HEAD_BYTES = 64 * 1024;

/**
 * Tail sizes tried in turn, in bytes, until the tail settles the newest snapshot: most turns fit
 * the first; a turn that tracks thousands of files (its snapshot record alone is over 1 MiB at
 * about 6,000 files) needs the second.
 */
export const LOG_TAIL_BYTES_STEPS: readonly number[] = [1024 * 1024, 16 * 1024 * 1024];

/**
 * The log's ends, with a tail long enough to settle the newest snapshot (see `tailAnchor`) when
 * one of {@link LOG_TAIL_BYTES_STEPS} is; the last read otherwise (the caller then reads the whole
 * log). Undefined when the log cannot read its ends.
 */
export async function readLogEnds(log: SessionLog): Promise<LogEnds | undefined> {
  if (log.readEnds === undefined) return undefined;
  let ends: LogEnds | undefined;
  for (const tailBytes of LOG_TAIL_BYTES_STEPS) {
    ends = await log.readEnds(LOG_HEAD_BYTES, tailBytes);
    if (ends.whole || tailAnchor(ends.tail) !== undefined) return ends;
  }
  return ends;
}

/**
 * Whether the newest records of a log can track one file at all, read without rebuilding the
 * snapshot (issue 16): `fh hook` asks it before an edit, so an edit of a file the newest snapshot
 * cannot hold (a new file) does not parse the whole full record of every tracked file just to
 * find the file missing.
 */
import { tailAnchor } from './restore-state.js';
import { FH_SNAPSHOT_RECORD_TYPE } from './snapshot-records.js';

/** True when `value` is an object holding one of `keys` as an own property, or is not an object at all (a shape only a full parse can judge). */
function mayHold(value: unknown, keys: readonly string[]): boolean {
  return typeof value !== 'object' || value === null || keys.some((key) => Object.hasOwn(value, key));
}

/**
 * Whether the newest snapshot of a log may track the file at tracking path `key` (relative to
 * `projectRoot`, as `toTrackingPath` gives it), judged from its newest records (`tail`, as
 * `latestSnapshotFromTail` takes them): false when no record from the tail's anchor on (see
 * `tailAnchor`) names the file as an entry (of an `fh-snapshot` record, a
 * `file-history-snapshot` record or a `file-history-delta`) by `key`, `./key` or its absolute
 * path (the keys Claude Code's records use); true when one does (a full rebuild, say
 * `latestSnapshotFromTail`, then tells its entry) or a record of those types has another shape;
 * undefined when the tail does not settle the newest snapshot. A key recorded in yet another
 * spelling (`a//b`) gives false, so a caller treats false as "not known to be tracked" and lets
 * `trackEdit` decide. Looks each spelling up in each record's entry map, without parsing entries.
 */
export function tailMayTrack(tail: readonly unknown[], projectRoot: string, key: string): boolean | undefined {
  const anchor = tailAnchor(tail);
  if (anchor === undefined) return undefined;
  const keys = [key, `./${key}`, projectRoot.endsWith('/') ? `${projectRoot}${key}` : `${projectRoot}/${key}`];
  for (let index = anchor; index < tail.length; index += 1) {
    const record = tail[index];
    if (typeof record !== 'object' || record === null) continue;
    const { type } = record as { type?: unknown };
    if (type === FH_SNAPSHOT_RECORD_TYPE && mayHold((record as { entries?: unknown }).entries, keys)) return true;
    if (type === 'file-history-delta' && keys.includes((record as { trackingPath?: unknown }).trackingPath as string)) return true;
    if (type === 'file-history-snapshot') {
      const snapshot = (record as { snapshot?: unknown }).snapshot;
      if (typeof snapshot !== 'object' || snapshot === null || mayHold((snapshot as { trackedFileBackups?: unknown }).trackedFileBackups, keys)) return true;
    }
  }
  return false;
}

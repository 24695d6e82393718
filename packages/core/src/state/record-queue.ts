/**
 * Ordered, group-committed appends to a session log. Records are queued in the order the state
 * commits happen (synchronously at commit), and written in that order; records queued while a
 * write is in flight go out together in the next `append`, so concurrent `trackEdit`s share one
 * durable write instead of paying one each. An optional `coalesce` step may drop records of a
 * batch that later records of the same batch supersede.
 */
import type { LogRecord, SessionLog } from '../store.js';

interface Pending {
  record: LogRecord;
  resolve(): void;
  reject(error: unknown): void;
}

/** A queue in front of one {@link SessionLog}. */
export class RecordQueue {
  private pending: Pending[] = [];
  private draining: Promise<void> | undefined;

  /**
   * `coalesce` maps a batch to the records actually written (same order, superseded ones left
   * out); the promises of dropped records resolve with the batch. Default: write all.
   */
  constructor(
    private readonly log: SessionLog,
    private readonly coalesce: (batch: LogRecord[]) => LogRecord[] = (batch) => batch,
  ) {}

  /**
   * Queue `record` behind every record queued before it. Resolves once it is durable in the log;
   * rejects with the log's error (`PermissionError`, `UnavailableError`) if its batch failed.
   */
  append(record: LogRecord): Promise<void> {
    const written = new Promise<void>((resolve, reject) => {
      this.pending.push({ record, resolve, reject });
    });
    this.draining ??= this.drain();
    return written;
  }

  /**
   * Queue `records`, in order, behind every record queued before them, all in one batch (one
   * `append` of the log, unless a batch in flight holds records queued before them: then in the
   * next one, together). Resolves once all are durable; rejects like {@link append}.
   */
  appendAll(records: readonly LogRecord[]): Promise<void> {
    const written = records.map(
      (record) =>
        new Promise<void>((resolve, reject) => {
          this.pending.push({ record, resolve, reject });
        }),
    );
    this.draining ??= this.drain();
    return Promise.all(written).then(() => undefined);
  }

  /** Resolves when every record queued so far has been written (or has failed). Never rejects. */
  async flush(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        await this.log.append(this.coalesce(batch.map((entry) => entry.record)));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.draining = undefined;
  }
}

/**
 * Coalesce `file-history-snapshot` records: an update record (`isSnapshotUpdate: true`) is left
 * out when a later update of the same snapshot (same `messageId`, with no new snapshot of that id
 * made in between) follows in the batch, because each update carries the whole snapshot and the
 * later one includes everything the earlier one did. Other records are kept as they are.
 */
export function coalesceSnapshotUpdates(batch: LogRecord[]): LogRecord[] {
  const kept: LogRecord[] = [];
  const updated = new Set<unknown>();
  for (let index = batch.length - 1; index >= 0; index -= 1) {
    const record = batch[index] as LogRecord;
    if (record.type === 'file-history-snapshot') {
      if (record.isSnapshotUpdate === true) {
        if (updated.has(record.messageId)) continue;
        updated.add(record.messageId);
      } else {
        updated.delete(record.messageId);
      }
    }
    kept.push(record);
  }
  return kept.reverse();
}

/**
 * Ordered, group-committed appends to a session log. Records are queued in the order the state
 * commits happen (synchronously at commit), and written in that order; records queued while a
 * write is in flight go out together in the next `append`, so concurrent `trackEdit`s share one
 * durable write instead of paying one each.
 */
import type { LogRecord, SessionLog } from './store.js';

interface Pending {
  record: LogRecord;
  resolve(): void;
  reject(error: unknown): void;
}

/** A queue in front of one {@link SessionLog}. */
export class RecordQueue {
  private pending: Pending[] = [];
  private draining: Promise<void> | undefined;

  constructor(private readonly log: SessionLog) {}

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

  /** Resolves when every record queued so far has been written (or has failed). Never rejects. */
  async flush(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        await this.log.append(batch.map((entry) => entry.record));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.draining = undefined;
  }
}

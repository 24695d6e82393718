import { describe, expect, it } from 'vitest';
import { coalesceSnapshotUpdates, RecordQueue } from '../src/state/record-queue.js';
import type { LogRecord, SessionLog } from '../src/index.js';

const update = (messageId: string, files: string[]): LogRecord => ({ type: 'file-history-snapshot', messageId, isSnapshotUpdate: true, files });
const made = (messageId: string): LogRecord => ({ type: 'file-history-snapshot', messageId, isSnapshotUpdate: false });

describe('coalesceSnapshotUpdates', () => {
  it('keeps only the last update of a snapshot within a batch', () => {
    expect(coalesceSnapshotUpdates([update('m1', ['a']), update('m1', ['a', 'b']), { type: 'user' }, update('m1', ['a', 'b', 'c'])])).toEqual([
      { type: 'user' },
      update('m1', ['a', 'b', 'c']),
    ]);
  });

  it('never drops a snapshot record, nor an update made before a new snapshot of the same id', () => {
    const batch = [update('m1', ['a']), made('m1'), update('m1', ['b']), made('m2'), update('m2', ['c'])];
    expect(coalesceSnapshotUpdates(batch)).toEqual(batch);
  });
});

describe('RecordQueue', () => {
  it('writes records in order, grouping those queued while a write is in flight', async () => {
    const writes: LogRecord[][] = [];
    let release: () => void = () => undefined;
    const log: SessionLog = {
      append: async (records) => {
        writes.push([...records]);
        if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
      },
      read: async () => ({ records: [], skipped: [] }),
    };
    const queue = new RecordQueue(log);
    const first = queue.append({ type: 'one' });
    const second = queue.append({ type: 'two' });
    const third = queue.append({ type: 'three' });
    release();
    await Promise.all([first, second, third]);
    expect(writes).toEqual([[{ type: 'one' }], [{ type: 'two' }, { type: 'three' }]]);
  });

  it('rejects every record of a failed write with the log error', async () => {
    const log: SessionLog = {
      append: async () => {
        throw new Error('disk gone');
      },
      read: async () => ({ records: [], skipped: [] }),
    };
    const queue = new RecordQueue(log);
    await expect(queue.append({ type: 'lost' })).rejects.toThrow('disk gone');
    await queue.flush();
  });
});

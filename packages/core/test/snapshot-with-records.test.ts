import { describe, expect, it } from 'vitest';
import { FileHistory, formatJsonl, parseJsonl, type LogRecord, type SessionLog } from '../src/index.js';
import { createRecordStore } from './support/record-store.js';

const ROOT = '/work/project';

/** A log that keeps each append as one batch of records; `failNext` makes the next append throw. */
function batches(): { log: SessionLog; appends: LogRecord[][]; failNext(): void } {
  const appends: LogRecord[][] = [];
  let fail = false;
  const log: SessionLog = {
    append: async (records) => {
      if (fail) {
        fail = false;
        throw new Error('disk full');
      }
      appends.push(JSON.parse(JSON.stringify(records)) as LogRecord[]);
    },
    read: async () => parseJsonl(appends.map((batch) => formatJsonl(batch)).join('')),
  };
  return { log, appends, failNext: () => (fail = true) };
}

describe('makeSnapshot with records', () => {
  it("writes the records and the snapshot's record in one append, records first; after a failed append neither is in the log", async () => {
    const { log, appends, failNext } = batches();
    const history = await FileHistory.open({ projectRoot: ROOT, sessionId: 's1', store: createRecordStore(), log, env: {}, initialState: { snapshots: [], trackedFiles: new Set(), snapshotSequence: 0 } });
    await history.makeSnapshot('m1', { records: [{ type: 'user', uuid: 'm1' }] });
    failNext();
    await expect(history.makeSnapshot('m2', { records: [{ type: 'user', uuid: 'm2' }] })).rejects.toThrow('disk full');
    await history.makeSnapshot('m3', { records: [{ type: 'worktree-state' }, { type: 'user', uuid: 'm3' }] });
    await history.makeSnapshot('m4');
    await history.close();
    expect(appends.map((batch) => batch.map((record) => `${record.type}:${String(record.uuid ?? record.messageId ?? '')}`))).toEqual([
      ['fh-session:'],
      ['user:m1', 'fh-snapshot:m1'],
      ['worktree-state:', 'user:m3', 'fh-snapshot:m3'],
      ['fh-snapshot:m4'],
    ]);
  });
});

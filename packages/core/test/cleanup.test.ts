import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, cleanup } from '../src/index.js';
import { createRecordStore, seedBackups } from './support/record-store.js';

const NOW = new Date('2026-06-30T12:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;

function storeWithSessions() {
  const store = createRecordStore();
  for (const [sessionId, ageDays] of [
    ['fresh', 1],
    ['month', 29.9],
    ['old', 31],
    ['ancient', 400],
    ['open', 60],
  ] as const) {
    seedBackups(store, sessionId, ['0000000000000001@v1']);
    store.lastModified.set(sessionId, new Date(NOW.getTime() - ageDays * DAY));
  }
  store.locks.add('open');
  return store;
}

describe('cleanup', () => {
  it('removes sessions older than 30 days by default, never a locked one', async () => {
    const store = storeWithSessions();
    const result = await cleanup({ store, now: NOW });
    expect(result.removed.map((session) => session.sessionId)).toEqual(['ancient', 'old']);
    expect(result.kept.map(({ session, reason }) => [session.sessionId, reason])).toEqual([
      ['open', 'locked'],
      ['month', 'recent'],
      ['fresh', 'recent'],
    ]);
    expect(store.deleted).toEqual(['ancient', 'old']);
    expect([...store.backups.keys()].sort()).toEqual(['fresh', 'month', 'open']);
    expect(store.locks).toEqual(new Set(['open']));
  });

  it('honours olderThanDays and dryRun', async () => {
    const store = storeWithSessions();
    const result = await cleanup({ store, now: NOW, olderThanDays: 0.5, dryRun: true });
    expect(result.removed.map((session) => session.sessionId)).toEqual(['ancient', 'old', 'month', 'fresh']);
    expect(store.deleted).toEqual([]);
  });

  it('rejects a negative or non-finite olderThanDays', async () => {
    const store = storeWithSessions();
    await expect(cleanup({ store, olderThanDays: -1 })).rejects.toThrow(new InvalidArgumentError('olderThanDays must be a non-negative number, got -1'));
    await expect(cleanup({ store, olderThanDays: Number.NaN })).rejects.toThrow(InvalidArgumentError);
    expect(store.deleted).toEqual([]);
  });
});

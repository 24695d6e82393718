import { describe, expect, it } from 'vitest';
import {
  fhSessionRecord,
  isBackupFileName,
  parseFhSessionRecord,
  parseFileHistoryRecord,
  snapshotRecord,
  userMessageRecord,
} from '../src/state/records.js';

const NAME = '0123456789abcdef@v1';

function collect(): { warnings: string[]; onWarning: (message: string) => void } {
  const warnings: string[] = [];
  return { warnings, onWarning: (message) => warnings.push(message) };
}

describe('parseFileHistoryRecord', () => {
  it('parses a Claude Code snapshot record, dates from ISO strings, unknown fields ignored', () => {
    const parsed = parseFileHistoryRecord({
      type: 'file-history-snapshot',
      messageId: 'm1',
      snapshot: {
        messageId: 'm1',
        trackedFileBackups: {
          'src/a.ts': { backupFileName: NAME, version: 1, backupTime: '2026-05-19T23:32:34.011Z', realParentDir: '/p/src' },
          'new.ts': { backupFileName: null, version: 1, backupTime: '2026-05-19T23:32:35.000Z' },
        },
        timestamp: '2026-05-19T23:31:13.370Z',
      },
      isSnapshotUpdate: false,
      extra: 1,
    });
    expect(parsed).toEqual({
      type: 'file-history-snapshot',
      messageId: 'm1',
      isSnapshotUpdate: false,
      snapshot: {
        messageId: 'm1',
        timestamp: new Date('2026-05-19T23:31:13.370Z'),
        trackedFileBackups: {
          'src/a.ts': { backupFileName: NAME, version: 1, backupTime: new Date('2026-05-19T23:32:34.011Z') },
          'new.ts': { backupFileName: null, version: 1, backupTime: new Date('2026-05-19T23:32:35.000Z') },
        },
      },
    });
  });

  it('keys an update by snapshot.messageId when the top-level messageId names another message', () => {
    const parsed = parseFileHistoryRecord({
      type: 'file-history-snapshot',
      messageId: 'assistant-9',
      snapshot: { messageId: 'user-1', trackedFileBackups: {}, timestamp: '2026-01-01T00:00:00.000Z' },
      isSnapshotUpdate: true,
    });
    expect(parsed).toMatchObject({ messageId: 'user-1', isSnapshotUpdate: true, snapshot: { messageId: 'user-1' } });
  });

  it('round-trips what snapshotRecord writes, through JSON, including fh fields', () => {
    const snapshot = {
      messageId: 'm2',
      timestamp: new Date('2026-02-02T02:02:02.002Z'),
      trackedFileBackups: {
        'bin/run': { backupFileName: '00000000000000ff@v3', version: 3, backupTime: new Date('2026-02-02T02:02:01.000Z'), size: 12, mode: 0o755 },
        'lost.txt': { backupFileName: null, version: 2, backupTime: new Date('2026-02-02T02:02:01.000Z'), error: 'backup failed: EACCES' },
      },
    };
    const written = JSON.parse(JSON.stringify(snapshotRecord(snapshot, true)));
    expect(parseFileHistoryRecord(written)).toEqual({ type: 'file-history-snapshot', messageId: 'm2', snapshot, isSnapshotUpdate: true });
  });

  it('parses a delta record, falling back to messageId when snapshotMessageId is absent', () => {
    const backup = { backupFileName: NAME, version: 2, backupTime: '2026-09-16T16:23:51.749Z' };
    expect(
      parseFileHistoryRecord({ type: 'file-history-delta', messageId: 'a1', snapshotMessageId: 'u1', trackingPath: 'src/lib.rs', backup, timestamp: '2026-09-16T16:23:52.000Z' }),
    ).toEqual({
      type: 'file-history-delta',
      messageId: 'a1',
      snapshotMessageId: 'u1',
      trackingPath: 'src/lib.rs',
      backup: { backupFileName: NAME, version: 2, backupTime: new Date('2026-09-16T16:23:51.749Z') },
      timestamp: new Date('2026-09-16T16:23:52.000Z'),
    });
    expect(parseFileHistoryRecord({ type: 'file-history-delta', messageId: 'u7', trackingPath: 'x', backup, timestamp: '2026-09-16T16:23:52.000Z' })).toMatchObject({
      snapshotMessageId: 'u7',
    });
  });

  it('returns undefined without a warning for other record types', () => {
    const { warnings, onWarning } = collect();
    for (const record of [
      { type: 'user', uuid: 'u', message: { role: 'user', content: 'hi' } },
      { type: 'summary', summary: 's', leafUuid: 'u' },
      { type: 'worktree-state', worktreeSession: {} },
      null,
      'text',
      [1],
    ]) {
      expect(parseFileHistoryRecord(record, onWarning)).toBeUndefined();
    }
    expect(warnings).toEqual([]);
  });

  it('skips malformed snapshot and delta records with one warning each', () => {
    const { warnings, onWarning } = collect();
    expect(parseFileHistoryRecord({ type: 'file-history-snapshot', messageId: 'm' }, onWarning)).toBeUndefined();
    expect(parseFileHistoryRecord({ type: 'file-history-snapshot', snapshot: { trackedFileBackups: {} } }, onWarning)).toBeUndefined();
    expect(parseFileHistoryRecord({ type: 'file-history-snapshot', snapshot: { messageId: 'm', trackedFileBackups: [] } }, onWarning)).toBeUndefined();
    expect(parseFileHistoryRecord({ type: 'file-history-delta', trackingPath: 'a' }, onWarning)).toBeUndefined();
    expect(parseFileHistoryRecord({ type: 'file-history-delta', messageId: 'm' }, onWarning)).toBeUndefined();
    expect(warnings).toEqual([
      'file-history-snapshot record without a snapshot object skipped',
      'file-history-snapshot record without a messageId skipped',
      'file-history-snapshot m: trackedFileBackups is not an object; record skipped',
      'file-history-delta record without a snapshotMessageId skipped',
      'file-history-delta for m without a trackingPath skipped',
    ]);
  });

  it('keeps a malformed or unsafe backup entry marked unavailable, never as "did not exist" silently', () => {
    const { warnings, onWarning } = collect();
    const parsed = parseFileHistoryRecord(
      {
        type: 'file-history-snapshot',
        messageId: 'm',
        snapshot: {
          messageId: 'm',
          timestamp: '2026-01-01T00:00:00.000Z',
          trackedFileBackups: {
            escape: { backupFileName: '../../etc/passwd', version: 1, backupTime: '2026-01-01T00:00:00.000Z' },
            noversion: { backupFileName: NAME, backupTime: '2026-01-01T00:00:00.000Z' },
            notobject: 7,
          },
        },
        isSnapshotUpdate: false,
      },
      onWarning,
    );
    expect(parsed?.type === 'file-history-snapshot' && parsed.snapshot.trackedFileBackups).toEqual({
      escape: {
        backupFileName: null,
        version: 1,
        backupTime: new Date('2026-01-01T00:00:00.000Z'),
        error: 'unreadable backup record at file-history-snapshot m "escape": backupFileName "../../etc/passwd" is not a backup name',
      },
      noversion: {
        backupFileName: null,
        version: 0,
        backupTime: new Date('2026-01-01T00:00:00.000Z'),
        error: 'unreadable backup record at file-history-snapshot m "noversion": version undefined is not a positive integer',
      },
      notobject: { backupFileName: null, version: 0, backupTime: new Date(0), error: 'unreadable backup record at file-history-snapshot m "notobject"' },
    });
    expect(warnings).toHaveLength(3);
  });

  it('uses the epoch for a missing backup time, so change detection compares bytes', () => {
    const { warnings, onWarning } = collect();
    const parsed = parseFileHistoryRecord(
      { type: 'file-history-delta', snapshotMessageId: 'm', trackingPath: 'a', backup: { backupFileName: NAME, version: 1 }, timestamp: 'never' },
      onWarning,
    );
    expect(parsed).toMatchObject({ backup: { backupFileName: NAME, version: 1, backupTime: new Date(0) }, timestamp: new Date(0) });
    expect(warnings).toEqual([
      'file-history-delta for m: timestamp "never" is not a date; using the epoch',
      'file-history-delta for m "a": backupTime undefined is not a date; using the epoch',
    ]);
  });
});

describe('isBackupFileName', () => {
  it('accepts {16 hex}@v{n} only', () => {
    expect(['0123456789abcdef@v1', 'ffffffffffffffff@v12'].map(isBackupFileName)).toEqual([true, true]);
    for (const name of ['0123456789ABCDEF@v1', '0123456789abcde@v1', '0123456789abcdef@v', '0123456789abcdef@v1/..', '../x', 'a.rs.bak', '']) {
      expect(isBackupFileName(name), name).toBe(false);
    }
  });
});

describe('userMessageRecord', () => {
  it('builds a Claude Code user record', () => {
    expect(
      userMessageRecord({ uuid: 'u2', parentUuid: 'u1', sessionId: 's', text: 'fix the bug', timestamp: new Date('2026-03-03T03:03:03.003Z'), cwd: '/p' }),
    ).toEqual({
      parentUuid: 'u1',
      isSidechain: false,
      userType: 'external',
      cwd: '/p',
      sessionId: 's',
      type: 'user',
      message: { role: 'user', content: 'fix the bug' },
      uuid: 'u2',
      timestamp: '2026-03-03T03:03:03.003Z',
    });
  });
});

describe('fhSessionRecord', () => {
  it('round-trips through JSON', () => {
    const record = fhSessionRecord({ sessionId: 's2', projectRoot: '/p', createdAt: new Date('2026-04-04T00:00:00.000Z'), resumedFrom: 's1', snapshotSequenceOffset: 5 });
    expect(record).toEqual({ type: 'fh-session', sessionId: 's2', projectRoot: '/p', createdAt: '2026-04-04T00:00:00.000Z', resumedFrom: 's1', snapshotSequenceOffset: 5 });
    expect(parseFhSessionRecord(JSON.parse(JSON.stringify(record)))).toEqual({
      type: 'fh-session',
      sessionId: 's2',
      projectRoot: '/p',
      createdAt: new Date('2026-04-04T00:00:00.000Z'),
      resumedFrom: 's1',
      snapshotSequenceOffset: 5,
    });
  });

  it('skips a malformed fh-session record with a warning', () => {
    const { warnings, onWarning } = collect();
    expect(parseFhSessionRecord({ type: 'fh-session', sessionId: 's' }, onWarning)).toBeUndefined();
    expect(parseFhSessionRecord({ type: 'user' }, onWarning)).toBeUndefined();
    expect(warnings).toEqual(['fh-session record without a sessionId or projectRoot skipped']);
  });
});

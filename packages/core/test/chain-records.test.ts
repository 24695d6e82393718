/**
 * `chainFileHistoryRecords`: the file-history records of a Claude Code transcript that Claude
 * Code's resume reads (`buildFileHistorySnapshotChain`: keyed by top-level messageId, last per key,
 * taken as the chain walk reaches the key's message), and the state fh rebuilds from them.
 */
import { describe, expect, it } from 'vitest';
import { chainFileHistoryRecords, restoreStateFromLog, type ConversationRecord } from '../src/index.js';

const message = (type: 'user' | 'assistant', uuid: string, parentUuid: string | null, content: unknown = 'text', apiId?: string): ConversationRecord => ({
  type,
  uuid,
  parentUuid,
  isSidechain: false,
  timestamp: '2026-05-02T09:00:00.000Z',
  message: type === 'user' ? { role: 'user', content } : { id: apiId ?? `msg_${uuid}`, role: 'assistant', content },
});
const entry = (version: number) => ({ backupFileName: version === 1 ? null : `h@v${version}`, version, backupTime: '2026-05-02T09:00:00.000Z' });
const snapshot = (key: string, messageId: string, files: string[], update = false): ConversationRecord => ({
  type: 'file-history-snapshot',
  messageId: key,
  snapshot: { messageId, trackedFileBackups: Object.fromEntries(files.map((file) => [file, entry(1)])), timestamp: '2026-05-02T09:00:00.000Z' },
  isSnapshotUpdate: update,
});
const delta = (key: string, snapshotMessageId: string, trackingPath: string): ConversationRecord => ({
  type: 'file-history-delta', messageId: key, snapshotMessageId, trackingPath, backup: entry(1), timestamp: '2026-05-02T09:00:00.000Z',
});
const toolUse = (id: string) => [{ type: 'tool_use', id, name: 'Write', input: {} }];
const toolResult = (id: string) => [{ type: 'tool_result', tool_use_id: id, content: 'ok' }];

describe('chainFileHistoryRecords (Claude Code resume reads the current chain only)', () => {
  // u1 → a1 (update) → r1; u2 (abandoned by a /rewind) → a2 (update, delta) → r2; u3 (parent r1).
  const u1 = snapshot('u1', 'u1', []);
  const a1Update = snapshot('a1', 'u1', ['notes.txt'], true);
  const u2 = snapshot('u2', 'u2', ['notes.txt']);
  const a2Update = snapshot('a2', 'u2', ['notes.txt', 'draft.txt'], true);
  const a2Delta = delta('a2', 'u2', 'more.txt');
  const u3 = snapshot('u3', 'u3', ['notes.txt']);
  const ghost = snapshot('not-a-message', 'not-a-message', ['ghost.txt']);
  const records = [
    u1, message('user', 'u1', null), message('assistant', 'a1', 'u1', toolUse('t1')), a1Update, message('user', 'r1', 'a1', toolResult('t1')),
    u2, message('user', 'u2', 'r1'), message('assistant', 'a2', 'u2', toolUse('t2')), a2Update, a2Delta, message('user', 'r2', 'a2', toolResult('t2')),
    ghost, u3, message('user', 'u3', 'r1'), message('assistant', 'a3', 'u3', 'done'),
  ];

  it('leaves out the records of the abandoned branch and of messages the transcript does not hold', () => {
    expect(chainFileHistoryRecords(records)).toEqual([u1, a1Update, u3]);
    const state = restoreStateFromLog(chainFileHistoryRecords(records), { projectRoot: '/p' });
    expect(state.snapshots.map((item) => [item.messageId, Object.keys(item.trackedFileBackups)])).toEqual([
      ['u1', ['notes.txt']],
      ['u3', ['notes.txt']],
    ]);
    expect([...state.trackedFiles]).toEqual(['notes.txt']);
    // In file order the abandoned branch's files stay tracked.
    expect([...restoreStateFromLog(records, { projectRoot: '/p' }).trackedFiles].sort()).toEqual(['draft.txt', 'ghost.txt', 'more.txt', 'notes.txt']);
  });

  it('keeps the last record of a key, taken where its message is on the chain; deltas follow the snapshot record of their key', () => {
    const first = snapshot('a1', 'u1', ['one.txt'], true);
    const last = snapshot('a1', 'u1', ['one.txt', 'two.txt'], true);
    const later = delta('a1', 'u1', 'three.txt');
    const chain = [
      snapshot('u1', 'u1', []), message('user', 'u1', null), later, message('assistant', 'a1', 'u1', toolUse('t1')), first, last, message('user', 'r1', 'a1', toolResult('t1')),
    ];
    expect(chainFileHistoryRecords(chain)).toEqual([chain[0], last, later]);
    const state = restoreStateFromLog(chainFileHistoryRecords(chain), { projectRoot: '/p' });
    expect(Object.keys(state.snapshots[0]?.trackedFileBackups ?? {}).sort()).toEqual(['one.txt', 'three.txt', 'two.txt']);
  });

  it('reads the update of a parallel tool call that a walk of one parent per message misses (Claude Code recovers those parts)', () => {
    // One reply written as two records (same API id); the second tool_use hangs off the first part.
    const partTwoUpdate = snapshot('p2', 'u1', ['a.txt', 'b.txt'], true);
    const chain = [
      snapshot('u1', 'u1', []),
      message('user', 'u1', null),
      message('assistant', 'p1', 'u1', toolUse('t1'), 'msg_reply'),
      snapshot('p1', 'u1', ['a.txt'], true),
      message('assistant', 'p2', 'p1', toolUse('t2'), 'msg_reply'),
      partTwoUpdate,
      message('user', 'r2', 'p2', toolResult('t2')),
      message('user', 'r1', 'p1', toolResult('t1')),
      message('assistant', 'a2', 'r1', 'both written'),
    ];
    expect(chainFileHistoryRecords(chain).at(-1)).toBe(partTwoUpdate);
    expect([...restoreStateFromLog(chainFileHistoryRecords(chain), { projectRoot: '/p' }).trackedFiles].sort()).toEqual(['a.txt', 'b.txt']);
  });

  it('returns the file-history records in file order when the transcript holds no conversation message, or fh wrote it (fh-snapshot records)', () => {
    expect(chainFileHistoryRecords([u1, a1Update, { type: 'summary', summary: 's' }, u2])).toEqual([u1, a1Update, u2]);
    const fhSession = { type: 'fh-session', sessionId: 's' };
    const compact = { type: 'fh-snapshot', version: 2, kind: 'full', sequence: 1, messageId: 'u2', entries: {} };
    expect(chainFileHistoryRecords([fhSession, ...records, compact])).toEqual([fhSession, u1, a1Update, u2, a2Update, a2Delta, ghost, u3, compact]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  CURRENT_PROMPT_ID,
  currentBranch,
  currentBranchRecords,
  planFork,
  snapshotOwner,
  type ConversationRecord,
  type TranscriptMessage,
} from '../src/index.js';
import { fixtureConversation } from './conversation-fixture.js';

const user = (uuid: string, parentUuid: string | null, text: string, extra: Partial<TranscriptMessage> = {}): TranscriptMessage => ({
  type: 'user', uuid, parentUuid, sessionId: 'old', message: { role: 'user', content: text }, ...extra,
});
const assistant = (uuid: string, parentUuid: string, text: string): TranscriptMessage => ({
  type: 'assistant', uuid, parentUuid, sessionId: 'old', message: { role: 'assistant', content: [{ type: 'text', text }] },
});
const snapshot = (messageId: string, isSnapshotUpdate = false, recordMessageId = messageId): ConversationRecord => ({
  type: 'file-history-snapshot', messageId: recordMessageId, snapshot: { messageId, trackedFileBackups: {}, timestamp: '2026-01-01T00:00:00.000Z' }, isSnapshotUpdate,
});

/** A transcript with an abandoned branch: u2 was rewound in Claude Code and re-sent as u2b. */
function branchedTranscript(): ConversationRecord[] {
  return [
    snapshot('u1'),
    user('u1', null, 'one'),
    assistant('a1', 'u1', 'reply one'),
    snapshot('u1', true, 'a2'),
    snapshot('u2'),
    user('u2', 'a1', 'two'),
    assistant('a2', 'u2', 'reply two'),
    user('s1', 'a2', 'side', { isSidechain: true }),
    snapshot('u2b'),
    user('u2b', 'a1', 'two, edited'),
    assistant('a2b', 'u2b', 'reply two b'),
    { type: 'file-history-delta', messageId: 'd1', snapshotMessageId: 'u2b', trackingPath: 'a.txt', backup: { backupFileName: null, version: 1, backupTime: '2026-01-01T00:00:00.000Z' }, timestamp: '2026-01-01T00:00:00.000Z' },
    snapshot('u3'),
    user('u3', 'a2b', 'three'),
    assistant('a3', 'u3', 'reply three'),
    { type: 'custom-title', customTitle: 'mine', sessionId: 'old' },
    { type: 'fh-undo-point', undoId: 'x', entries: [] },
  ];
}

describe('currentBranch', () => {
  it('follows parentUuid back from the last main-chain message, skipping abandoned branches and side chains', () => {
    expect(currentBranch(branchedTranscript()).map((message) => message.uuid)).toEqual(['u1', 'a1', 'u2b', 'a2b', 'u3', 'a3']);
  });

  it('crosses a compact boundary through logicalParentUuid', () => {
    const records: ConversationRecord[] = [
      user('u1', null, 'one'),
      { type: 'system', subtype: 'compact_boundary', uuid: 'cb', parentUuid: null, logicalParentUuid: 'u1' },
      user('u2', 'cb', 'two'),
    ];
    expect(currentBranch(records).map((message) => message.uuid)).toEqual(['u1', 'cb', 'u2']);
  });

  it('stops at a cycle and at an unknown parent', () => {
    expect(currentBranch([user('x', 'y', 'a'), user('y', 'x', 'b')]).map((m) => m.uuid)).toEqual(['x', 'y']);
    expect(currentBranch([user('x', 'missing', 'a')]).map((m) => m.uuid)).toEqual(['x']);
    expect(currentBranch([])).toEqual([]);
  });

  it('a linear conversation is its own branch, record for record, except side chains', () => {
    const records = fixtureConversation();
    const view = currentBranchRecords(records);
    expect(view).toEqual(records.filter((record) => record['uuid'] !== 's1'));
    view.forEach((record) => expect(records).toContain(record));
  });
});

describe('planFork', () => {
  it('keeps the branch before the message with the new session id and its file history', () => {
    const records = branchedTranscript();
    const before = structuredClone(records);
    const plan = planFork(records, 'u3', { sessionId: 'new' });
    expect(plan.sessionId).toBe('new');
    expect(plan.keptMessageIds).toEqual(['u1', 'a1', 'u2b', 'a2b']);
    expect(plan.messages.map((message) => [message.uuid, message.parentUuid, message.sessionId])).toEqual([
      ['u1', null, 'new'],
      ['a1', 'u1', 'new'],
      ['u2b', 'a1', 'new'],
      ['a2b', 'u2b', 'new'],
    ]);
    expect(plan.messages[2]).toEqual({ ...records[9], sessionId: 'new' });
    expect(plan.fileHistoryRecords).toEqual([records[0], records[3], records[8], records[11]]);
    expect(plan.rewind?.conversationId).toBe('new');
    expect(plan.rewind?.prompt.text).toBe('three');
    expect(records).toEqual(before);
  });

  it('a fork at the current prompt copies the whole branch', () => {
    const plan = planFork(branchedTranscript(), CURRENT_PROMPT_ID, { sessionId: 'new' });
    expect(plan.keptMessageIds).toEqual(['u1', 'a1', 'u2b', 'a2b', 'u3', 'a3']);
    expect(plan.fileHistoryRecords.map(snapshotOwner)).toEqual(['u1', 'u1', 'u2b', 'u2b', 'u3']);
    expect(plan.fileHistoryRecords[1]?.['messageId']).toBe('a2');
    expect(plan.rewind).toBeNull();
  });

  it('a message of an abandoned branch cannot be forked from', () => {
    expect(() => planFork(branchedTranscript(), 'u2')).toThrow('No message with id u2 in the conversation');
  });

  it('leaves out a tool_use with no tool_result at the fork point: every tool_use answered, every parentUuid resolvable', () => {
    const part = (uuid: string, parentUuid: string, id: string, content: unknown[]): TranscriptMessage => ({
      type: 'assistant', uuid, parentUuid, sessionId: 'old', message: { id, role: 'assistant', content } as TranscriptMessage['message'],
    });
    const use = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: {} });
    const result = (uuid: string, parentUuid: string, id: string): TranscriptMessage => ({
      type: 'user', uuid, parentUuid, sessionId: 'old', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
    });
    const records: ConversationRecord[] = [
      user('u1', null, 'one'),
      part('a1', 'u1', 'm1', [{ type: 'text', text: 'reading both' }]),
      part('a1b', 'a1', 'm1', [use('t1')]),
      part('a1c', 'a1b', 'm1', [use('t2')]),
      result('r1', 'a1c', 't1'),
      result('r2', 'r1', 't2'),
      part('a2', 'r2', 'm2', [{ type: 'text', text: 'one more' }, use('t3')]),
      { type: 'progress', uuid: 'p3', parentUuid: 'a2', sessionId: 'old', parentToolUseID: 't3', data: {} },
      part('a2b', 'p3', 'm2', [use('t4')]),
      user('u2', 'a2b', 'stop, do this instead'),
      assistant('a3', 'u2', 'ok'),
    ];
    const plan = planFork(records, 'u2', { sessionId: 'new' });
    expect(plan.keptMessageIds).toEqual(['u1', 'a1', 'a1b', 'a1c', 'r1', 'r2', 'a2']);
    expect(plan.messages[6]?.message?.content).toEqual([{ type: 'text', text: 'one more' }]);
    expect(records[6]?.['message']).toEqual({ id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'one more' }, use('t3')] });
    const uses = plan.messages.flatMap((message) => (Array.isArray(message.message?.content) ? message.message.content : []).filter((block) => block.type === 'tool_use').map((block) => (block as { id: string }).id));
    const results = plan.messages.flatMap((message) => (Array.isArray(message.message?.content) ? message.message.content : []).filter((block) => block.type === 'tool_result').map((block) => (block as { tool_use_id: string }).tool_use_id));
    expect(uses).toEqual(['t1', 't2']);
    expect(results).toEqual(['t1', 't2']);
    const uuids = new Set(plan.keptMessageIds);
    for (const message of plan.messages) if (message.parentUuid !== null) expect(uuids.has(message.parentUuid)).toBe(true);

    const whole = planFork(records.slice(0, 9), CURRENT_PROMPT_ID, { sessionId: 'new' });
    expect(whole.keptMessageIds).toEqual(['u1', 'a1', 'a1b', 'a1c', 'r1', 'r2', 'a2']);
  });
});

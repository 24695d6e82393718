import { describe, expect, it } from 'vitest';
import {
  InvalidArgumentError,
  partialCompact,
  type ConversationRecord,
  type MessagesRemovedEvent,
  type SummarizeContext,
  type TranscriptMessage,
} from '../src/index.js';
import { fixtureConversation } from './conversation-fixture.js';

const SUMMARY_ID = '00000000-0000-4000-8000-00000000000a';
const NOW = new Date('2026-02-03T04:05:06.789Z');

function chain(records: ReadonlyArray<ConversationRecord | TranscriptMessage>): Array<[string, string | null]> {
  return records.filter((record) => typeof record['uuid'] === 'string').map((record) => [record['uuid'] as string, record['parentUuid'] as string | null]);
}

describe('partialCompact', () => {
  it('summarize replaces the chosen message and everything after it with one summary', async () => {
    const records = fixtureConversation();
    const before = structuredClone(records);
    const calls: Array<[string[], SummarizeContext]> = [];
    const events: MessagesRemovedEvent[] = [];
    const result = await partialCompact(records, 'u2', {
      direction: 'summarize',
      instructions: 'keep file names',
      summarize: async (messages, context) => {
        calls.push([messages.map((message) => message.uuid), context]);
        return 'The user asked for speed; add.ts was profiled.';
      },
      generateId: () => SUMMARY_ID,
      now: () => NOW,
      onMessagesRemoved: (event) => events.push(event),
    });
    const replaced = ['u2', 'a3', 's1', 'r2', 'i1', 'b1', 'b2', 'u3', 'a4', 't1'];
    expect(calls).toEqual([[replaced, { direction: 'summarize', messageId: 'u2', instructions: 'keep file names' }]]);
    expect(result.summaryMessage).toEqual({
      type: 'user',
      uuid: SUMMARY_ID,
      parentUuid: 'o1',
      isSidechain: false,
      sessionId: 'session-1',
      cwd: '/project',
      version: '2.1.0',
      gitBranch: 'main',
      userType: 'external',
      timestamp: '2026-02-03T04:05:06.789Z',
      isCompactSummary: true,
      message: { role: 'user', content: 'The user asked for speed; add.ts was profiled.' },
    });
    expect(result.messages.map((record) => record['uuid'] ?? record.type)).toEqual([
      'summary', 'u1', 'a1', 'r1', 'a2', 'file-history-snapshot', 'm1', 'c1', 'o1', SUMMARY_ID,
    ]);
    result.messages.slice(0, 9).forEach((record, index) => expect(record).toBe(records[index]));
    expect(result.removedMessageIds).toEqual(replaced);
    expect(events).toEqual([{ reason: 'summarize', messageId: 'u2', removedMessageIds: replaced }]);
    expect(records).toEqual(before);
  });

  it('summarize_up_to replaces everything before the chosen message and re-parents it', async () => {
    const records = fixtureConversation();
    const result = await partialCompact(records, 'u3', {
      direction: 'summarize_up_to',
      summarize: async (messages) => `summary of ${messages.length} messages`,
      generateId: () => SUMMARY_ID,
      now: () => NOW,
    });
    expect(result.removedMessageIds).toEqual(['u1', 'a1', 'r1', 'a2', 'm1', 'c1', 'o1', 'u2', 'a3', 's1', 'r2', 'i1', 'b1', 'b2']);
    expect(result.messages.map((record) => record['uuid'] ?? record.type)).toEqual([
      'summary', SUMMARY_ID, 'file-history-snapshot', 'u3', 'a4', 't1',
    ]);
    expect(chain(result.messages)).toEqual([
      [SUMMARY_ID, null],
      ['u3', SUMMARY_ID],
      ['a4', 'u3'],
      ['t1', 'a4'],
    ]);
    expect(result.summaryMessage.message).toEqual({ role: 'user', content: 'summary of 14 messages' });
    expect(result.summaryMessage.parentUuid).toBeNull();
    expect(result.messages[3]).not.toBe(records[16]);
    expect(result.messages[3]).toEqual({ ...records[16], parentUuid: SUMMARY_ID });
    expect(records[16]?.['parentUuid']).toBe('b2');
    expect(result.messages[4]).toBe(records[17]);
  });

  it('summarize_up_to the first prompt has nothing to summarize', async () => {
    let called = false;
    await expect(
      partialCompact(fixtureConversation(), 'u1', {
        direction: 'summarize_up_to',
        summarize: async () => {
          called = true;
          return 'x';
        },
      }),
    ).rejects.toThrow(new InvalidArgumentError('Nothing to summarize: message u1 is the first message of the conversation'));
    expect(called).toBe(false);
  });

  it('rejects an empty summary and passes a callback failure on', async () => {
    const records = fixtureConversation();
    await expect(partialCompact(records, 'u2', { direction: 'summarize', summarize: async () => '  ' })).rejects.toThrow(
      new InvalidArgumentError('The summarize callback returned "  "; expected a non-empty string'),
    );
    const failure = new Error('model unavailable');
    await expect(
      partialCompact(records, 'u2', {
        direction: 'summarize',
        summarize: async () => {
          throw failure;
        },
      }),
    ).rejects.toBe(failure);
  });

  it('the summary is never offered as a rewind target', async () => {
    const { selectableUserMessages } = await import('../src/index.js');
    const result = await partialCompact(fixtureConversation(), 'u3', {
      direction: 'summarize_up_to',
      summarize: async () => 'summary',
      generateId: () => SUMMARY_ID,
    });
    expect(selectableUserMessages(result.messages).map((entry) => entry.messageId)).toEqual(['u3', '<current-prompt>']);
  });
});

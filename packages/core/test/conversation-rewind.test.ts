import { describe, expect, it } from 'vitest';
import {
  CURRENT_PROMPT_ID,
  InvalidArgumentError,
  isLosslessConversationRewind,
  NotFoundError,
  rewindConversation,
  type MessagesRemovedEvent,
} from '../src/index.js';
import { fixtureConversation, PNG_BASE64 } from './conversation-fixture.js';

const ids = (records: ReadonlyArray<{ type: string } & Record<string, unknown>>): unknown[] =>
  records.map((record) => record['uuid'] ?? record.type);

describe('rewindConversation', () => {
  it('keeps the records before the message and gives back its prompt, images and permission mode', () => {
    const records = fixtureConversation();
    const before = structuredClone(records);
    const events: MessagesRemovedEvent[] = [];
    const rewind = rewindConversation(records, 'u2', {
      generateId: () => '00000000-0000-4000-8000-000000000001',
      onMessagesRemoved: (event) => events.push(event),
    });
    expect(ids(rewind.messages)).toEqual(['summary', 'u1', 'a1', 'r1', 'a2', 'file-history-snapshot', 'm1', 'c1', 'o1']);
    rewind.messages.forEach((record, index) => expect(record).toBe(records[index]));
    expect(rewind.conversationId).toBe('00000000-0000-4000-8000-000000000001');
    expect(rewind.target).toBe(records[9]);
    expect(rewind.permissionMode).toBe('acceptEdits');
    expect(rewind.prompt).toEqual({
      text: 'Now make it faster, see the screenshot',
      mode: 'prompt',
      images: [{ id: 7, mediaType: 'image/png', data: PNG_BASE64 }],
      permissionMode: 'acceptEdits',
    });
    const removed = ['u2', 'a3', 's1', 'r2', 'i1', 'b1', 'b2', 'u3', 'a4', 't1'];
    expect(rewind.removedMessageIds).toEqual(removed);
    expect(events).toEqual([{ reason: 'rewind', messageId: 'u2', removedMessageIds: removed }]);
    expect(records).toEqual(before);
  });

  it('rewinding to the first prompt keeps only the records before it', () => {
    const rewind = rewindConversation(fixtureConversation(), 'u1');
    expect(ids(rewind.messages)).toEqual(['summary']);
    expect(rewind.permissionMode).toBe('default');
    expect(rewind.conversationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(rewind.removedMessageIds).toHaveLength(17);
  });

  it('rewinding to the last prompt removes it and its reply', () => {
    const rewind = rewindConversation(fixtureConversation(), 'u3');
    expect(rewind.removedMessageIds).toEqual(['u3', 'a4', 't1']);
    expect(rewind.prompt.text).toBe('Add a test');
    expect(rewind.permissionMode).toBe('plan');
  });

  it('refuses unknown ids, the current prompt and records that are not typed prompts', () => {
    const records = fixtureConversation();
    expect(() => rewindConversation(records, 'nope')).toThrow(new NotFoundError('No message with id nope in the conversation'));
    expect(() => rewindConversation(records, CURRENT_PROMPT_ID)).toThrow(NotFoundError);
    expect(() => rewindConversation(records, 'r1')).toThrow(
      new InvalidArgumentError('Message r1 is a user record that is not a prompt a person typed; only those can be rewound to'),
    );
    expect(() => rewindConversation(records, 'a1')).toThrow(InvalidArgumentError);
  });
});

describe('isLosslessConversationRewind', () => {
  it('is true only when nothing but synthetic records follows the message', () => {
    const records = fixtureConversation();
    expect(isLosslessConversationRewind(records, 'u3')).toBe(false);
    const interrupted = [...records.slice(0, 17), records[13]!];
    expect(isLosslessConversationRewind(interrupted, 'u3')).toBe(true);
    expect(() => isLosslessConversationRewind(records, 'a4')).toThrow(InvalidArgumentError);
  });
});

import { describe, expect, it } from 'vitest';
import {
  CURRENT_PROMPT_ID,
  isSelectableUserMessage,
  messagesAfterAreOnlySynthetic,
  promptForResubmit,
  selectableUserMessages,
  type ConversationRecord,
  type TranscriptMessage,
} from '../src/index.js';
import { fixtureConversation, PNG_BASE64 } from './conversation-fixture.js';

function byId(records: ConversationRecord[], uuid: string): TranscriptMessage {
  const found = records.find((record) => record['uuid'] === uuid);
  if (found === undefined) throw new Error(`fixture has no ${uuid}`);
  return found as TranscriptMessage;
}

describe('selectableUserMessages', () => {
  it('lists the prompts (slash commands included), in order, then the current prompt', () => {
    const records = fixtureConversation();
    const entries = selectableUserMessages(records);
    expect(entries.map((entry) => [entry.messageId, entry.index, entry.text, entry.imageCount, entry.isCurrentPrompt])).toEqual([
      ['u1', 1, 'Fix the bug in add.ts', 0, false],
      ['c1', 7, '/model opus', 0, false],
      ['u2', 9, 'Now make it faster, see the screenshot', 1, false],
      ['b1', 14, 'ls -la', 0, false],
      ['u3', 16, 'Add a test', 0, false],
      [CURRENT_PROMPT_ID, 19, '', 0, true],
    ]);
    expect(entries[0]?.message).toBe(records[1]);
    expect(entries[0]?.timestamp).toBe('2026-01-01T00:00:01.000Z');
    expect(entries[5]?.message).toBeNull();
  });

  it('an empty conversation has only the current prompt', () => {
    expect(selectableUserMessages([])).toEqual([
      { messageId: CURRENT_PROMPT_ID, index: 0, message: null, isCurrentPrompt: true, text: '', imageCount: 0, timestamp: undefined },
    ]);
  });

  it.each([
    ['a1', 'an assistant message'],
    ['r1', 'a tool_result carrier'],
    ['m1', 'a meta caveat'],
    ['o1', 'local command output (<local-command-stdout>)'],
    ['s1', 'a side-chain (sub-agent) message'],
    ['i1', 'an interrupt marker'],
    ['b2', 'shell output (<bash-stdout>)'],
    ['t1', 'a task notification'],
  ])('rejects %s: %s', (uuid) => {
    expect(isSelectableUserMessage(byId(fixtureConversation(), uuid))).toBe(false);
  });

  it('offers slash-command prompts (Claude Code does)', () => {
    expect(isSelectableUserMessage(byId(fixtureConversation(), 'c1'))).toBe(true);
  });

  it('rejects compact summaries and continuations, transcript-only records and interrupt strings; the origin does not matter', () => {
    const base: TranscriptMessage = { type: 'user', uuid: 'x', parentUuid: null, message: { role: 'user', content: 'hello' } };
    expect(isSelectableUserMessage(base)).toBe(true);
    expect(isSelectableUserMessage({ ...base, isCompactSummary: true })).toBe(false);
    expect(isSelectableUserMessage({ ...base, isVisibleInTranscriptOnly: true })).toBe(false);
    expect(isSelectableUserMessage({ ...base, origin: { kind: 'channel' } })).toBe(true);
    expect(isSelectableUserMessage({ ...base, message: { role: 'user', content: 'This session is being continued from a previous conversation that ran out of context.' } })).toBe(false);
    expect(isSelectableUserMessage({ ...base, message: { role: 'user', content: 'look at this: <bash-stderr>boom</bash-stderr>' } })).toBe(false);
    expect(isSelectableUserMessage({ ...base, origin: { kind: 'human' } })).toBe(true);
    expect(isSelectableUserMessage({ ...base, message: { role: 'user', content: '[Request interrupted by user for tool use]' } })).toBe(false);
    expect(isSelectableUserMessage({ ...base, message: { role: 'user', content: '<teammate-message from="b">hi</teammate-message>' } })).toBe(false);
    expect(isSelectableUserMessage({ type: 'file-history-snapshot', uuid: 'x' })).toBe(false);
    expect(isSelectableUserMessage({ type: 'user', uuid: 'x', parentUuid: null })).toBe(false);
  });
});

describe('promptForResubmit', () => {
  it('gives back text, images with their paste ids, and the permission mode', () => {
    expect(promptForResubmit(byId(fixtureConversation(), 'u2'))).toEqual({
      text: 'Now make it faster, see the screenshot',
      mode: 'prompt',
      images: [{ id: 7, mediaType: 'image/png', data: PNG_BASE64 }],
      permissionMode: 'acceptEdits',
    });
  });

  it('numbers images from 1 without paste ids and leaves out non-base64 sources', () => {
    const message: TranscriptMessage = {
      type: 'user',
      uuid: 'x',
      parentUuid: null,
      message: {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } },
          { type: 'text', text: '  two images  ' },
        ],
      },
    };
    expect(promptForResubmit(message)).toEqual({
      text: 'two images',
      mode: 'prompt',
      images: [{ id: 2, mediaType: 'image/jpeg', data: 'AAAA' }],
      permissionMode: undefined,
    });
  });

  it('strips IDE context, unwraps shell input and slash commands', () => {
    const records = fixtureConversation();
    expect(promptForResubmit(byId(records, 'u3')).text).toBe('Add a test');
    expect(promptForResubmit(byId(records, 'b1'))).toMatchObject({ text: 'ls -la', mode: 'bash' });
    expect(promptForResubmit(byId(records, 'c1'))).toMatchObject({ text: '/model opus', mode: 'prompt' });
  });
});

describe('messagesAfterAreOnlySynthetic', () => {
  const user = (uuid: string, content: TranscriptMessage['message']): TranscriptMessage => ({ type: 'user', uuid, parentUuid: null, message: content });

  it('is true when only markers, tool results, meta, system records and empty replies follow', () => {
    const records: ConversationRecord[] = [
      user('u1', { role: 'user', content: 'go' }),
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { role: 'assistant', content: [{ type: 'text', text: '  ' }] } },
      user('i1', { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] }),
      { type: 'system', uuid: 'y1', parentUuid: 'i1', subtype: 'informational', content: 'note' },
      user('m1', { role: 'user', content: 'reminder' }),
      { type: 'file-history-snapshot', messageId: 'u1' },
    ];
    (records[4] as TranscriptMessage).isMeta = true;
    expect(messagesAfterAreOnlySynthetic(records, 0)).toBe(true);
    expect(messagesAfterAreOnlySynthetic(records, records.length - 1)).toBe(true);
  });

  it('is false after a typed prompt or an assistant text or tool call', () => {
    const records = fixtureConversation();
    expect(messagesAfterAreOnlySynthetic(records, 16)).toBe(false);
    const toolCall: ConversationRecord[] = [
      user('u1', { role: 'user', content: 'go' }),
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Edit', input: {} }] } },
    ];
    expect(messagesAfterAreOnlySynthetic(toolCall, 0)).toBe(false);
    const typed: ConversationRecord[] = [user('u1', { role: 'user', content: 'go' }), user('u2', { role: 'user', content: 'again' })];
    expect(messagesAfterAreOnlySynthetic(typed, 0)).toBe(false);
  });
});

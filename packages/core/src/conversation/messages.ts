/**
 * The conversation model (seed 000 §2-§3): transcript records in the shape Claude Code writes to
 * its session files, so fh's conversations and Claude Code's are one format.
 *
 * A conversation is a list of records. Records whose `type` is one of the chain types (`user`,
 * `assistant`, `system`, `attachment`, `progress`) and that carry a string `uuid` are messages:
 * they form a chain through `parentUuid`. Every other record (`file-history-snapshot`, `summary`,
 * `custom-title`, ...) passes through the conversation functions untouched.
 */

/**
 * The permission mode a user message was sent in (Claude Code's `permissionMode` field). Unknown
 * modes are kept as they are.
 */
export type PermissionMode = 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan' | 'dontAsk' | (string & {});

/** A text content block. */
export interface TextBlock {
  type: 'text';
  text: string;
  [field: string]: unknown;
}

/** An inline image (`source.type` `base64`: `data` is the base64 of the image bytes). */
export interface Base64ImageSource {
  type: 'base64';
  /** MIME type, e.g. `image/png`. */
  media_type: string;
  /** Base64 of the image bytes. */
  data: string;
}

/** An image content block; only base64 sources are restored into the prompt. */
export interface ImageBlock {
  type: 'image';
  source: Base64ImageSource | { type: string; [field: string]: unknown };
  [field: string]: unknown;
}

/** A tool call made by the assistant. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  [field: string]: unknown;
}

/** The result of a tool call, carried by a `user` record. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | ContentBlock[];
  is_error?: boolean;
  [field: string]: unknown;
}

/** Any other block (`thinking`, `redacted_thinking`, `document`, ...): passed through untouched. */
export interface OtherBlock {
  type: string;
  [field: string]: unknown;
}

/** One content block of a message. Use the `is…Block` guards to narrow. */
export type ContentBlock = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | OtherBlock;

/** The API message a transcript record wraps. */
export interface MessageBody {
  role: 'user' | 'assistant' | 'system' | (string & {});
  /** A plain string, or content blocks. */
  content: string | ContentBlock[];
  [field: string]: unknown;
}

/** Any record of a transcript or session log: a JSON object with a `type`. */
export type ConversationRecord = { type: string } & Record<string, unknown>;

/**
 * One message of a conversation, as a Claude Code transcript line. Fields fh does not know are
 * kept as they are.
 */
export interface TranscriptMessage {
  /** `user`, `assistant`, `system`, `attachment` or `progress` (see {@link CHAIN_MESSAGE_TYPES}). */
  type: string;
  /** The message id (a UUID); file-history snapshots are keyed by the uuid of user messages. */
  uuid: string;
  /** The previous message of the chain, `null` for the first one. */
  parentUuid: string | null;
  /** The session (conversation) the message was written in. */
  sessionId?: string;
  /** ISO-8601 time the message was created. */
  timestamp?: string;
  /** Injected context (caveats, reminders) rather than something a person typed. */
  isMeta?: boolean;
  /** Part of a sub-agent's side chain, not the main conversation. */
  isSidechain?: boolean;
  /** A summary that replaced earlier messages (compaction). */
  isCompactSummary?: boolean;
  /** Shown only in the transcript view; never a prompt. */
  isVisibleInTranscriptOnly?: boolean;
  /** The permission mode the message was sent in. */
  permissionMode?: PermissionMode;
  /** Paste ids of the message's images, in image-block order (Claude Code `imagePasteIds`). */
  imagePasteIds?: number[];
  /** The API message; absent on some `system`/`progress` records. */
  message?: MessageBody;
  [field: string]: unknown;
}

/** Record types that are messages of the conversation chain. */
export const CHAIN_MESSAGE_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'attachment', 'progress']);

/**
 * Texts Claude Code inserts on its own (interrupts, cancels, rejections). A user message whose
 * first text is one of these is synthetic, never a prompt a person typed.
 */
export const SYNTHETIC_MESSAGE_TEXTS: ReadonlySet<string> = new Set([
  '[Request interrupted by user]',
  '[Request interrupted by user for tool use]',
  "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.",
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
  'No response requested.',
]);

/**
 * Tags of user-role records that carry output or notifications rather than prompts (Claude Code's
 * selectableUserMessagesFilter, 2.0.x to 2.1.27x): local slash-command output, `!` shell output,
 * task notifications, ticks and messages from other agents. A message whose text holds one of
 * these anywhere is not a prompt. Slash-command invocations (`<command-name>`) are prompts.
 */
export const NON_PROMPT_TAGS: readonly string[] = [
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<bash-stdout>',
  '<bash-stderr>',
  '<task-notification>',
  '<tick>',
  '<teammate-message',
];

/**
 * How the message Claude Code writes after compacting a conversation begins (older versions do
 * not mark it `isCompactSummary`); it continues the conversation and is never offered as a prompt.
 */
export const COMPACT_CONTINUATION_PREFIX = 'This session is being continued from a previous conversation';

/** True for a record that is a message of the conversation chain (see {@link CHAIN_MESSAGE_TYPES}). */
export function isTranscriptMessage(record: ConversationRecord): record is ConversationRecord & TranscriptMessage {
  return CHAIN_MESSAGE_TYPES.has(record.type) && typeof record['uuid'] === 'string';
}

/** True for a `text` block. */
export function isTextBlock(block: ContentBlock): block is TextBlock {
  return block.type === 'text' && typeof (block as TextBlock).text === 'string';
}

/** True for an `image` block with a base64 source. */
export function isBase64ImageBlock(block: ContentBlock): block is ImageBlock & { source: Base64ImageSource } {
  if (block.type !== 'image') return false;
  const source = (block as ImageBlock).source;
  return typeof source === 'object' && source !== null && source.type === 'base64' && typeof source['data'] === 'string';
}

/** True for a `tool_use` block. */
export function isToolUseBlock(block: ContentBlock): block is ToolUseBlock {
  return block.type === 'tool_use';
}

/** True for a `tool_result` block. */
export function isToolResultBlock(block: ContentBlock): block is ToolResultBlock {
  return block.type === 'tool_result';
}

/** The content blocks of a message; a string content reads as one text block, no content as none. */
export function contentBlocks(message: TranscriptMessage): ContentBlock[] {
  const content = message.message?.content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

/**
 * The text of a message: a string content as it is, text blocks joined with `\n` and trimmed;
 * `''` when there is none (seed: getContentText).
 */
export function messageText(message: TranscriptMessage): string {
  const content = message.message?.content;
  if (typeof content === 'string') return content;
  return contentBlocks(message)
    .filter(isTextBlock)
    .map((block) => block.text)
    .join('\n')
    .trim();
}

/** True for a `user` record that carries tool results (the reply to an assistant's tool call). */
export function isToolResultMessage(message: TranscriptMessage): boolean {
  if (message.type !== 'user') return false;
  if (message['toolUseResult'] !== undefined) return true;
  return contentBlocks(message).some(isToolResultBlock);
}

/**
 * True for a user or assistant record whose first text is an interrupt, cancel or rejection
 * marker Claude Code inserted (see {@link SYNTHETIC_MESSAGE_TEXTS}).
 */
export function isSyntheticMessage(message: TranscriptMessage): boolean {
  if (message.type !== 'user' && message.type !== 'assistant') return false;
  const first = contentBlocks(message)[0];
  return first !== undefined && isTextBlock(first) && SYNTHETIC_MESSAGE_TEXTS.has(first.text.trim());
}

/**
 * True when the message's text holds one of {@link NON_PROMPT_TAGS} anywhere (Claude Code looks at
 * a string content, or the last content block when it is text; fh looks at every text block), or
 * begins with {@link COMPACT_CONTINUATION_PREFIX}.
 */
export function isCommandOrOutputMessage(message: TranscriptMessage): boolean {
  return contentBlocks(message)
    .filter(isTextBlock)
    .some((block) => block.text.trimStart().startsWith(COMPACT_CONTINUATION_PREFIX) || NON_PROMPT_TAGS.some((tag) => block.text.includes(tag)));
}

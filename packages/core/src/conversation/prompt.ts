/**
 * The prompt of a user message as a person would edit it again (seed 000 §3, restoreMessageSync
 * and textForResubmit): its text, the input mode and its pasted images.
 */
import { contentBlocks, isBase64ImageBlock, messageText, type PermissionMode, type TranscriptMessage } from './messages.js';

/** One image of a prompt, ready to be pasted back into a prompt box. */
export interface PromptImage {
  /** Paste id: the message's `imagePasteIds[i]`, else `i + 1` (i = index among its image blocks). */
  id: number;
  /** MIME type, e.g. `image/png`. */
  mediaType: string;
  /** Base64 of the image bytes, exactly as in the message. */
  data: string;
}

/** What a front end puts back into its prompt box after rewinding to a message. */
export interface PromptForResubmit {
  /** The text to edit: the shell command for `bash`, else the prompt without IDE context tags. */
  text: string;
  /** `bash` when the message was a `!` shell command (`<bash-input>`), else `prompt`. */
  mode: 'prompt' | 'bash';
  /** The message's base64 images in order; other image sources are not restorable and left out. */
  images: PromptImage[];
  /** The permission mode the message was sent in, if recorded. */
  permissionMode: PermissionMode | undefined;
}

const IDE_CONTEXT_TAGS = /<(ide_opened_file|ide_selection)(?:\s[^>]*)?>[\s\S]*?<\/\1>\n?/g;

/** The inner text of the first `<tag>…</tag>` in `text`, trimmed, or undefined. */
function extractTag(text: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`).exec(text);
  const inner = match?.[1]?.trim();
  return inner === undefined || inner === '' ? undefined : inner;
}

/**
 * The text, mode, images and permission mode of `message` for editing and resending it
 * (seed: textForResubmit + the image part of restoreMessageSync). Pure; never throws.
 */
export function promptForResubmit(message: TranscriptMessage): PromptForResubmit {
  const text = messageText(message);
  const images = contentBlocks(message)
    .filter((block) => block.type === 'image')
    .flatMap((block, index) =>
      isBase64ImageBlock(block)
        ? [{ id: message.imagePasteIds?.[index] ?? index + 1, mediaType: block.source.media_type, data: block.source.data }]
        : [],
    );
  const permissionMode = message.permissionMode;
  const bash = extractTag(text, 'bash-input');
  if (bash !== undefined) return { text: bash, mode: 'bash', images, permissionMode };
  const command = extractTag(text, 'command-name');
  if (command !== undefined) {
    const args = extractTag(text, 'command-args');
    return { text: args === undefined ? command : `${command} ${args}`, mode: 'prompt', images, permissionMode };
  }
  return { text: text.replace(IDE_CONTEXT_TAGS, '').trim(), mode: 'prompt', images, permissionMode };
}

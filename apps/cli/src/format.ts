/** Small formatters for human output. */

/** Bytes as `512 B`, `1.5 KiB`, `3.2 MiB`, `1.1 GiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A time as local `YYYY-MM-DD HH:MM:SS`. */
export function formatTime(time: Date): string {
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())} ${pad(time.getHours())}:${pad(time.getMinutes())}:${pad(time.getSeconds())}`;
}

/** The first line of `text`, cut to `width` characters with `…`; control characters escaped (see {@link escapeControl}). */
export function excerpt(text: string, width = 60): string {
  const line = escapeControl(text.replace(/\s+/g, ' ').trim());
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** `1 file`, `2 files`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * Control characters (C0, DEL, C1), the Unicode line and paragraph separators, and the bidi
 * controls (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069), which reorder what a terminal shows
 * (`a\u202etxt.exe` displays as `aexe.txt`).
 */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
/** The same, but keeping line feeds and tabs (multi-line text such as a prompt to resend). */
const CONTROL_CHARACTERS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** True when `text` holds a control character (see {@link escapeControl}). */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

/** `\u001b` for ESC and so on: the JSON-style escape of one control character. */
function escapeCharacter(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Text for human output with every control character (C0, DEL, C1, U+2028/9, bidi controls) written as its
 * JSON-style escape (`\u001b`), so no escape sequence from a prompt, message id or error reaches
 * the terminal. With `keepLines`, line feeds and tabs stay (a prompt printed to edit and resend).
 */
export function escapeControl(text: string, options: { keepLines?: boolean } = {}): string {
  return text.replace(options.keepLines === true ? CONTROL_CHARACTERS_BUT_LINES : CONTROL_CHARACTERS, escapeCharacter);
}

/**
 * A path for human output: as it is, or JSON-quoted (`"new\nline.txt"`) when it holds a control
 * character, so every file stays on one line and no escape sequence reaches the terminal.
 */
export function displayPath(path: string): string {
  // JSON.stringify escapes C0 only: the rest (C1, U+2028/9, bidi controls) is escaped after it.
  return CONTROL_CHARACTER.test(path) ? escapeControl(JSON.stringify(path)) : path;
}

/** A message or session id for human output: quoted like {@link displayPath}. */
export const displayId = displayPath;

/** Characters a POSIX shell word may hold without quoting. */
const SHELL_SAFE = /^[A-Za-z0-9_\-.,/:@=+%]+$/;

/**
 * One shell word for a printed command: as it is when safe, else single-quoted (`'it'\''s'`), or
 * ANSI-C quoted (`$'a\x1bb'`) when it holds control characters, so the command pastes and runs.
 */
export function shellQuote(word: string): string {
  if (SHELL_SAFE.test(word)) return word;
  if (!CONTROL_CHARACTER.test(word)) return `'${word.replace(/'/g, `'\\''`)}'`;
  const escaped = word.replace(/[\\']/g, (character) => `\\${character}`).replace(CONTROL_CHARACTERS, (character) => {
    const code = character.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return `$'${escaped}'`;
}

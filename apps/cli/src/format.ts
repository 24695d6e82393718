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

/** The first line of `text`, cut to `width` characters with `…`. */
export function excerpt(text: string, width = 60): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** `1 file`, `2 files`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Control characters (C0, DEL, C1) and the Unicode line and paragraph separators. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/**
 * A path for human output: as it is, or JSON-quoted (`"new\nline.txt"`) when it holds a control
 * character, so every file stays on one line and no escape sequence reaches the terminal.
 */
export function displayPath(path: string): string {
  return CONTROL_CHARACTER.test(path) ? JSON.stringify(path) : path;
}

/**
 * One file's change as a git-style patch (`diff --git` header, `new file mode` / `deleted file
 * mode` / `old mode`+`new mode`, then the hunks), so `git apply` takes what `fh diff --patch`
 * prints. Text is diffed with jsdiff (its git patch format); binary files get a `GIT binary
 * patch` (zlib-deflated literal in git's base85), with the full `index` line git needs for it.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { StructuredPatchHunk } from 'diff';

/** One side of a file change: its bytes and mode, or null when the file does not exist there. */
export interface PatchSide {
  bytes: Uint8Array;
  /** Permission bits (and more); only the owner's execute bit decides 100755 over 100644. */
  mode: number | undefined;
}

/** Options of {@link gitFilePatch}. */
export interface GitFilePatchOptions {
  /** Write a binary patch (a NUL byte, or the text diff is not wanted). */
  binary: boolean;
  /** Give up on the line diff after this many ms (jsdiff `timeout`); the patch is then one hunk replacing every line. */
  timeoutMs?: number;
  /** Skip the line diff: one hunk replacing every line (a file whose line diff is known to give up). */
  wholeFile?: boolean;
}

const ZERO_ID = '0'.repeat(40);

/** git's mode word for a regular file's mode bits. */
export function gitMode(mode: number | undefined): string {
  return mode !== undefined && (mode & 0o100) !== 0 ? '100755' : '100644';
}

/** git's blob id of `bytes` (sha1 of `blob <size>\0<bytes>`). */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** A path as git writes it in headers: C-quoted when it holds a quote, backslash or control character. */
function quotePath(path: string): string {
  if (!/["\\\u0000-\u001f\u007f]/.test(path)) return path;
  const escaped = path.replace(/["\\\u0000-\u001f\u007f]/g, (character) => {
    const named: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r' };
    return named[character] ?? `\\${character.charCodeAt(0).toString(8).padStart(3, '0')}`;
  });
  return `"${escaped}"`;
}

/**
 * The patch that turns `from` into `to` for `path` (a tracking path), '' when nothing differs.
 * Text is decoded as UTF-8. When the line diff gives up (`timeoutMs`) or `wholeFile` is set, the
 * text change is one hunk that replaces every line: still a patch `git apply` takes.
 */
export async function gitFilePatch(path: string, from: PatchSide | null, to: PatchSide | null, options: GitFilePatchOptions): Promise<string> {
  const oldMode = from === null ? undefined : gitMode(from.mode);
  const newMode = to === null ? undefined : gitMode(to.mode);
  const sameBytes = from !== null && to !== null && Buffer.compare(Buffer.from(from.bytes), Buffer.from(to.bytes)) === 0;
  const modeLines = (): string[] => {
    if (from === null) return [`new file mode ${newMode}`];
    if (to === null) return [`deleted file mode ${oldMode}`];
    return oldMode === newMode ? [] : [`old mode ${oldMode}`, `new mode ${newMode}`];
  };
  const header = `diff --git ${quotePath(`a/${path}`)} ${quotePath(`b/${path}`)}`;
  if (sameBytes) {
    const lines = modeLines();
    return lines.length === 0 ? '' : `${[header, ...lines].join('\n')}\n`;
  }
  if (options.binary) {
    const oldId = from === null ? ZERO_ID : gitBlobId(from.bytes);
    const newId = to === null ? ZERO_ID : gitBlobId(to.bytes);
    const index = `index ${oldId}..${newId}${from !== null && to !== null && oldMode === newMode ? ` ${oldMode}` : ''}`;
    const forward = binaryLiteral(to?.bytes ?? new Uint8Array());
    const reverse = binaryLiteral(from?.bytes ?? new Uint8Array());
    return `${[header, ...modeLines(), index, 'GIT binary patch', forward, '', reverse, ''].join('\n')}\n`;
  }
  const { structuredPatch, formatPatch } = await import('diff');
  const decoder = new TextDecoder('utf-8');
  const oldText = from === null ? '' : decoder.decode(from.bytes);
  const newText = to === null ? '' : decoder.decode(to.bytes);
  const oldName = from === null ? '/dev/null' : `a/${path}`;
  const newName = to === null ? '/dev/null' : `b/${path}`;
  const structured =
    (options.wholeFile === true
      ? undefined
      : structuredPatch(oldName, newName, oldText, newText, undefined, undefined, {
          context: 3,
          ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
        })) ?? { oldFileName: oldName, newFileName: newName, oldHeader: undefined, newHeader: undefined, hunks: [wholeFileHunk(oldText, newText)] };
  // jsdiff's git format: `diff --git a/… b/…`, the mode lines, and /dev/null in the ---/+++ lines
  // of a created or deleted file, as git writes them.
  structured.isGit = true;
  if (from === null) {
    structured.isCreate = true;
    structured.newMode = newMode as string;
  } else if (to === null) {
    structured.isDelete = true;
    structured.oldMode = oldMode as string;
  } else if (oldMode !== newMode) {
    structured.oldMode = oldMode as string;
    structured.newMode = newMode as string;
  }
  return formatPatch(structured);
}

/** One hunk that removes every line of `oldText` and adds every line of `newText`. */
function wholeFileHunk(oldText: string, newText: string): StructuredPatchHunk {
  const split = (text: string, mark: string): string[] => {
    if (text === '') return [];
    const lines = text.split('\n');
    const complete = text.endsWith('\n');
    if (complete) lines.pop();
    const marked = lines.map((line) => `${mark}${line}`);
    return complete ? marked : [...marked, '\\ No newline at end of file'];
  };
  const removed = split(oldText, '-');
  const added = split(newText, '+');
  const count = (lines: string[]): number => lines.filter((line) => !line.startsWith('\\')).length;
  return { oldStart: 1, oldLines: count(removed), newStart: 1, newLines: count(added), lines: [...removed, ...added] };
}

/** git's base85 alphabet. */
const BASE85 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';

/** `literal <size>` and the deflated bytes in base85 lines of up to 52 bytes (git's binary patch). */
function binaryLiteral(bytes: Uint8Array): string {
  const data = deflateSync(bytes);
  const lines = [`literal ${bytes.length}`];
  for (let offset = 0; offset < data.length; offset += 52) {
    const chunk = data.subarray(offset, Math.min(offset + 52, data.length));
    const length = chunk.length;
    let line = length <= 26 ? String.fromCharCode(64 + length) : String.fromCharCode(96 + length - 26);
    for (let group = 0; group < length; group += 4) {
      let value = 0;
      for (let byte = 0; byte < 4; byte += 1) value = value * 256 + (chunk[group + byte] ?? 0);
      let encoded = '';
      for (let digit = 0; digit < 5; digit += 1) {
        encoded = (BASE85[value % 85] as string) + encoded;
        value = Math.floor(value / 85);
      }
      line += encoded;
    }
    lines.push(line);
  }
  return lines.join('\n');
}

/**
 * Reading `fh hook`'s event from stdin: once, linearly, without holding more than
 * {@link MAX_PARSED_EVENT_BYTES} of it.
 *
 * Every byte goes through one scanner that follows the JSON structure (strings, escapes, nesting)
 * and so knows when the top-level object closes: an agent that leaves stdin open after writing the
 * event is not waited on, and no chunk is ever parsed twice. An event of at most
 * {@link MAX_PARSED_EVENT_BYTES} is kept and parsed whole with `JSON.parse`. A bigger one (a
 * `PreToolUse` Write carries the whole new file in `tool_input.content`, tens of MB) is not held:
 * the scanner keeps only the scalar fields of the top-level object and of its `tool_input` object
 * whose values are at most {@link MAX_FIELD_BYTES} long (`session_id`, `cwd`, `hook_event_name`,
 * `tool_name`, `tool_use_id`, `tool_input.file_path`, ...) and drops everything else (the content,
 * nested objects and arrays), so the edit's file is still backed up before the tool writes it.
 */

import { createRequire } from 'node:module';

/**
 * `node:fs` through `require`: an ESM import of `node:fs` copies its exports, whose lazy getters
 * (`ReadStream`, ...) load Node's stream modules, about 14 ms an event fh ignores would pay.
 */
const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');

/** Events up to this many bytes (8 MiB) are parsed whole; bigger ones keep only their scalar fields. */
export const MAX_PARSED_EVENT_BYTES = 8 * 1024 * 1024;

/** A scalar field of a big event is kept when its JSON text is at most this many bytes (64 KiB). */
export const MAX_FIELD_BYTES = 64 * 1024;

/** What {@link readHookEvent} read. */
export interface HookInput {
  /** The event: the whole parsed value, or for a big event an object of its kept fields. */
  event: unknown;
  /** The event's size in bytes. */
  bytes: number;
  /** True when the event was bigger than {@link MAX_PARSED_EVENT_BYTES} and only its scalar fields were kept. */
  reduced: boolean;
  /** For a reduced event: the names of the fields dropped (too long, or not scalars), e.g. `tool_input.content`. */
  dropped: string[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** One open container of the scanner: an object (with the key being read) or an array. */
interface Frame {
  array: boolean;
  /** Dotted name of this container (`''` for the top level, `'tool_input'`). */
  name: string;
  /** True when its scalar members are kept (the top level and its `tool_input`, in a big event). */
  keep: boolean;
  /** The object to put kept members in. */
  target: Record<string, unknown> | undefined;
  /** In an object: the key of the member whose value comes next, once read. */
  key: string | undefined;
  /** In an object: true while the next string is a key. */
  expectKey: boolean;
}

/** The text of stdin is not one JSON object. */
export class HookInputError extends Error {
  override readonly name = 'HookInputError';
}

/**
 * The scanner over the event's bytes (see the module comment). `push` takes the next chunk and
 * returns how many of its bytes belong to the event (the chunk's length until the top-level
 * object closes). Linear: each byte is looked at a bounded number of times; strings are skipped
 * with `indexOf`.
 */
export class EventScanner {
  /** Bytes of the event so far. */
  bytes = 0;
  /** True once the top-level object has closed. */
  done = false;
  /** Whole chunks while the event is small enough to parse whole; undefined past the limit. */
  private chunks: Buffer[] | undefined = [];
  private readonly stack: Frame[] = [];
  private readonly root: Record<string, unknown> = {};
  private readonly droppedFields: string[] = [];
  private started = false;
  /** True once the text is known not to be one JSON object: it is only collected, for the message. */
  private raw = false;
  private inString = false;
  /** Inside a string: the backslashes that ended the previous chunk (their count's parity decides an escape). */
  private backslashRun = 0;
  /** Bytes of the token being kept (a string or a bare scalar), or undefined when not keeping one. */
  private token: Buffer[] | undefined;
  private tokenBytes = 0;
  /** True while a bare scalar (number, true, false, null) is being read. */
  private inBare = false;
  /** Whether the current token is a key (else a value). */
  private tokenIsKey = false;

  constructor(private readonly limit: number = MAX_PARSED_EVENT_BYTES) {}

  /** Take the next chunk (see the class comment). Throws {@link HookInputError} on text that is not one JSON object. */
  push(chunk: Buffer): number {
    if (this.done) return 0;
    let end = chunk.length;
    if (!this.raw) {
      try {
        end = this.scan(chunk);
      } catch (error) {
        // While the text is small enough to parse whole, JSON.parse gives the message (finish).
        if (!(error instanceof HookInputError) || this.chunks === undefined || this.bytes + chunk.length > this.limit) throw error;
        this.raw = true;
      }
    }
    const part = end === chunk.length ? chunk : chunk.subarray(0, end);
    this.bytes += part.length;
    if (this.chunks !== undefined) {
      if (this.bytes <= this.limit) this.chunks.push(part);
      else if (this.raw) throw new HookInputError(`stdin is not one JSON object: ${JSON.stringify(Buffer.concat(this.chunks).toString('utf8').slice(0, 80))}`);
      else this.chunks = undefined;
    }
    return end;
  }

  /** The event once stdin has ended or the object has closed. Throws {@link HookInputError} when it is not one JSON object. */
  finish(): HookInput {
    if (this.chunks !== undefined) {
      const text = Buffer.concat(this.chunks).toString('utf8');
      let event: unknown;
      try {
        event = JSON.parse(text) as unknown;
      } catch {
        throw new HookInputError(`stdin is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
      }
      return { event, bytes: this.bytes, reduced: false, dropped: [] };
    }
    if (!this.done) throw new HookInputError(`stdin ended after ${this.bytes} bytes, before the hook event's JSON object closed`);
    return { event: this.root, bytes: this.bytes, reduced: true, dropped: this.droppedFields };
  }

  /** Scan `chunk`; returns the index just past the top-level object's end, or the chunk's length. */
  private scan(chunk: Buffer): number {
    let index = 0;
    const length = chunk.length;
    while (index < length) {
      if (this.inString) {
        index = this.scanString(chunk, index);
        continue;
      }
      const byte = chunk[index] as number;
      if (this.inBare) {
        if (isBareByte(byte)) {
          this.keepBytes(chunk, index, index + 1);
          index += 1;
          continue;
        }
        this.endBare();
      }
      index += 1;
      switch (byte) {
        case 0x20:
        case 0x09:
        case 0x0a:
        case 0x0d:
          break;
        case 0x7b: // {
          this.open(false);
          break;
        case 0x5b: // [
          this.open(true);
          break;
        case 0x7d: // }
        case 0x5d: // ]
          this.close(byte === 0x5d);
          if (this.stack.length === 0) {
            this.done = true;
            return index;
          }
          break;
        case 0x3a: // :
          break;
        case 0x2c: {
          // ,
          const frame = this.stack.at(-1);
          if (frame !== undefined && !frame.array) frame.expectKey = true;
          break;
        }
        case QUOTE:
          this.beginString();
          break;
        default:
          if (!this.started || !isBareByte(byte)) throw new HookInputError(this.started ? 'stdin is not JSON: an unexpected character in the hook event' : 'the hook event is not a JSON object');
          this.beginBare(chunk, index - 1);
      }
    }
    return length;
  }

  /**
   * Inside a string from `start`: skip to its closing quote (or the chunk's end); returns where
   * scanning goes on. Only quotes are searched for (`indexOf`); a quote is escaped when an odd run
   * of backslashes comes before it, counted back into the previous chunk where the run reaches
   * this one's start.
   */
  private scanString(chunk: Buffer, start: number): number {
    let from = start;
    for (;;) {
      const quote = chunk.indexOf(QUOTE, from);
      const end = quote === -1 ? chunk.length : quote;
      let run = 0;
      while (end - run - 1 >= start && chunk[end - run - 1] === BACKSLASH) run += 1;
      const odd = (end - run === start ? run + this.backslashRun : run) % 2 === 1;
      if (quote === -1) {
        this.keepBytes(chunk, start, chunk.length);
        this.backslashRun = end - run === start ? this.backslashRun + run : run;
        return chunk.length;
      }
      if (odd) {
        from = quote + 1;
        continue;
      }
      this.keepBytes(chunk, start, quote + 1);
      this.backslashRun = 0;
      this.inString = false;
      this.endToken();
      return quote + 1;
    }
  }

  private open(array: boolean): void {
    const parent = this.stack.at(-1);
    if (parent === undefined) {
      if (this.started) throw new HookInputError('stdin is not JSON: more than one value');
      if (array) throw new HookInputError('the hook event is not a JSON object');
      this.started = true;
      this.stack.push({ array: false, name: '', keep: true, target: this.root, key: undefined, expectKey: true });
      return;
    }
    const name = this.memberName(parent);
    // Only the top level's `tool_input` object keeps its scalar members too.
    const keep = !array && parent.keep && parent.name === '' && parent.key === 'tool_input';
    let target: Record<string, unknown> | undefined;
    if (keep && parent.target !== undefined) {
      target = {};
      parent.target[parent.key as string] = target;
    } else if (parent.keep) {
      this.droppedFields.push(name);
    }
    this.stack.push({ array, name, keep, target, key: undefined, expectKey: !array });
  }

  private close(array: boolean): void {
    const frame = this.stack.pop();
    if (frame === undefined || frame.array !== array) throw new HookInputError('stdin is not JSON: brackets do not match in the hook event');
    const parent = this.stack.at(-1);
    if (parent !== undefined && !parent.array) parent.key = undefined;
  }

  /** The dotted name of the member being read in `frame` (`tool_input.content`, `edits[]`). */
  private memberName(frame: Frame): string {
    const own = frame.array ? '[]' : (frame.key ?? '?');
    return frame.name === '' ? own : frame.array ? `${frame.name}${own}` : `${frame.name}.${own}`;
  }

  private beginString(): void {
    this.inString = true;
    const frame = this.stack.at(-1);
    if (frame === undefined) throw new HookInputError('the hook event is not a JSON object');
    this.tokenIsKey = !frame.array && frame.expectKey;
    // Keys of kept objects are always read (to know which member follows); values only when kept.
    this.token = frame.keep && (this.tokenIsKey || !frame.array) ? [] : undefined;
    this.tokenBytes = 0;
    this.keepBytes(Buffer.from('"'), 0, 1);
  }

  private beginBare(chunk: Buffer, index: number): void {
    const frame = this.stack.at(-1);
    this.inBare = true;
    this.tokenIsKey = false;
    this.token = frame?.keep === true && !frame.array ? [] : undefined;
    this.tokenBytes = 0;
    this.keepBytes(chunk, index, index + 1);
  }

  private endBare(): void {
    this.inBare = false;
    this.endToken();
  }

  /** Add bytes to the token being kept, dropping it once it passes {@link MAX_FIELD_BYTES}. */
  private keepBytes(chunk: Buffer, from: number, to: number): void {
    if (this.token === undefined || to <= from) return;
    this.tokenBytes += to - from;
    if (this.tokenBytes > (this.tokenIsKey ? 1024 : MAX_FIELD_BYTES)) {
      this.token = undefined;
      const frame = this.stack.at(-1);
      if (frame !== undefined && !this.tokenIsKey) this.droppedFields.push(this.memberName(frame));
      return;
    }
    // Copy: the chunk's memory is reused by the stream once it is released.
    this.token.push(Buffer.from(chunk.subarray(from, to)));
  }

  /** A string or bare scalar ended: store a kept key or value. */
  private endToken(): void {
    const frame = this.stack.at(-1);
    const token = this.token;
    this.token = undefined;
    if (frame === undefined || frame.array) return;
    if (this.tokenIsKey) {
      frame.expectKey = false;
      const key = token === undefined ? undefined : parseToken(token);
      frame.key = typeof key === 'string' ? key : undefined;
      return;
    }
    if (token !== undefined && frame.target !== undefined && frame.key !== undefined) frame.target[frame.key] = parseToken(token);
    frame.key = undefined;
  }
}

/** Bytes of a bare JSON scalar (number, true, false, null). */
function isBareByte(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7a) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x45;
}

function parseToken(parts: Buffer[]): unknown {
  const text = Buffer.concat(parts).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HookInputError(`stdin is not JSON: ${JSON.stringify(text.slice(0, 80))} in the hook event`);
  }
}

/**
 * Read one hook event from `stream` (see the module comment): stops at the end of the top-level
 * object or of the stream, whichever comes first. Throws {@link HookInputError} when the text is
 * not one JSON object.
 */
export async function readHookEvent(stream: AsyncIterable<Buffer | string>, limit: number = MAX_PARSED_EVENT_BYTES): Promise<HookInput> {
  const scanner = new EventScanner(limit);
  for await (const chunk of stream) {
    scanner.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    if (scanner.done) break;
  }
  return scanner.finish();
}

/** What a hook event field holds, for a message: `a number`, `an array`, `null`. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

/**
 * The event's `session_id`: a non-empty string. Throws {@link HookInputError} naming what was
 * wrong (missing, not a string, empty); the hook then records nothing.
 */
export function eventSessionId(value: unknown): string {
  if (value === undefined) throw new HookInputError('the hook event has no session_id; nothing recorded');
  if (typeof value !== 'string') throw new HookInputError(`the hook event's session_id must be a string, not ${kindOf(value)}; nothing recorded`);
  if (value === '') throw new HookInputError("the hook event's session_id is empty; nothing recorded");
  return value;
}

/**
 * The event's `cwd`: the agent's working folder as an absolute path (relative file paths, the
 * project's fallback and the worktree probe start there). A missing, non-string, empty or
 * relative `cwd` throws {@link HookInputError} naming what was wrong; the hook then records
 * nothing (it never guesses its own folder).
 */
export function eventCwd(value: unknown): string {
  const need = "it must be the agent's working folder as an absolute path";
  if (value === undefined) throw new HookInputError(`the hook event has no cwd (${need}); nothing recorded`);
  if (typeof value !== 'string') throw new HookInputError(`the hook event's cwd must be a string, not ${kindOf(value)} (${need}); nothing recorded`);
  if (value === '') throw new HookInputError(`the hook event's cwd is empty (${need}); nothing recorded`);
  if (!value.startsWith('/')) throw new HookInputError(`the hook event's cwd ${JSON.stringify(value)} is relative (${need}); nothing recorded`);
  return value;
}

/**
 * The text of a `UserPromptSubmit` event's `prompt`. Claude Code sends a string. An array of
 * content blocks (the API's shape: `{ type: 'text', text }`, or plain strings) gives its text parts
 * joined by blank lines; images and other blocks are left out. Missing (a prompt over 8 MiB is
 * dropped by the reader) gives `''`. Anything else, or an array without text, throws
 * {@link HookInputError}: the turn is not recorded rather than recorded with a wrong prompt.
 */
export function eventPromptText(value: unknown): string {
  if (value === undefined || typeof value === 'string') return value ?? '';
  if (Array.isArray(value)) {
    const texts = value.flatMap((block: unknown) =>
      typeof block === 'string'
        ? [block]
        : typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text' && typeof (block as { text?: unknown }).text === 'string'
          ? [(block as { text: string }).text]
          : [],
    );
    if (texts.length > 0) return texts.join('\n\n');
    throw new HookInputError(`the hook event's prompt is an array with no text blocks (it must be a string); nothing recorded`);
  }
  throw new HookInputError(`the hook event's prompt must be a string, not ${kindOf(value)}; nothing recorded`);
}

/** Bytes asked of stdin per read (1 MiB). */
const STDIN_READ_BYTES = 1024 * 1024;

/**
 * stdin's bytes as they arrive. A pipe, a FIFO or a socket (how agents pass the event: Node's
 * `spawn` gives a socket, a shell's `|` a pipe) is read through `process.stdin`, a libuv stream
 * over epoll, so a hook that gives up while the agent keeps stdin open and silent exits at once: a
 * blocking `fs.read` there would hold a libuv thread in `read(2)`, and `process.exit` waits for
 * that thread (measured: about 1–2 ms more per event than `fs.read`, mostly loading `net`). A
 * file (or `/dev/null`) never blocks, so it is read straight from file descriptor 0
 * (`fs.read`), as is anything else; a descriptor that cannot be read that way (non-blocking:
 * `EAGAIN`) hands over to `process.stdin` for the rest. Ends at end of file.
 */
export async function* stdinChunks(): AsyncGenerator<Buffer | string> {
  const stats = fs.fstatSync(0);
  if (stats.isFIFO() || stats.isSocket()) {
    for await (const chunk of process.stdin) yield chunk as Buffer | string;
    return;
  }
  for (;;) {
    const buffer = Buffer.allocUnsafe(STDIN_READ_BYTES);
    let count: number;
    try {
      count = await new Promise<number>((resolve, reject) => fs.read(0, buffer, 0, STDIN_READ_BYTES, null, (error, bytes) => (error === null ? resolve(bytes) : reject(error))));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      for await (const chunk of process.stdin) yield chunk as Buffer | string;
      return;
    }
    if (count === 0) return;
    yield buffer.subarray(0, count);
  }
}

/**
 * True when stdin is a terminal or another device that is not `/dev/null` (no hook event can
 * come from one), from one `fstat` (the `tty` module would load Node's `net`, about 13 ms).
 */
export function stdinIsDevice(): boolean {
  const stats = fs.fstatSync(0);
  return stats.isCharacterDevice() && stats.rdev !== fs.statSync('/dev/null', { throwIfNoEntry: false })?.rdev;
}

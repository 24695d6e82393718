/**
 * Reading a session log line by line (`SessionLog.readStream`), so a log of any size is read with
 * memory bounded by its longest line, never as one string (a JSONL file over ~512 MiB cannot be
 * one). Logs without `readStream` are read whole with `read` and their records handed out one by one.
 */
import type { LogRecord, SessionLog } from '../store.js';

/**
 * Longest line read (bytes): a longer one is skipped as `line too long` without being held in
 * memory. A snapshot record of a million tracked files is about 140 MiB.
 */
export const MAX_LOG_LINE_BYTES = 256 * 1024 * 1024;

/** One line of a log, as {@link readLogLines} hands it out. `line` is 1-based. */
export type LogLine =
  /** A line's text, without its `\n`; `terminated` false for a last line with no `\n` after it. */
  | { line: number; text: string; terminated: boolean }
  /** A record already parsed (a log without `readStream`, read with `read`). */
  | { line: number; record: LogRecord }
  /** A line that could not be read, with the reason (`line too long`, or what `read` reported). */
  | { line: number; skipped: string };

/**
 * The log's lines in order (see {@link LogLine}): streamed through `readStream` where the log has
 * it, else from one `read`. Blank lines are left out (their numbers still count). A line longer
 * than `maxLineBytes` (default {@link MAX_LOG_LINE_BYTES}) is reported as skipped. Throws the
 * store's errors.
 */
export async function* readLogLines(log: SessionLog, options: { maxLineBytes?: number } = {}): AsyncGenerator<LogLine> {
  const maxLineBytes = options.maxLineBytes ?? MAX_LOG_LINE_BYTES;
  if (log.readStream === undefined) {
    const { records, skipped } = await log.read();
    for (const line of skipped) yield { line: line.line, skipped: line.reason };
    let index = 0;
    for (const record of records) {
      index += 1;
      yield { line: index, record };
    }
    return;
  }
  let line = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  const take = (chunk: Buffer, start: number, end: number): LogLine | undefined => {
    line += 1;
    if (tooLong || pendingBytes + (end - start) > maxLineBytes) {
      pending = [];
      pendingBytes = 0;
      tooLong = false;
      return { line, skipped: 'line too long' };
    }
    const text = pending.length === 0 ? chunk.toString('utf8', start, end) : Buffer.concat([...pending, chunk.subarray(start, end)]).toString('utf8');
    pending = [];
    pendingBytes = 0;
    return text.length === 0 || text === '\r' ? undefined : { line, text, terminated: true };
  };
  for await (const raw of log.readStream()) {
    const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    let start = 0;
    for (let end = chunk.indexOf(0x0a, start); end >= 0; end = chunk.indexOf(0x0a, start)) {
      const taken = take(chunk, start, end);
      if (taken !== undefined) yield taken;
      start = end + 1;
    }
    if (start < chunk.length) {
      if (tooLong || pendingBytes + chunk.length - start > maxLineBytes) {
        pending = [];
        pendingBytes = 0;
        tooLong = true;
      } else {
        pending.push(Buffer.from(chunk.subarray(start)));
        pendingBytes += chunk.length - start;
      }
    }
  }
  if (tooLong) {
    yield { line: line + 1, skipped: 'line too long' };
  } else if (pendingBytes > 0) {
    const text = Buffer.concat(pending).toString('utf8');
    if (text.trim() !== '') yield { line: line + 1, text, terminated: false };
  }
}

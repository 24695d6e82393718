/**
 * JSON Lines, the on-disk form of a session log (a Claude Code transcript): one JSON record per
 * line, each line ended by `\n`. Every store that keeps its log as a JSONL file or object parses
 * it here, so torn and corrupt lines are treated the same everywhere.
 */
import type { LogReadResult, LogRecord, SkippedLine } from '../store.js';

/**
 * Serialise records as JSONL: each record on its own line, every line ended by `\n`.
 * Dates become ISO-8601 strings (`JSON.stringify`). Returns `''` for no records.
 */
export function formatJsonl(records: readonly LogRecord[]): string {
  let text = '';
  for (const record of records) text += `${JSON.stringify(record)}\n`;
  return text;
}

/**
 * Parse a JSONL text into records, in order. Never throws for bad content: a line that is not
 * valid JSON, or not an object with a string `type`, is skipped and reported with its 1-based
 * line number and the reason (`invalid JSON`, `not an object with a type`); an unparsable last
 * line with no terminating `\n` (an append cut short) is reported as `torn last line`. Blank
 * lines are ignored, `\r\n` endings accepted. Skipping a line never hides the lines after it.
 */
export function parseJsonl(text: string): LogReadResult {
  const records: LogRecord[] = [];
  const skipped: SkippedLine[] = [];
  const lines = text.split('\n');
  const lastIndex = lines.length - 1;
  lines.forEach((rawLine, index) => {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skipped.push({ line: index + 1, reason: index === lastIndex ? 'torn last line' : 'invalid JSON' });
      return;
    }
    if (isRecord(value)) records.push(value);
    else skipped.push({ line: index + 1, reason: 'not an object with a type' });
  });
  return { records, skipped };
}

/**
 * Parse one JSONL line (without its `\n`; a trailing `\r` is dropped) the way {@link parseJsonl}
 * parses each line: the record, `undefined` for a blank line, or the reason it is skipped
 * (`invalid JSON`, `not an object with a type`, or `torn last line` for an unparsable line that
 * `terminated` false says had no `\n` after it). Never throws.
 */
export function parseJsonlLine(text: string, terminated = true): { record: LogRecord } | { reason: string } | undefined {
  const line = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (line.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { reason: terminated ? 'invalid JSON' : 'torn last line' };
  }
  return isRecord(value) ? { record: value } : { reason: 'not an object with a type' };
}

function isRecord(value: unknown): value is LogRecord {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { type?: unknown }).type === 'string'
  );
}

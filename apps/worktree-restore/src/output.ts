/**
 * Everything `fh-worktree-restore` prints goes through {@link Output}, as in `fh`: with `--json`
 * exactly one JSON document on stdout; otherwise the result on stdout and notes on stderr. A
 * command's human result is the path to `cd` into, alone on stdout, so
 * `cd "$(fh-worktree-restore restore --session <id>)"` works; what was done goes to stderr.
 */
import type { Writable } from 'node:stream';

/** The printer every command uses. */
export class Output {
  readonly json: boolean;
  private documentWritten = false;

  constructor(
    json: boolean,
    readonly stdout: Writable = process.stdout,
    readonly stderr: Writable = process.stderr,
  ) {
    this.json = json;
  }

  /** Whether the JSON document has been written (errors after that add none). */
  get wroteDocument(): boolean {
    return this.documentWritten;
  }

  /** Print a command's result: `document` as JSON with `--json`, otherwise the `human` lines on stdout. Call once. */
  result(document: unknown, human: readonly string[]): void {
    if (this.json) {
      this.writeDocument(document);
      return;
    }
    if (human.length > 0) this.stdout.write(`${human.join('\n')}\n`);
  }

  /** Write one JSON document on stdout (Dates as ISO strings, Errors as `{code, message}`). */
  writeDocument(document: unknown): void {
    this.documentWritten = true;
    this.stdout.write(`${JSON.stringify(document, jsonReplacer, 2)}\n`);
  }

  /** A note on stderr, prefixed with the tool's name; suppressed with `--json`. */
  note(text: string): void {
    if (!this.json) this.stderr.write(`fh-worktree-restore: ${text}\n`);
  }
}

function jsonReplacer(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Record<string, unknown>)[key];
  if (original instanceof Date) return original.toISOString();
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return typeof code === 'string' ? { code, message: value.message } : { message: value.message };
  }
  return value;
}

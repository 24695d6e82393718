/**
 * How `fh` fails: exit codes and the one-line messages it prints instead of stack traces.
 *
 * Exit codes: 0 success, 1 failure, 2 usage error (no command, bad option, missing argument, a bad
 * argument value (FH_INVALID_ARGUMENT), a refusal to prompt without a terminal), 3 partly done
 * (some files failed or were skipped; each is named), 130 interrupted (Ctrl-C) with nothing changed.
 */
import { displayPath } from './format.js';

/** Process exit codes of `fh`. */
export const ExitCode = { ok: 0, failure: 1, usage: 2, partial: 3, interrupted: 130 } as const;

/** A command line the user has to change: exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * The command did part of its work: exits 3. `failures` names each file that failed and why; the
 * JSON document (if any) has already been written by the command.
 */
export class PartialFailureError extends Error {
  override readonly name = 'PartialFailureError';
  constructor(
    message: string,
    readonly failures: ReadonlyArray<{ path: string; error: string }>,
  ) {
    super(message);
  }
}

/**
 * An error with a hint on what to do instead (the `--paths` command after a refused rewind): it
 * exits and is reported as `error` is, with `hint` printed after the detail lines (and as `hint`
 * in the JSON error document).
 */
export class HintedError extends Error {
  override readonly name = 'HintedError';
  constructor(
    readonly error: unknown,
    readonly hint: string,
  ) {
    super(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/**
 * The headline when `count` files could not be backed up for a snapshot or checkpoint (`what`,
 * e.g. `snapshot m2`) that was recorded all the same.
 */
export function backupFailureMessage(what: string, count: number): string {
  const files = count === 1 ? '1 file' : `${count} files`;
  return `${what} was recorded, but ${files} could not be backed up for it, so a rewind to it cannot restore ${count === 1 ? 'that file' : 'them'}: fix what is named below (space on the store's disk, the file's permissions) and run fh checkpoint to back ${count === 1 ? 'it' : 'them'} up`;
}

/** "2 files could not be rewound (1 failed, 1 skipped)" ("1 file could not be rewound" with none skipped): the headline of a partly done rewind or undo. */
export function partialMessage(failed: number, skipped: number, done: string): string {
  const total = failed + skipped;
  const parts = [...(failed > 0 ? [`${failed} failed`] : []), ...(skipped > 0 ? [`${skipped} skipped`] : [])];
  const headline = `${total} file${total === 1 ? '' : 's'} could not be ${done}`;
  return skipped === 0 ? headline : `${headline} (${parts.join(', ')})`;
}

/** What {@link describeError} makes of an error: the exit code and the lines for stderr. */
export interface DescribedError {
  exitCode: number;
  /** A stable code: the FhError code, `FH_USAGE`, `FH_PARTIAL`, or an errno code. */
  code: string;
  message: string;
  /** Extra lines (failed files, missing backups), each naming one thing. */
  details: string[];
  /** What to do instead, when known (see {@link HintedError}). */
  hint?: string;
}

/**
 * Turn any thrown value into an exit code and one clear line (plus one line per named file), never
 * a stack trace. FhErrors from any installed copy of @fh/core are recognised by their marker.
 */
export function describeError(error: unknown): DescribedError {
  if (error instanceof HintedError) return { ...describeError(error.error), hint: error.hint };
  if (error instanceof UsageError) return { exitCode: ExitCode.usage, code: 'FH_USAGE', message: error.message, details: [] };
  if (error instanceof PartialFailureError) {
    return {
      exitCode: ExitCode.partial,
      code: 'FH_PARTIAL',
      message: error.message,
      details: error.failures.map((failure) => detailLine(failure.path, failure.error)),
    };
  }
  if (isFhError(error)) {
    const missing = (error as { missing?: ReadonlyArray<{ path: string; backupFileName: string; reason: string }> }).missing;
    const details = Array.isArray(missing)
      ? missing.map((entry) => `${displayPath(entry.path)}: backup ${entry.backupFileName} ${entry.reason.includes('does not exist') ? 'missing' : 'damaged'}: ${entry.reason}`)
      : [];
    // A bad argument value (`--session ../x`, `snapshot ''`, `resume s1 --to s1`), or a path
    // argument outside the project (`diff --paths ../x`, `track /etc/passwd`), is a usage error.
    const exitCode = error.code === 'FH_INVALID_ARGUMENT' || error.code === 'FH_OUTSIDE_ROOT' ? ExitCode.usage : ExitCode.failure;
    return { exitCode, code: error.code, message: error.message, details };
  }
  if (error instanceof Error) {
    const errno = (error as { code?: unknown }).code;
    return {
      exitCode: ExitCode.failure,
      code: typeof errno === 'string' ? errno : 'FH_ERROR',
      message: error.message,
      details: [],
    };
  }
  return { exitCode: ExitCode.failure, code: 'FH_ERROR', message: String(error), details: [] };
}

/** FhError check by the `Symbol.for` marker, so @fh/core need not be loaded to recognise one. */
function isFhError(error: unknown): error is Error & { code: string } {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[Symbol.for('@fh/core.error')] === true
  );
}

/** `path: error`, without naming the path twice when the error text already starts with it. */
function detailLine(path: string, error: string): string {
  const text = error.startsWith(`${path}: `) ? error.slice(path.length + 2) : error;
  return `${displayPath(path)}: ${text}`;
}

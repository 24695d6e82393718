/**
 * How `fh-worktree-restore` fails, the same way `fh` does: exit codes and the one-line messages it
 * prints instead of stack traces.
 *
 * Exit codes: 0 success, 1 failure (including a refusal: nothing was changed), 2 usage error (no
 * command, a bad option, a session id that is not one path segment such as `--session ../x`),
 * 3 partly done (the worktree is back but some files could not be rewound; each is named).
 */

/** Process exit codes. */
export const ExitCode = { ok: 0, failure: 1, usage: 2, partial: 3 } as const;

/** A command line the user has to change: exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * The tool looked and decided not to act (an occupied path, uncommitted changes): exits 1 with
 * code `FH_REFUSED`. Nothing was changed. `details` names each thing in the way (changed files).
 */
export class RefusalError extends Error {
  override readonly name = 'RefusalError';
  readonly code = 'FH_REFUSED';
  constructor(
    message: string,
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }
}

/** The command did part of its work: exits 3. `failures` names each file that failed and why. */
export class PartialFailureError extends Error {
  override readonly name = 'PartialFailureError';
  constructor(
    message: string,
    readonly failures: ReadonlyArray<{ path: string; error: string }>,
  ) {
    super(message);
  }
}

/** A git command failed: exits 1 with code `FH_GIT`; the message names the command and git's first error line. */
export class GitError extends Error {
  override readonly name = 'GitError';
  readonly code = 'FH_GIT';
  constructor(
    message: string,
    /** git's exit code (or -1 when it could not be started). */
    readonly exitStatus: number,
    /** Everything git wrote on stderr. */
    readonly stderr: string,
  ) {
    super(message);
  }
}

/** What {@link describeError} makes of an error: the exit code and the lines for stderr. */
export interface DescribedError {
  exitCode: number;
  /** A stable code: an FhError code, `FH_USAGE`, `FH_REFUSED`, `FH_PARTIAL`, `FH_GIT`, or an errno code. */
  code: string;
  message: string;
  /** Extra lines, each naming one thing (a changed file, a file that failed). */
  details: string[];
}

/** Turn any thrown value into an exit code and one clear line (plus one line per named thing), never a stack trace. */
export function describeError(error: unknown): DescribedError {
  if (error instanceof UsageError) return { exitCode: ExitCode.usage, code: 'FH_USAGE', message: error.message, details: [] };
  if (error instanceof RefusalError) return { exitCode: ExitCode.failure, code: error.code, message: error.message, details: [...error.details] };
  if (error instanceof PartialFailureError) {
    return {
      exitCode: ExitCode.partial,
      code: 'FH_PARTIAL',
      message: error.message,
      details: error.failures.map((failure) => `${failure.path}: ${failure.error}`),
    };
  }
  if (isFhError(error)) {
    const missing = (error as { missing?: ReadonlyArray<{ path: string; backupFileName: string; reason: string }> }).missing;
    const details = Array.isArray(missing) ? missing.map((entry) => `${entry.path}: backup ${entry.backupFileName} ${entry.reason}`) : [];
    return { exitCode: ExitCode.failure, code: error.code, message: error.message, details };
  }
  if (error instanceof Error) {
    const errno = (error as { code?: unknown }).code;
    return { exitCode: ExitCode.failure, code: typeof errno === 'string' ? errno : 'FH_ERROR', message: error.message, details: [] };
  }
  return { exitCode: ExitCode.failure, code: 'FH_ERROR', message: String(error), details: [] };
}

/** FhError check by the `Symbol.for` marker (works across installed copies of @fh/core). */
function isFhError(error: unknown): error is Error & { code: string } {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[Symbol.for('@fh/core.error')] === true;
}

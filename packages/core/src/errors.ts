/**
 * The error family of fh. Every error fh throws on purpose is an {@link FhError} with a stable
 * `code`; the raw error that caused it (an errno error, an S3 service error) is kept as `cause`.
 *
 * `FhError.isInstance(x)` works across two installed copies of `@fh/core` (a store built against
 * another copy still throws errors the core recognises), because it checks a `Symbol.for` marker
 * rather than the class identity.
 */

const MARKER = Symbol.for('@fh/core.error');

/** Stable machine-readable codes of {@link FhError}. */
export type FhErrorCode =
  | 'FH_ERROR'
  | 'FH_NOT_FOUND'
  | 'FH_CONFLICT'
  | 'FH_UNSUPPORTED'
  | 'FH_CORRUPT'
  | 'FH_OUTSIDE_ROOT'
  | 'FH_INVALID_ARGUMENT'
  | 'FH_LOCKED'
  | 'FH_PERMISSION'
  | 'FH_UNAVAILABLE'
  | 'FH_BACKUP_MISSING';

/** Options shared by every {@link FhError} constructor. */
export interface FhErrorOptions {
  /** The underlying error (errno error, SDK error) this one translates. */
  cause?: unknown;
}

/** Base class of every error fh throws on purpose. */
export class FhError extends Error {
  /** Stable code; match on this, not on the message. */
  readonly code: FhErrorCode = 'FH_ERROR';
  private readonly [MARKER] = true;

  constructor(message: string, options: FhErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }

  /** True when `error` is an FhError from any installed copy of `@fh/core`. */
  static isInstance(error: unknown): error is FhError {
    return hasMarker(error);
  }

  /** True when `error` is an FhError with the given code (from any installed copy). */
  static hasCode(error: unknown, code: FhErrorCode): error is FhError {
    return hasMarker(error) && error.code === code;
  }
}

/**
 * The test behind `FhError.isInstance`. Kept outside the class body: a class that names itself
 * inside its body is renamed by the bundler (`_FhError`), and `name` comes from the class name.
 */
function hasMarker(error: unknown): error is FhError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
}

/** A backup, session, snapshot, message or source file does not exist. */
export class NotFoundError extends FhError {
  override readonly code = 'FH_NOT_FOUND';
}

/** An immutable object already exists (a backup written twice, an S3 412 precondition failure). */
export class ConflictError extends FhError {
  override readonly code = 'FH_CONFLICT';
}

/** A store or file system lacks a feature the operation needs; the message names the feature. */
export class UnsupportedError extends FhError {
  override readonly code = 'FH_UNSUPPORTED';
}

/** Stored data is damaged: a backup whose size or checksum does not match, an unreadable record. */
export class CorruptError extends FhError {
  override readonly code = 'FH_CORRUPT';
}

/** A path resolves outside the project root (or inside fh's own storage); the message names it. */
export class OutsideRootError extends FhError {
  override readonly code = 'FH_OUTSIDE_ROOT';
}

/** A caller passed a value fh cannot use; the message names the argument and the value. */
export class InvalidArgumentError extends FhError {
  override readonly code = 'FH_INVALID_ARGUMENT';
}

/** A session is held open by another process (its lock is taken). */
export class LockedError extends FhError {
  override readonly code = 'FH_LOCKED';
}

/** The store or file system refused access (EACCES/EPERM, S3 AccessDenied). */
export class PermissionError extends FhError {
  override readonly code = 'FH_PERMISSION';
}

/** The store cannot be reached (network error, server down) after retries. */
export class UnavailableError extends FhError {
  override readonly code = 'FH_UNAVAILABLE';
}

/**
 * A rewind was refused before anything changed because backups it needs are missing or do not
 * match their recorded size. `missing` lists each one.
 */
export class BackupMissingError extends FhError {
  override readonly code = 'FH_BACKUP_MISSING';
  /** Each backup that failed validation: tracked path, backup file name and why. */
  readonly missing: ReadonlyArray<{ path: string; backupFileName: string; reason: string }>;

  constructor(
    message: string,
    missing: ReadonlyArray<{ path: string; backupFileName: string; reason: string }>,
    options: FhErrorOptions = {},
  ) {
    super(message, options);
    this.missing = missing;
  }
}

/** The errno code of a Node.js system error (`ENOENT`, `EEXIST`, ...), or undefined. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

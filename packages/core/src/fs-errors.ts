/**
 * Translation of file-system (errno) errors into the core's error family, for stores to use at
 * their boundary. Pure: no I/O.
 */
import {
  ConflictError,
  FhError,
  InvalidArgumentError,
  NotFoundError,
  PermissionError,
  UnavailableError,
  UnsupportedError,
  errnoCode,
} from './errors.js';

/**
 * Translate a file-system error into the core's error family at the store boundary, keeping the
 * raw error as `cause`. `context` says what was being done (`putBackup: source "/w/a.txt"`) and
 * opens the message. FhErrors pass through unchanged.
 *
 * ENOENT → NotFoundError; EEXIST → ConflictError; EACCES, EPERM, EROFS → PermissionError;
 * EISDIR, ENOTDIR, ELOOP, ENAMETOOLONG → InvalidArgumentError; ENOTSUP, ENOSYS → UnsupportedError;
 * EMFILE, ENFILE, EBUSY, EAGAIN, EIO → UnavailableError; anything else → FhError.
 */
export function translateFsError(error: unknown, context: string): FhError {
  if (FhError.isInstance(error)) return error;
  const code = errnoCode(error);
  const message = `${context}: ${code ?? (error instanceof Error ? error.message : String(error))}`;
  const options = { cause: error };
  switch (code) {
    case 'ENOENT':
      return new NotFoundError(`${message} (does not exist)`, options);
    case 'EEXIST':
      return new ConflictError(`${message} (already exists)`, options);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new PermissionError(`${message} (permission denied)`, options);
    case 'EISDIR':
    case 'ENOTDIR':
    case 'ELOOP':
    case 'ENAMETOOLONG':
      return new InvalidArgumentError(`${message} (not a usable file path)`, options);
    case 'ENOTSUP':
    case 'ENOSYS':
      return new UnsupportedError(`${message} (operation not supported by the file system)`, options);
    case 'EMFILE':
    case 'ENFILE':
    case 'EBUSY':
    case 'EAGAIN':
    case 'EIO':
      return new UnavailableError(`${message} (file system temporarily unavailable)`, options);
    default:
      return new FhError(message, options);
  }
}

/**
 * Translate an error met while reading a backup's source file: like {@link translateFsError},
 * except that ENOTDIR (a parent of the path is a regular file) also means the file does not
 * exist, so the core records it as absent rather than failing the backup.
 */
export function translateSourceError(error: unknown, context: string): FhError {
  if (errnoCode(error) === 'ENOTDIR') return new NotFoundError(`${context}: ENOTDIR (does not exist: a parent is not a folder)`, { cause: error });
  return translateFsError(error, context);
}

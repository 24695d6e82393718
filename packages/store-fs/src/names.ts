import { InvalidArgumentError } from '@fh/core';

/** Prefix of the store's own temporary files in a session folder; never a backup name. */
export const TEMP_PREFIX = '.fh-tmp-';

/**
 * Permission bits of the folders the store creates (its root included): only the user may list
 * or enter them, whatever the umask. Backup files keep the permission bits of the file they copy
 * (a restore gives them back), so these folders are what keeps them private.
 */
export const STORE_FOLDER_MODE = 0o700;

/** Permission bits of the records the store creates (session logs, lock marks): the user's only. */
export const STORE_FILE_MODE = 0o600;

/**
 * Check that `value` can be used as one path segment of the store (a session id or a backup
 * file name): not empty, not `.` or `..`, no `/`, `\` or NUL, and not the store's temp prefix.
 * Throws `InvalidArgumentError` naming the argument and the value.
 */
export function validateName(argument: string, value: string): void {
  if (typeof value !== 'string' || value === '' || value === '.' || value === '..' || /[/\\\0]/.test(value)) {
    throw new InvalidArgumentError(
      `${argument} must be a single path segment (not empty, not "." or "..", no "/", "\\" or NUL): ${JSON.stringify(value)}`,
    );
  }
  if (value.startsWith(TEMP_PREFIX)) {
    throw new InvalidArgumentError(`${argument} must not start with the reserved prefix "${TEMP_PREFIX}": ${JSON.stringify(value)}`);
  }
}

import { InvalidArgumentError } from '@fh/core';

/** Prefix of the store's own temporary files in a session folder; never a backup name. */
export const TEMP_PREFIX = '.fh-tmp-';

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

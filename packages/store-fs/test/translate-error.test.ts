import {
  ConflictError,
  FhError,
  InvalidArgumentError,
  NotFoundError,
  PermissionError,
  UnavailableError,
  UnsupportedError,
} from '@fh/core';
import { describe, expect, it } from 'vitest';
import { translateError } from '../src/translate-error.js';

describe('error translation', () => {
  const cases: Array<[string, new (...args: never[]) => FhError]> = [
    ['ENOENT', NotFoundError],
    ['EEXIST', ConflictError],
    ['EACCES', PermissionError],
    ['EPERM', PermissionError],
    ['EROFS', PermissionError],
    ['EISDIR', InvalidArgumentError],
    ['ENOTDIR', InvalidArgumentError],
    ['ELOOP', InvalidArgumentError],
    ['ENAMETOOLONG', InvalidArgumentError],
    ['ENOTSUP', UnsupportedError],
    ['ENOSYS', UnsupportedError],
    ['EMFILE', UnavailableError],
    ['ENFILE', UnavailableError],
    ['EBUSY', UnavailableError],
    ['EAGAIN', UnavailableError],
    ['EIO', UnavailableError],
  ];
  it.each(cases)('%s becomes %o with the raw error as cause', (code, errorClass) => {
    const raw = Object.assign(new Error(`${code}: raw`), { code });
    const translated = translateError(raw, 'op "x"');
    expect(translated).toBeInstanceOf(errorClass);
    expect(translated.cause).toBe(raw);
    expect(translated.message.startsWith(`op "x": ${code} (`)).toBe(true);
  });

  it('an unknown code becomes a plain FhError; an FhError passes through', () => {
    const raw = Object.assign(new Error('disk full'), { code: 'ENOSPC' });
    const translated = translateError(raw, 'op');
    expect(translated.constructor).toBe(FhError);
    expect(translated.message).toBe('op: ENOSPC');
    const already = new ConflictError('x');
    expect(translateError(already, 'op')).toBe(already);
  });
});

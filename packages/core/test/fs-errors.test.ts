import {
  ConflictError,
  FhError,
  InvalidArgumentError,
  NotFoundError,
  PermissionError,
  UnavailableError,
  UnsupportedError,
  translateFsError,
  translateSourceError,
} from '../src/index.js';
import { describe, expect, it } from 'vitest';


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
    const translated = translateFsError(raw, 'op "x"');
    expect(translated).toBeInstanceOf(errorClass);
    expect(translated.cause).toBe(raw);
    expect(translated.message.startsWith(`op "x": ${code} (`)).toBe(true);
  });

  it('an unknown code becomes a plain FhError; an FhError passes through', () => {
    const raw = Object.assign(new Error('disk full'), { code: 'ENOSPC' });
    const translated = translateFsError(raw, 'op');
    expect(translated.constructor).toBe(FhError);
    expect(translated.message).toBe('op: ENOSPC');
    const already = new ConflictError('x');
    expect(translateFsError(already, 'op')).toBe(already);
  });

  it('reads ENOTDIR on a source file as "does not exist", and other errors as translateFsError does', () => {
    const notDirectory = Object.assign(new Error('ENOTDIR: not a directory'), { code: 'ENOTDIR' });
    const translated = translateSourceError(notDirectory, 'putBackup: source "/w/file/child"');
    expect(translated).toBeInstanceOf(NotFoundError);
    expect(translated.message).toBe('putBackup: source "/w/file/child": ENOTDIR (does not exist: a parent is not a folder)');
    expect(translated.cause).toBe(notDirectory);
    const denied = Object.assign(new Error('EACCES'), { code: 'EACCES' });
    expect(translateSourceError(denied, 'x')).toBeInstanceOf(PermissionError);
  });
});

import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backupFileName, InvalidArgumentError, normalizeProjectRoot, OutsideRootError, toAbsolutePath, toTrackingPath } from '../src/index.js';

describe('tracking paths', () => {
  it('keys a path relative to the project root with / separators', () => {
    expect(toTrackingPath('/project', '/project/src/app.ts')).toBe('src/app.ts');
    expect(toTrackingPath('/project', 'src/app.ts')).toBe('src/app.ts');
    expect(toTrackingPath('/project', './src/../src/app.ts')).toBe('src/app.ts');
    expect(toTrackingPath('/project/', 'a//b.txt')).toBe('a/b.txt');
  });

  it('resolves relative paths against the project root, never the current folder', () => {
    expect(toTrackingPath('/somewhere/else', 'file.txt')).toBe('file.txt');
    expect(toAbsolutePath('/somewhere/else', 'file.txt')).toBe('/somewhere/else/file.txt');
  });

  it('rejects paths outside the root, and the root itself, naming the path', () => {
    expect(() => toTrackingPath('/project', '../x')).toThrow(new OutsideRootError('../x is outside the project root /project'));
    expect(() => toTrackingPath('/project', '/projectile/x')).toThrow('/projectile/x is outside the project root /project');
    expect(() => toTrackingPath('/project', '/project')).toThrow(new OutsideRootError('/project is the project root itself, not a file in it'));
    expect(() => toTrackingPath('/project', '.')).toThrow(new OutsideRootError('. is the project root itself, not a file in it'));
    expect(() => toTrackingPath('/project', 'a/../../b')).toThrow(OutsideRootError);
  });

  it('rejects empty paths and paths with NUL bytes', () => {
    expect(() => toTrackingPath('/project', '')).toThrow(InvalidArgumentError);
    expect(() => toTrackingPath('/project', 'a\0b')).toThrow('path must be a non-empty string without NUL bytes, got "a\\u0000b"');
  });

  it('turns keys back into absolute paths, accepting absolute keys inside the root and refusing ones outside', () => {
    expect(toAbsolutePath('/project', 'src/app.ts')).toBe('/project/src/app.ts');
    expect(toAbsolutePath('/project', '/project/src/app.ts')).toBe('/project/src/app.ts');
    expect(() => toAbsolutePath('/project', '../escape')).toThrow('tracked path "../escape" is outside the project root /project');
    expect(() => toAbsolutePath('/project', '/etc/passwd')).toThrow(OutsideRootError);
  });

  it('resolves plain keys and keys needing normalisation to the same absolute paths', () => {
    for (const key of ['a.txt', 'deep/er/file.ts', '.hidden/x', 'a/./b', 'a/b/../c', 'a//b', 'dir/..file']) {
      expect(toAbsolutePath('/project', key)).toBe(resolve('/project', key));
      expect(toAbsolutePath('/', key)).toBe(resolve('/', key));
    }
    expect(toAbsolutePath('/project/', 'a.txt')).toBe('/project/a.txt');
  });

  it('requires an absolute project root', () => {
    expect(normalizeProjectRoot('/a/b/../c/')).toBe('/a/c');
    expect(() => normalizeProjectRoot('relative/root')).toThrow('projectRoot must be an absolute path, got "relative/root"');
  });

  it('names backups by the first 16 hex digits of the sha256 of the absolute path and the version', () => {
    const digest = createHash('sha256').update('/project/src/app.ts').digest('hex').slice(0, 16);
    expect(backupFileName('/project/src/app.ts', 3)).toBe(`${digest}@v3`);
    expect(backupFileName('/project/src/app.ts', 1)).toMatch(/^[0-9a-f]{16}@v1$/);
  });
});

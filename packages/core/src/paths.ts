/**
 * Tracking paths (seed 000 §6): a tracked file is keyed by its path relative to the project root
 * with `/` separators, so a session's state stays small and survives moving the project. Every
 * conversion resolves against the project root, never against the process's current folder.
 */
import { createHash } from 'node:crypto';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { InvalidArgumentError, OutsideRootError } from './errors.js';

/**
 * Normalise a project root: it must be an absolute path. Returns it resolved (no trailing
 * separator, no `.`/`..` segments). Throws `InvalidArgumentError` naming the value otherwise.
 */
export function normalizeProjectRoot(projectRoot: string): string {
  if (typeof projectRoot !== 'string' || projectRoot === '' || !isAbsolute(projectRoot)) {
    throw new InvalidArgumentError(`projectRoot must be an absolute path, got ${JSON.stringify(projectRoot)}`);
  }
  return resolve(projectRoot);
}

/**
 * The tracking path of `path` (absolute, or relative to `projectRoot`): relative to the root,
 * `/` separators. Throws `OutsideRootError` naming the path when it is the root itself or lies
 * outside it, and `InvalidArgumentError` for an empty path or one containing a NUL byte.
 */
export function toTrackingPath(projectRoot: string, path: string): string {
  if (typeof path !== 'string' || path === '' || path.includes('\0')) {
    throw new InvalidArgumentError(`path must be a non-empty string without NUL bytes, got ${JSON.stringify(path)}`);
  }
  const absolutePath = resolve(projectRoot, path);
  const relativePath = relative(projectRoot, absolutePath);
  if (relativePath === '') throw new OutsideRootError(`${path} is the project root itself, not a file in it`);
  if (!isInsideRelative(relativePath)) {
    throw new OutsideRootError(`${path} is outside the project root ${projectRoot}`);
  }
  return sep === '/' ? relativePath : relativePath.split(sep).join('/');
}

/**
 * The absolute path of a tracking path. Accepts the absolute keys older Claude Code sessions
 * used. Throws `OutsideRootError` naming the key when it resolves outside `projectRoot` (a key
 * like `../x` or an absolute path elsewhere), so nothing is ever read or written there.
 */
export function toAbsolutePath(projectRoot: string, trackingPath: string): string {
  if (sep === '/' && isNormalizedRelative(trackingPath) && (projectRoot === '/' || (isAbsolute(projectRoot) && !projectRoot.endsWith('/')))) {
    return projectRoot === '/' ? `/${trackingPath}` : `${projectRoot}/${trackingPath}`;
  }
  const absolutePath = resolve(projectRoot, sep === '/' ? trackingPath : trackingPath.split('/').join(sep));
  if (trackingPath === '' || trackingPath.includes('\0') || !isInsideRelative(relative(projectRoot, absolutePath))) {
    throw new OutsideRootError(`tracked path ${JSON.stringify(trackingPath)} is outside the project root ${projectRoot}`);
  }
  return absolutePath;
}

/**
 * The store name of a file's backup (seed 000 §6): the first 16 hex digits of the sha256 of the
 * absolute path, then `@v` and the version, e.g. `3f0a9c1b2d4e5f60@v2`.
 */
export function backupFileName(absolutePath: string, version: number): string {
  return `${createHash('sha256').update(absolutePath).digest('hex').slice(0, 16)}@v${version}`;
}

/**
 * True for a relative `/`-separated path with no empty, `.` or `..` segment and no NUL byte: one
 * that joined to a normalised root is already resolved (the common case, checked without the cost
 * of `path.resolve` for each of thousands of tracked files).
 */
function isNormalizedRelative(trackingPath: string): boolean {
  if (trackingPath === '' || trackingPath.startsWith('/') || trackingPath.includes('\0') || trackingPath.includes('//')) return false;
  // No segment starts with a dot and none is empty: nothing to split (the common case).
  if (!trackingPath.startsWith('.') && !trackingPath.includes('/.') && !trackingPath.endsWith('/')) return true;
  for (const segment of trackingPath.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return false;
  }
  return true;
}

function isInsideRelative(relativePath: string): boolean {
  return (
    relativePath !== '' &&
    relativePath !== '..' &&
    !relativePath.startsWith(`..${sep}`) &&
    !isAbsolute(relativePath)
  );
}

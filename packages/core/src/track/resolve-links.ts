/**
 * Which file an edit really writes (not in the seed; fh's fix for symlinks). An agent that edits
 * `link.txt`, a symlink to `src/real.txt`, changes `src/real.txt`; backing up `link.txt` by its
 * content and rewinding it would replace the link with a regular file and leave `src/real.txt` as
 * the agent left it. So `trackEdit` tracks the file at the end of the links when it lies inside
 * the project: the link stays a link, and its target is what gets backed up and rewound.
 */
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { errnoCode } from '../errors.js';
import type { FileHistoryContext } from '../file-history-context.js';
import { toAbsolutePath } from '../paths.js';

/** A path fh tracks: its tracking key and its absolute path under the project root. */
export interface TrackedPath {
  trackingPath: string;
  absolutePath: string;
}

/** The project root's real path, per context (a root may itself be a symlink: the user's choice). */
const realRoots = new WeakMap<FileHistoryContext, Promise<string | undefined>>();

/**
 * `path` (a tracking path and its absolute path) with symlinks resolved: the file the links lead
 * to, when that file (or, for a file not created yet, its folder) lies inside the project's real
 * root; otherwise `path` unchanged (a link leading outside the project is backed up by content, and
 * a rewind replaces it with a regular file, writing nothing outside). Uses the workspace file
 * system's `realpathSync` when it has one (a few µs), else `realpath`. Never throws for a missing
 * path; throws the file system's other errors (`EACCES`, `ELOOP`, ...).
 */
export async function resolveLinks(context: FileHistoryContext, path: TrackedPath): Promise<TrackedPath> {
  const found = realPathOf(context, path.absolutePath);
  const real = found instanceof Promise ? await found : found;
  if (real === undefined || real === path.absolutePath) return path;
  const trackingPath = await trackingPathInRealRoot(context, real);
  if (trackingPath === undefined || trackingPath === path.trackingPath) return path;
  return { trackingPath, absolutePath: toAbsolutePath(context.projectRoot, trackingPath) };
}

/**
 * The tracking path of the file `absolutePath` really is: its real path (symlinks resolved)
 * relative to the project's real root. Undefined when that lies outside the real root or nothing
 * of the path exists. This also maps a path given through the root's real location (the root
 * opened as `/tmp/link`, the path given as `/tmp/real/a.txt`) into the project.
 */
export async function realTrackingPath(context: FileHistoryContext, absolutePath: string): Promise<string | undefined> {
  const real = await realPathOf(context, absolutePath);
  return real === undefined ? undefined : trackingPathInRealRoot(context, real);
}

/** `real` (a real path) relative to the project's real root, `/` separated; undefined outside it. */
async function trackingPathInRealRoot(context: FileHistoryContext, real: string): Promise<string | undefined> {
  let root = realRoots.get(context);
  if (root === undefined) {
    root = Promise.resolve(realPathOf(context, context.projectRoot));
    realRoots.set(context, root);
  }
  const realRoot = await root;
  if (realRoot === undefined) return undefined;
  const rest = relative(realRoot, real);
  if (rest === '' || rest === '..' || rest.startsWith(`..${sep}`) || isAbsolute(rest)) return undefined;
  return sep === '/' ? rest : rest.split(sep).join('/');
}

/**
 * The real path of `absolutePath`; for a path that does not exist, the real path of its nearest
 * existing folder with the missing names appended. Undefined when nothing of it exists. Without
 * a promise when the file system has `realpathSync` (this runs before every backup).
 */
function realPathOf(context: FileHistoryContext, absolutePath: string): string | undefined | Promise<string | undefined> {
  const realpathSync = context.fs.realpathSync;
  if (realpathSync !== undefined) return realPathOrNearest(absolutePath, (path) => realpathSync.call(context.fs, path));
  return walkUpAsync(absolutePath, (path) => context.fs.realpath(path));
}

/**
 * The real path of `absolutePath` by the sync `realpath` given; for a path that does not exist, the
 * real path of its nearest existing folder with the missing names appended. Undefined when nothing
 * of it exists; `realpath`'s other errors (`EACCES`, `ELOOP`) are thrown.
 */
export function realPathOrNearest(absolutePath: string, realpath: (path: string) => string): string | undefined {
  const missing: string[] = [];
  for (let current = absolutePath; ; current = dirname(current)) {
    try {
      const real = realpath(current);
      return missing.length === 0 ? real : join(real, ...missing);
    } catch (error) {
      if (!isMissing(error) || dirname(current) === current) return rethrowUnlessMissing(error);
      missing.unshift(basename(current));
    }
  }
}

async function walkUpAsync(absolutePath: string, realpath: (path: string) => Promise<string>): Promise<string | undefined> {
  const missing: string[] = [];
  for (let current = absolutePath; ; current = dirname(current)) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : join(real, ...missing);
    } catch (error) {
      if (!isMissing(error) || dirname(current) === current) return rethrowUnlessMissing(error);
      missing.unshift(basename(current));
    }
  }
}

function isMissing(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Undefined for a missing path (nothing of it exists); any other error is thrown. */
function rethrowUnlessMissing(error: unknown): undefined {
  if (isMissing(error)) return undefined;
  throw error;
}

/**
 * Metadata reads over many workspace files (change detection in `makeSnapshot`, rewind planning,
 * diff stats): `statSync` / `lstatSync` when the workspace file system offers them, else `stat` /
 * `lstat`. On a local disk a sync `stat` is one system call of a few microseconds, while the async
 * one pays a thread-pool round trip of 40–60 µs and, on a machine with few cores, competes with
 * that pool for CPU; scanning 1,000 tracked files takes about half the time this way.
 *
 * Two guards keep the event loop responsive:
 * - after {@link SYNC_SLICE_MS} of back-to-back sync calls the reader yields once (`setImmediate`),
 *   so timers and I/O callbacks run between slices;
 * - a sync call slower than {@link SLOW_SYNC_CALL_MS} (a cold cache, a network file system) counts
 *   as slow, and once {@link SLOW_SYNC_CALLS_ALLOWED} calls were slow and they are at least
 *   1 in {@link SLOW_SYNC_CALL_SHARE} of the calls made, the reader uses the async calls for the
 *   rest of its operation, where many requests can wait on the disk at once. The share keeps a
 *   busy machine's odd preempted call (a few in a scan of 100,000 files) from switching a scan of a
 *   warm local disk to the async calls, which cost ten times as much there.
 */
import type { FsStats, WorkspaceFs } from './store.js';

/** Longest run of back-to-back sync calls before yielding to the event loop, in ms. */
export const SYNC_SLICE_MS = 4;

/** A sync call taking longer than this (ms) counts as slow. */
export const SLOW_SYNC_CALL_MS = 1;

/** Slow sync calls after which a reader switches to the async calls. */
export const SLOW_SYNC_CALLS_ALLOWED = 3;

/** Slow sync calls switch a reader to the async calls only when at least 1 in this many calls was slow. */
export const SLOW_SYNC_CALL_SHARE = 50;

/** `stat` and `lstat` of workspace paths for one operation; errors are the file system's (`ENOENT`, ...). */
export interface MetadataReader {
  stat(path: string): Promise<FsStats>;
  lstat(path: string): Promise<FsStats>;
  /**
   * `stat` now, synchronously, for a caller that scans many files without a promise per file
   * (`makeSnapshot`'s first pass); undefined when this reader is not (or no longer) using sync
   * calls, and the caller then uses {@link MetadataReader.stat}. Throws the file system's errors.
   * The caller awaits {@link MetadataReader.pause} between calls and does nothing else
   * asynchronous between them: a call is timed from the end of the one before (or of the pause).
   */
  statNow(path: string): FsStats | undefined;
  /**
   * A promise to await before the next {@link MetadataReader.statNow} when the current slice of
   * back-to-back sync calls is over ({@link SYNC_SLICE_MS}), so the event loop runs; else undefined.
   */
  pause(): Promise<void> | undefined;
  /**
   * `lstat` now, synchronously, timed on its own (so it may be called from anywhere, between
   * awaits or not); undefined when this reader is not (or no longer) using sync calls. Throws the
   * file system's errors.
   */
  lstatNow(path: string): FsStats | undefined;
  /**
   * {@link MetadataReader.statNow} for `lstat`: timed from the end of the call before, one clock
   * read per call, for a scan's back-to-back calls (rewind planning's first pass), with the same
   * contract (await {@link MetadataReader.pause} between calls, nothing else asynchronous between
   * them). Undefined when this reader is not (or no longer) using sync calls. Throws the file
   * system's errors.
   */
  lstatInScan(path: string): FsStats | undefined;
}

/**
 * Milliseconds on a monotonic clock, from `process.hrtime` (the `performance` global would load
 * Node's perf_hooks modules on first use, about 1.5 ms of a one-shot `fh hook` prompt).
 */
function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1e3 + nanoseconds / 1e6;
}

/**
 * A reader over `fs` for one operation (see the top of this file for when it calls sync). `now`
 * is the clock slices and slow calls are timed with, in ms (monotonic; tests pass their own).
 */
export function createMetadataReader(fs: WorkspaceFs, now: () => number = monotonicMs): MetadataReader {
  const statSync = fs.statSync;
  const lstatSync = fs.lstatSync;
  if (typeof statSync !== 'function' || typeof lstatSync !== 'function') {
    return { stat: (path) => fs.stat(path), lstat: (path) => fs.lstat(path), statNow: () => undefined, pause: () => undefined, lstatNow: () => undefined, lstatInScan: () => undefined };
  }
  let calls = 0;
  let slowCalls = 0;
  let async = false;
  let sliceStarted = now();
  /** When the latest sync call (or pause) ended: a scan's next call starts about then. */
  let lastEnded = sliceStarted;
  const pause = (): Promise<void> | undefined => {
    if (lastEnded - sliceStarted <= SYNC_SLICE_MS) return undefined;
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      sliceStarted = lastEnded = now();
    });
  };
  // `started`: a scan's back-to-back calls (`statNow`) count from the end of the call before,
  // one clock read per call; the time between (the scan's own work per file) is microseconds.
  const syncCall = (call: (path: string) => FsStats, path: string, started: number): FsStats => {
    calls += 1;
    try {
      return call.call(fs, path);
    } finally {
      lastEnded = now();
      if (lastEnded - started > SLOW_SYNC_CALL_MS) {
        slowCalls += 1;
        if (slowCalls >= SLOW_SYNC_CALLS_ALLOWED && slowCalls * SLOW_SYNC_CALL_SHARE >= calls) async = true;
      }
    }
  };
  const timed = async (call: (path: string) => FsStats, path: string, fallback: (path: string) => Promise<FsStats>): Promise<FsStats> => {
    if (async) return fallback(path);
    await pause();
    if (async) return fallback(path);
    return syncCall(call, path, now());
  };
  return {
    stat: (path) => timed(statSync, path, (target) => fs.stat(target)),
    lstat: (path) => timed(lstatSync, path, (target) => fs.lstat(target)),
    statNow: (path) => (async ? undefined : syncCall(statSync, path, lastEnded)),
    pause,
    lstatNow: (path) => (async ? undefined : syncCall(lstatSync, path, now())),
    lstatInScan: (path) => (async ? undefined : syncCall(lstatSync, path, lastEnded)),
  };
}

/**
 * Progress of the long operations (issue 15): a rewind, undo or redo of thousands of files, a
 * dry run's diff stats, a shell command's capture. The core reports, a front end renders: `fh` draws a bar on a terminal,
 * a harness may show its own (`RewindSessionOptions.onProgress`).
 */

/**
 * What an operation is doing when it reports:
 * - `checking`: comparing the files as they are now with what the operation will write (a
 *   rewind's plan, an undo's "already as it was" check, a dry run's plan);
 * - `counting`: counting the changed lines of the files a dry run found changed;
 * - `saving`: saving the files about to be overwritten into the undo point (pre-images);
 * - `writing`: writing files into the project (restores and deletions);
 * - `backing-up`: a command window's copies into the store (issue 12): `beginCommand` backing up
 *   the files a shell command may change, `endCommand` the blobs of files clean in git that it
 *   changed (files and bytes).
 *
 * `endCommand` also reports `checking` while it compares each file with the window's begin.
 */
export type ProgressPhase = 'checking' | 'counting' | 'saving' | 'writing' | 'backing-up';

/** One report: the phase and how far it is, in files and bytes. */
export interface ProgressEvent {
  phase: ProgressPhase;
  /** Files of this phase done (each file once, whether it succeeded or failed). */
  files: number;
  /** Files this phase will handle. */
  totalFiles: number;
  /** Bytes of this phase done (`counting`: the bytes of both sides read); 0 when the phase does not count bytes (`checking`). */
  bytes: number;
  /** Bytes this phase will handle, when known before it starts; else 0. */
  totalBytes: number;
}

/**
 * Receives {@link ProgressEvent}s: first `(0, total)` when a phase starts, then after each file.
 * Called synchronously from the operation: it must be cheap and must not throw (an exception is
 * caught and ignored, so a broken bar never fails a rewind).
 */
export type ProgressCallback = (event: ProgressEvent) => void;

/** Counts one phase's files and bytes and reports each step to a {@link ProgressCallback}. */
export interface PhaseProgress {
  /** One more file done, of `bytes` bytes (default 0). */
  file(bytes?: number): void;
}

/**
 * Start reporting `phase` to `callback` (nothing when `callback` is undefined or `totalFiles` is
 * 0): reports `(0, totalFiles)` at once, then one event per {@link PhaseProgress.file}.
 */
export function startPhase(callback: ProgressCallback | undefined, phase: ProgressPhase, totalFiles: number, totalBytes = 0): PhaseProgress {
  if (callback === undefined || totalFiles === 0) return { file() {} };
  let files = 0;
  let bytes = 0;
  const report = () => {
    try {
      callback({ phase, files, totalFiles, bytes, totalBytes });
    } catch {
      // A front end's bar must never fail the operation.
    }
  };
  report();
  return {
    file(size = 0) {
      files += 1;
      bytes += size;
      report();
    },
  };
}

/**
 * Longest stretch, in ms, that work made of synchronous steps (backups read with
 * `readBackupSync`, stats) runs before it lets the event loop turn, so timers, input and a
 * progress bar go on while it works (a menu's loading of many dry runs stays drawn and answers Esc).
 */
export const YIELD_EVERY_MS = 25;

/** When {@link yieldToEventLoop} last let the event loop turn (`performance.now()`). */
let lastTurn = 0;

/**
 * Await between the steps of such work: resolves at once, unless {@link YIELD_EVERY_MS} have
 * passed since this last let the event loop turn (in this process, for any caller, so a run of
 * short calls yields too); then after one turn (`setImmediate`).
 */
export async function yieldToEventLoop(): Promise<void> {
  if (performance.now() - lastTurn < YIELD_EVERY_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  lastTurn = performance.now();
}

/**
 * Drawing the core's progress events (`ProgressCallback`, `@fh/core` progress.ts) as one bar per
 * phase on stderr: `rewind: writing files [████░░] 1200/5000 files · 1.2 GiB of 2.6 GiB`. Only on
 * a terminal and never with `--json` (see `Output.progress`); the first bar waits the output's
 * delay (about a second), a later phase's bar appears at once once that delay has passed.
 */
import type { ProgressCallback, ProgressPhase } from '@fh/core';
import type { Output, Progress } from './output.js';

/** What each phase does, as the bar says it. */
const PHASE_LABELS: Readonly<Record<ProgressPhase, string>> = {
  checking: 'checking files',
  counting: 'counting changed lines',
  saving: 'saving the undo point',
  writing: 'writing files',
  'backing-up': 'backing up files',
};

/** The phases that count bytes as well as files. */
const BYTE_PHASES: ReadonlySet<ProgressPhase> = new Set(['counting', 'saving', 'writing', 'backing-up']);

/**
 * A progress callback for the core that draws `operation: <phase>` bars through `output` (see
 * the module comment); `labels` overrides what a phase is called (`fh run`: "backing up files
 * before the command"). A bar is removed when its phase ends, when another phase starts, or when
 * the output prints anything.
 */
export function progressBars(output: Output, operation: string, labels: Partial<Record<ProgressPhase, string>> = {}): ProgressCallback {
  const started = Date.now();
  let phase: ProgressPhase | undefined;
  let bar: Progress | undefined;
  return (event) => {
    if (bar === undefined || event.phase !== phase || event.files === 0) {
      bar?.stop();
      phase = event.phase;
      const waited = Date.now() - started;
      bar = output.progress(`${operation}: ${labels[event.phase] ?? PHASE_LABELS[event.phase]}`, event.totalFiles, {
        unit: 'files',
        showBytes: BYTE_PHASES.has(event.phase),
        delayMs: Math.max(0, output.progressDelayMs - waited),
      });
    }
    bar.update(event.files, event.totalFiles, event.bytes, event.totalBytes);
    if (event.files >= event.totalFiles) {
      bar.stop();
      bar = undefined;
    }
  };
}

/** The menu's loading bar (see {@link menuLoadingBar}). */
export interface MenuLoadingBar {
  /** Call before each prompt's dry run: its first `checking` phase counts, a second one (the comparison with the latest snapshot) does not. */
  beginPreview(): void;
  /** The progress callback the dry runs report to. */
  onProgress: ProgressCallback;
  /** Remove the bar. */
  stop(): void;
}

/**
 * The bar shown while the rewind menu runs the dry run of every prompt: `menu: comparing the files
 * of each prompt [███░] 1200/6100 files · 3.1 MiB`, where `totalFiles` is the sum of the files each
 * prompt's dry run checks and the bytes are those its line counts read.
 */
export function menuLoadingBar(output: Output, totalFiles: number): MenuLoadingBar {
  const bar = output.progress('menu: comparing the files of each prompt', totalFiles, { unit: 'files', showBytes: true });
  let files = 0;
  let bytes = 0;
  let checkedThisPreview = false;
  let countsFiles = false;
  let last = { files: 0, bytes: 0 };
  return {
    beginPreview() {
      checkedThisPreview = false;
    },
    onProgress(event) {
      if (event.files === 0) {
        last = { files: 0, bytes: 0 };
        if (event.phase === 'checking') {
          countsFiles = !checkedThisPreview;
          checkedThisPreview = true;
        }
      }
      if (event.phase === 'checking' && countsFiles) files += event.files - last.files;
      if (event.phase === 'counting') bytes += event.bytes - last.bytes;
      last = { files: event.files, bytes: event.bytes };
      bar.update(files, undefined, bytes);
    },
    stop() {
      bar.stop();
    },
  };
}

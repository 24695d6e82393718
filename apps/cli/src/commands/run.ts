/**
 * `fh run -- <command…>`: run any command inside a command window, for agents without hooks:
 * `beginCommand` before it, `endCommand` after it (see `command-window.ts`), so what it changes
 * is attached to the session's latest checkpoint and a rewind puts it back. The session's lock
 * is not held while the command runs. The command's own stdin, stdout and stderr are passed
 * through; fh's report goes to stderr (with `--json`, one document on stdout after the command's
 * own output). The exit code is the command's (128 + signal number when a signal ended it, 127
 * when it could not be started). Ctrl-C (SIGINT) while the command runs is passed on to it; fh then
 * still ends the window (capturing what the command changed) and exits 130. On a terminal (never
 * with `--json`) a bar counts the files and bytes backed up before the command and those checked
 * and backed up after it.
 *
 * JSON: `{ "sessionId", "projectRoot", "windowId", "messageId", "exitCode", "captured": [{ "path",
 * "change", "source" }], "notCaptured": [{ "path", "change", "reason" }], "ignored": { "count",
 * "paths" } }`. While FH_DISABLE_FILE_CHECKPOINTING is set the command runs uncaptured (a note
 * says so).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { checkpointingDisabled } from '../checkpointing.js';
import { assertWritable } from '../claude-guard.js';
import { SCAN_LIMIT_CODE } from '@fh/core';
import { ExitCode, HintedError, UsageError } from '../cli-errors.js';
import { commandWindowMaxMs, describeCapture, describeMissed, describeWindow, endStaleWindows, openCommandTools, type CommandTools } from '../command-window.js';
import type { CommandContext } from '../context.js';
import { openSession } from '../open-session.js';
import { progressBars } from '../progress-bar.js';

/** Run `fh run`. Returns the command's exit code. */
export async function run(context: CommandContext, argv: string[]): Promise<number> {
  if (argv.length === 0) throw new UsageError('fh run needs a command: fh run -- <command> [arguments…]');
  assertWritable(context, 'run');
  if (checkpointingDisabled(context.environment)) {
    context.output.note('fh: file checkpointing is disabled (FH_DISABLE_FILE_CHECKPOINTING): running the command without capturing it');
    return runCommand(argv, context.cwd);
  }
  const first = await openSession(context, { mustExist: false });
  const { sessionId, projectRoot } = first;
  let windowId: string;
  const tools = await openCommandTools(context.storeLocation, context.environment, context.home, sessionId);
  try {
    if (first.history.state.snapshots.length === 0) {
      throw new Error(`session ${sessionId} has no checkpoint yet: run fh snapshot <messageId> first (the command was not run)`);
    }
    for (const capture of await endStaleWindows(first.history, tools, commandWindowMaxMs(context.environment))) for (const line of describeMissed(capture)) context.output.warn(line);
    const onProgress = progressBars(context.output, 'run', { 'backing-up': 'backing up files before the command' });
    const window = await first.history.beginCommand({ probe: tools.probe, journal: tools.journal, command: argv.join(' '), onProgress }).catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== SCAN_LIMIT_CODE) throw error;
      throw new HintedError(error, 'The command was not run. Raise the limits with FH_COMMAND_SCAN_MAX_ENTRIES (files and folders) or FH_COMMAND_SCAN_MAX_MS, or run the command without fh run (uncaptured).');
    });
    windowId = window.windowId;
    if (!context.output.json) context.output.note(`fh: ${describeWindow(window)}`);
  } finally {
    await first.close();
  }
  // Ctrl-C reaches the command (as its own SIGINT on a terminal, or passed on here); fh stays to
  // end the window, so what the command changed before it stopped is captured.
  let interrupted = false;
  let child: ChildProcess | undefined;
  const onInterrupt = (): void => {
    if (!interrupted) context.output.note('fh: interrupted: stopping the command, then capturing what it changed');
    interrupted = true;
    child?.kill('SIGINT');
  };
  process.on('SIGINT', onInterrupt);
  try {
    const exitCode = await runCommand(argv, context.cwd, (started) => (child = started));
    const code = await endWindow(context, { sessionId, projectRoot }, windowId, tools, exitCode);
    return interrupted ? ExitCode.interrupted : code;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/** End window `windowId` after the command and report what it captured; returns `exitCode`. */
async function endWindow(context: CommandContext, pinned: { sessionId: string; projectRoot: string }, windowId: string, tools: CommandTools, exitCode: number): Promise<number> {
  const { sessionId, projectRoot } = pinned;
  const second = await openSession(context, { pinned });
  try {
    const onProgress = progressBars(context.output, 'run', { checking: 'checking what the command changed', 'backing-up': 'backing up the changed files' });
    const capture = await second.history.endCommand(windowId, { probe: tools.probe, journal: tools.journal, onProgress });
    if (context.output.json) {
      context.output.writeDocument({ sessionId, projectRoot, windowId, messageId: capture.messageId ?? null, exitCode, captured: capture.captured, notCaptured: capture.notCaptured, ignored: capture.ignored });
    } else {
      context.output.note(`fh: ${describeCapture(capture)}`);
      for (const line of describeMissed(capture)) context.output.warn(line);
    }
  } finally {
    await second.close();
  }
  return exitCode;
}

/** Run `argv` with inherited stdio in `cwd`; resolves with its exit code (see the module comment). */
function runCommand(argv: readonly string[], cwd: string, onStart: (child: ChildProcess) => void = () => undefined): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(argv[0] as string, argv.slice(1), { cwd, stdio: 'inherit' });
    onStart(child);
    child.on('error', (error) => {
      process.stderr.write(`fh: could not run ${argv[0]}: ${error.message}\n`);
      resolve(127);
    });
    child.on('close', (code, signal) => {
      if (signal !== null) resolve(128 + (constants.signals[signal] ?? 0));
      else resolve(code ?? 1);
    });
  });
}

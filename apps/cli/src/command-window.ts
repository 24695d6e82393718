/**
 * Shell commands in command windows, for `fh hook` (PreToolUse/PostToolUse of `Bash`) and
 * `fh run`: where a session's windows live, which window an event names, and the one-line
 * reports. The capture itself is `history.beginCommand` / `endCommand` in `@fh/core`, over
 * `@fh/command-probe`'s `NodeCommandProbe` (the real git, or a walk) and `FsCommandJournal`.
 *
 * Windows and the pre-image cache live in `{fs store folder}/commands/{sessionId}/` (for an S3
 * store: `$FH_HOME/commands/{sessionId}/`, else `~/.fh/commands/...`: the saved git index must be
 * on this machine anyway).
 *
 * A listing of the project stops past `FH_COMMAND_SCAN_MAX_ENTRIES` files and folders (default
 * 1,000,000) or `FH_COMMAND_SCAN_MAX_MS` ms (default 10,000) per begin or end: the command is
 * then not captured, and fh says so.
 *
 * fh's own files are never captured: the store's folder (an fs store's root, which README allows
 * inside the project with a relative `--store`; for an S3 store the local `commands/` folder) is
 * given to the probe as `exclude`, so no window backs up, reports or rewinds anything in it.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { realPathOrNearest, type CommandCapture, type CommandJournal, type CommandProbe, type CommandWindow, type FileHistory } from '@fh/core';
import type { StoreLocation } from './store-uri.js';

export { COMMAND_TOOL } from './hook-tools.js';

/**
 * How long a window may stay open before any later event of the session ends it, in ms, unless
 * `FH_COMMAND_WINDOW_MAX_MS` says otherwise: 11 minutes, past the longest timeout Claude Code's
 * Bash tool allows (10 minutes). Every prompt ends all open windows.
 */
export const DEFAULT_COMMAND_WINDOW_MAX_MS = 11 * 60 * 1000;

/** The probe and journal of one session's command windows. */
export interface CommandTools {
  probe: CommandProbe;
  journal: CommandJournal;
  /** The folder they keep their files in. */
  folder: string;
}

/** The folder of `sessionId`'s windows (see the module comment). */
export function commandFolder(location: StoreLocation, environment: NodeJS.ProcessEnv, home: string, sessionId: string): string {
  if (location.kind === 'fs') return join(location.folder, 'commands', sessionId);
  const fhHome = environment.FH_HOME !== undefined && environment.FH_HOME !== '' ? environment.FH_HOME : join(home, '.fh');
  return join(fhHome, 'commands', sessionId);
}

/**
 * The local folder fh keeps its own files in for `location`: an fs store's root, or for an S3
 * store the folder of its command windows (`$FH_HOME/commands`, else `~/.fh/commands`). The
 * command window never captures inside it, and `fh track` / the hook's edit tracking refuse paths in it.
 */
export function ownFolder(location: StoreLocation, environment: NodeJS.ProcessEnv, home: string): string {
  if (location.kind === 'fs') return location.folder;
  const fhHome = environment.FH_HOME !== undefined && environment.FH_HOME !== '' ? environment.FH_HOME : join(home, '.fh');
  return join(fhHome, 'commands');
}

/** Whether the absolute `path` is `folder` or lies under it (as written; no symlinks resolved). */
export function isInsideFolder(folder: string, path: string): boolean {
  const rest = relative(folder, path);
  return rest === '' || (rest !== '..' && !rest.startsWith(`..${sep}`) && !isAbsolute(rest));
}

/** Whether `absolutePath` is in `storeFolder`, as written or with symlinks resolved (as trackEdit resolves them). */
export function insideStore(storeFolder: string, absolutePath: string): boolean {
  if (isInsideFolder(storeFolder, absolutePath)) return true;
  try {
    const real = realPathOrNearest(absolutePath, (path) => realpathSync.native(path));
    const realStore = realPathOrNearest(storeFolder, (path) => realpathSync.native(path));
    return real !== undefined && realStore !== undefined && isInsideFolder(realStore, real);
  } catch {
    return false;
  }
}

/**
 * Open the probe and journal for `sessionId` (imports `@fh/command-probe` on first use).
 * `deadline` (epoch ms, `fh hook`'s budget): a listing may take no longer than the time left
 * before it (less {@link DEADLINE_MARGIN_MS}), so a scan that blocks the event loop stops in time
 * for the hook to say what was not captured and exit.
 */
export async function openCommandTools(location: StoreLocation, environment: NodeJS.ProcessEnv, home: string, sessionId: string, deadline?: number): Promise<CommandTools> {
  const { NodeCommandProbe, FsCommandJournal, DEFAULT_MAX_SCAN_MS } = await import('@fh/command-probe');
  const folder = commandFolder(location, environment, home, sessionId);
  const maxScanEntries = positiveNumber(environment.FH_COMMAND_SCAN_MAX_ENTRIES);
  const configuredScanMs = positiveNumber(environment.FH_COMMAND_SCAN_MAX_MS);
  const maxScanMs =
    deadline === undefined ? configuredScanMs : Math.max(1, Math.min(configuredScanMs ?? DEFAULT_MAX_SCAN_MS, deadline - DEADLINE_MARGIN_MS - Date.now()));
  const probe = new NodeCommandProbe({ stateDir: folder, exclude: [ownFolder(location, environment, home)], ...(maxScanEntries === undefined ? {} : { maxScanEntries }), ...(maxScanMs === undefined ? {} : { maxScanMs }) });
  return { probe, journal: new FsCommandJournal(folder), folder };
}

/** Time kept back from a hook's deadline for what follows a stopped scan (the message, the records), in ms. */
export const DEADLINE_MARGIN_MS = 250;

/** A variable's value when it is a number > 0, else undefined (the probe's default). */
function positiveNumber(value: string | undefined): number | undefined {
  const number = Number(value);
  return value !== undefined && value !== '' && Number.isFinite(number) && number > 0 ? number : undefined;
}

/**
 * The window id for an event's `tool_use_id`: the id itself when it is a plain segment (Claude
 * Code's `toolu_…`), else a sha256 of it, so any id names one file and no two ids share one.
 */
export function windowIdFor(toolUseId: string): string {
  if (/^[A-Za-z0-9_-]{1,120}$/.test(toolUseId)) return toolUseId;
  return `h-${createHash('sha256').update(toolUseId).digest('hex').slice(0, 40)}`;
}

/** `FH_COMMAND_WINDOW_MAX_MS` when it is a positive number, else the default. */
export function commandWindowMaxMs(environment: NodeJS.ProcessEnv): number {
  const value = Number(environment.FH_COMMAND_WINDOW_MAX_MS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_COMMAND_WINDOW_MAX_MS;
}

/**
 * End the session's windows begun more than `maxAgeMs` ago (all of them when `maxAgeMs` is 0):
 * commands whose PostToolUse never came. Returns their captures.
 */
export async function endStaleWindows(history: FileHistory, tools: CommandTools, maxAgeMs: number): Promise<CommandCapture[]> {
  const startedBefore = maxAgeMs === 0 ? undefined : new Date(Date.now() - maxAgeMs);
  return history.endOpenCommands({ probe: tools.probe, journal: tools.journal, ...(startedBefore === undefined ? {} : { startedBefore }) });
}

/** Human lines about what a window could not capture (empty when everything was captured). */
export function describeMissed(capture: CommandCapture): string[] {
  const lines: string[] = [];
  if (capture.scanLimit !== undefined) lines.push(capture.scanLimit);
  for (const entry of capture.notCaptured) lines.push(`${entry.path} (${entry.change}) not captured: ${entry.reason}`);
  if (capture.ignored.count > 0) {
    const more = capture.ignored.count - capture.ignored.paths.length;
    lines.push(`${capture.ignored.count} ignored path(s) changed, not captured: ${capture.ignored.paths.join(', ')}${more > 0 ? ` and ${more} more` : ''}`);
  }
  return lines;
}

/** One line summing a window up: what was captured, to which checkpoint. */
export function describeCapture(capture: CommandCapture): string {
  if (capture.coveredBy !== undefined) return `command ${capture.windowId}: covered by the earlier command ${capture.coveredBy}, still running`;
  const counts = new Map<string, number>();
  for (const entry of capture.captured) counts.set(entry.change, (counts.get(entry.change) ?? 0) + 1);
  const parts = [...counts].map(([change, count]) => `${count} ${change}`);
  const what = capture.captured.length === 0 ? 'changed no file fh can capture' : `captured ${capture.captured.length} file(s) (${parts.join(', ')})`;
  return `command ${capture.windowId}: ${what}${capture.messageId === undefined ? '' : ` into checkpoint ${capture.messageId}`}`;
}

/** One line about a begun window. */
export function describeWindow(window: CommandWindow): string {
  const kept = window.copied === 0 ? '' : `, backed up ${window.copied} dirty or untracked file(s) (${window.copiedBytes} bytes)`;
  return `command ${window.windowId}: window open (${window.kind})${kept}`;
}

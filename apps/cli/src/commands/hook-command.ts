/**
 * `fh hook`'s Bash events (issue 12): `PreToolUse` of Bash begins a command window keyed by the
 * event's `tool_use_id`, `PostToolUse` of Bash ends it, attaching what the command changed to the
 * turn's checkpoint (see `command-window.ts`). Parallel commands have their own ids, so their
 * windows never mix. An event without `tool_use_id` uses one shared window id. A command run in
 * the background (`tool_input.run_in_background`) keeps its window open past its PostToolUse,
 * until the next prompt.
 *
 * The files a command changed record the agent that ran it (the event's `agent_id` / `agent_type`,
 * else the main agent) in their entries' `changedBy` (issue 14).
 *
 * Reports go to stderr only (stdout stays empty): files fh could not capture and ignored paths
 * the command touched, one line each; nothing when everything was captured.
 */
import { randomUUID } from 'node:crypto';
import { agentFromIds, type CommandCapture, type FileHistory } from '@fh/core';
import { COMMAND_TOOL, commandWindowMaxMs, describeMissed, endStaleWindows, openCommandTools, windowIdFor } from '../command-window.js';
import type { StoreLocation } from '../store-uri.js';
import type { HookEvent } from './hook.js';

/** A Bash event: which half of the window, and its id. */
export interface CommandPhase {
  phase: 'begin' | 'end';
  windowId: string;
}

/** Window id for events that carry no `tool_use_id`. */
const SHARED_WINDOW_ID = 'no-tool-use-id';

/** The Bash half this event is, or undefined for any other event. */
export function commandPhase(event: HookEvent): CommandPhase | undefined {
  if (event.tool_name !== COMMAND_TOOL) return undefined;
  const phase = event.hook_event_name === 'PreToolUse' ? 'begin' : event.hook_event_name === 'PostToolUse' ? 'end' : undefined;
  if (phase === undefined) return undefined;
  const id = typeof event.tool_use_id === 'string' && event.tool_use_id !== '' ? event.tool_use_id : SHARED_WINDOW_ID;
  return { phase, windowId: windowIdFor(id) };
}

/** Where the session's windows live. */
export interface CommandEventContext {
  location: StoreLocation;
  environment: NodeJS.ProcessEnv;
  home: string;
  sessionId: string;
  /** When the hook gives up (epoch ms), which bounds each listing (see `openCommandTools`). */
  deadline?: number;
}

/**
 * Begin or end the event's window on the open `history`; first end windows older than
 * `FH_COMMAND_WINDOW_MAX_MS` (their PostToolUse never came). A PostToolUse whose window is not
 * open (hooks installed mid-command, or already ended) does nothing.
 */
export async function handleCommandEvent(history: FileHistory, command: CommandPhase, event: HookEvent, context: CommandEventContext): Promise<void> {
  const tools = await openCommandTools(context.location, context.environment, context.home, context.sessionId, context.deadline);
  const maxAgeMs = commandWindowMaxMs(context.environment);
  if (command.phase === 'begin') {
    reportCaptures(await endStaleWindows(history, tools, maxAgeMs));
    // No snapshot yet (hooks installed mid-session): a session-start checkpoint to attach to.
    if (history.state.snapshots.length === 0) await history.makeSnapshot(randomUUID());
    const input = typeof event.tool_input === 'object' && event.tool_input !== null ? (event.tool_input as Record<string, unknown>) : {};
    await history.beginCommand({ probe: tools.probe, journal: tools.journal, windowId: command.windowId, ...(typeof input.command === 'string' ? { command: input.command } : {}) });
    return;
  }
  // A command run in the background goes on after its PostToolUse: its window stays open until
  // the next prompt (or FH_COMMAND_WINDOW_MAX_MS), so what it changes meanwhile is captured too.
  if (isBackground(event)) return;
  if ((await tools.journal.loadWindow(command.windowId)) !== undefined) {
    // The files the command changed are attributed to the agent that ran it (issue 14).
    const agent = agentFromIds(event.agent_id, event.agent_type);
    reportCaptures([await history.endCommand(command.windowId, { probe: tools.probe, journal: tools.journal, agent })]);
  }
  reportCaptures(await endStaleWindows(history, tools, maxAgeMs));
}

/** True for a Bash event whose command runs in the background (`tool_input.run_in_background`). */
function isBackground(event: HookEvent): boolean {
  const input = typeof event.tool_input === 'object' && event.tool_input !== null ? (event.tool_input as Record<string, unknown>) : {};
  return input.run_in_background === true;
}

/** Write what the captures missed to stderr, one line each. */
export function reportCaptures(captures: readonly CommandCapture[]): void {
  for (const capture of captures) {
    for (const line of describeMissed(capture)) process.stderr.write(`fh hook: command ${capture.windowId}: ${line}\n`);
  }
}

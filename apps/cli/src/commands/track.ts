/**
 * `fh track <path…> [--agent <id> [--agent-type <type>]]`: back files up before an agent edits
 * them (`trackEdit`). Paths are relative to the current folder or absolute, and must lie inside
 * the project. `--agent` names the sub-agent that is about to edit them (issue 14: a harness
 * driving fh from its own hooks attributes sub-agent edits as `fh hook` does from Claude Code's
 * `agent_id` / `agent_type`): the backups go into the main turn's checkpoint as always, and each
 * file's entry records the sub-agent (`history.forSubagent`). `--agent main` (or no `--agent`) is
 * the main agent.
 *
 * A symbolic link inside the project is not backed up itself: trackEdit backs up the file it leads
 * to (when that is inside the project), which is what `tracked` names, with the link in `links`.
 *
 * JSON: `{ "sessionId", "projectRoot", "tracked": [trackingPath…], "links": [{ "path", "target" }],
 * "failed": [{ "path", "error" }] }`,
 * plus `"agent": { "by", "agentId", "agentType" }` when `--agent` is given.
 * A folder, a named pipe, a socket or a device is refused as bad input (exit 2 when nothing else
 * was given), never opened: reading a FIFO would wait for a writer.
 * A path inside the store's folder (fh's own files, when `--store` lies inside the project) is
 * refused as bad input: fh never backs up or rewinds its own files.
 * Exit 3 when some paths failed and others were tracked; 1 when all failed, when the session has
 * no checkpoint yet (run `fh snapshot` first), or while FH_DISABLE_FILE_CHECKPOINTING is set.
 */
import { stat } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { agentFromIds, realPathOrNearest, toTrackingPath, type AgentIdentity } from '@fh/core';
import { PartialFailureError, UsageError } from '../cli-errors.js';
import type { CommandContext } from '../context.js';
import { displayPath } from '../format.js';
import { assertCheckpointingEnabled } from '../checkpointing.js';
import { assertWritable } from '../claude-guard.js';
import { agentDocument, agentLabel } from '../agent-lines.js';
import { openSession } from '../open-session.js';
import { insideStore, ownFolder } from '../command-window.js';

/** Options of `fh track`. */
export interface TrackOptions {
  /** `--agent <id>`: the sub-agent about to edit the files (`main`: the main agent). */
  agent?: string;
  /** `--agent-type <type>`: that sub-agent's type (needs `--agent`). */
  agentType?: string;
}

/** The agent `--agent` / `--agent-type` name; `UsageError` for an empty id or a type without a sub-agent. */
function agentOption(options: TrackOptions): AgentIdentity | undefined {
  if (options.agent === undefined) {
    if (options.agentType !== undefined) throw new UsageError('--agent-type names the type of the sub-agent given with --agent; nothing was tracked: pass --agent <id> too');
    return undefined;
  }
  if (options.agent.trim() === '') throw new UsageError('--agent needs a sub-agent id (or main); nothing was tracked');
  if (options.agentType !== undefined && options.agentType.trim() === '') throw new UsageError('--agent-type needs a type name; nothing was tracked');
  if (options.agent === 'main') {
    if (options.agentType !== undefined) throw new UsageError('--agent main is the main agent, which has no --agent-type; nothing was tracked');
    return agentFromIds(undefined);
  }
  return agentFromIds(options.agent, options.agentType);
}

/** Run `fh track`. */
export async function run(context: CommandContext, paths: string[], options: TrackOptions = {}): Promise<number> {
  assertWritable(context, 'track');
  assertCheckpointingEnabled(context);
  const agent = agentOption(options);
  const session = await openSession(context, { mustExist: false });
  try {
    if (session.history.state.snapshots.length === 0) {
      throw new Error(`session ${session.sessionId} has no checkpoint yet: run fh snapshot <messageId> first`);
    }
    const tracked: string[] = [];
    const links: Array<{ path: string; target: string }> = [];
    const failed: Array<{ path: string; error: string }> = [];
    const storeFolder = ownFolder(context.storeLocation, context.environment, context.home);
    let firstError: unknown;
    const progress = context.output.progress('track: backing up files', paths.length, { unit: 'files', showBytes: true });
    let bytes = 0;
    for (const [index, path] of paths.entries()) {
      const absolute = resolve(context.cwd, path);
      const stats = await stat(absolute).catch(() => undefined);
      bytes += stats?.size ?? 0;
      try {
        if (path === '') throw new UsageError('an empty path is not a file to track');
        if (absolute === session.projectRoot) throw new UsageError(`${displayPath(path)} is the project root itself, not a file to track`);
        if (insideStore(storeFolder, absolute)) {
          throw new UsageError(`${displayPath(path)} is inside fh's store folder ${storeFolder}: fh never backs up or rewinds its own files, so nothing was tracked for it; track your project's files only`);
        }
        if (stats !== undefined && !stats.isFile()) {
          const what = stats.isDirectory() ? 'a folder' : stats.isFIFO() ? 'a named pipe (FIFO)' : stats.isSocket() ? 'a socket' : 'a device';
          const advice = stats.isDirectory() ? `name the files in it (fh track ${displayPath(path)}/<file>)` : 'track the regular files the agent will edit';
          throw new UsageError(`${displayPath(path)} is ${what}, not a regular file: fh backs up regular files only, so nothing was tracked for it; ${advice}`);
        }
        await (agent?.by === 'subagent' ? session.history.forSubagent(agent).trackEdit(absolute) : session.history.trackEdit(absolute));
        const given = toTrackingPath(session.projectRoot, absolute);
        // trackEdit backs up the file a symlink leads to (inside the project), not the link.
        const real = linkedTrackingPath(session.projectRoot, absolute);
        tracked.push(real ?? given);
        if (real !== undefined && real !== given) links.push({ path: given, target: real });
      } catch (error) {
        firstError ??= error;
        failed.push({ path, error: error instanceof Error ? error.message : String(error) });
      }
      progress.update(index + 1, undefined, bytes);
    }
    progress.stop();
    if (tracked.length === 0 && firstError !== undefined) throw firstError;
    const agentField = agent === undefined ? {} : { agent: agentDocument(agent) };
    const by = agent?.by === 'subagent' ? ` for the ${agentLabel(agent)}` : '';
    const through = new Map(links.map((link) => [link.target, link.path]));
    context.output.result({ sessionId: session.sessionId, projectRoot: session.projectRoot, tracked, links, failed, ...agentField }, () =>
      tracked.map((path) => {
        const link = through.get(path);
        return `tracked ${displayPath(path)}${by}${link === undefined ? '' : ` (${displayPath(link)} is a symbolic link to it; the link itself is left as it is)`}`;
      }),
    );
    if (failed.length > 0) throw new PartialFailureError(`${failed.length} of ${paths.length} paths were not tracked`, failed);
    return 0;
  } finally {
    await session.close();
  }
}

/**
 * The tracking path of the file `absolutePath` really is (symlinks resolved, as trackEdit does)
 * when it lies inside the project's real root; undefined otherwise (then the path itself is
 * tracked) or when it cannot be resolved.
 */
function linkedTrackingPath(projectRoot: string, absolutePath: string): string | undefined {
  try {
    const real = realPathOrNearest(absolutePath, (path) => realpathSync.native(path));
    if (real === undefined) return undefined;
    const rest = relative(realpathSync.native(projectRoot), real);
    if (rest === '' || rest === '..' || rest.startsWith(`..${sep}`) || isAbsolute(rest)) return undefined;
    return rest.split(sep).join('/');
  } catch {
    return undefined;
  }
}

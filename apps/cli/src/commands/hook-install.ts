/**
 * `fh hook install [--scope project|user] [--print]`: add fh's hook entries to Claude Code's
 * settings file — `.claude/settings.json` in the project (scope `project`, the default) or
 * `~/.claude/settings.json` (scope `user`) — without removing any existing hook. The previous
 * file is kept next to it as `settings.json.<time>.bak`; nothing is written when the entries are
 * already there. `--print` only prints the hook JSON. A settings file that is a symbolic link (for
 * instance into a dotfiles repository) is updated where the link points, and the link stays; the
 * file keeps its permission bits (a 600 settings file stays 600).
 *
 * JSON (`--json`): `{ "settingsPath", "changed", "backupPath", "command", "hooks" }` (with
 * `--print`: `{ "hooks" }`, the object to merge under the settings' `hooks` key).
 */
import { constants } from 'node:fs';
import { access, chmod, copyFile, lstat, mkdir, readFile, realpath, rename, stat, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join, resolve } from 'node:path';
import { UsageError } from '../cli-errors.js';
import type { CommandContext } from '../context.js';
import { TRACKED_TOOLS } from '../hook-tools.js';
import { COMMAND_TOOL } from '../command-window.js';
import { describeStoreLocation } from '../store-uri.js';

/** Options of `fh hook install`. */
export interface HookInstallOptions {
  scope?: string;
  print?: boolean;
}

/** One hook command entry of Claude Code's settings. */
interface HookCommand {
  type: 'command';
  command: string;
  [field: string]: unknown;
}

/** One matcher group of Claude Code's settings. */
interface HookGroup {
  matcher?: string;
  hooks: HookCommand[];
  [field: string]: unknown;
}

type HookSettings = Record<string, HookGroup[]>;

/** The hook entries fh needs, running `command` (see {@link hookCommand}). */
export function fhHooks(command: string): HookSettings {
  return {
    PreToolUse: [
      { matcher: TRACKED_TOOLS.join('|'), hooks: [{ type: 'command', command }] },
      { matcher: COMMAND_TOOL, hooks: [{ type: 'command', command }] },
    ],
    PostToolUse: [{ matcher: COMMAND_TOOL, hooks: [{ type: 'command', command }] }],
    UserPromptSubmit: [{ hooks: [{ type: 'command', command }] }],
    Stop: [{ hooks: [{ type: 'command', command }] }],
  };
}

/**
 * Merge `additions` into a settings object's `hooks`, keeping every existing entry. A group is
 * added only when no group of that event with the same matcher already runs the same command.
 * Returns the new settings and whether anything changed; the input is not modified.
 */
export function mergeHooks(settings: Record<string, unknown>, additions: HookSettings): { settings: Record<string, unknown>; changed: boolean } {
  const existing = settings.hooks;
  if (existing !== undefined && (typeof existing !== 'object' || existing === null || Array.isArray(existing))) {
    throw new UsageError('the settings file\'s "hooks" is not an object; fix it by hand first');
  }
  const hooks: Record<string, unknown> = { ...(existing as Record<string, unknown> | undefined) };
  let changed = false;
  for (const [event, groups] of Object.entries(additions)) {
    const current = hooks[event] ?? [];
    if (!Array.isArray(current)) throw new UsageError(`the settings file's hooks.${event} is not a list; fix it by hand first`);
    const merged: unknown[] = [...current];
    for (const group of groups) {
      const present = merged.some((candidate) => {
        if (typeof candidate !== 'object' || candidate === null) return false;
        const entry = candidate as Partial<HookGroup>;
        return (entry.matcher ?? '') === (group.matcher ?? '') &&
          Array.isArray(entry.hooks) &&
          group.hooks.every((hook) => entry.hooks?.some((other) => other?.command === hook.command));
      });
      if (!present) {
        merged.push(group);
        changed = true;
      }
    }
    hooks[event] = merged;
  }
  return { settings: { ...settings, hooks }, changed };
}

/**
 * The shell command the hooks run: `fh hook` when the `fh` on PATH is this very program,
 * otherwise node with this script's absolute path. A `--store` given to `install` (or the
 * `FH_HOME` it ran with) is passed on, with a relative folder made absolute (see
 * {@link absoluteStoreUri}), so the hooks use that store whatever environment the agent has.
 */
export async function hookCommand(context: CommandContext): Promise<string> {
  const script = process.argv[1] === undefined ? undefined : await realpath(process.argv[1]).catch(() => undefined);
  const onPath = await findOnPath('fh', context.environment.PATH ?? '');
  const program = script !== undefined && onPath === script ? 'fh' : `${shellQuote(process.execPath)} ${shellQuote(script ?? 'fh')}`;
  // The hooks run in the agent's environment, which may not have this shell's FH_HOME: name it.
  const named = context.options.store !== undefined || (context.environment.FH_HOME ?? '') !== '';
  const store = named ? ` --store ${shellQuote(absoluteStoreUri(context))}` : '';
  return `${program}${store} hook`;
}

/**
 * The `--store` given to `install`, made absolute: each hook runs in the agent's current folder,
 * so a relative folder is resolved now, against the folder `install` runs in (`fs:<absolute
 * folder>`); an `s3://` URI is kept as it was given. Throws `UsageError` for a bad `--store`.
 */
function absoluteStoreUri(context: CommandContext): string {
  const location = context.storeLocation;
  return location.kind === 's3' ? (context.options.store as string) : describeStoreLocation(location);
}

async function findOnPath(name: string, path: string): Promise<string | undefined> {
  for (const folder of path.split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, name);
    try {
      await access(candidate, constants.X_OK);
      return await realpath(candidate);
    } catch {
      continue;
    }
  }
  return undefined;
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The file `fh hook install` reads and replaces for `settingsPath`: the path itself, or, when it is
 * a symbolic link, the file the link points to (so the link stays a link). Errors: a link whose
 * target is missing, as a UsageError naming both (fh writes nothing).
 */
async function settingsTarget(settingsPath: string): Promise<string> {
  const entry = await lstat(settingsPath).catch((error: { code?: string }) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (entry === undefined || !entry.isSymbolicLink()) return settingsPath;
  try {
    return await realpath(settingsPath);
  } catch {
    throw new UsageError(`${settingsPath} is a symbolic link to a missing file; fh wrote nothing. Point the link at a settings file (or remove it) and run fh hook install again`);
  }
}

/** Run `fh hook install`. */
export async function run(context: CommandContext, options: HookInstallOptions): Promise<void> {
  const scope = options.scope ?? 'project';
  if (scope !== 'project' && scope !== 'user') throw new UsageError(`--scope must be project or user, not "${scope}"`);
  const command = await hookCommand(context);
  const hooks = fhHooks(command);
  const output = context.output;
  if (options.print === true) {
    output.result({ hooks }, () => JSON.stringify({ hooks }, null, 2));
    return;
  }
  const settingsPath = scope === 'user' ? join(context.home, '.claude', 'settings.json') : resolve(context.projectRoot, '.claude', 'settings.json');
  const target = await settingsTarget(settingsPath);
  let original: string | undefined;
  try {
    original = await readFile(target, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EISDIR') throw new UsageError(`${settingsPath} is a folder, not a settings file; fh wrote nothing. Move it aside and run fh hook install again`);
    if (code !== 'ENOENT') throw error;
  }
  let settings: Record<string, unknown> = {};
  if (original !== undefined && original.trim() !== '') {
    try {
      settings = JSON.parse(original) as Record<string, unknown>;
    } catch (error) {
      throw new UsageError(`${settingsPath} is not valid JSON (${(error as Error).message}); fix it by hand first`);
    }
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
      throw new UsageError(`${settingsPath} does not hold a JSON object; fix it by hand first`);
    }
  }
  const merged = mergeHooks(settings, hooks);
  let backupPath: string | null = null;
  if (merged.changed) {
    await mkdir(dirname(target), { recursive: true });
    let mode: number | undefined;
    if (original !== undefined) {
      backupPath = `${settingsPath}.${new Date().toISOString().replace(/[:.]/g, '-')}.bak`;
      await copyFile(target, backupPath, constants.COPYFILE_EXCL);
      mode = (await stat(target)).mode & 0o7777;
    }
    const temporary = `${target}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(merged.settings, null, 2)}\n`, { mode: mode ?? 0o666 });
    if (mode !== undefined) await chmod(temporary, mode);
    await rename(temporary, target);
  }
  output.result({ settingsPath, changed: merged.changed, backupPath, command, hooks }, () => [
    merged.changed ? `Added fh hooks to ${settingsPath}` : `fh hooks are already in ${settingsPath}; nothing changed`,
    ...(backupPath === null ? [] : [`Previous settings kept in ${backupPath}`]),
    `Hook command: ${command}`,
  ]);
}

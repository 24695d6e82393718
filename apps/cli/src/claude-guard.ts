/** `--claude` opens Claude Code data read-only: only `rewind` and `fork` may write. */
import { UsageError } from './cli-errors.js';
import type { CommandContext } from './context.js';

/** Throw a usage error when `--claude` is given to a command that would write to the session. */
export function assertWritable(context: CommandContext, command: string): void {
  if (context.claudeConfigDir !== undefined) {
    throw new UsageError(`${command} writes to the session; with --claude only rewind and fork may write (Claude Code data is read-only)`);
  }
}

/** Throw (exit 1) when the `--claude` folder does not exist, naming it, rather than finding no sessions in it. */
export async function assertClaudeFolder(configDir: string): Promise<void> {
  const { stat } = await import('node:fs/promises');
  const isFolder = await stat(configDir).then((stats) => stats.isDirectory(), () => false);
  if (!isFolder) throw new Error(`Claude Code folder ${configDir} does not exist (--claude)`);
}

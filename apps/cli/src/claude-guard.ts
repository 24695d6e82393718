/** `--claude` opens Claude Code data read-only: only `rewind` and `fork` may write. */
import { UsageError } from './cli-errors.js';
import type { CommandContext } from './context.js';

/** Throw a usage error when `--claude` is given to a command that would write to the session. */
export function assertWritable(context: CommandContext, command: string): void {
  if (context.claudeConfigDir !== undefined) {
    throw new UsageError(`fh ${command} writes to the session; with --claude only rewind and fork may write (Claude Code data is read-only)`);
  }
}

/** `fh undo` (placeholder until the conversation API lands). */
import { UsageError } from '../cli-errors.js';
import type { CommandContext } from '../context.js';

/** Run `fh undo`. */
export async function run(_context: CommandContext): Promise<void> {
  throw new UsageError('fh undo is not available yet');
}

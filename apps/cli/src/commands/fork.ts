/** `fh fork` (placeholder until the conversation API lands). */
import { UsageError } from '../cli-errors.js';
import type { CommandContext } from '../context.js';

/** Run `fh fork`. */
export async function run(_context: CommandContext): Promise<void> {
  throw new UsageError('fh fork is not available yet');
}

/** `fh rewind` (placeholder until the conversation API lands). */
import { UsageError } from '../cli-errors.js';
import type { CommandContext } from '../context.js';

/** Run `fh rewind`. */
export async function run(_context: CommandContext): Promise<void> {
  throw new UsageError('fh rewind is not available yet');
}

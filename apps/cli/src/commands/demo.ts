/** `fh demo`: replay a git repository's last commits as agent turns and verify every rewind. */
import type { CommandContext } from '../context.js';

/** Run the demo. */
export async function run(context: CommandContext): Promise<number> {
  context.output.note('fh demo: not wired yet');
  return 1;
}

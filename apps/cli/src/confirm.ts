/** Asking a person before a command changes or removes something. */
import { createInterface } from 'node:readline/promises';
import type { CommandContext } from './context.js';

/** True when a person can answer on this terminal (and the output is not for a program). */
export function isInteractive(context: CommandContext): boolean {
  return process.stdin.isTTY === true && process.stdout.isTTY === true && !context.output.json;
}

/** Ask `question` on the terminal (stderr); true for "y" or "yes", in any case. */
export async function confirm(question: string): Promise<boolean> {
  const reader = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await reader.question(question)).trim());
  } finally {
    reader.close();
  }
}

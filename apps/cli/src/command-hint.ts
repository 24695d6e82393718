/**
 * The `fh …` commands printed as hints ("Undo with: fh undo"), written so they work when pasted:
 * they carry the `--claude`, `--store`, `--session` and `--project` the user gave, each word
 * shell-quoted.
 */
import type { CommandContext } from './context.js';
import { shellQuote } from './format.js';

/**
 * `fh [--claude [dir]] [--store <uri>] [--session <id>] [--project <folder>] [--other-project] <words…>`;
 * `session` names another session than the one given (a new fork or resumed session).
 */
export function fhCommand(context: Pick<CommandContext, 'options'>, words: readonly string[], overrides: { session?: string } = {}): string {
  const options = { ...context.options, ...overrides };
  const global: string[] = [];
  if (options.claude !== undefined && options.claude !== false) {
    global.push('--claude');
    if (typeof options.claude === 'string' && options.claude !== '') global.push(options.claude);
  }
  if (options.store !== undefined) global.push('--store', options.store);
  if (options.session !== undefined) global.push('--session', options.session);
  if (options.project !== undefined) global.push('--project', options.project);
  if (options.otherProject === true) global.push('--other-project');
  return ['fh', ...[...global, ...words].map(shellQuote)].join(' ');
}

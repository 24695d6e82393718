/**
 * Long output (a patch) through a pager, as git does: only when stdout is a terminal and not with
 * `--json`. The pager is `$PAGER` (run by `sh -c`), default `less -FRX` (quit when it fits on one
 * screen, keep colours, leave the text on the screen) or, without less, plain output. `PAGER=''`
 * or `PAGER=cat` writes straight to stdout.
 */
import { spawn } from 'node:child_process';
import type { CommandContext } from './context.js';

/** The default pager command: less -FRX when installed, else cat. */
const DEFAULT_PAGER = 'if command -v less >/dev/null 2>&1; then exec less -FRX; else exec cat; fi';

/**
 * Write `text` to stdout, through the pager when stdout is a terminal (see the module comment).
 * Resolves when the pager has exited; a pager quit early (`q`) is not an error.
 */
export async function writeWithPager(context: CommandContext, text: string): Promise<void> {
  const stdout = context.output.stdout;
  const configured = context.environment.PAGER;
  if (stdout.isTTY !== true || context.output.json || configured === '' || configured === 'cat') {
    stdout.write(text);
    return;
  }
  const command = configured ?? DEFAULT_PAGER;
  // Ctrl-C in the pager reaches fh too (one process group): let the pager handle it.
  const ignoreInterrupt = (): void => undefined;
  process.on('SIGINT', ignoreInterrupt);
  await new Promise<void>((resolvePromise) => {
    const child = spawn('sh', ['-c', command], { stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', ...context.environment } });
    child.on('error', () => {
      stdout.write(text);
      resolvePromise();
    });
    child.stdin.on('error', () => undefined);
    child.on('close', () => resolvePromise());
    child.stdin.end(text);
  }).finally(() => process.removeListener('SIGINT', ignoreInterrupt));
}

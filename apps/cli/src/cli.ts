/**
 * The `fh` binary, built as one small CommonJS file (`dist/cli.js`; see tsup.config.ts): Node
 * starts a CommonJS entry without its ES module loader, which an agent's hook pays on every tool
 * call. `fh [--store <uri>] [--project <folder>] hook` takes a short path: `runHookFromStdin`,
 * bundled into this file, without the command table. Everything else imports the ES module
 * build of the command table (`program.mjs`) and runs {@link main}.
 */
import { runHookFromStdin } from './commands/hook.js';

const argv = process.argv.slice(2);
const hookOptions = parseHookInvocation(argv);
const finished: Promise<number> =
  hookOptions !== undefined
    ? runHookFromStdin(hookOptions)
    : (import(new URL('./program.mjs', import.meta.url).href) as Promise<typeof import('./program.js')>).then((program) => program.main(argv));
void finished.then((code) => {
  process.exitCode = code;
});

/** The options of a plain hook invocation, or undefined for anything else. */
function parseHookInvocation(arguments_: readonly string[]): { store?: string; project?: string } | undefined {
  const options: { store?: string; project?: string } = {};
  let sawHook = false;
  for (let index = 0; index < arguments_.length; index += 1) {
    const argument = arguments_[index] as string;
    const match = /^--(store|project)(?:=(.*))?$/.exec(argument);
    if (match !== null) {
      const value = match[2] ?? arguments_[++index];
      if (value === undefined) return undefined;
      options[match[1] as 'store' | 'project'] = value;
    } else if (argument === 'hook' && !sawHook) {
      sawHook = true;
    } else {
      return undefined;
    }
  }
  return sawHook ? options : undefined;
}

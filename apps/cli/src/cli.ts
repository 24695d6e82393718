/**
 * The `fh` binary. `fh [--store <uri>] [--project <folder>] hook` (agents run it on every tool use)
 * takes a short path: it skips the command table and loads the single-file `hook.js` build (see
 * tsup.config.ts). Everything else goes through {@link main}.
 */
const argv = process.argv.slice(2);
const hookOptions = parseHookInvocation(argv);
if (hookOptions !== undefined) {
  const hookModule: typeof import('./commands/hook.js') = await import(new URL('./hook.js', import.meta.url).href);
  process.exitCode = await hookModule.runHookFromStdin(hookOptions);
} else {
  const { main } = await import('./program.js');
  process.exitCode = await main(argv);
}

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

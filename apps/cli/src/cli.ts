/**
 * The `fh` binary. `fh hook` (agents call it on every tool use) takes a short path that skips the
 * command table; everything else goes through {@link main}.
 */
const argv = process.argv.slice(2);
if (argv[0] === 'hook' && argv.length === 1) {
  const { runHookFromStdin } = await import('./commands/hook.js');
  await runHookFromStdin();
} else {
  const { main } = await import('./program.js');
  process.exitCode = await main(argv);
}

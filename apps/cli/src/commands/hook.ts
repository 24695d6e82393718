/**
 * `fh hook`: one agent hook event as JSON on stdin (Claude Code's shape). Never blocks the agent:
 * prints nothing on stdout, logs any error to stderr and exits 0.
 */

/** Read one hook event from stdin and act on it. */
export async function runHookFromStdin(): Promise<void> {
  process.stderr.write('fh hook: not wired yet\n');
}

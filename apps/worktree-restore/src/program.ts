/**
 * The `fh-worktree-restore` command line: the command table, option parsing and error handling,
 * with `fh`'s conventions (`--json`, exit codes 0/1/2/3, one clear error line on stderr).
 */
import { Command, CommanderError, Option } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { describeError, ExitCode, UsageError } from './errors.js';
import { Output } from './output.js';
import type { SourceOptions } from './session-source.js';

/** Options every command takes, as commander parses them. */
interface CommonOptions {
  session?: string;
  store?: string;
  claude?: string | boolean;
  json?: boolean;
  message?: string;
}

/** A command's entry point. */
type Runner = (options: SourceOptions & { message?: string }, output: Output) => Promise<void>;

/**
 * The options every command takes, on the program itself (as `fh` has its global options), so
 * they are accepted before or after the subcommand: `--json restore` and `restore --json`.
 */
function addSourceOptions(command: Command): Command {
  return command
    .option('--session <id>', 'the session (default: $FH_SESSION_ID)')
    .option('--store <uri>', "fh's store: fs:<folder> (default: fs:$FH_HOME, else fs:~/.fh)")
    .addOption(new Option('--claude [configDir]', 'read a Claude Code session instead (default folder: $CLAUDE_CONFIG_DIR, else ~/.claude)'))
    .option('--json', 'print one JSON document on stdout');
}

/** Parse `argv` (without node and script), run the command, print errors; returns the exit code. */
export async function main(argv: readonly string[], environment: NodeJS.ProcessEnv = process.env): Promise<number> {
  let output: Output | undefined;
  const action = (load: () => Promise<Runner>) => async (_options: unknown, command: Command) => {
    const options = command.optsWithGlobals() as CommonOptions;
    output = new Output(options.json === true);
    const session = options.session ?? environment.FH_SESSION_ID;
    if (session === undefined || session === '') throw new UsageError('no session given: pass --session <id> or set FH_SESSION_ID');
    // A session id that is not one path segment (`--session ../x`) is a bad argument: exit 2, as in fh.
    const { validateName } = await import('@fh/store-fs');
    try {
      validateName('sessionId', session);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const runner = await load();
    await runner(
      {
        session,
        ...(options.store === undefined ? {} : { store: options.store }),
        ...(options.claude === undefined ? {} : { claude: options.claude }),
        ...(options.message === undefined ? {} : { message: options.message }),
      },
      output,
    );
  };

  const program = addSourceOptions(
    new Command('fh-worktree-restore')
      .description("Bring back a cleaned-up git worktree of an agent session and rewind the agent's uncommitted work into it from fh's backups.")
      .version(packageJson.version, '-V, --version'),
  )
    .exitOverride()
    .showHelpAfterError('(fh-worktree-restore --help shows usage)')
    .configureHelp({ showGlobalOptions: true });
  program
    .command('restore')
    .description("recreate the session's worktree if it is gone and rewind its tracked files into it; prints the path to cd into")
    .option('--message <id>', 'rewind to the snapshot of this message (default: the latest)')
    .action(action(async () => (await import('./commands/restore.js')).run));
  program
    .command('exit')
    .description("remove the session's worktree if it has no uncommitted changes (the branch is kept); prints the original folder")
    .action(action(async () => (await import('./commands/exit.js')).run));

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    const json = output?.json ?? argv.includes('--json');
    if (error instanceof CommanderError) {
      // No command at all prints the help on stderr (commander.help with a non-zero exit code): a usage error, as in fh.
      if (error.code === 'commander.help' && error.exitCode !== 0) {
        if (json) process.stdout.write(`${JSON.stringify({ error: { code: 'FH_USAGE', message: 'no command given (fh-worktree-restore --help lists the commands)', details: [] } }, null, 2)}\n`);
        return ExitCode.usage;
      }
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return ExitCode.ok;
      if (json) process.stdout.write(`${JSON.stringify({ error: { code: 'FH_USAGE', message: error.message.replace(/^error: /, ''), details: [] } }, null, 2)}\n`);
      return ExitCode.usage;
    }
    const described = describeError(error);
    if (json && output?.wroteDocument !== true) {
      process.stdout.write(`${JSON.stringify({ error: { code: described.code, message: described.message, details: described.details } }, null, 2)}\n`);
    }
    process.stderr.write(`fh-worktree-restore: ${described.message}\n`);
    for (const detail of described.details) process.stderr.write(`  ${detail}\n`);
    return described.exitCode;
  }
}

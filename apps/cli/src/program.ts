/**
 * The `fh` command line: global options, the command table and error handling. Each command's
 * module is imported only when that command runs, so startup stays lean (ink, react, jsdiff and
 * cli-progress load only in the commands that use them).
 */
import { parseAgeInDays } from './age.js';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { describeError, ExitCode, UsageError } from './cli-errors.js';
import { escapeControl, shellQuote } from './format.js';
import { plainError } from './plain-errors.js';
import { CommandContext, type GlobalOptions } from './context.js';

/** A command module's entry point: returns the exit code (0 when omitted). */
type CommandRunner = (context: CommandContext) => Promise<number | void>;

/** Names of the commands, so `fh --claude <command>` is not read as a folder named <command>. */
const COMMAND_NAMES = [
  'track', 'snapshot', 'sessions', 'list', 'show', 'diff', 'rewind', 'undo', 'redo', 'checkpoint', 'resume', 'fork', 'cleanup', 'verify', 'demo', 'hook', 'run', 'help',
];

/**
 * `--claude` takes an optional folder; commander would take a following command name as that
 * folder (`fh --claude list`). `--claude <command>` becomes `--claude= <command>`: the option
 * given with an empty value, which means the default folder. `--paths --` drops the `--paths`, so
 * the paths after `--` are read as paths (see id-and-paths.ts). Nothing after `--` is changed.
 */
export function normaliseArguments(argv: readonly string[]): string[] {
  const result: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    const next = argv[index + 1];
    if (argument === '--') {
      result.push(...argv.slice(index));
      break;
    }
    if (argument === '--claude' && next !== undefined && COMMAND_NAMES.includes(next)) {
      result.push('--claude=');
      continue;
    }
    // `--paths -- -rf`: the paths come after `--` (commander would take `--` as the option's value).
    if (argument === '--paths' && next === '--') continue;
    result.push(argument);
  }
  return result;
}

function parsePositiveInteger(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1, not "${value}"`);
    return Number(value);
  };
}

/** How a checkpoint may be named, for the help texts. */
const REFERENCE_HELP = 'a message id, a unique prefix of it (4+ characters), or a turn number from fh list (-1 the newest, -2 two turns back)';

/**
 * Build the program. `run` receives the chosen command's runner and the merged options;
 * `json` (`--json` was given): `--version` prints `{ "version" }`, and `--help` / `fh help
 * [command]` print `{ "help": "<the help text>" }`.
 */
export function buildProgram(run: (runner: CommandRunner, options: GlobalOptions) => Promise<void>, settings: { json?: boolean } = {}): Command {
  const program = new Command('fh');
  program
    .description('Checkpoints and rewind for AI coding agents: back files up before edits, snapshot each turn, rewind any turn.')
    .option('-V, --version', 'print the version (with --json: {"version": ...})')
    .option('--store <uri>', 'where backups and records live: fs:<folder> or a bare folder, or s3://<bucket>/<prefix> (credentials, AWS_REGION and AWS_ENDPOINT_URL_S3 from the environment, as the AWS SDK reads them) (default: fs:$FH_HOME, else fs:~/.fh)')
    .option('--session <id>', 'session id (default: $FH_SESSION_ID)')
    .option('--project <folder>', "project folder (default: the session's recorded project, else the current folder)")
    .option('--other-project', 'let track, snapshot, rewind, undo and fork use a --project other than the one the session recorded')
    .option('--claude [configDir]', 'open Claude Code session data (default folder: $CLAUDE_CONFIG_DIR, else ~/.claude)')
    .option('--json', 'print one JSON document on stdout')
    .option('--verbose', "show fh's internal names in errors (backup objects, temp files, the store's own wording)")
    .exitOverride()
    .showHelpAfterError('(fh --help shows usage)')
    .configureHelp({ showGlobalOptions: true });
  // Commands added below inherit this output: with --json, help is one JSON document too.
  if (settings.json === true) program.configureOutput({ writeOut: (text) => process.stdout.write(`${JSON.stringify({ help: text }, null, 2)}\n`) });
  program.on('option:version', () => {
    process.stdout.write(settings.json === true ? `${JSON.stringify({ version: packageJson.version }, null, 2)}\n` : `${packageJson.version}\n`);
    throw new CommanderError(0, 'commander.version', packageJson.version);
  });

  /** Register the action of a command whose module exports `run(context, ...arguments)`. */
  const action =
    <Arguments extends unknown[]>(load: () => Promise<(context: CommandContext, ...rest: Arguments) => Promise<number | void>>) =>
    async (...commanderArguments: unknown[]): Promise<void> => {
      const command = commanderArguments[commanderArguments.length - 1] as Command;
      const positional = commanderArguments.slice(0, -1) as Arguments;
      const options = command.optsWithGlobals() as GlobalOptions;
      await run(async (context) => (await load())(context, ...positional), options);
    };

  program
    .command('track')
    .description('back files up before an agent edits them')
    .argument('<paths...>', 'files to track, inside the project (relative to the current folder, or absolute); a symbolic link is followed to the file it leads to')
    .option('--agent <agentId>', "the sub-agent about to edit them: its changes are attributed to it ('main': the main agent, the default)")
    .option('--agent-type <type>', "that sub-agent's type (general-purpose, Explore, ...)")
    .action(action(async () => (await import('./commands/track.js')).run));

  program
    .command('snapshot')
    .description("take a turn's snapshot under a message id")
    .argument('<messageId>', 'the id of the user message that starts the turn')
    .option('--prompt <text>', "record the turn's prompt text in the session log")
    .action(action(async () => (await import('./commands/snapshot.js')).run));

  program
    .command('checkpoint')
    .description('record the current state of the tracked files now, as a checkpoint fh list shows and fh rewind goes back to')
    .option('--label <text>', 'a name for it, shown by fh list')
    .action(action(async () => (await import('./commands/checkpoint.js')).run));

  program
    .command('sessions')
    .description('list sessions: project, last change, checkpoints, bytes on disk')
    .action(action(async () => (await import('./commands/sessions.js')).run));

  program
    .command('list')
    .description("list the session's checkpoints and what rewinding to each would change")
    .action(action(async () => (await import('./commands/list.js')).run));

  program
    .command('show')
    .description("show one turn: the whole prompt, its time, what rewinding there would change, and the assistant's reply (Claude Code sessions)")
    .argument('<messageId>', `the turn: ${REFERENCE_HELP}`)
    .action(action(async () => (await import('./commands/show.js')).run));

  program
    .command('diff')
    .description('show what rewinding to a checkpoint would change (a dry run), and whether the rewind would be refused')
    .argument('[messageId]', `the checkpoint: ${REFERENCE_HELP}`)
    .argument('[paths...]', 'only these tracked files (after --, so a path may start with a dash)')
    .option('--patch', 'print a git-style patch from now to the checkpoint (git apply takes it; through $PAGER, default less -FRX, on a terminal)')
    .option('--stat', "print git's diffstat (path | changes +++---)")
    .option('--name-only', 'print only the paths that would change')
    .option('--paths <paths...>', 'only these tracked files (with --agent: conflicting files to include)')
    .option('--agent <agentId>', "only the files this agent changed after the checkpoint ('main', a sub-agent id or a unique prefix)")
    .option('--undo <point>', 'show what fh undo <point> would change instead (a timeline point id or prefix, from fh undo --list)')
    .action(action(async () => (await import('./commands/diff.js')).run));

  program
    .command('rewind')
    .description('rewind files and/or the conversation to a checkpoint (no id on a terminal: pick one from a menu)')
    .argument('[messageId]', `the checkpoint: ${REFERENCE_HELP}`)
    .argument('[paths...]', 'only these tracked files (after --, so a path may start with a dash)')
    .addOption(new Option('--mode <mode>', 'what to rewind; summarize / summarize_up_to write a new session with the messages from (or before) the prompt replaced by a summary').choices(['both', 'code', 'conversation', 'summarize', 'summarize_up_to']))
    .option('--summarize-command <cmd>', 'the command that summarizes (run by sh; the conversation on stdin, the summary on stdout; default: $FH_SUMMARIZE_COMMAND); offers the summarize options')
    .option('--paths <paths...>', 'only these tracked files (with --agent: conflicting files to include)')
    .option('--agent <agentId>', "only the files this agent changed after the checkpoint ('main', a sub-agent id or a unique prefix)")
    .option('--dry-run', 'show what would change and change nothing')
    .option('--yes', 'do not ask (needed without a terminal)')
    .option('--include-outside', 'also rewind the files a Claude Code session tracked outside the project (plan files, /tmp, a sibling project)')
    .action(action(async () => (await import('./commands/rewind.js')).run));

  program
    .command('undo')
    .description("go back one point on the session's rewind timeline (or to just before <point>); --list shows every point")
    .argument('[point]', 'a timeline point id or a prefix of one (fh undo --list shows them)')
    .option('--list', 'list the timeline: every rewind, undo and redo, with time, files and +/-')
    .option('--prune <older-than>', 'remove timeline points older than this (30d, 12h, 90m; a bare number is days) and their backups')
    .option('--outside', 'undo on the timeline of the files a Claude Code session tracked outside the project (fh rewind --include-outside)')
    .option('--yes', 'with --prune: do not ask (needed without a terminal when points would be removed)')
    .action(action(async () => (await import('./commands/undo.js')).run));

  program
    .command('redo')
    .description('go forward one point on the rewind timeline (undo the last undo)')
    .action(action(async () => (await import('./commands/undo.js')).runRedo));

  program
    .command('verify')
    .description("check every backup the session references (default: every session of the project) for presence, size and content hash; exit 1 on damage")
    .action(action(async () => (await import('./commands/verify.js')).run));

  program
    .command('resume')
    .description("carry a session's file history into a new session")
    .argument('<fromSession>', 'the session to resume')
    .option('--to <id>', 'the new session id (default: a new UUID)')
    .action(action(async () => (await import('./commands/resume.js')).run));

  program
    .command('fork')
    .description('write the conversation up to a checkpoint as a new session')
    .argument('<messageId>', `the prompt to fork before: ${REFERENCE_HELP}`)
    .option('--to <id>', 'the new session id (default: a new UUID)')
    .action(action(async () => (await import('./commands/fork.js')).run));

  program
    .command('cleanup')
    .description('remove sessions not changed for a number of days')
    .option('--older-than <age>', 'age: 30d, 12h, 90m (a bare number is days)', (value: string) => parseAgeInDays(value, '--older-than'), 30)
    .option('--dry-run', 'list what would be removed')
    .option('--yes', 'do not ask (needed without a terminal when sessions would be removed)')
    .action(action(async () => (await import('./commands/cleanup.js')).run));

  program
    .command('demo')
    .description('replay the last commits of a git repository as agent turns, rewind to each and verify against git')
    .option('--repo <path>', 'the git repository (default: the one around the current folder)')
    .option('--commits <n>', 'how many commits to replay', parsePositiveInteger('--commits'), 30)
    .option('--keep', 'keep the temporary folders and print where they are')
    .action(action(async () => (await import('./commands/demo.js')).run));

  program
    .command('run')
    .description("run a command and capture the files it changes into the session's latest checkpoint (for agents without hooks)")
    .argument('<command...>', 'the command and its arguments (put -- before it)')
    .action(action(async () => (await import('./commands/run.js')).run));

  const hook = program
    .command('hook')
    .description('read one agent hook event (JSON) on stdin: track before edits, snapshot at each prompt, a checkpoint at Stop; a bad event (no absolute cwd, say) is named on stderr and records nothing; exits 0, or 2 for an edit it could not back up (the agent blocks that edit)')
    .action(action(async () => (await import('./commands/hook.js')).run));
  // fh hook records into fh's own store; Claude Code's data is only read: --claude there is a mistake.
  hook.hook('preAction', (_hook, actionCommand) => {
    const claude = actionCommand.optsWithGlobals().claude;
    if (claude !== undefined && claude !== false) {
      throw new UsageError('--claude cannot be used with fh hook: the hook records into fh\'s own store (--store), never into Claude Code\'s data; nothing was recorded. Leave out --claude');
    }
  });
  hook
    .command('install')
    .description("add fh's hooks to Claude Code's settings, keeping existing hooks")
    .addOption(new Option('--scope <scope>', 'which settings file').choices(['project', 'user']).default('project'))
    .option('--print', 'only print the hook JSON')
    .action(action(async () => (await import('./commands/hook-install.js')).run));

  return program;
}

/** The first error writing stdout met other than a closed pipe (a full disk, `> /dev/full`). */
let outputFailure: NodeJS.ErrnoException | undefined;

/**
 * Once the reader of stdout or stderr goes away (`fh list | head -1`), drop what is still written
 * instead of crashing with an unhandled EPIPE: the command finishes and exits with its own code.
 * Any other stdout error (ENOSPC, EIO) is kept for {@link main} to report once the command ended;
 * stderr errors are dropped (there is nowhere left to say them).
 */
function ignoreClosedPipes(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    outputFailure ??= error;
  });
  process.stderr.on('error', () => undefined);
}

/** The JSON error document `--json` prints on stdout. */
function errorDocument(code: string, message: string, details: readonly string[], hint?: string): string {
  return `${JSON.stringify({ error: { code, message, details, ...(hint === undefined ? {} : { hint }) } }, null, 2)}\n`;
}

/** fh's global options that take a value (the next argument). */
const VALUE_OPTIONS = new Set(['--store', '--session', '--project']);

/**
 * `fh run <command> -x …` without `--`: the command's words, since fh would read `-x` as its own
 * option (an unknown one, or worse a global like `--json`); undefined for anything else.
 */
export function runWithoutDashes(argv: readonly string[]): string[] | undefined {
  let index = 0;
  while (index < argv.length && (argv[index] as string).startsWith('-') && argv[index] !== '--') index += VALUE_OPTIONS.has(argv[index] as string) ? 2 : 1;
  if (argv[index] !== 'run') return undefined;
  const rest = argv.slice(index + 1);
  const dashes = rest.indexOf('--');
  const end = dashes === -1 ? rest.length : dashes;
  const first = rest.findIndex((word) => !word.startsWith('-'));
  if (first === -1 || first >= end || !rest.slice(first + 1, end).some((word) => word.startsWith('-'))) return undefined;
  return rest.slice(first, end);
}

/**
 * Parse `argv` (without node and script), run the command, print errors; returns the exit code.
 * When stdout could not be written (not a closed pipe), the command still ran to its end: one
 * line on stderr says so, and the exit code is at least 1.
 */
export async function main(argv: readonly string[]): Promise<number> {
  ignoreClosedPipes();
  const exitCode = await runCommand(argv);
  // A failed write of stdout is reported as an 'error' event on a later tick.
  await new Promise((resolve) => setImmediate(resolve));
  if (outputFailure === undefined) return exitCode;
  process.stderr.write(`fh: could not write the output to standard output (${outputFailure.code ?? outputFailure.message}); the command ran to its end, so what it did stands, and only its report is missing\n`);
  return exitCode === ExitCode.ok ? ExitCode.failure : exitCode;
}

async function runCommand(argv: readonly string[]): Promise<number> {
  let context: CommandContext | undefined;
  let exitCode: number = ExitCode.ok;
  const dashes = argv.indexOf('--');
  const beforeDashes = dashes === -1 ? argv : argv.slice(0, dashes);
  const runWords = runWithoutDashes(argv);
  if (runWords !== undefined) {
    const message = `fh run would read the command's options as its own: put -- before the command, as in fh run -- ${runWords.map(shellQuote).join(' ')} (nothing was run)`;
    if (beforeDashes.includes('--json')) process.stdout.write(errorDocument('FH_USAGE', message, []));
    process.stderr.write(`fh: ${escapeControl(message)}\n`);
    return ExitCode.usage;
  }
  const program = buildProgram(
    async (runner, options) => {
      context = new CommandContext(options);
      exitCode = (await runner(context)) ?? ExitCode.ok;
    },
    { json: beforeDashes.includes('--json') },
  );
  try {
    await program.parseAsync(normaliseArguments(argv), { from: 'user' });
    context?.output.clearProgress();
    return exitCode;
  } catch (error) {
    const json = context?.output.json ?? beforeDashes.includes('--json');
    if (error instanceof CommanderError) {
      // `fh` with no command prints the help on stderr (commander.help with a non-zero exit code):
      // a usage error. `fh --help`, `fh help` and `--version` succeed.
      if (error.code === 'commander.help' && error.exitCode !== 0) {
        if (json) process.stdout.write(errorDocument('FH_USAGE', 'no command given (fh --help lists the commands)', []));
        return ExitCode.usage;
      }
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
        return ExitCode.ok;
      }
      if (json) process.stdout.write(errorDocument('FH_USAGE', error.message.replace(/^error: /, ''), []));
      return ExitCode.usage;
    }
    const raw = describeError(error);
    const verbose = context?.options.verbose === true || beforeDashes.includes('--verbose');
    const plain = (text: string) => (verbose ? text : plainError(text));
    const described = { ...raw, message: plain(raw.message), details: raw.details.map(plain), ...(raw.hint === undefined ? {} : { hint: plain(raw.hint) }) };
    context?.output.clearProgress();
    if (json && context?.output.wroteDocument !== true) {
      process.stdout.write(errorDocument(described.code, described.message, described.details, described.hint));
    }
    const stderr = context?.output.errorColors;
    process.stderr.write(`${stderr ? stderr.red('fh:') : 'fh:'} ${escapeControl(described.message)}\n`);
    for (const detail of described.details) process.stderr.write(`  ${escapeControl(detail)}\n`);
    if (described.hint !== undefined) process.stderr.write(`${escapeControl(described.hint)}\n`);
    return described.exitCode;
  }
}

/**
 * `fh demo [--repo <path>] [--commits <n>] [--keep]`: replay a git repository's last commits as
 * agent turns in a temporary workspace with the fs store, rewind to every checkpoint and verify
 * each against git, undo the last rewind and verify again (see `demo/replay.ts`). Exits 1 on any
 * mismatch.
 *
 * JSON (`--json`): the {@link ReplayReport} plus `workFolder` (null unless `--keep`).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FileHistory, MAX_SNAPSHOTS, MemoryCommandJournal, RewindSession, type RewindResult } from '@fh/core';
import { execFile } from 'node:child_process';
import { describeMissed } from '../command-window.js';
import { FsBackupStore } from '@fh/store-fs';
import { ExitCode, UsageError } from '../cli-errors.js';
import type { CommandContext } from '../context.js';
import { findRepositoryRoot } from '../demo/git.js';
import { replayRepository, type DemoTurn, type ReplayReport } from '../demo/replay.js';
import { renderTable } from '../output.js';
import { plural } from '../format.js';

/** Options of `fh demo`. */
export interface DemoCommandOptions {
  repo?: string;
  commits: number;
  keep?: boolean;
}

/** Run the demo; returns 0 when everything verified, 1 otherwise. */
export async function run(context: CommandContext, options: DemoCommandOptions): Promise<number> {
  if (options.commits > MAX_SNAPSHOTS) {
    throw new UsageError(`--commits ${options.commits} is more than the ${MAX_SNAPSHOTS} checkpoints a session keeps`);
  }
  const repositoryRoot = await findRepositoryRoot(resolve(context.cwd, options.repo ?? '.'));
  const workFolder = await mkdtemp(join(tmpdir(), 'fh-demo-'));
  const workspace = join(workFolder, 'workspace');
  const storeFolder = join(workFolder, 'store');
  await mkdir(workspace);
  const output = context.output;
  let history: FileHistory | undefined;
  let rewinder: RewindSession | undefined;
  const progress = output.progress('fh demo', options.commits * 2);
  try {
    const report = await replayRepository({
      repositoryRoot,
      commits: options.commits,
      workspace,
      openHistory: async () => {
        const store = new FsBackupStore({ root: storeFolder });
        const opened = await FileHistory.open({ projectRoot: workspace, sessionId: randomUUID(), store });
        history = opened;
        rewinder = new RewindSession({ history: opened });
        const session = rewinder;
        const { NodeCommandProbe } = await import('@fh/command-probe');
        const tools = { probe: new NodeCommandProbe({ stateDir: join(workFolder, 'commands') }), journal: new MemoryCommandJournal() };
        return {
          trackEdit: (path) => opened.trackEdit(path),
          makeSnapshot: (messageId) => opened.makeSnapshot(messageId),
          rewind: async (messageId) => (await session.restore({ messageId, mode: 'code' })).code as RewindResult,
          runCommand: async (commands) => {
            const window = await opened.beginCommand({ ...tools, command: commands.map((command) => command.join(' ')).join(' && ') });
            for (const command of commands) await runInWorkspace(workspace, command);
            return describeMissed(await opened.endCommand(window.windowId, tools));
          },
        };
      },
      undoLastRewind: async () => {
        const result = await (rewinder as RewindSession).undoRewind();
        return result.failed.map((failure) => ({ path: failure.path, error: failure.error.message }));
      },
      onStep: (done, total) => progress.update(done, total),
    });
    progress.stop();
    output.result({ ...report, workFolder: options.keep === true ? workFolder : null }, () => renderReport(context, report, options, workFolder));
    return report.ok ? ExitCode.ok : ExitCode.failure;
  } finally {
    progress.stop();
    await history?.close();
    if (options.keep !== true) await rm(workFolder, { recursive: true, force: true });
  }
}

function renderReport(context: CommandContext, report: ReplayReport, options: DemoCommandOptions, workFolder: string): string[] {
  const colors = context.output.colors;
  const lines: string[] = [];
  lines.push(`Replaying ${report.replayed} commit${report.replayed === 1 ? '' : 's'} of ${report.repositoryRoot} as agent turns`);
  if (report.replayed < report.requested) {
    lines.push(`(asked for ${report.requested}; the first-parent history of HEAD has only ${report.replayed} non-merge commit${report.replayed === 1 ? '' : 's'}, so all of them are replayed)`);
  }
  if (report.baseNote !== null) lines.push(`(${report.baseNote})`);
  lines.push('');
  lines.push(
    ...renderTable<DemoTurn>(
      report.turns,
      [
        { header: 'turn', value: (turn) => String(turn.turn), right: true },
        { header: 'kind', value: (turn) => turn.kind },
        { header: 'commit', value: (turn) => `${turn.commit.slice(0, 8)} ${turn.subject}`, maxWidth: 60 },
        { header: 'files', value: (turn) => String(turn.files), right: true },
        { header: '+/-', value: (turn) => `${colors.green(`+${turn.insertions}`)} ${colors.red(`-${turn.deletions}`)}`, right: true },
        { header: 'rewind', value: (turn) => `${turn.rewindMs.toFixed(1)} ms`, right: true },
        { header: 'verified', value: (turn) => (turn.verified ? colors.green('verified') : colors.red('MISMATCH')) },
      ],
      colors,
    ),
  );
  lines.push('');
  const skipped = [...new Set(report.turns.flatMap((turn) => turn.skipped))];
  if (skipped.length > 0) lines.push(`Skipped ${skipped.length} symlink or submodule path${skipped.length === 1 ? '' : 's'}: ${skipped.slice(0, 5).join(', ')}${skipped.length > 5 ? ', …' : ''}`);
  lines.push(
    `Replay: ${plural(report.replayed, 'turn')}, ${plural(report.trackedFiles, 'tracked file')}, ${formatMs(report.replayMs)}` +
      (report.replayVerified ? ' (workspace equals the newest commit)' : colors.red(' (workspace differs from the newest commit)')),
  );
  const average = report.turns.length === 0 ? 0 : report.rewindMs / report.turns.length;
  lines.push(`Rewinds: ${report.turns.length}, ${formatMs(report.rewindMs)} in all, ${average.toFixed(1)} ms on average; ${report.turns.filter((turn) => turn.verified).length}/${report.turns.length} verified against git`);
  lines.push(
    report.undo.skipped
      ? 'Undo of the last rewind: skipped (that rewind changed no file, so there was nothing to undo)'
      : `Undo of the last rewind: ${formatMs(report.undo.ms)}, ${report.undo.verified ? colors.green('verified') : colors.red('MISMATCH')}`,
  );
  const problems = [
    ...report.replayMismatches.map((line) => `replay: ${line}`),
    ...report.turns.flatMap((turn) => turn.mismatches.map((line) => `turn ${turn.turn}: ${line}`)),
    ...report.undo.mismatches.map((line) => `undo: ${line}`),
  ];
  if (problems.length > 0) {
    lines.push('', colors.red(`${problems.length} mismatch${problems.length === 1 ? '' : 'es'}:`), ...problems.map((line) => `  ${line}`));
  }
  lines.push(report.ok ? colors.green('All checkpoints verified.') : colors.red('Verification failed.'));
  if (options.keep === true) lines.push(`Work folder kept: ${workFolder}`);
  return lines;
}

/** Run one command of a shell turn in the workspace; rejects with its stderr when it fails. */
function runInWorkspace(workspace: string, command: readonly string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile(command[0] as string, command.slice(1), { cwd: workspace, maxBuffer: 1 << 26 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${command.slice(0, 4).join(' ')} …: ${String(stderr).trim() || error.message}`));
      else resolvePromise();
    });
  });
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}

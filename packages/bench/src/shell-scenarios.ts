/**
 * The `shell` scenario of `npm run bench` (issue 12): a command window (`beginCommand` +
 * `endCommand` over `@fh/command-probe`'s `NodeCommandProbe`, the real git) around a command
 * that changes 10 files of a 10,000-file git repository, against
 * - the floor: `git status --porcelain=v2 -z --untracked-files=all` run twice (before and after
 *   the command) plus `copyFile` of the 10 changed files' before-bytes — target ≤ 2× it;
 * - a shadow git repository of the same work tree: `git add -A && git commit` after the command —
 *   target ≥ 10× faster. The shadow index is warm: before each timed commit an untimed
 *   `add -A && commit` takes in what the other rounds changed, so the timed one costs exactly
 *   what a shadow repository pays per command (its stat cache, the 10 changed files, the tree);
 * - the same window with `gitScan: 'status'` (git status before and after), for comparison;
 * - the same window on a change feed (`watch: true`, started and warmed before the timed rounds,
 *   as an embedding harness would have it): begin and end re-check only the paths with events —
 *   target ≥ 10× faster than the shadow commit. Each of its rounds is a fresh command changing 10
 *   files; the untimed `git add -A` after it is an index change the feed follows;
 * - the physical bound: `lstatSync` of every file twice in-process (what any before/after
 *   comparison that trusts no watcher must do), printed as a share of the shadow commit: 10× is
 *   reachable only when it is under 0.10;
 * - on 100,000 files: begin + end under 1 s;
 * - disk per command: the bytes the store gains equal the changed files' before-bytes, and 0 for
 *   a command that changes nothing.
 * Only begin and end are timed, never the command itself. Each round changes 10 files no
 * checkpoint tracks yet, and `git add`s them afterwards (untimed), so every round sees the same
 * clean repository with 10 fresh changes.
 */
import { FsCommandJournal, NodeCommandProbe } from '@fh/command-probe';
import { FsBackupStore } from '@fh/store-fs';
import { execFile } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { appendFile, copyFile, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FileHistory } from '@fh/core';
import { median } from './measure.js';
import { registerScenario, type BenchContext } from './runner.js';
import { createFiles } from './workspace.js';

const execute = promisify(execFile);

const ROUNDS = 11;
const BIG_ROUNDS = 5;
const CHANGED = 10;
const FILE_BYTES = 1024;

/** Run git in `cwd` with a fixed identity; `env` adds variables (GIT_DIR for the shadow repository). */
function git(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<{ stdout: string }> {
  return execute('git', ['-c', 'user.email=bench@example.com', '-c', 'user.name=bench', '-c', 'gc.auto=0', ...args], { cwd, env: { ...process.env, ...env }, maxBuffer: 256 * 1024 * 1024 });
}

/** Bytes in a store session's backup folder. */
async function storeBytes(store: string, sessionId: string): Promise<number> {
  const folder = join(store, 'file-history', sessionId);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return 0;
  }
  let total = 0;
  for (const name of names) if (!name.startsWith('.')) total += (await stat(join(folder, name))).size;
  return total;
}

/** A 10-file "command": one line appended to each file. */
async function command(project: string, paths: readonly string[], round: number): Promise<void> {
  await Promise.all(paths.map((path) => appendFile(join(project, path), `// command ${round}\n`)));
}

interface Window {
  history: FileHistory;
  probe: NodeCommandProbe;
  journal: FsCommandJournal;
}

/** begin + end of one window around `run`, timing only begin and end (ms). */
async function timedWindow(window: Window, run: () => Promise<void>): Promise<number> {
  const options = { probe: window.probe, journal: window.journal };
  const started = process.hrtime.bigint();
  const begun = await window.history.beginCommand(options);
  const between = process.hrtime.bigint();
  await run();
  const resumed = process.hrtime.bigint();
  await window.history.endCommand(begun.windowId, options);
  const ended = process.hrtime.bigint();
  return Number(between - started + (ended - resumed)) / 1e6;
}

async function repository(context: BenchContext, project: string, files: number): Promise<string[]> {
  context.log(`creating a git repository of ${files} files ...`);
  const paths = await createFiles(project, files, FILE_BYTES);
  await git(project, ['init', '-q']);
  await git(project, ['add', '-A']);
  await git(project, ['commit', '-q', '-m', 'base']);
  return paths;
}

async function openWindow(context: BenchContext, project: string, store: FsBackupStore, sessionId: string, gitScan: 'index' | 'status' = 'index', watch = false): Promise<Window> {
  const history = await context.open({ projectRoot: project, sessionId, store });
  await history.makeSnapshot('turn');
  const stateDir = join(context.folders.base, 'commands', sessionId);
  return { history, probe: new NodeCommandProbe({ stateDir, gitScan, watch }), journal: new FsCommandJournal(stateDir) };
}

async function run(context: BenchContext): Promise<void> {
  const { folders } = context;
  const store = new FsBackupStore({ root: folders.store });
  const paths = await repository(context, folders.project, 10_000);
  const window = await openWindow(context, folders.project, store, 'shell');
  const statusWindow = await openWindow(context, folders.project, store, 'shell-status', 'status');
  const feedWindow = await openWindow(context, folders.project, store, 'shell-feed', 'index', true);
  context.log('starting the change feed ...');
  if (!(await feedWindow.probe.startFeed(folders.project))) throw new Error(`the change feed did not start: ${feedWindow.probe.feedStatus().lastFallback ?? 'no reason'}`);
  // Warm it as a harness would have it: a few untimed windows.
  for (let warm = 0; warm < 3; warm += 1) await timedWindow(feedWindow, async () => undefined);
  const shadowEnv = { GIT_DIR: join(folders.base, 'shadow.git'), GIT_WORK_TREE: folders.project };
  context.log('shadow git repository ...');
  await git(folders.project, ['init', '-q'], shadowEnv);
  await git(folders.project, ['add', '-A'], shadowEnv);
  await git(folders.project, ['commit', '-q', '-m', 'setup'], shadowEnv);

  const fhTimes: number[] = [];
  const floorTimes: number[] = [];
  const gitTimes: number[] = [];
  const lstatTimes: number[] = [];
  const statusProbeTimes: number[] = [];
  const feedTimes: number[] = [];
  const diskExtra: number[] = [];
  const changedSet = (round: number, who: number) => paths.slice((round * 3 + who) * CHANGED, (round * 3 + who + 1) * CHANGED);
  await mkdir(folders.floor, { recursive: true });
  context.log(`${ROUNDS} rounds of fh, the floor and shadow git, interleaved ...`);
  const absolutePaths = paths.map((path) => join(folders.project, path));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let offset = 0; offset < 6; offset += 1) {
      const who = (round + offset) % 6;
      if (who === 5) {
        const changed = paths.slice((ROUNDS * 4 + round) * CHANGED, (ROUNDS * 4 + round + 1) * CHANGED);
        feedTimes.push(await timedWindow(feedWindow, () => command(folders.project, changed, round)));
        await git(folders.project, ['add', '-A']);
        continue;
      }
      if (who === 4) {
        const changed = paths.slice((ROUNDS * 3 + round) * CHANGED, (ROUNDS * 3 + round + 1) * CHANGED);
        statusProbeTimes.push(await timedWindow(statusWindow, () => command(folders.project, changed, round)));
        await git(folders.project, ['add', '-A']);
        continue;
      }
      if (who === 3) {
        const started = process.hrtime.bigint();
        for (let pass = 0; pass < 2; pass += 1) for (const path of absolutePaths) lstatSync(path);
        lstatTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
        continue;
      }
      const changed = changedSet(round, who);
      if (who === 0) {
        const before = await storeBytes(folders.store, 'shell');
        const preImageBytes = (await Promise.all(changed.map(async (path) => (await stat(join(folders.project, path))).size))).reduce((sum, size) => sum + size, 0);
        fhTimes.push(await timedWindow(window, () => command(folders.project, changed, round)));
        diskExtra.push((await storeBytes(folders.store, 'shell')) - before - preImageBytes);
      } else if (who === 1) {
        const status = () => git(folders.project, ['--no-optional-locks', 'status', '--porcelain=v2', '-z', '--untracked-files=all']);
        const sources = await Promise.all(changed.map((path) => readFile(join(folders.project, path))));
        const started = process.hrtime.bigint();
        await status();
        const between = process.hrtime.bigint();
        await command(folders.project, changed, round);
        const resumed = process.hrtime.bigint();
        await status();
        await Promise.all(changed.map((path, index) => copyFile(join(folders.project, path), join(folders.floor, `${round}-${index}`))));
        floorTimes.push(Number(between - started + (process.hrtime.bigint() - resumed)) / 1e6);
        if (sources.length !== CHANGED) throw new Error('floor read the wrong files');
      } else {
        await git(folders.project, ['add', '-A'], shadowEnv);
        await git(folders.project, ['commit', '-q', '--allow-empty', '-m', `sync ${round}`], shadowEnv);
        await command(folders.project, changed, round);
        const started = process.hrtime.bigint();
        await git(folders.project, ['add', '-A'], shadowEnv);
        await git(folders.project, ['commit', '-q', '-m', `turn ${round}`], shadowEnv);
        gitTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      await git(folders.project, ['add', '-A']);
    }
  }
  context.report({ scenario: 'command window, 10 of 10,000 files changed (begin + end)', fh: fhTimes, floors: [{ name: 'git status ×2 + 10 copies', times: floorTimes, factor: 2 }] });
  context.report({ scenario: 'command window vs shadow git, 10,000 files', fh: fhTimes, floors: [{ name: 'git add -A && git commit', times: gitTimes, factor: 10 }], kind: 'faster' });
  context.report({ scenario: '  bound: lstat ×2 of the 10,000 files as a share of shadow git (10× needs ≤ 0.10×)', fh: lstatTimes, floors: [{ name: 'git add -A && git commit', times: gitTimes }], kind: 'info' });
  context.report({ scenario: '  command window against lstat ×2 of the 10,000 files', fh: fhTimes, floors: [{ name: 'lstatSync ×2', times: lstatTimes }], kind: 'info' });
  context.report({ scenario: "  command window with gitScan: 'status' (git status before and after)", fh: statusProbeTimes, floors: [{ name: 'git add -A && git commit', times: gitTimes }], kind: 'info' });
  const feedStatus = feedWindow.probe.feedStatus();
  if (feedStatus.fullScans !== 1) throw new Error(`the change feed scanned in full ${feedStatus.fullScans} times (${feedStatus.lastFallback ?? ''}): its rows would not measure the feed`);
  context.report({ scenario: 'command window with a change feed, 10 of 10,000 files changed (begin + end) vs shadow git', fh: feedTimes, floors: [{ name: 'git add -A && git commit', times: gitTimes, factor: 10 }], kind: 'faster' });
  await feedWindow.probe.close();
  context.report({ scenario: 'disk per 10-file command: bytes beyond the 10 before-images', fh: [median(diskExtra)], floors: [{ name: '1 byte', times: 1, factor: 0 }], unit: 'bytes' });

  const idleBefore = await storeBytes(folders.store, 'shell');
  await timedWindow(window, async () => undefined);
  context.report({ scenario: 'disk per command that changes nothing: bytes', fh: [(await storeBytes(folders.store, 'shell')) - idleBefore], floors: [{ name: '1 byte', times: 1, factor: 0 }], unit: 'bytes' });

  const bigProject = join(folders.base, 'big');
  await mkdir(bigProject);
  const bigPaths = await repository(context, bigProject, 100_000);
  const big = await openWindow(context, bigProject, store, 'shell-big');
  const bigTimes: number[] = [];
  const bigStatusTimes: number[] = [];
  context.log(`${BIG_ROUNDS} rounds on 100,000 files ...`);
  for (let round = 0; round < BIG_ROUNDS; round += 1) {
    const changed = bigPaths.slice(round * CHANGED * 2, (round * 2 + 1) * CHANGED);
    bigTimes.push(await timedWindow(big, () => command(bigProject, changed, round)));
    await git(bigProject, ['add', '-A']);
    const started = process.hrtime.bigint();
    await git(bigProject, ['--no-optional-locks', 'status', '--porcelain=v2', '-z', '--untracked-files=all']);
    await command(bigProject, bigPaths.slice((round * 2 + 1) * CHANGED, (round * 2 + 2) * CHANGED), round);
    await git(bigProject, ['--no-optional-locks', 'status', '--porcelain=v2', '-z', '--untracked-files=all']);
    bigStatusTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
    await git(bigProject, ['add', '-A']);
  }
  context.report({ scenario: 'command window, 10 of 100,000 files changed (begin + end)', fh: bigTimes, floors: [{ name: '1 s', times: 1000 }] });
  context.report({ scenario: '  against git status ×2 on 100,000 files', fh: bigTimes, floors: [{ name: 'git status ×2', times: bigStatusTimes }], kind: 'info' });
}

registerScenario({
  name: 'shell',
  description: 'command window (beginCommand + endCommand, real git) against git status ×2 + copies, shadow git, 100,000 files, and disk per command',
  run,
});

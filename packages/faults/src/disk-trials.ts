/**
 * Real-process fault trials on disk (issue 10): the `fh` CLI killed with SIGKILL at seeded random
 * moments of a rewind or an undo, a folder swapped for a symlink by an attacker process while a
 * rewind runs, a full disk (a small tmpfs) and fsync failures injected with strace. Each trial
 * checks the invariants the crash-point suite checks, on the real file system:
 * no half-written file, nothing written outside the project, and `fh undo` (as a user runs it after
 * the interruption) brings back the exact state before the rewind.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileHistory } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';

/** The built CLI (`npm run build` makes it). */
export const CLI = fileURLToPath(new URL('../../../apps/cli/dist/cli.js', import.meta.url));

/** `path → "mode:sha256-prefix:size"` (or `link:target`) of every file under `root`, temps included. */
export type DiskTree = Record<string, string>;

/** Read a folder tree (sorted keys; folders as `path/`). */
export function diskTree(root: string): DiskTree {
  const tree: DiskTree = {};
  const walk = (folder: string) => {
    let names: string[];
    try {
      names = readdirSync(folder).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(folder, name);
      const key = relative(root, path);
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) tree[key] = `link:${readlinkSync(path)}`;
      else if (stats.isDirectory()) {
        tree[`${key}/`] = '';
        walk(path);
      } else {
        const bytes = readFileSync(path);
        tree[key] = `${(stats.mode & 0o7777).toString(8)}:${bytes.length}:${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}`;
      }
    }
  };
  walk(root);
  return tree;
}

/** Whether a tree key is an fh project temp file. */
export function isProjectTemp(path: string): boolean {
  return /(^|\/)\..+\.fh-[0-9a-f]{12}\.tmp$/.test(path);
}

function withoutTemps(tree: DiskTree): DiskTree {
  return Object.fromEntries(Object.entries(tree).filter(([path]) => !isProjectTemp(path)));
}

/** Paths whose entries differ between two trees (temps ignored). */
export function differences(actual: DiskTree, expected: DiskTree): string[] {
  const a = withoutTemps(actual);
  const b = withoutTemps(expected);
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((path) => a[path] !== b[path]).sort();
}

/** A small deterministic PRNG (mulberry32) for seeded kill moments. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A project with a session whose checkpoint `m1` differs from the files now. */
export interface Fixture {
  base: string;
  project: string;
  store: string;
  /** The project as at the checkpoint `m1`. */
  atCheckpoint: DiskTree;
  /** The project as it is now (the state before a rewind to `m1`). */
  beforeRewind: DiskTree;
  remove(): Promise<void>;
}

/** Options of {@link createFixture}. */
export interface FixtureOptions {
  /** Files in the project (spread over 8 folders). Default 120. */
  files?: number;
  /** Bytes per file. Default 2048. */
  bytes?: number;
  /** Parent folder (default the system temp folder). */
  under?: string;
}

/** Build a {@link Fixture}: files tracked at `m1`, then edited, one deleted, one new, one mode changed. */
export async function createFixture(options: FixtureOptions = {}): Promise<Fixture> {
  const base = await mkdtemp(join(options.under ?? tmpdir(), 'fh-faults-'));
  const project = join(base, 'project');
  const store = join(base, 'store');
  const count = options.files ?? 120;
  const size = options.bytes ?? 2048;
  const paths = Array.from({ length: count }, (_, index) => `d${index % 8}/f${index}.txt`);
  const content = (path: string, version: string) => `${version} ${path}\n`.padEnd(size, version === 'v1' ? '1' : '2');
  for (const path of paths) {
    await mkdir(dirname(join(project, path)), { recursive: true });
    await writeFile(join(project, path), content(path, 'v1'));
  }
  const history = await FileHistory.open({ projectRoot: project, sessionId: 's', store: new FsBackupStore({ root: store }), env: {} });
  await history.makeSnapshot('m1');
  await Promise.all([...paths, 'd0/new.txt'].map((path) => history.trackEdit(path)));
  await history.close();
  const atCheckpoint = diskTree(project);
  for (const path of paths.slice(1)) await writeFile(join(project, path), content(path, 'v2'));
  await unlink(join(project, paths[0] as string));
  await writeFile(join(project, 'd0/new.txt'), 'new after the checkpoint\n');
  await chmod(join(project, paths[1] as string), 0o600);
  return { base, project, store, atCheckpoint, beforeRewind: diskTree(project), remove: () => rm(base, { recursive: true, force: true }) };
}

/** Run the CLI on the fixture's session; resolves with its exit code and stderr. */
export function fh(fixture: Pick<Fixture, 'project' | 'store'>, args: readonly string[], options: { prefix?: readonly string[] } = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const command = [...(options.prefix ?? []), process.execPath, CLI, '--store', `fs:${fixture.store}`, '--project', fixture.project, '--session', 's', ...args];
    execFile(command[0] as string, command.slice(1), { cwd: fixture.project, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stderr });
    });
  });
}

const REWIND = ['rewind', 'm1', '--mode', 'code', '--yes'];

/** One broken invariant of one trial. */
export interface TrialViolation {
  trial: string;
  invariant: string;
  detail: string;
}

/** What a set of trials found. */
export interface TrialReport {
  name: string;
  trials: number;
  violations: TrialViolation[];
  /** Bytes of files recovery did not bring back. */
  bytesLost: number;
  /** Trials skipped, with why (a mount refused, strace missing). */
  skipped?: string;
  /** How the interrupted commands ended (`exit 1: <last stderr line>` → count), for the printout. */
  outcomes?: Record<string, number>;
}

function noteOutcome(report: TrialReport, outcome: string): void {
  report.outcomes ??= {};
  report.outcomes[outcome] = (report.outcomes[outcome] ?? 0) + 1;
}

/** An exit code and stderr as one short outcome line. */
function describeExit(result: { code: number | null; stderr: string }): string {
  if (result.code === 0) return 'exit 0';
  const last = result.stderr.trim().split('\n').at(-1) ?? '';
  return `exit ${result.code}: ${last.replace(/\/tmp\/\S+/g, '…').slice(0, 90)}`;
}

/**
 * After an interruption: every file holds its bytes from before or from the operation's target,
 * the session lock can be taken at once (never the 10 s stale wait), then `fh undo` (when the
 * project is not already as before the rewind, or holds its copies) must bring back `expected` exactly, without
 * reporting the session locked, leaving no temp file in the project or the store.
 */
async function recoverAndCheck(fixture: Fixture, trial: string, report: TrialReport, expected: DiskTree, alternatives: readonly DiskTree[]): Promise<void> {
  const now = diskTree(fixture.project);
  // The killed process's session lock, if it left one, names its holder from the moment it
  // exists, so the next command takes it over at once: it must never wait for the stale time.
  await lockTakenAtOnce(fixture, trial, report);
  for (const [path, value] of Object.entries(now)) {
    if (path.endsWith('/') || isProjectTemp(path)) continue;
    if (!alternatives.some((tree) => tree[path] === value)) report.violations.push({ trial, invariant: 'no half-written file', detail: `${path}: ${value}` });
  }
  // A rewind killed while it copied every file beside its target has changed nothing yet but left
  // its copies and a pending point: the user's next command that writes (here fh undo) rolls the
  // point back and removes them.
  if (differences(now, expected).length > 0 || Object.keys(now).some(isProjectTemp)) {
    const undo = await fh(fixture, ['undo']);
    if (undo.stderr.includes('is locked')) report.violations.push({ trial, invariant: 'the next command does not wait for the lock', detail: undo.stderr.trim().split('\n').at(-1) ?? '' });
    if (undo.code !== 0) report.violations.push({ trial, invariant: 'undo reaches the pre-rewind state', detail: `fh undo exited ${undo.code}: ${undo.stderr.trim().split('\n').at(-1) ?? ''}` });
  }
  const after = diskTree(fixture.project);
  const wrong = differences(after, expected);
  if (wrong.length > 0) {
    report.violations.push({ trial, invariant: 'undo reaches the pre-rewind state', detail: `${wrong.length} files differ (${wrong.slice(0, 3).join(', ')})` });
    report.bytesLost += wrong.reduce((sum, path) => sum + Number((expected[path] ?? '0:0').split(':')[1] ?? 0), 0);
  }
  const temps = Object.keys(after).filter(isProjectTemp);
  if (temps.length > 0) report.violations.push({ trial, invariant: 'no temp file left', detail: temps.slice(0, 3).join(', ') });
  const storeTemps = Object.keys(diskTree(join(fixture.store, 'file-history'))).filter((path) => /\.fh-tmp-/.test(path));
  if (storeTemps.length > 0 && differences(now, expected).length > 0) report.violations.push({ trial, invariant: 'no temp file left', detail: `store: ${storeTemps.slice(0, 3).join(', ')}` });
}

/**
 * A session lock the killed process left must be free or taken over at once (its holder is known
 * to be gone): a violation when taking it is refused, or waits, or the lock has no holder record.
 */
async function lockTakenAtOnce(fixture: Fixture, trial: string, report: TrialReport): Promise<void> {
  const store = new FsBackupStore({ root: fixture.store, lockStaleMs: 60_000 });
  const lockFolder = join(fixture.store, 'locks', 's.lock');
  const left = (() => {
    try {
      return readdirSync(lockFolder);
    } catch {
      return undefined;
    }
  })();
  if (left !== undefined && !left.includes('holder.json')) {
    report.violations.push({ trial, invariant: 'the next command does not wait for the lock', detail: `the lock folder holds ${JSON.stringify(left)}, no holder record` });
  }
  // lockSession does not wait: it takes the lock (a dead local holder's at once) or throws LockedError.
  try {
    await (await store.lockSession('s')).release();
  } catch (error) {
    report.violations.push({ trial, invariant: 'the next command does not wait for the lock', detail: (error as Error).message });
  }
}

/** Spawn the CLI and SIGKILL it after `delayMs`; resolves when it is gone. */
function killAfter(fixture: Fixture, args: readonly string[], delayMs: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, '--store', `fs:${fixture.store}`, '--project', fixture.project, '--session', 's', ...args], { cwd: fixture.project, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** How long (ms) an uninterrupted `fh <args>` takes on a fresh fixture. */
async function measure(options: FixtureOptions, args: readonly string[], before?: (fixture: Fixture) => Promise<void>): Promise<number> {
  const fixture = await createFixture(options);
  try {
    await before?.(fixture);
    const started = performance.now();
    await fh(fixture, args);
    return performance.now() - started;
  } finally {
    await fixture.remove();
  }
}

/**
 * `trials` rounds of: a fresh fixture, `fh rewind` (or, for `undo`, a completed rewind and then
 * `fh undo`) killed with SIGKILL at a seeded random moment within one uninterrupted run's
 * duration, then recovery and the checks of {@link recoverAndCheck}.
 */
export async function killTrials(kind: 'rewind' | 'undo', trials: number, seed: number, options: FixtureOptions = {}): Promise<TrialReport> {
  const report: TrialReport = { name: `SIGKILL during ${kind}`, trials: 0, violations: [], bytesLost: 0 };
  const rewound = async (fixture: Fixture) => {
    const result = await fh(fixture, REWIND);
    if (result.code !== 0) throw new Error(`setup rewind failed: ${result.stderr}`);
  };
  const duration = await measure(options, kind === 'rewind' ? REWIND : ['undo'], kind === 'undo' ? rewound : undefined);
  const random = seeded(seed);
  for (let index = 0; index < trials; index += 1) {
    const fixture = await createFixture(options);
    try {
      if (kind === 'undo') await rewound(fixture);
      const delay = Math.floor(random() * duration);
      await killAfter(fixture, kind === 'rewind' ? REWIND : ['undo'], delay);
      report.trials += 1;
      await recoverAndCheck(fixture, `${kind} killed at ${delay} ms`, report, fixture.beforeRewind, [fixture.beforeRewind, fixture.atCheckpoint]);
    } finally {
      await fixture.remove();
    }
  }
  return report;
}

/**
 * The symlink-swap race: an attacker process waits for the rewind's first temp file in `d3/`,
 * then moves `d3` away and puts a link to an outside folder in its place. Every round must leave
 * the outside folder empty (0 writes outside), whatever the rewind reports.
 */
export async function symlinkRaceTrials(rounds: number, options: FixtureOptions = {}): Promise<TrialReport> {
  const report: TrialReport = { name: 'symlink swap race during rewind', trials: 0, violations: [], bytesLost: 0 };
  for (let round = 0; round < rounds; round += 1) {
    const fixture = await createFixture({ files: 400, ...options });
    const outside = join(fixture.base, 'outside');
    await mkdir(outside);
    try {
      const attacker = spawn(process.execPath, ['-e', ATTACKER, join(fixture.project, 'd3'), outside], { stdio: ['ignore', 'pipe', 'inherit'] });
      let swapped = '';
      attacker.stdout.on('data', (chunk: Buffer) => {
        swapped += chunk.toString('utf8');
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const result = await fh(fixture, REWIND);
      attacker.kill('SIGKILL');
      await new Promise((resolve) => attacker.once('exit', resolve));
      report.trials += 1;
      const written = Object.keys(diskTree(outside));
      if (written.length > 0) report.violations.push({ trial: `round ${round}`, invariant: 'nothing written outside the project', detail: `${written.length} entries in the outside folder (exit ${result.code})` });
      if (!swapped.includes('swapped')) report.violations.push({ trial: `round ${round}`, invariant: 'the attacker swapped the folder mid-rewind', detail: 'no temp file seen before the rewind ended' });
    } finally {
      await fixture.remove();
    }
  }
  return report;
}

/** The attacker: poll `folder` for an fh temp file, then swap the folder for a link to `outside`. */
const ATTACKER = `
const fs = require('node:fs');
const [folder, outside] = process.argv.slice(1);
for (;;) {
  let names = [];
  try { names = fs.readdirSync(folder); } catch {}
  if (names.some((name) => /\\.fh-[0-9a-f]{12}\\.tmp$/.test(name))) {
    fs.renameSync(folder, folder + '.real');
    fs.symlinkSync(outside, folder);
    process.stdout.write('swapped\\n');
    break;
  }
}
setInterval(() => {}, 1000);
`;

/**
 * A full disk: the project and store on an 8 MiB tmpfs, filled so the rewind runs out of space.
 * The rewind must fail cleanly (no half-written file) and, once space is freed, `fh undo` must
 * bring back the state before it. Skipped (with the reason) where mounting is refused.
 */
export async function fullDiskTrials(trials: number): Promise<TrialReport> {
  const report: TrialReport = { name: 'ENOSPC (8 MiB tmpfs) during rewind', trials: 0, violations: [], bytesLost: 0 };
  const mountPoint = await mkdtemp(join(tmpdir(), 'fh-tmpfs-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    await rm(mountPoint, { recursive: true, force: true });
    return { ...report, skipped: `mount -t tmpfs refused: ${(mounted.stderr || mounted.error?.message || '').trim()}` };
  }
  try {
    for (let trial = 0; trial < trials; trial += 1) {
      const fixture = await createFixture({ files: 200, bytes: 16 * 1024, under: mountPoint });
      try {
        // Fill the disk, leaving room for part of the rewind's undo point and writes.
        const filler = join(mountPoint, 'filler');
        const free = Number(spawnSync('df', ['--output=avail', '-B1', mountPoint], { encoding: 'utf8' }).stdout.trim().split('\n').at(-1));
        const leave = (trial + 1) * 400 * 1024;
        if (free > leave) await writeFile(filler, Buffer.alloc(free - leave));
        const result = await fh(fixture, REWIND);
        report.trials += 1;
        noteOutcome(report, describeExit(result));
        await rm(filler, { force: true });
        if (result.code === 0) {
          // The rewind fitted: its undo must still bring everything back.
          await recoverAndCheck(fixture, `trial ${trial} (rewind fitted)`, report, fixture.beforeRewind, [fixture.beforeRewind, fixture.atCheckpoint]);
        } else {
          await recoverAndCheck(fixture, `trial ${trial} (rewind ran out of space: exit ${result.code})`, report, fixture.beforeRewind, [fixture.beforeRewind, fixture.atCheckpoint]);
        }
      } finally {
        await fixture.remove();
      }
    }
  } finally {
    spawnSync('umount', [mountPoint]);
    await rm(mountPoint, { recursive: true, force: true });
  }
  return report;
}

/**
 * fsync failures injected with strace (`-e inject=fsync:error=EIO:when=N`) into `fh rewind`, for
 * N = 1, 1 + step, …: the rewind must fail or finish cleanly — a failure saying what it changed and
 * what to do — and `fh undo` bring back the state before it. Skipped where strace is missing.
 */
export async function ioErrorTrials(trials: number, step = 7): Promise<TrialReport> {
  const report: TrialReport = { name: 'EIO from fsync (strace inject) during rewind', trials: 0, violations: [], bytesLost: 0 };
  if (spawnSync('strace', ['-V']).status !== 0) return { ...report, skipped: 'strace is not installed' };
  for (let trial = 0; trial < trials; trial += 1) {
    const fixture = await createFixture({ files: 60 });
    try {
      const when = 1 + trial * step;
      const result = await fh(fixture, REWIND, { prefix: ['strace', '-f', '-o', '/dev/null', '-e', 'trace=fsync', '-e', `inject=fsync:error=EIO:when=${when}`] });
      report.trials += 1;
      noteOutcome(report, describeExit(result));
      if (result.code !== 0 && !/Nothing was changed|undo/.test(result.stderr)) {
        report.violations.push({ trial: `fsync #${when} failed`, invariant: 'a failed rewind says what it changed and what to do', detail: result.stderr.trim().split('\n').at(-1) ?? '' });
      }
      await recoverAndCheck(fixture, `fsync #${when} failed`, report, fixture.beforeRewind, [fixture.beforeRewind, fixture.atCheckpoint]);
    } finally {
      await fixture.remove();
    }
  }
  return report;
}

/**
 * Run `fh hook` for `count` PreToolUse events at once (each a Write of its own file), each with
 * the default budget. Violations: a hook that let its edit go ahead (exit 0) without the file
 * tracked (bytes lost: one per file), a hook that blocked its edit (exit 2: no backup in time;
 * nothing lost, but the agent must retry), and a prepared copy left in the store. Outcomes count
 * exit codes and the time the slowest hook took.
 */
export async function concurrentHookTrials(count: number): Promise<TrialReport> {
  const report: TrialReport = { name: `${count} concurrent PreToolUse hooks`, trials: 1, violations: [], bytesLost: 0 };
  const fixture = await createFixture({ files: 8 });
  try {
    const paths = Array.from({ length: count }, (_, index) => join(fixture.project, 'hooked', `h${index}.txt`));
    await mkdir(join(fixture.project, 'hooked'), { recursive: true });
    await Promise.all(paths.map((path, index) => writeFile(path, `hooked ${index}\n`)));
    const started = Date.now();
    let slowest = 0;
    const exits = await Promise.all(
      paths.map(
        (path) =>
          new Promise<{ code: number | null; stderr: string }>((resolve) => {
            const child = spawn(process.execPath, [CLI, '--store', `fs:${fixture.store}`, '--project', fixture.project, 'hook'], { cwd: fixture.project, stdio: ['pipe', 'ignore', 'pipe'] });
            let stderr = '';
            child.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)));
            child.stdin.end(JSON.stringify({ session_id: 's', cwd: fixture.project, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: path, content: 'x' } }));
            child.on('close', (code) => {
              slowest = Math.max(slowest, Date.now() - started);
              resolve({ code, stderr });
            });
          }),
      ),
    );
    for (const exit of exits) noteOutcome(report, exit.code === 2 ? `exit 2 (${exit.stderr.includes('is locked') ? 'lock still held at the end of the budget' : 'out of time'})` : `exit ${exit.code}`);
    noteOutcome(report, `all done after ${(slowest / 1000).toFixed(1)} s`);
    const history = await FileHistory.open({ projectRoot: fixture.project, sessionId: 's', store: new FsBackupStore({ root: fixture.store }), env: {} });
    try {
      const latest = history.state.snapshots.at(-1)?.trackedFileBackups ?? {};
      const untracked = (index: number) => latest[relative(fixture.project, paths[index] as string)]?.backupFileName == null;
      const unbacked = exits.flatMap((exit, index) => (exit.code !== 2 && untracked(index) ? [index] : []));
      if (unbacked.length > 0) {
        report.violations.push({ trial: 'hooks', invariant: 'no edit goes ahead without its backup', detail: `${unbacked.length} of ${count} exited ${exits[unbacked[0] as number]?.code} untracked (${(exits[unbacked[0] as number]?.stderr ?? '').trim().split('\n').at(-1)})` });
        report.bytesLost += unbacked.length;
      }
      const blocked = exits.filter((exit) => exit.code === 2);
      if (blocked.length > 0) report.violations.push({ trial: 'hooks', invariant: 'every hooked edit is backed up in time', detail: `${blocked.length} of ${count} blocked their edit (${(blocked[0]?.stderr ?? '').trim().split('\n').at(-1)})` });
    } finally {
      await history.close();
    }
    const folder = join(fixture.store, 'file-history', 's');
    const temps = [...readdirSync(folder).filter((name) => name.startsWith('.fh-tmp-') && name !== '.fh-tmp-prepared'), ...(existsSync(join(folder, '.fh-tmp-prepared')) ? readdirSync(join(folder, '.fh-tmp-prepared')) : [])];
    if (temps.length > 0) report.violations.push({ trial: 'hooks', invariant: 'no temp file left', detail: `store: ${temps.length} (${temps.slice(0, 2).join(', ')})` });
  } finally {
    await fixture.remove();
  }
  return report;
}

/** Run a command line, resolving with its exit code (for scripts). */
export function run(command: string, args: readonly string[]): Promise<number> {
  return new Promise((resolve) => {
    execFile(command, args, (error) => resolve(error === null ? 0 : 1));
  });
}

/**
 * The shared runner of `npm run bench`: scenarios register themselves from their own files
 * ({@link registerScenario}, one import line each in `scenarios.ts`), the runner gives each one fresh
 * folders and closes everything it opened (sessions, servers) when it ends, and prints every
 * row's median against the floors measured in the same run, with its target met or missed.
 *
 * A row's target is a sum of floors, each with a factor ("≤ 2× node -e 0 + 1× 1,000 sync stats"):
 * the row is met when fh's median is at most that sum of the floors' medians. The printed ratio
 * is fh's median over the plain sum of the floors (every factor 1).
 *
 * Choosing scenarios: `npm run bench -- hook s3` (names or name prefixes) or `FH_BENCH_ONLY=hook,s3`;
 * `FH_BENCH_JSON=<file>` also writes the rows as JSON.
 */
import { writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { FileHistory, DEFAULT_CONCURRENCY, type FileHistoryOptions } from '@fh/core';
import { median } from './measure.js';
import { createFolders, removeFolders, type BenchFolders } from './workspace.js';

/** One floor term of a row: what it is, its figures (ms unless the row says otherwise), and its factor in the row's target. */
export interface FloorTerm {
  /** What the floor does, for the printout ("node -e 0", "1,000 sync stats"). */
  name: string;
  /** Its times in ms (the median is used), or one figure in ms. */
  times: readonly number[] | number;
  /** Its factor in the target (default 1). */
  factor?: number;
}

/** A row as a scenario reports it. */
export interface RowInput {
  /** What was timed ("fh hook UserPromptSubmit, 500 turns × 1,000 tracked"). */
  scenario: string;
  /** fh's times in ms (the median is used). */
  fh: readonly number[];
  /** The floors the row is compared with; their plain sum is the ratio's denominator. */
  floors: readonly FloorTerm[];
  /**
   * `'target'` (default): met when fh ≤ Σ factor × floor. `'faster'`: met when the (single) floor is
   * at least `factor` times fh's time (shadow git: "≥ 3× faster"). `'info'`: no target, the row splits
   * a figure up.
   */
  kind?: 'target' | 'faster' | 'info';
  /** Unit of `fh` and the floors (default `ms`): `MB` for memory rows, `bytes` for sizes. */
  unit?: RowUnit;
}

/** Units a row's figures are in. */
export type RowUnit = 'ms' | 'MB' | 'bytes';

/** A printed row. */
export interface Row {
  scenario: string;
  /** fh's median in ms. */
  fh: number;
  /** The floors, as printed ("node -e 0 67.1 + 1,000 sync stats 3.2"). */
  floorName: string;
  /** The plain sum of the floors' medians in ms. */
  floor: number;
  ratio: string;
  target: string;
  /** Undefined for informational rows. */
  met: boolean | undefined;
  /** Unit of `fh` and `floor`. */
  unit: RowUnit;
}

/** What a scenario gets from the runner. */
export interface BenchContext {
  /** Fresh folders of this scenario (removed when it ends). */
  folders: BenchFolders;
  /** A progress line on stderr. */
  log(message: string): void;
  /** Record a row (see {@link RowInput}). */
  report(row: RowInput): void;
  /** Run `cleanup` when the scenario ends, even when it fails (last registered, first run). */
  defer(cleanup: () => Promise<void> | void): void;
  /** `FileHistory.open` whose history the runner closes when the scenario ends. */
  open(options: FileHistoryOptions): Promise<FileHistory>;
}

/** A benchmark scenario: `name` is what `FH_BENCH_ONLY` matches; `run` reports rows. */
export interface Scenario {
  name: string;
  /** One line: what it measures. */
  description: string;
  run(context: BenchContext): Promise<void>;
}

const scenarios: Scenario[] = [];
const rows: Row[] = [];

/** Add a scenario; it runs in the order registered (the order of imports in `scenarios.ts`). */
export function registerScenario(scenario: Scenario): void {
  if (scenarios.some((known) => known.name === scenario.name)) throw new Error(`bench scenario ${scenario.name} is registered twice`);
  scenarios.push(scenario);
}

/** The median of a term's times (or the one figure given). */
function termMs(term: FloorTerm): number {
  return typeof term.times === 'number' ? term.times : median(term.times);
}

/** Turn a reported row into a printed one. */
export function evaluateRow(input: RowInput): Row {
  const fh = median(input.fh);
  const kind = input.kind ?? 'target';
  const floors = input.floors.map((term) => ({ name: term.name, ms: termMs(term), factor: term.factor ?? 1 }));
  const floor = floors.reduce((sum, term) => sum + term.ms, 0);
  const floorName = floors.length === 1 ? (floors[0]?.name ?? '') : floors.map((term) => `${term.name} ${term.ms.toFixed(1)}`).join(' + ');
  if (kind === 'faster') {
    const factor = floors[0]?.factor ?? 1;
    return { scenario: input.scenario, fh, floorName, floor, ratio: floor >= fh ? `${(floor / fh).toFixed(1)}× faster` : `${(fh / floor).toFixed(1)}× slower`, target: `≥ ${factor}× faster`, met: floor >= factor * fh, unit: input.unit ?? 'ms' };
  }
  const bound = floors.reduce((sum, term) => sum + term.factor * term.ms, 0);
  const target = kind === 'info' ? 'info' : `≤ ${floors.map((term) => `${term.factor}×${floors.length === 1 ? ' floor' : ` ${term.name}`}`).join(' + ')}`;
  return { scenario: input.scenario, fh, floorName, floor, ratio: `${(fh / floor).toFixed(2)}×`, target, met: kind === 'info' ? undefined : fh <= bound, unit: input.unit ?? 'ms' };
}

/** The scenarios chosen by the command line's names (or `FH_BENCH_ONLY`); all when none are named. */
function chosen(arguments_: readonly string[]): Scenario[] {
  const names = [...arguments_, ...(process.env.FH_BENCH_ONLY ?? '').split(',')].map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) return scenarios;
  const picked = scenarios.filter((scenario) => names.some((name) => scenario.name.startsWith(name)));
  if (picked.length === 0) throw new Error(`no bench scenario matches ${names.join(', ')}; known: ${scenarios.map((scenario) => scenario.name).join(', ')}`);
  return picked;
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** Run one scenario in fresh folders, closing what it opened, whatever happens. */
async function runScenario(scenario: Scenario): Promise<void> {
  const folders = await createFolders();
  const cleanups: Array<() => Promise<void> | void> = [];
  const context: BenchContext = {
    folders,
    log: (message) => log(`[${scenario.name}] ${message}`),
    report: (input) => {
      const row = evaluateRow(input);
      rows.push(row);
      log(`[${scenario.name}] ${row.scenario}: ${row.fh.toFixed(1)} ${row.unit} vs ${row.floor.toFixed(1)} ${row.unit} (${row.ratio}) ${row.met === undefined ? '' : row.met ? 'met' : 'MISSED'}`);
    },
    defer: (cleanup) => {
      cleanups.push(cleanup);
    },
    open: async (options) => {
      const history = await FileHistory.open(options);
      cleanups.push(() => history.close());
      return history;
    },
  };
  try {
    await scenario.run(context);
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        log(`[${scenario.name}] cleanup failed: ${(error as Error).message}`);
      }
    }
    await removeFolders(folders);
  }
}

/** Run the chosen scenarios (see the module comment), then print the table. Exit code 1 when one failed. */
export async function runBench(arguments_: readonly string[]): Promise<void> {
  const started = Date.now();
  const failed: string[] = [];
  for (const scenario of chosen(arguments_)) {
    log(`${scenario.name}: ${scenario.description}`);
    try {
      await runScenario(scenario);
    } catch (error) {
      failed.push(scenario.name);
      log(`${scenario.name} failed: ${(error as Error).stack ?? String(error)}`);
    }
  }
  print(Date.now() - started);
  if (process.env.FH_BENCH_JSON !== undefined && process.env.FH_BENCH_JSON !== '') await writeFile(process.env.FH_BENCH_JSON, `${JSON.stringify(rows, null, 2)}\n`);
  if (failed.length > 0) {
    console.log(`failed scenarios: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}

function print(elapsedMs: number): void {
  const { version } = process;
  console.log(`fh benchmark — Node ${version}, ${cpus().length} cores, in ${process.env.FH_BENCH_DIR ?? tmpdir()}, concurrency ${DEFAULT_CONCURRENCY}, medians of interleaved rounds (${(elapsedMs / 1000).toFixed(0)} s)`);
  const header = ['scenario', 'fh', 'floor', 'floor figure', 'ratio', 'target', ''];
  const lines = rows.map((row) => [
    row.scenario,
    `${row.fh.toFixed(3)} ${row.unit}`,
    row.floorName,
    `${row.floor.toFixed(3)} ${row.unit}`,
    row.ratio,
    row.target,
    row.met === undefined ? '' : row.met ? 'met' : 'MISSED',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] as string).length)));
  for (const line of [header, ...lines]) console.log(line.map((cell, column) => cell.padEnd(widths[column] as number)).join('  ').trimEnd());
}

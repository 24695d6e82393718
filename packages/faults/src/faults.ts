/**
 * `npm run faults`: the whole fault suite at full size, printed as one table (trials, violations,
 * bytes lost). Every crash point of trackEdit, makeSnapshot, rewind and undo (killed process and
 * power loss, with the interrupted-undo invariant checked too); 100 SIGKILLs at seeded random
 * moments of each of `fh rewind` and `fh undo`; 18 rounds of the symlink-swap race; 4 full-disk
 * and 8 injected-EIO rewinds; 220 concurrent hooks. `FH_FAULTS_SCALE=0.2` runs a fifth of the
 * real-process trials. `FH_FAULTS_ONLY=<words>` runs only the suites whose name contains one of
 * the comma-separated words (`FH_FAULTS_ONLY=hooks`, `=crash,rewind`). Exits 1 when any invariant broke.
 */
import { OPERATIONS, runCrashPoints } from './crash-scenarios.js';
import { concurrentHookTrials, fullDiskTrials, ioErrorTrials, killTrials, symlinkRaceTrials, type TrialReport } from './disk-trials.js';

const scale = Number(process.env.FH_FAULTS_SCALE ?? '1');
const scaled = (count: number) => Math.max(1, Math.round(count * scale));

interface Line {
  suite: string;
  trials: number;
  violations: number;
  bytesLost: number;
  note: string;
}

const only = (process.env.FH_FAULTS_ONLY ?? '').split(',').map((word) => word.trim()).filter((word) => word !== '');
const wanted = (suite: string) => only.length === 0 || only.some((word) => suite.includes(word));

const lines: Line[] = [];
const log = (message: string) => process.stderr.write(`${message}\n`);

for (const operation of OPERATIONS) {
  if (!wanted(`crash points: ${operation.name}`)) continue;
  log(`crash points: ${operation.name} ...`);
  const report = await runCrashPoints(operation, { checkInterruptedUndo: true });
  const kinds = [...new Set(report.violations.map((violation) => violation.invariant))];
  lines.push({ suite: `crash points: ${operation.name} (${report.points} points × kill, power loss)`, trials: report.trials, violations: report.violations.length, bytesLost: report.bytesLost, note: kinds.join('; ') });
}

const add = (report: TrialReport) => {
  const kinds = [...new Set(report.violations.map((violation) => violation.invariant))];
  const outcomes = Object.entries(report.outcomes ?? {}).map(([outcome, count]) => `${count}× ${outcome}`);
  lines.push({ suite: report.name, trials: report.trials, violations: report.violations.length, bytesLost: report.bytesLost, note: report.skipped !== undefined ? `skipped: ${report.skipped}` : [...kinds, ...outcomes].join('; ') });
};
const trials: [string, () => Promise<TrialReport>][] = [
  ['SIGKILL during rewind', () => killTrials('rewind', scaled(100), 1, { files: 80 })],
  ['SIGKILL during undo', () => killTrials('undo', scaled(100), 2, { files: 80 })],
  ['symlink swap race', () => symlinkRaceTrials(scaled(18))],
  ['full disk', () => fullDiskTrials(scaled(4))],
  ['EIO from fsync', () => ioErrorTrials(scaled(8), 5)],
  ['concurrent hooks', () => concurrentHookTrials(scaled(220))],
];
for (const [suite, trial] of trials) {
  if (!wanted(suite)) continue;
  log(`${suite} ...`);
  add(await trial());
}

const header = ['suite', 'trials', 'violations', 'bytes lost', 'notes'];
const rows = lines.map((line) => [line.suite, String(line.trials), String(line.violations), String(line.bytesLost), line.note]);
const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (column === 4 ? 0 : (row[column] as string).length))));
const format = (row: readonly string[]) => row.map((cell, column) => (column === 4 ? cell : cell.padEnd(widths[column] as number))).join('  ');
console.log(format(header));
for (const row of rows) console.log(format(row));
const total = lines.reduce((sum, line) => ({ trials: sum.trials + line.trials, violations: sum.violations + line.violations, bytes: sum.bytes + line.bytesLost }), { trials: 0, violations: 0, bytes: 0 });
console.log(format(['total', String(total.trials), String(total.violations), String(total.bytes), '']));
process.exitCode = total.violations > 0 ? 1 : 0;

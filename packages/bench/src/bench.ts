/**
 * `npm run bench`: fh against the bare floor and a shadow git repository, side by side in one run.
 *
 * - trackEdit of a 4 KiB file vs the floor: stat + copyFile.
 * - makeSnapshot with 1,000 tracked / 10 changed files vs the floor: the same 1,000 stats and 10
 *   copies in a plain loop with the same concurrency (16 workers).
 * - rewind with 1,000 tracked / 10 differing files vs the floor: 1,000 lstats and 10 copies back,
 *   in the same loop.
 * - makeSnapshot vs `git add -A && git commit` in a shadow repository of the 10,000-file workspace,
 *   with the same 10 edits before each round.
 * - makeSnapshot and rewind (1,000 tracked / 10 changed) with `@fh/store-s3` against s3rver on
 *   127.0.0.1, as ratios to the same operations on `@fh/store-fs` (`s3-figures.ts`).
 *
 * fh runs with `@fh/store-fs` and its default options (durable session log, 2 s timestamp
 * granularity); rows marked "no log" open the history with `log: false`, to show what the
 * durable record costs. Rows marked "info" have no target: they split a figure up (the store's
 * own share; the cost of restoring by temp file + rename, which issue 2 requires, against the
 * floor's plain overwrite; floors that stat synchronously, as fh does, to show fh's own overhead
 * over the fastest plain loop; every workspace file tracked). Rounds are interleaved (every contender
 * once per round, rotating order) and medians are reported. Each floor creates its files in the
 * folder of the fh contender it is compared with (see `createFolders`). Targets: ≤ 1.5× the floor; ≥ 3× faster than shadow git.
 * `FH_BENCH_DIR` picks the folder the run works in (default: the system temp folder), e.g.
 * `/dev/shm` to take the disk out and see fh's own overhead.
 */
import { execFile } from 'node:child_process';
import { constants, lstatSync, statSync } from 'node:fs';
import { copyFile, lstat, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_CONCURRENCY, DEFAULT_TIMESTAMP_GRANULARITY_MS, FileHistory, backupFileName, snapshotRecord, type FileHistorySnapshot } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { interleave, median, type Contender } from './measure.js';
import { measureS3 } from './s3-figures.js';
import { createFiles, createFolders, editFiles } from './workspace.js';

const run = promisify(execFile);
const WORKSPACE_FILES = 10_000;
const TRACKED_FILES = 1_000;
const CHANGED_FILES = 10;
const FILE_BYTES = 2048;
const ROUNDS = { trackEdit: 61, snapshot: 21, rewind: 21, git: 15 };

interface Row {
  scenario: string;
  fh: number;
  baselineName: string;
  baseline: number;
  ratio: string;
  target: string;
  /** Undefined for informational rows. */
  met: boolean | undefined;
}

const rows: Row[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** Record a row; `info` rows explain where time goes and have no target. */
function report(scenario: string, fhTimes: number[], baselineName: string, baselineTimes: number[], kind: 'floor' | 'git' | 'info'): void {
  const fh = median(fhTimes);
  const baseline = median(baselineTimes);
  const met = kind === 'floor' ? fh <= 1.5 * baseline : kind === 'git' ? baseline >= 3 * fh : undefined;
  const target = kind === 'floor' ? '≤ 1.5× floor' : kind === 'git' ? '≥ 3× faster' : 'info';
  const ratio = kind === 'git' || baselineName.startsWith('git') ? (baseline >= fh ? `${(baseline / fh).toFixed(1)}× faster` : `${(fh / baseline).toFixed(1)}× slower`) : `${(fh / baseline).toFixed(2)}×`;
  rows.push({ scenario, fh, baselineName, baseline, target, met, ratio });
}

/** The floor's loop: `DEFAULT_CONCURRENCY` workers, each taking the next item until none are left. */
async function plainLoop<Item>(items: readonly Item[], work: (item: Item) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next] as Item;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: DEFAULT_CONCURRENCY }, worker));
}

/** Durable append of `bytes` to a file (what a session log append costs: write + fsync). */
async function durableAppend(path: string, bytes: string): Promise<void> {
  const handle = await open(path, 'a');
  try {
    await handle.write(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const folders = await createFolders();
  const store = new FsBackupStore({ root: folders.store });
  try {
    log(`creating ${WORKSPACE_FILES} files of ${FILE_BYTES} bytes ...`);
    const files = await createFiles(folders.project, WORKSPACE_FILES, FILE_BYTES);
    const tracked = files.filter((_, index) => index % (WORKSPACE_FILES / TRACKED_FILES) === 0);
    const hot = tracked.filter((_, index) => index % (TRACKED_FILES / CHANGED_FILES) === 0);
    const absolute = (path: string) => join(folders.project, path);

    // trackEdit of a 4 KiB file: each round a file not tracked yet, in one session per contender (a
    // turn of new edits). Each floor copies into the session folder of the contender it is compared
    // with, so both create their files in the same folder (see createFolders on why that matters).
    log('trackEdit ...');
    const SLOTS = 6;
    const trackFolder = join(folders.project, 'track');
    await createFiles(trackFolder, (ROUNDS.trackEdit + 1) * SLOTS, 4096);
    const trackFile = (round: number, slot: number) => join(trackFolder, `module-${String((round * SLOTS + slot) % 100).padStart(2, '0')}/file-${round * SLOTS + slot}.ts`);
    const sessionFolder = (sessionId: string) => join(folders.store, 'file-history', sessionId);
    const trackContender = async (name: string, slot: number, withLog: boolean): Promise<Contender> => {
      const history = await FileHistory.open({ projectRoot: folders.project, sessionId: `track-${slot}`, store, ...(withLog ? {} : { log: false }) });
      await history.makeSnapshot('turn');
      await history.trackEdit(trackFile(ROUNDS.trackEdit, slot));
      return {
        name,
        run: async (round) => {
          await history.trackEdit(trackFile(round, slot));
        },
      };
    };
    const floorContender = (name: string, slot: number, sessionId: string, record: boolean): Contender => ({
      name,
      run: async (round) => {
        const source = trackFile(round, slot);
        await stat(source);
        await copyFile(source, join(sessionFolder(sessionId), `floor-${backupFileName(source, 1)}`), constants.COPYFILE_FICLONE);
        if (record) await durableAppend(join(folders.store, 'sessions', 'bench-floor.jsonl'), recordBytes);
      },
    });
    await store.putBackup('put-only', 'warm-up@v1', trackFile(ROUNDS.trackEdit, 2));
    const recordBytes = `${JSON.stringify({ type: 'file-history-snapshot', messageId: 'turn', snapshot: { messageId: 'turn', trackedFileBackups: { 'track/module-00/file-0.ts': { backupFileName: '0123456789abcdef@v1', version: 1, backupTime: new Date(), size: 4096, mode: 0o644 } }, timestamp: new Date() }, isSnapshotUpdate: true })}\n`;
    const trackTimes = await interleave(ROUNDS.trackEdit, [
      await trackContender('fh', 0, true),
      await trackContender('fh no log', 1, false),
      {
        name: 'putBackup',
        run: async (round) => {
          const source = trackFile(round, 2);
          await store.putBackup('put-only', backupFileName(source, 1), source);
        },
      },
      floorContender('floor + durable record', 3, 'track-0', true),
      floorContender('floor', 4, 'track-1', false),
      floorContender('floor for putBackup', 5, 'put-only', false),
    ]);
    report('trackEdit, 4 KiB file (no log)', trackTimes.get('fh no log') ?? [], 'floor: stat + copyFile', trackTimes.get('floor') ?? [], 'floor');
    report('trackEdit, 4 KiB file (durable log)', trackTimes.get('fh') ?? [], 'floor + fsync\'d record', trackTimes.get('floor + durable record') ?? [], 'floor');
    report('  of which FsBackupStore.putBackup alone', trackTimes.get('putBackup') ?? [], 'floor: stat + copyFile', trackTimes.get('floor for putBackup') ?? [], 'info');

    // Sessions tracking 1,000 files (and one tracking all 10,000), settled past the timestamp granularity.
    log(`tracking ${TRACKED_FILES} files in two sessions and ${WORKSPACE_FILES} in a third ...`);
    const open = async (sessionId: string, paths: readonly string[], withLog: boolean) => {
      const history = await FileHistory.open({ projectRoot: folders.project, sessionId, store, ...(withLog ? {} : { log: false }) });
      await history.makeSnapshot('setup-0');
      await Promise.all(paths.map((path) => history.trackEdit(path)));
      await history.makeSnapshot('setup-1');
      return history;
    };
    const snapshotHistory = await open('snapshot', tracked, true);
    const snapshotNoLog = await open('snapshot-no-log', tracked, false);
    const rewindHistory = await open('rewind', tracked, true);
    const everything = await open('everything', files, true);
    const floorBackups = join(folders.floor, 'rewind-backups');
    await run('mkdir', ['-p', floorBackups]);
    await Promise.all(hot.map((path) => copyFile(absolute(path), join(floorBackups, backupFileName(absolute(path), 1)))));
    await sleep(DEFAULT_TIMESTAMP_GRANULARITY_MS + 200);
    for (const history of [snapshotHistory, snapshotNoLog, everything]) await history.makeSnapshot('setup-2');

    log('makeSnapshot ...');
    const snapshotContender = (name: string, history: FileHistory, section: string): Contender => ({
      name,
      prepare: (round) => editFiles(folders.project, hot, round, name),
      run: async (round) => {
        await history.makeSnapshot(`${section}-turn-${round}`);
      },
    });
    const snapshotFloor: Contender = {
      name: 'floor',
      prepare: (round) => editFiles(folders.project, hot, round, 'floor'),
      run: async (round) => {
        const changed = new Set(hot);
        await plainLoop(tracked, async (path) => {
          await stat(absolute(path));
          if (changed.has(path)) await copyFile(absolute(path), join(sessionFolder('snapshot'), `floor-${backupFileName(absolute(path), round + 2)}`), constants.COPYFILE_FICLONE);
        });
      },
    };
    const snapshotRecordBytes = `${JSON.stringify(snapshotRecord(snapshotHistory.state.snapshots.at(-1) as FileHistorySnapshot, false))}\n`;
    const durableSnapshotFloor: Contender = {
      name: 'floor + durable record',
      prepare: snapshotFloor.prepare,
      run: async (round) => {
        await snapshotFloor.run(round);
        await durableAppend(join(folders.store, 'sessions', 'bench-floor-snapshots.jsonl'), snapshotRecordBytes);
      },
    };
    const syncFloor: Contender = {
      name: 'sync floor',
      prepare: (round) => editFiles(folders.project, hot, round, 'sync floor'),
      run: async (round) => {
        const changed = new Set(hot);
        await plainLoop(tracked, async (path) => {
          statSync(absolute(path));
          if (changed.has(path)) await copyFile(absolute(path), join(sessionFolder('snapshot-no-log'), `floor-${backupFileName(absolute(path), round + 2)}`), constants.COPYFILE_FICLONE);
        });
      },
    };
    const snapshotTimes = await interleave(ROUNDS.snapshot, [
      snapshotContender('fh', snapshotHistory, 'snapshot'),
      snapshotContender('fh no log', snapshotNoLog, 'snapshot'),
      snapshotFloor,
      durableSnapshotFloor,
      syncFloor,
    ]);
    report(`makeSnapshot, ${TRACKED_FILES} tracked / ${CHANGED_FILES} changed (no log)`, snapshotTimes.get('fh no log') ?? [], 'floor: stats + copies', snapshotTimes.get('floor') ?? [], 'floor');
    report(`makeSnapshot, ${TRACKED_FILES} tracked / ${CHANGED_FILES} changed (durable log)`, snapshotTimes.get('fh') ?? [], 'floor + fsync\'d record', snapshotTimes.get('floor + durable record') ?? [], 'floor');
    report('  no log, against a floor that stats synchronously', snapshotTimes.get('fh no log') ?? [], 'sync floor', snapshotTimes.get('sync floor') ?? [], 'info');

    log('rewind ...');
    await rewindHistory.makeSnapshot('target');
    await Promise.all(hot.map((path) => copyFile(absolute(path), join(floorBackups, backupFileName(absolute(path), 1)))));
    const rewindFloor = (name: string, restore: (backup: string, target: string, round: number) => Promise<void>, sync = false): Contender => ({
      name,
      prepare: (round) => editFiles(folders.project, hot, round, 'rewind'),
      run: async (round) => {
        const changed = new Set(hot);
        await plainLoop(tracked, async (path) => {
          if (sync) lstatSync(absolute(path));
          else await lstat(absolute(path));
          if (changed.has(path)) await restore(join(floorBackups, backupFileName(absolute(path), 1)), absolute(path), round);
        });
      },
    });
    const safeRestore = async (backup: string, target: string, round: number) => {
      const temporary = `${target}.${round}.tmp`;
      await copyFile(backup, temporary, constants.COPYFILE_FICLONE);
      await rename(temporary, target);
    };
    const rewindTimes = await interleave(ROUNDS.rewind, [
      {
        name: 'fh',
        prepare: (round) => editFiles(folders.project, hot, round, 'rewind'),
        run: async () => {
          const result = await rewindHistory.rewind('target');
          if (result.restored.length !== CHANGED_FILES) throw new Error(`rewind restored ${result.restored.length} files, expected ${CHANGED_FILES}`);
        },
      },
      rewindFloor('floor', (backup, target) => copyFile(backup, target)),
      rewindFloor('safe floor', safeRestore),
      rewindFloor('sync safe floor', safeRestore, true),
    ]);
    report(`rewind, ${TRACKED_FILES} tracked / ${CHANGED_FILES} differing`, rewindTimes.get('fh') ?? [], 'floor: lstats + copies', rewindTimes.get('floor') ?? [], 'floor');
    report('  same, against restores by temp file + rename', rewindTimes.get('fh') ?? [], 'safe floor', rewindTimes.get('safe floor') ?? [], 'info');
    report('  same, against that floor with sync lstats', rewindTimes.get('fh') ?? [], 'sync safe floor', rewindTimes.get('sync safe floor') ?? [], 'info');

    log('shadow git ...');
    const gitEnv = {
      ...process.env,
      GIT_DIR: join(folders.base, 'shadow.git'),
      GIT_WORK_TREE: folders.project,
      GIT_AUTHOR_NAME: 'bench',
      GIT_AUTHOR_EMAIL: 'bench@example.com',
      GIT_COMMITTER_NAME: 'bench',
      GIT_COMMITTER_EMAIL: 'bench@example.com',
    };
    const git = (...args: string[]) => run('git', args, { env: gitEnv, maxBuffer: 64 * 1024 * 1024 });
    await git('init', '-q');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'setup');
    const gitTimes = await interleave(ROUNDS.git, [
      snapshotContender('fh', snapshotHistory, 'git'),
      snapshotContender('fh tracking all', everything, 'git'),
      {
        name: 'git',
        prepare: (round) => editFiles(folders.project, hot, round, 'git'),
        run: async (round) => {
          await git('add', '-A');
          await git('commit', '-q', '-m', `turn ${round}`);
        },
      },
    ]);
    report(`makeSnapshot, ${TRACKED_FILES} of ${WORKSPACE_FILES} files tracked, vs shadow git`, gitTimes.get('fh') ?? [], 'git add -A && git commit', gitTimes.get('git') ?? [], 'git');
    report(`makeSnapshot, all ${WORKSPACE_FILES} files tracked (worst case)`, gitTimes.get('fh tracking all') ?? [], 'git add -A && git commit', gitTimes.get('git') ?? [], 'info');

    for (const history of [snapshotHistory, snapshotNoLog, rewindHistory, everything]) await history.close();

    log('S3 (s3rver on 127.0.0.1) ...');
    const s3 = await measureS3({
      project: folders.project,
      tracked,
      changed: hot,
      fsStore: store,
      rounds: ROUNDS.snapshot,
      settle: async () => {
        await sleep(DEFAULT_TIMESTAMP_GRANULARITY_MS + 200);
      },
    });
    report(`makeSnapshot, ${TRACKED_FILES} tracked / ${CHANGED_FILES} changed, on S3 (s3rver)`, s3.snapshot.get('s3') ?? [], 'same on FsBackupStore', s3.snapshot.get('fs') ?? [], 'info');
    report(`rewind, ${TRACKED_FILES} tracked / ${CHANGED_FILES} differing, on S3 (s3rver)`, s3.rewind.get('s3') ?? [], 'same on FsBackupStore', s3.rewind.get('fs') ?? [], 'info');
    await writeFile(join(folders.floor, 'done'), '');
  } finally {
    await rm(folders.base, { recursive: true, force: true });
  }
  print(Date.now() - started);
}

function print(elapsedMs: number): void {
  const { version } = process;
  console.log(`fh benchmark — Node ${version}, ${cpus().length} cores, in ${process.env.FH_BENCH_DIR ?? tmpdir()}, concurrency ${DEFAULT_CONCURRENCY}, medians of interleaved rounds (${(elapsedMs / 1000).toFixed(0)} s)`);
  const header = ['scenario', 'fh ms', 'baseline', 'baseline ms', 'ratio', 'target', ''];
  const lines = rows.map((row) => [
    row.scenario,
    row.fh.toFixed(3),
    row.baselineName,
    row.baseline.toFixed(3),
    row.ratio,
    row.target,
    row.met === undefined ? '' : row.met ? 'met' : 'MISSED',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] as string).length)));
  for (const line of [header, ...lines]) console.log(line.map((cell, column) => cell.padEnd(widths[column] as number)).join('  ').trimEnd());
}

await main();

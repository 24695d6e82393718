/**
 * The `core` scenario of `npm run bench`: fh against the bare floor and a shadow git repository,
 * side by side in one run.
 *
 * - trackEdit of a 4 KiB file vs the floor: stat + copy into place (temp, sha256, link), the work
 *   of a backup that records its content hash (issue 10); durable, with the fsyncs and the record.
 * - makeSnapshot with 1,000 tracked / 10 changed files vs the floor: the same 1,000 stats and 10
 *   copies in a plain loop with the same concurrency (16 workers). fh stats synchronously, so the
 *   target's floor does too (an asynchronous floor is slower and would flatter fh).
 * - rewind with 1,000 tracked / 10 differing files vs the floor: 1,000 synchronous lstats and 10
 *   restores by temp file + rename (as fh must restore), in the same loop.
 * - makeSnapshot vs `git add -A && git commit` in a shadow repository of the 10,000-file workspace,
 *   with the same 10 edits before each round.
 * - makeSnapshot and rewind (1,000 tracked / 10 changed) with `@fh/store-s3` against s3rver on
 *   127.0.0.1, as ratios to the same operations on `@fh/store-fs` (`s3-figures.ts`).
 *
 * fh runs with `@fh/store-fs` and its default options (durable session log, 2 s timestamp
 * granularity); rows marked "no log" open the history with `log: false`, to show what the
 * durable record costs. Rows marked "info" have no target: they split a figure up (the store's
 * own share; the cost of restoring by temp file + rename, which issue 2 requires, against the
 * floor's plain overwrite; floors that stat asynchronously; every workspace file tracked). Rounds are interleaved (every contender
 * once per round, rotating order) and medians are reported. Each floor creates its files in the
 * folder of the fh contender it is compared with (see `createFolders`). Targets: ≤ 1.5× the floor; ≥ 3× faster than shadow git.
 * `FH_BENCH_DIR` picks the folder the run works in (default: the system temp folder), e.g.
 * `/dev/shm` to take the disk out and see fh's own overhead.
 */
import { execFile } from 'node:child_process';
import { constants, lstatSync, statSync } from 'node:fs';
import { copyFile, lstat, rename, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_CONCURRENCY, DEFAULT_TIMESTAMP_GRANULARITY_MS, backupFileName, snapshotRecord, type FileHistory, type FileHistorySnapshot } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { copyIntoPlace, durableAppend, durableTrackEditFloor, fsyncAll, hashCopy, settled } from './floors.js';
import { interleave, type Contender } from './measure.js';
import { registerScenario, type BenchContext } from './runner.js';
import { measureS3 } from './s3-figures.js';
import { createFiles, editFiles } from './workspace.js';

const execute = promisify(execFile);
const WORKSPACE_FILES = 10_000;
const TRACKED_FILES = 1_000;
const CHANGED_FILES = 10;
const FILE_BYTES = 2048;
const ROUNDS = { trackEdit: 61, snapshot: 21, rewind: 21, git: 15 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Record a row against one floor: `floor` ≤ 1.5× it, `git` ≥ 3× faster than it, `info` no target. */
function reportAgainst(context: BenchContext, scenario: string, fhTimes: number[], baselineName: string, baselineTimes: number[], kind: 'floor' | 'git' | 'info'): void {
  context.report({
    scenario,
    fh: fhTimes,
    floors: [{ name: baselineName, times: baselineTimes, factor: kind === 'git' ? 3 : 1.5 }],
    kind: kind === 'floor' ? 'target' : kind === 'git' ? 'faster' : 'info',
  });
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


async function run(context: BenchContext): Promise<void> {
  const { folders, log } = context;
  const report = (scenario: string, fhTimes: number[], baselineName: string, baselineTimes: number[], kind: 'floor' | 'git' | 'info') =>
    reportAgainst(context, scenario, fhTimes, baselineName, baselineTimes, kind);
  const store = new FsBackupStore({ root: folders.store });
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
    const history = await context.open({ projectRoot: folders.project, sessionId: `track-${slot}`, store, ...(withLog ? {} : { log: false }) });
    await history.makeSnapshot('turn');
    await history.trackEdit(trackFile(ROUNDS.trackEdit, slot));
    return {
      name,
      run: async (round) => {
        await history.trackEdit(trackFile(round, slot));
      },
    };
  };
  // `hashed`: the copy is made as every backup is (temp, sha256 of its bytes, link into place).
  const floorContender = (name: string, slot: number, sessionId: string, record: boolean, hashed = false): Contender => ({
    name,
    run: async (round) => {
      const source = trackFile(round, slot);
      const backup = join(sessionFolder(sessionId), `floor-${backupFileName(source, 1)}`);
      await stat(source);
      if (hashed) await copyIntoPlace(source, backup);
      else await copyFile(source, backup, constants.COPYFILE_FICLONE);
      if (record) await durableAppend(join(folders.store, 'sessions', 'bench-floor.jsonl'), recordBytes);
    },
  });
  await store.putBackup('put-only', 'warm-up@v1', trackFile(ROUNDS.trackEdit, 2));
  const recordBytes = `${JSON.stringify({ type: 'file-history-snapshot', messageId: 'turn', snapshot: { messageId: 'turn', trackedFileBackups: { 'track/module-00/file-0.ts': { backupFileName: '0123456789abcdef@v1', version: 1, backupTime: new Date(), size: 4096, mode: 0o644 } }, timestamp: new Date() }, isSnapshotUpdate: true })}\n`;
  const trackTimes = await interleave(ROUNDS.trackEdit, settled([
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
    {
      name: 'durable floor',
      run: async (round) => {
        const source = trackFile(round, 3);
        await durableTrackEditFloor(source, join(sessionFolder('track-0'), `durable-${backupFileName(source, 1)}`), join(folders.store, 'sessions', 'bench-floor.jsonl'), recordBytes);
      },
    },
    floorContender('floor', 4, 'track-1', false, true),
    floorContender('floor for putBackup', 5, 'put-only', false, true),
  ]));;
  report('trackEdit, 4 KiB file (no log)', trackTimes.get('fh no log') ?? [], 'floor: stat + copy into place (temp, sha256, link)', trackTimes.get('floor') ?? [], 'floor');
  report('trackEdit, 4 KiB file (durable)', trackTimes.get('fh') ?? [], "stat + copy into place (temp, sha256, link) + fsync backup + folder + fsync'd record", trackTimes.get('durable floor') ?? [], 'floor');
  report('  same, against the floor without the backup fsyncs', trackTimes.get('fh') ?? [], "floor + fsync'd record", trackTimes.get('floor + durable record') ?? [], 'info');
  report('  of which FsBackupStore.putBackup alone', trackTimes.get('putBackup') ?? [], 'floor: stat + copy into place (temp, sha256, link)', trackTimes.get('floor for putBackup') ?? [], 'info');

  // Sessions tracking 1,000 files (and one tracking all 10,000), settled past the timestamp granularity.
  log(`tracking ${TRACKED_FILES} files in two sessions and ${WORKSPACE_FILES} in a third ...`);
  const open = async (sessionId: string, paths: readonly string[], withLog: boolean) => {
    const history = await context.open({ projectRoot: folders.project, sessionId, store, ...(withLog ? {} : { log: false }) });
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
  await execute('mkdir', ['-p', floorBackups]);
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
  const snapshotRecordBytes = `${JSON.stringify(snapshotRecord(snapshotHistory.state.snapshots.at(-1) as FileHistorySnapshot, false))}\n`;
  // fh stats tracked files synchronously (the workspace's statSync), so the targets' floors do too;
  // the asynchronous floor is shown for comparison. Each floor copies into the folder of the
  // session it is compared with.
  const snapshotFloor = (name: string, sync: boolean, sessionId: string, record: boolean, durable = false): Contender => ({
    name,
    prepare: (round) => editFiles(folders.project, hot, round, name),
    run: async (round) => {
      const changed = new Set(hot);
      await plainLoop(tracked, async (path) => {
        if (sync) statSync(absolute(path));
        else await stat(absolute(path));
        if (!changed.has(path)) return;
        const copy = join(sessionFolder(sessionId), `${durable ? 'durable' : 'floor'}-${backupFileName(absolute(path), round + 2)}`);
        if (durable) await copyIntoPlace(absolute(path), copy);
        else await copyFile(absolute(path), copy, constants.COPYFILE_FICLONE);
      });
      if (durable) {
        // Issue 10: each new backup hashed (above), its bytes and folder entry durable before the record, batched
        // as fh batches them (write all, fsync all, the folder once, then the record).
        await fsyncAll(hot.map((path) => join(sessionFolder(sessionId), `durable-${backupFileName(absolute(path), round + 2)}`)));
        await fsyncAll([sessionFolder(sessionId)]);
      }
      if (record) await durableAppend(join(folders.store, 'sessions', 'bench-floor-snapshots.jsonl'), snapshotRecordBytes);
    },
  });
  const snapshotTimes = await interleave(ROUNDS.snapshot, settled([
    snapshotContender('fh', snapshotHistory, 'snapshot'),
    snapshotContender('fh no log', snapshotNoLog, 'snapshot'),
    snapshotFloor('sync floor', true, 'snapshot-no-log', false),
    snapshotFloor('sync floor + durable record', true, 'snapshot', true),
    snapshotFloor('durable sync floor', true, 'snapshot', true, true),
    snapshotFloor('async floor', false, 'snapshot-no-log', false),
  ]));;
  report(`makeSnapshot, ${TRACKED_FILES} tracked / ${CHANGED_FILES} changed (no log)`, snapshotTimes.get('fh no log') ?? [], 'sync floor: sync stats + copies', snapshotTimes.get('sync floor') ?? [], 'floor');
  report(`makeSnapshot, ${TRACKED_FILES} tracked / ${CHANGED_FILES} changed (durable)`, snapshotTimes.get('fh') ?? [], "sync floor + copies into place (temp, sha256, link) + fsyncs + folder + fsync'd record", snapshotTimes.get('durable sync floor') ?? [], 'floor');
  report('  same, against the floor without the backup fsyncs', snapshotTimes.get('fh') ?? [], "sync floor + fsync'd record", snapshotTimes.get('sync floor + durable record') ?? [], 'info');
  report('  no log, against a floor that stats asynchronously', snapshotTimes.get('fh no log') ?? [], 'async floor: stats + copies', snapshotTimes.get('async floor') ?? [], 'info');

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
  // The durable floor (issue 10): FileHistory.rewind (no undo point: RewindSession journals one)
  // restores each file by temp file, checks the copy's sha256 against the one its backup recorded,
  // fsyncs and renames it, and fsyncs each changed folder after.
  const durableRewindFloor: Contender = {
    name: 'durable floor',
    prepare: (round) => editFiles(folders.project, hot, round, 'rewind'),
    run: async (round) => {
      const changed = new Set(hot);
      const differing: string[] = [];
      await plainLoop(tracked, async (path) => {
        lstatSync(absolute(path));
        if (!changed.has(path)) return;
        differing.push(path);
        const temporary = `${absolute(path)}.${round}.tmp`;
        await copyFile(join(floorBackups, backupFileName(absolute(path), 1)), temporary, constants.COPYFILE_FICLONE);
        hashCopy(temporary);
        await fsyncAll([temporary]);
        await rename(temporary, absolute(path));
      });
      await fsyncAll([...new Set(differing.map((path) => dirname(absolute(path))))]);
    },
  };
  const rewindTimes = await interleave(ROUNDS.rewind, settled([
    durableRewindFloor,
    {
      name: 'fh',
      prepare: (round) => editFiles(folders.project, hot, round, 'rewind'),
      run: async () => {
        const result = await rewindHistory.rewind('target');
        if (result.restored.length !== CHANGED_FILES) throw new Error(`rewind restored ${result.restored.length} files, expected ${CHANGED_FILES}`);
      },
    },
    rewindFloor('sync floor', (backup, target) => copyFile(backup, target), true),
    rewindFloor('async floor', (backup, target) => copyFile(backup, target)),
    rewindFloor('safe floor', safeRestore),
    rewindFloor('sync safe floor', safeRestore, true),
  ]));;
  report(`rewind, ${TRACKED_FILES} tracked / ${CHANGED_FILES} differing (durable)`, rewindTimes.get('fh') ?? [], 'sync lstats + restores by temp file + sha256 + fsync + rename + folder fsyncs', rewindTimes.get('durable floor') ?? [], 'floor');
  report('  same, against restores by temp file + rename without fsyncs (sync lstats)', rewindTimes.get('fh') ?? [], 'sync lstats + restores by temp file + rename', rewindTimes.get('sync safe floor') ?? [], 'info');
  report('  same, against plain overwrites (sync lstats)', rewindTimes.get('fh') ?? [], 'sync lstats + copies', rewindTimes.get('sync floor') ?? [], 'info');
  report('  same, against plain overwrites (async lstats)', rewindTimes.get('fh') ?? [], 'async lstats + copies', rewindTimes.get('async floor') ?? [], 'info');
  report('  same, against temp file + rename (async lstats)', rewindTimes.get('fh') ?? [], 'async lstats + temp file + rename', rewindTimes.get('safe floor') ?? [], 'info');

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
  const git = (...args: string[]) => execute('git', args, { env: gitEnv, maxBuffer: 64 * 1024 * 1024 });
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
}

registerScenario({
  name: 'core',
  description: 'trackEdit, makeSnapshot, rewind against the bare floor; makeSnapshot against shadow git; makeSnapshot and rewind on S3',
  run,
});

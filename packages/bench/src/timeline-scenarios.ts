/**
 * The `timeline` scenario of `npm run bench` (issue 11): listing a session's rewind timeline costs
 * what its records cost, not what its backups hold. A session with 2,000 tracked files and 20
 * timeline points (rewinds back and forth between two checkpoints, each changing every file) is
 * built once; then, in interleaved rounds:
 *
 * - `undo --list` in the process (`readTimeline` + `timelineRows`: what `fh undo --list` computes)
 *   ≤ 1.5× the floor: reading the session log's records (`SessionLog.read`);
 * - `fh undo --list --json` as a process, for information, against `node -e 0` plus the same read.
 *
 * `FH_BENCH_TIMELINE_FILES` and `FH_BENCH_TIMELINE_POINTS` change the sizes.
 */
import { join } from 'node:path';
import { FileHistory, readTimeline, RewindSession, timelineRows } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { cliPath, nodeStart, timedChild } from './floors.js';
import { interleave } from './measure.js';
import { registerScenario, type BenchContext } from './runner.js';
import { createFiles, editFiles } from './workspace.js';

const ROUNDS = 15;
const PROCESS_ROUNDS = 7;

function sized(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
}

async function run(context: BenchContext): Promise<void> {
  const { folders, log } = context;
  const files = sized('FH_BENCH_TIMELINE_FILES', 2000);
  const points = sized('FH_BENCH_TIMELINE_POINTS', 20);
  const store = new FsBackupStore({ root: folders.store });
  const sessionId = 'timeline';
  log(`building a session: ${files} tracked files, ${points} timeline points ...`);
  const paths = await createFiles(folders.project, files, 1024);
  const history = await FileHistory.open({ projectRoot: folders.project, sessionId, store, env: {} });
  await history.makeSnapshot('t1');
  for (let start = 0; start < paths.length; start += 500) await Promise.all(paths.slice(start, start + 500).map((path) => history.trackEdit(join(folders.project, path))));
  await editFiles(folders.project, paths, 1, 'timeline');
  await history.makeSnapshot('t2');
  const session = new RewindSession({ history });
  for (let point = 0; point < points; point += 1) {
    const result = await session.restore({ messageId: point % 2 === 0 ? 't1' : 't2', mode: 'code' });
    if (result.code?.failed.length !== 0 || result.undoPoint === null) throw new Error(`rewind ${point + 1} did not save a point of every file`);
  }
  await history.close();

  const undo = { store, sessionId };
  const listed = timelineRows(await readTimeline(undo));
  if (listed.length !== points || listed.some((row) => row.files !== files || row.insertions === null)) throw new Error('the timeline does not list every point with its counts');
  const environment = { ...process.env, HOME: folders.base };
  const args = [cliPath, '--store', `fs:${folders.store}`, '--project', folders.project, '--session', sessionId, '--json', 'undo', '--list'];
  const times = await interleave(ROUNDS, [
    { name: 'list', run: async () => void timelineRows(await readTimeline(undo)) },
    { name: 'read', run: async () => void (await store.sessionLog(sessionId).read()) },
  ]);
  const processTimes = await interleave(PROCESS_ROUNDS, [
    {
      name: 'fh',
      run: async () => {
        const child = await timedChild(process.execPath, args, '', environment, folders.project);
        if (child.exitCode !== 0) throw new Error(`fh undo --list failed: ${child.stderr}`);
      },
    },
    { name: 'node', run: async () => void (await nodeStart('')) },
    { name: 'read', run: async () => void (await store.sessionLog(sessionId).read()) },
  ]);
  const scale = `${files.toLocaleString('en')} files × ${points} points`;
  context.report({ scenario: `undo --list (timeline rows), ${scale}`, fh: times.get('list') ?? [], floors: [{ name: 'reading the log records', times: times.get('read') ?? [], factor: 1.5 }] });
  context.report({
    scenario: `fh undo --list --json process, ${scale}`,
    fh: processTimes.get('fh') ?? [],
    floors: [
      { name: 'node -e 0', times: processTimes.get('node') ?? [] },
      { name: 'reading the log records', times: processTimes.get('read') ?? [] },
    ],
    kind: 'info',
  });
}

registerScenario({ name: 'timeline', description: 'fh undo --list on 2,000 files × 20 points against reading the log records', run });

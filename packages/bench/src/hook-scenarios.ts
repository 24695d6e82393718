/**
 * `fh hook` latency per event kind, as an agent pays it: the built CLI spawned once per event
 * with the event on stdin (`fs:` store), at 10 and at 500 turns of a session tracking 1,000 files,
 * interleaved round by round with `node -e 0` (the start-up every event pays) and the floors of
 * the event's own work, measured in this process: `statSync` of the 1,000 tracked files (a
 * prompt's snapshot) and stat + copy + an fsync'd record (`trackEdit` of a new file).
 *
 * Targets (issue 16): `UserPromptSubmit` at 500 turns × 1,000 tracked ≤ 2× `node -e 0` + the
 * sync-stat floor of the 1,000 files; `PreToolUse` of a new file at 500 turns ≤ 1.5× `node -e 0` +
 * the trackEdit floor; and every event kind at 500 turns ≤ 1.25× the same event at 10 turns (the
 * hook's cost does not grow with the session). Also: a `PreToolUse` Write whose event is 100 MB
 * (the content of a big file) against `node` reading the same stdin to its end.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_TIMESTAMP_GRANULARITY_MS, FileHistory, backupFileName, type BackupStore } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { cliPath, nodeStart, syncStats, timedChild, trackEditFloor } from './floors.js';
import { interleave, type Contender } from './measure.js';
import { registerScenario, type BenchContext } from './runner.js';
import { createFiles } from './workspace.js';

const TRACKED = 1_000;
const TURN_COUNTS = [10, 500] as const;
const ROUNDS = Number(process.env.FH_BENCH_HOOK_ROUNDS ?? 7);

/** The event kinds timed, each a function of the session and round giving the event. */
type EventKind = 'UserPromptSubmit' | 'PreToolUse Write, tracked file' | 'PreToolUse Write, new file' | 'PostToolUse Write (ignored)';
const KINDS: readonly EventKind[] = ['UserPromptSubmit', 'PreToolUse Write, tracked file', 'PreToolUse Write, new file', 'PostToolUse Write (ignored)'];

/** Build a session of `turns` snapshots tracking `tracked` (absolute paths), then release it. */
export async function buildSession(store: BackupStore, projectRoot: string, sessionId: string, tracked: readonly string[], turns: number): Promise<void> {
  const history = await FileHistory.open({ projectRoot, sessionId, store });
  try {
    await history.makeSnapshot(`${sessionId}-turn-0`);
    for (const path of tracked) await history.trackEdit(path);
    for (let turn = 1; turn < turns; turn += 1) await history.makeSnapshot(`${sessionId}-turn-${turn}`);
  } finally {
    await history.close();
  }
}

/** The hook event of `kind` for `sessionId` in `project`, round `round` (new files are `fresh(round)`). */
export function hookEvent(kind: EventKind, sessionId: string, project: string, trackedFile: string, freshFile: string, round: number): string {
  const base = { session_id: sessionId, transcript_path: join(project, '..', `${sessionId}.jsonl`), cwd: project, permission_mode: 'acceptEdits' };
  switch (kind) {
    case 'UserPromptSubmit':
      return JSON.stringify({ ...base, hook_event_name: 'UserPromptSubmit', prompt: `bench prompt ${round}` });
    case 'PreToolUse Write, tracked file':
      return JSON.stringify({ ...base, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: trackedFile, content: 'export const x = 1;\n' }, tool_use_id: `toolu_${randomUUID()}` });
    case 'PreToolUse Write, new file':
      return JSON.stringify({ ...base, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: freshFile, content: 'export const x = 1;\n' }, tool_use_id: `toolu_${randomUUID()}` });
    case 'PostToolUse Write (ignored)':
      return JSON.stringify({ ...base, hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: { file_path: trackedFile, content: 'export const x = 1;\n' }, tool_response: { filePath: trackedFile, success: true }, tool_use_id: `toolu_${randomUUID()}` });
  }
}

/** Run `fh --store <store> hook` on `input`; throws when it exits non-zero or says anything on stderr. */
export async function runHook(storeUri: string, input: string | Buffer, environment: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const result = await timedChild(process.execPath, [cliPath, '--store', storeUri, 'hook'], input, environment, cwd);
  if (result.exitCode !== 0 || result.stderr !== '') throw new Error(`fh hook exited ${result.exitCode}: ${result.stderr.trim()}`);
  return result.ms;
}

async function run(context: BenchContext): Promise<void> {
  const { folders, log } = context;
  const store = new FsBackupStore({ root: folders.store });
  const absolute = (path: string) => join(folders.project, path);
  const environment: NodeJS.ProcessEnv = { ...process.env, CLAUDE_PROJECT_DIR: folders.project };
  delete environment.FH_DISABLE_FILE_CHECKPOINTING;
  log(`creating ${TRACKED} tracked files and ${ROUNDS * TURN_COUNTS.length + 4} new ones ...`);
  const tracked = (await createFiles(folders.project, TRACKED, 2048)).map(absolute);
  const freshFolder = join(folders.project, 'fresh');
  const fresh = (await createFiles(freshFolder, (ROUNDS + 2) * (TURN_COUNTS.length + 1), 4096)).map((path) => join(freshFolder, path));
  const freshFile = (slot: number, round: number) => fresh[round * (TURN_COUNTS.length + 1) + slot] as string;
  const sessions: Array<{ turns: number; sessionId: string; slot: number }> = TURN_COUNTS.map((turns, slot) => ({ turns, sessionId: `hook-${turns}-turns`, slot }));
  for (const session of sessions) {
    log(`session of ${session.turns} turns × ${TRACKED} tracked ...`);
    await buildSession(store, folders.project, session.sessionId, tracked, session.turns);
  }
  // Settle the tracked files past the timestamp granularity, as in a real session between turns.
  await new Promise((resolve) => setTimeout(resolve, DEFAULT_TIMESTAMP_GRANULARITY_MS + 200));

  const smallEvent = hookEvent('PostToolUse Write (ignored)', 'node', folders.project, tracked[0] as string, tracked[0] as string, 0);
  const floorSession = 'hook-floor';
  await store.putBackup(floorSession, 'warm-up@v1', tracked[1] as string);
  const floorRecord = `${JSON.stringify({ type: 'file-history-snapshot', messageId: 'turn', snapshot: { messageId: 'turn', trackedFileBackups: { 'fresh/module-00/file-0.ts': { backupFileName: '0123456789abcdef@v1', version: 1, backupTime: new Date(), size: 4096, mode: 0o644 } }, timestamp: new Date() }, isSnapshotUpdate: true })}\n`;
  const floorLog = join(folders.store, 'sessions', 'hook-floor.jsonl');
  const contenders: Contender[] = [
    { name: 'node -e 0', run: async () => void (await nodeStart(smallEvent)) },
    { name: 'sync stats', run: async () => syncStats(tracked) },
    {
      name: 'trackEdit floor',
      run: async (round) => {
        const source = freshFile(TURN_COUNTS.length, round);
        await trackEditFloor(source, join(folders.store, 'file-history', floorSession, backupFileName(source, 1)), floorLog, floorRecord);
      },
    },
  ];
  for (const session of sessions) {
    for (const kind of KINDS) {
      let input = '';
      contenders.push({
        name: `${kind} @${session.turns}`,
        prepare: async (round) => {
          input = hookEvent(kind, session.sessionId, folders.project, tracked[round % TRACKED] as string, freshFile(session.slot, round), round);
        },
        run: async () => void (await runHook(folders.store, input, environment, folders.project)),
      });
    }
  }
  log(`${ROUNDS} rounds of ${contenders.length} contenders ...`);
  const times = await interleave(ROUNDS, contenders);
  const get = (name: string) => times.get(name) ?? [];
  for (const session of sessions) {
    const backups = await store.listBackups(session.sessionId);
    if (backups.length < TRACKED + ROUNDS) throw new Error(`session ${session.sessionId} has ${backups.length} backups, expected at least ${TRACKED + ROUNDS}`);
  }
  const node = { name: 'node -e 0', times: get('node -e 0') };
  for (const session of sessions) {
    const label = (kind: EventKind) => `fh hook ${kind}, ${session.turns} turns × ${TRACKED.toLocaleString('en-US')} tracked`;
    context.report({ scenario: label('UserPromptSubmit'), fh: get(`UserPromptSubmit @${session.turns}`), floors: [{ ...node, factor: 2 }, { name: `${TRACKED.toLocaleString('en-US')} sync stats`, times: get('sync stats') }] });
    context.report({ scenario: label('PreToolUse Write, new file'), fh: get(`PreToolUse Write, new file @${session.turns}`), floors: [{ ...node, factor: 1.5 }, { name: 'trackEdit floor', times: get('trackEdit floor') }] });
    context.report({ scenario: label('PreToolUse Write, tracked file'), fh: get(`PreToolUse Write, tracked file @${session.turns}`), floors: [node], kind: 'info' });
    context.report({ scenario: label('PostToolUse Write (ignored)'), fh: get(`PostToolUse Write (ignored) @${session.turns}`), floors: [node], kind: 'info' });
  }
  const [short, long] = sessions as [(typeof sessions)[number], (typeof sessions)[number]];
  for (const kind of KINDS) {
    context.report({
      scenario: `fh hook ${kind}: ${long.turns} turns against ${short.turns}`,
      fh: get(`${kind} @${long.turns}`),
      floors: [{ name: `same at ${short.turns} turns`, times: get(`${kind} @${short.turns}`), factor: 1.25 }],
    });
  }

  // A 100 MB Write event (the whole new content in tool_input.content), against node reading it.
  log('a 100 MB PreToolUse Write event ...');
  const content = Buffer.from(JSON.stringify('export const line = "a \\"quoted\\" value";\n'.repeat(2_500_000)));
  const bigTarget = join(folders.project, 'big-write.ts');
  await writeFile(bigTarget, 'export const before = 1;\n');
  const bigSession = (round: number) => `hook-big-${round}`;
  const bigEvent = (sessionId: string) => {
    const [head, tail] = hookEvent('PreToolUse Write, new file', sessionId, folders.project, bigTarget, bigTarget, 0).split('"export const x = 1;\\n"') as [string, string];
    return Buffer.concat([Buffer.from(head), content, Buffer.from(tail)]);
  };
  let bigInput = Buffer.alloc(0);
  const big = await interleave(3, [
    {
      name: 'fh',
      prepare: async (round) => {
        bigInput = bigEvent(bigSession(round));
      },
      run: async () => void (await runHook(folders.store, bigInput, environment, folders.project)),
    },
    {
      name: 'node reads stdin',
      prepare: async () => {
        bigInput = bigEvent('node');
      },
      run: async () => void (await timedChild(process.execPath, ['-e', 'process.stdin.resume()'], bigInput)),
    },
  ]);
  for (let round = 0; round < 3; round += 1) {
    if ((await store.listBackups(bigSession(round))).length !== 1) throw new Error(`the 100 MB Write event of round ${round} backed nothing up`);
  }
  context.report({ scenario: `fh hook PreToolUse Write, a ${(bigInput.length / 1e6).toFixed(0)} MB event (new session)`, fh: big.get('fh') ?? [], floors: [{ name: 'node reading the same stdin', times: big.get('node reads stdin') ?? [] }], kind: 'info' });
}

registerScenario({
  name: 'hook',
  description: 'fh hook per event kind at 10 and 500 turns × 1,000 tracked (fs store), and a 100 MB Write event',
  run,
});

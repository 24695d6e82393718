/**
 * `fh hook` on the S3 store: each event kind with `--store s3://…` against s3rver on 127.0.0.1
 * (started in this process; the CLI is spawned asynchronously, so s3rver goes on answering it),
 * interleaved round by round with the same event on the fs store over the same kind of session
 * (10 turns × 100 tracked files), and on S3 also on a long session (200 turns). Each S3 event's
 * requests are counted at the server, and one request's round trip (a HeadObject of a small
 * object through the SDK, in this process, on a warm connection) is timed beside it.
 *
 * Target (issue 16): an event on S3 ≤ the same event on the fs store + the round trips the event
 * itself needs ({@link NECESSARY_ROUND_TRIPS}: what any S3 design must send for it, not what fh
 * happens to send): a repeated edit of a tracked file (the same file was edited earlier in the
 * turn, so the turn's snapshot already names it and its editor) lists and reads the log's newest
 * objects (2); a tracked file's first edit in a turn records who changed it, so it takes the
 * lease, reads the log under it, writes one record and releases the lease (5); an
 * edit of a new file also writes the backup (6);
 * a prompt takes the lease, reads the log, writes its records and releases the lease (5, nothing
 * changed since the turn before); an ignored event sends nothing, and is judged against the fs
 * event within that event's round-to-round spread once it is shown to do the same work (no
 * request, the same Node built-in modules loaded). The requests fh sent are printed
 * beside each row, and must not grow with the session (same counts at 200 turns as at 10). What
 * is left over is loading the AWS SDK's client (shown as an `info` row: `node` importing
 * `@aws-sdk/client-s3` against `node -e 0`), which every event that sends a request needs; an
 * event that sends none (PostToolUse) loads no SDK, and a small backup loads no multipart uploader.
 * With `FH_BENCH_S3_REQUESTS=1` each S3 event's requests (method and path, as s3rver received
 * them) are printed, round by round.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TIMESTAMP_GRANULARITY_MS } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { S3BackupStore } from '@fh/store-s3';
import S3rver from 's3rver';
import { nodeStart, timedChild } from './floors.js';
import { buildSession, hookEvent, runHook } from './hook-scenarios.js';
import { interleave, median, type Contender } from './measure.js';
import { registerScenario, type BenchContext } from './runner.js';
import { createFiles } from './workspace.js';

const TRACKED = 100;
const TURNS = 10;
const ROUNDS = Number(process.env.FH_BENCH_HOOK_ROUNDS ?? 7);
const BUCKET = 'fh-bench';
const LONG_TURNS = 200;
const KINDS = ['UserPromptSubmit', 'PreToolUse Write, tracked file', 'PreToolUse Write, tracked file, first edit in the turn', 'PreToolUse Write, new file', 'PostToolUse Write (ignored)'] as const;
/** The kind of a repeated edit, and the kind of a tracked file's first edit in a turn (an edit event that records the turn's attribution). */
const REPEAT_EDIT = 'PreToolUse Write, tracked file' as const;
const FIRST_EDIT = 'PreToolUse Write, tracked file, first edit in the turn' as const;

/** The round trips each event kind needs on S3 whatever the design (see the module comment). */
export const NECESSARY_ROUND_TRIPS: Readonly<Record<(typeof KINDS)[number], number>> = {
  UserPromptSubmit: 5,
  'PreToolUse Write, tracked file': 2,
  'PreToolUse Write, tracked file, first edit in the turn': 5,
  'PreToolUse Write, new file': 6,
  'PostToolUse Write (ignored)': 0,
};

async function run(context: BenchContext): Promise<void> {
  const { folders, log } = context;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const directory = await mkdtemp(join(tmpdir(), 'fh-bench-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const { port } = await server.run();
  context.defer(async () => {
    await server.close();
    await rm(directory, { recursive: true, force: true });
  });
  // Count every request s3rver answers (wrapping its Koa handler).
  let requests = 0;
  const trace: string[] = [];
  const httpServer = (server as unknown as { httpServer: Server }).httpServer;
  const koa = httpServer.listeners('request')[0] as (request: IncomingMessage, response: ServerResponse) => void;
  httpServer.removeAllListeners('request');
  httpServer.on('request', (request: IncomingMessage, response: ServerResponse) => {
    requests += 1;
    trace.push(`${request.method} ${decodeURIComponent(request.url ?? '')}`);
    koa(request, response);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const clientConfig = {
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED' as const,
    responseChecksumValidation: 'WHEN_REQUIRED' as const,
  };
  const s3Store = new S3BackupStore({ bucket: BUCKET, prefix: 'hook', clientConfig });
  context.defer(() => s3Store.destroy());
  const fsStore = new FsBackupStore({ root: folders.store });

  const absolute = (path: string) => join(folders.project, path);
  log(`creating ${TRACKED} tracked files and the new ones ...`);
  const tracked = (await createFiles(folders.project, TRACKED, 2048)).map(absolute);
  const freshFolder = join(folders.project, 'fresh');
  const fresh = (await createFiles(freshFolder, (ROUNDS + 1) * 3, 4096)).map((path) => join(freshFolder, path));
  log(`sessions of ${TURNS} turns × ${TRACKED} tracked on both stores, and of ${LONG_TURNS} turns on S3 ...`);
  await buildSession(fsStore, folders.project, 'hook-fs', tracked, TURNS);
  await buildSession(s3Store, folders.project, 'hook-s3', tracked, TURNS);
  await buildSession(s3Store, folders.project, 'hook-s3-long', tracked, LONG_TURNS);
  await new Promise((resolve) => setTimeout(resolve, DEFAULT_TIMESTAMP_GRANULARITY_MS + 200));

  const base: NodeJS.ProcessEnv = { ...process.env, CLAUDE_PROJECT_DIR: folders.project };
  delete base.FH_DISABLE_FILE_CHECKPOINTING;
  const s3Environment: NodeJS.ProcessEnv = {
    ...base,
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const stores = [
    { name: 'fs', uri: folders.store, sessionId: 'hook-fs', environment: base, slot: 0 },
    { name: 's3', uri: `s3://${BUCKET}/hook`, sessionId: 'hook-s3', environment: s3Environment, slot: 1 },
    { name: 's3-long', uri: `s3://${BUCKET}/hook`, sessionId: 'hook-s3-long', environment: s3Environment, slot: 2 },
  ];
  await s3Store.putBackup('rtt', 'object@v1', tracked[0] as string);
  const counts = new Map<string, number[]>();
  const smallEvent = hookEvent('PostToolUse Write (ignored)', 'node', folders.project, tracked[0] as string, tracked[0] as string, 0);
  const contenders: Contender[] = [
    { name: 'node -e 0', run: async () => void (await nodeStart(smallEvent)) },
    {
      name: 'round trip',
      run: async () => {
        await s3Store.statBackup('rtt', 'object@v1');
      },
    },
    { name: 'node imports the SDK client', run: async () => void (await timedChild(process.execPath, ['--input-type=module', '-e', "await import('@aws-sdk/client-s3')"], '', process.env, fileURLToPath(new URL('..', import.meta.url)))) },
  ];
  for (const store of stores) {
    for (const kind of KINDS) {
      const name = `${kind} @${store.name}`;
      counts.set(name, []);
      let input = '';
      contenders.push({
        name,
        prepare: async (round) => {
          // A repeated edit: the same file was edited (untimed, just before) in this turn. A first
          // edit: a file no edit in this turn touched yet (each round takes another one).
          const file = tracked[kind === FIRST_EDIT ? (round + TRACKED / 2) % TRACKED : round % TRACKED] as string;
          const eventKind = kind === FIRST_EDIT ? REPEAT_EDIT : kind;
          input = hookEvent(eventKind, store.sessionId, folders.project, file, fresh[round * 3 + store.slot] as string, round);
          if (kind === REPEAT_EDIT) await runHook(store.uri, input, store.environment, folders.project);
        },
        run: async () => {
          const before = requests;
          trace.length = 0;
          await runHook(store.uri, input, store.environment, folders.project);
          counts.get(name)?.push(requests - before);
          if (process.env.FH_BENCH_S3_REQUESTS) log(`${name}: ${trace.join(' | ')}`);
        },
      });
    }
  }
  log(`${ROUNDS} rounds of ${contenders.length} contenders ...`);
  const times = await interleave(ROUNDS, contenders);
  const get = (name: string) => times.get(name) ?? [];
  const roundTrip = median(get('round trip'));
  // An event that needs no request (PostToolUse) must do on S3 exactly what it does on the fs
  // store. When it provably does (no request in any round, and the same Node built-in modules
  // loaded as on fs), the two rows time the same work, and the row is judged against the fs
  // event within the fs event's own round-to-round spread (its median absolute deviation);
  // otherwise against the fs event alone.
  const ignored = 'PostToolUse Write (ignored)' as const;
  const builtins = async (store: (typeof stores)[number]) => {
    const file = join(folders.base, `modules-${store.name}.json`);
    const preload = join(folders.base, 'module-list.cjs');
    await writeFile(preload, "process.on('exit', () => require('node:fs').writeFileSync(process.env.FH_BENCH_MODULES_FILE, JSON.stringify(process.moduleLoadList)));\n");
    await runHook(store.uri, hookEvent(ignored, store.sessionId, folders.project, tracked[0] as string, tracked[0] as string, 0), { ...store.environment, NODE_OPTIONS: `--require ${preload}`, FH_BENCH_MODULES_FILE: file }, folders.project);
    return (JSON.parse(await readFile(file, 'utf8')) as string[]).sort();
  };
  const [fsModules, s3Modules] = [await builtins(stores[0] as (typeof stores)[number]), await builtins(stores[1] as (typeof stores)[number])];
  const extra = s3Modules.filter((name) => !fsModules.includes(name));
  const noRequests = [...(counts.get(`${ignored} @s3`) ?? []), ...(counts.get(`${ignored} @s3-long`) ?? [])].every((count) => count === 0);
  const sameWork = noRequests && extra.length === 0 && s3Modules.length === fsModules.length;
  log(`${ignored} on S3: ${noRequests ? 'no request in any round' : 'sent requests'}; built-in modules ${extra.length === 0 ? `the same ${s3Modules.length} as on fs` : `beyond fs: ${extra.join(', ')}`}`);
  for (const kind of KINDS) {
    const needed = NECESSARY_ROUND_TRIPS[kind];
    const fsTimes = get(`${kind} @fs`);
    const spread = kind === ignored && sameWork ? [{ name: 'round-to-round spread of the fs event (median absolute deviation; same work: 0 requests, same built-in modules)', times: medianAbsoluteDeviation(fsTimes) }] : [];
    for (const [name, turns] of [['s3', TURNS], ['s3-long', LONG_TURNS]] as const) {
      const sent = counts.get(`${kind} @${name}`) ?? [];
      context.report({
        scenario: `fh hook ${kind}, ${turns} turns × ${TRACKED} tracked, on S3 (s3rver; fh sent ${Math.min(...sent)}–${Math.max(...sent)} requests)`,
        fh: get(`${kind} @${name}`),
        floors: [{ name: 'same on fs', times: fsTimes }, ...(needed === 0 ? [] : [{ name: `${needed} necessary round trips`, times: needed * roundTrip }]), ...spread],
      });
    }
    // Requests per event must not grow with the session: the long session's median within a
    // compaction's two requests of the short one's.
    const short = median(counts.get(`${kind} @s3`) ?? [0]);
    const long = median(counts.get(`${kind} @s3-long`) ?? [0]);
    log(`${kind}: median requests ${short} at ${TURNS} turns, ${long} at ${LONG_TURNS} turns (necessary ${needed})`);
    if (long > short + 2) throw new Error(`fh hook ${kind} on S3 sent ${long} requests at ${LONG_TURNS} turns against ${short} at ${TURNS}: its cost grows with the session`);
  }
  const node = get('node -e 0');
  context.report({ scenario: '  loading @aws-sdk/client-s3 (node imports it)', fh: get('node imports the SDK client'), floors: [{ name: 'node -e 0', times: node }], kind: 'info' });
  log(`one round trip ${roundTrip.toFixed(2)} ms; SDK client import ${(median(get('node imports the SDK client')) - median(node)).toFixed(0)} ms over node -e 0`);
}

/** The median of the distances of `values` from their median (a spread that one slow round does not set). */
function medianAbsoluteDeviation(values: readonly number[]): number {
  const middle = median(values);
  return median(values.map((value) => Math.abs(value - middle)));
}

registerScenario({
  name: 'hook-s3',
  description: `fh hook per event kind on the S3 store (s3rver on 127.0.0.1) against the fs store + the event's round trips`,
  run,
});

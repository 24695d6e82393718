/**
 * The session log's compaction (layout 2, see `S3SessionLog`): what a hook event on a long
 * session costs in requests, and that every stage a compaction can be interrupted at reads the
 * same records.
 */
import { ListObjectsV2Command, PutObjectCommand, DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { FileHistory, readLogEnds, type LogRecord } from '@fh/core';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { S3BackupStore } from '../src/index.js';
import { COMPACT_AFTER_APPENDS } from '../src/s3-session-log.js';
import { RELEASED_LEASE_BYTES } from '../src/s3-session-lock.js';
import { startS3rver, type S3rverHarness } from './s3rver-harness.js';

let server: S3rverHarness;
let raw: S3Client;
let workspace: string;
let prefix: string;
const stores: S3BackupStore[] = [];

beforeAll(async () => {
  server = await startS3rver();
  raw = server.createClient();
});

afterAll(async () => {
  for (const store of stores) store.destroy();
  raw.destroy();
  await server.close();
});

beforeEach(async (context) => {
  prefix = `c-${randomUUID()}`;
  workspace = await mkdtemp(join(tmpdir(), 'fh-s3-compaction-'));
  context.onTestFinished(() => rm(workspace, { recursive: true, force: true }));
});

/** A store as one short-lived process (an agent hook) has it: nothing listed or cached yet. */
function processStore(): S3BackupStore {
  const store = new S3BackupStore({ bucket: server.bucket, prefix, clientConfig: server.clientConfig });
  stores.push(store);
  return store;
}

/** The session folder's log object keys below the prefix, in key order (the lock object, a released lease once the session was locked, left out). */
async function sessionKeys(sessionId: string): Promise<string[]> {
  const listed = await raw.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: `${prefix}/sessions/${sessionId}/` }));
  return (listed.Contents ?? []).map((object) => (object.Key ?? '').slice(`${prefix}/sessions/${sessionId}/`.length)).filter((key) => key !== 'lock.json');
}

/**
 * One `PreToolUse` edit event as `fh hook` runs it, in a fresh store: the log's ends without the
 * lock (is the file tracked?), then the lock, the ends again, `FileHistory.open` on them and
 * `trackEdit`, then close (which releases the lease, compacting the log when enough appends wait).
 */
async function editEvent(sessionId: string, path: string): Promise<void> {
  const store = processStore();
  const log = store.sessionLog(sessionId);
  await readLogEnds(log);
  const lock = await store.lockSession(sessionId);
  const ends = await readLogEnds(log);
  const history = await FileHistory.open({ projectRoot: workspace, sessionId, store, rebuild: 'latest', sessionLock: lock, ...(ends === undefined ? {} : { logEnds: ends }) });
  try {
    await history.trackEdit(path);
  } finally {
    await history.close();
  }
}

/** One prompt event: the turn's snapshot under the lock, in a fresh store. */
async function promptEvent(sessionId: string, turn: number): Promise<void> {
  const store = processStore();
  const history = await FileHistory.open({ projectRoot: workspace, sessionId, store, rebuild: 'latest' });
  try {
    await history.makeSnapshot(`${sessionId}-turn-${turn}`);
  } finally {
    await history.close();
  }
}

/** The requests `run` sends, as `METHOD kind` → count (kind: list, log, lock, backup, delete-batch). */
async function requestsOf(run: () => Promise<void>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  server.intercept((request) => {
    const url = new URL(request.url ?? '/', 'http://s3rver');
    const path = decodeURIComponent(url.pathname);
    const kind = url.searchParams.get('list-type') === '2' ? 'list' : url.searchParams.has('delete') ? 'delete-batch' : path.endsWith('/lock.json') ? 'lock' : path.includes('/sessions/') ? 'log' : 'backup';
    const name = `${request.method ?? ''} ${kind}`;
    counts[name] = (counts[name] ?? 0) + 1;
    return false;
  });
  try {
    await run();
  } finally {
    server.intercept(undefined);
  }
  return counts;
}

/** A session of `turns` prompt events, each followed by an edit event of a new file. */
async function buildSession(sessionId: string, turns: number, from = 0): Promise<void> {
  for (let turn = from; turn < from + turns; turn += 1) {
    await promptEvent(sessionId, turn);
    const file = join(workspace, `file-${turn}.ts`);
    await writeFile(file, `export const turn = ${turn};\n`);
    await editEvent(sessionId, file);
  }
}

describe('S3 session log compaction', () => {
  it('an edit event costs the same handful of requests on a long session as on a short one', async () => {
    const sessionId = 'long-session';
    // One compaction cycle of edit events (each one append): every phase of the cycle once.
    const cycle = async (name: string) => {
      const counts: Record<string, number> = {};
      for (let event = 0; event < COMPACT_AFTER_APPENDS; event += 1) {
        const file = join(workspace, `${name}-${event}.ts`);
        await writeFile(file, 'export const edited = true;\n');
        for (const [request, count] of Object.entries(await requestsOf(() => editEvent(sessionId, file)))) counts[request] = (counts[request] ?? 0) + count;
      }
      return counts;
    };
    await buildSession(sessionId, 4);
    const short = await cycle('short');
    await buildSession(sessionId, 12, 4);
    const long = await cycle('long');
    expect(long).toEqual(short);
    // Per event: one listing (before the lock: the lease is taken with If-Match on the released
    // lease it saw, so the ends read under the lock come from it), the lease (taken and released,
    // two puts), the backup, one append; per cycle one compaction (a put, and the removal of what
    // the previous one superseded); and the log objects of the ends, each read once per event: the
    // first object, the newest run and the appends since (0 to 3).
    const events = COMPACT_AFTER_APPENDS;
    expect(long).toEqual({
      'GET list': events,
      'PUT lock': 2 * events,
      'PUT backup': events,
      'PUT log': events + 1,
      'POST delete-batch': 1,
      'GET log': 2 * events + (events * (events - 1)) / 2,
    });
    // 16 turns × 2 appends and 8 edits, yet the session folder holds a few objects.
    expect((await sessionKeys(sessionId)).length).toBeLessThanOrEqual(2 * COMPACT_AFTER_APPENDS + 2);
  });

  it('sends the removal of what the previous compaction superseded beside the lease\'s release, not after it', async () => {
    const sessionId = 'overlap';
    await buildSession(sessionId, 2);
    // Whichever of a batch delete and the lease's DELETE arrives first is held until the other
    // arrives (1 s at most): sent one after the other, the second would only come once the first
    // was answered. A held release of the lease (the put of a released lease) is done here
    // (through another client) before it is answered.
    let batches = 0;
    let overlapped = 0;
    let held: { kind: 'batch' | 'lease'; go: () => void } | undefined;
    let ownRelease = false;
    const hold = (kind: 'batch' | 'lease', answer: () => void) => {
      const timer = setTimeout(() => {
        held = undefined;
        answer();
      }, 1000);
      held = {
        kind,
        go: () => {
          clearTimeout(timer);
          answer();
        },
      };
    };
    server.intercept((request, response) => {
      const url = new URL(request.url ?? '/', 'http://s3rver');
      const releasing = request.method === 'PUT' && url.pathname.endsWith('/lock.json') && Number(request.headers['content-length']) === RELEASED_LEASE_BYTES;
      const kind = request.method === 'POST' && url.searchParams.has('delete') ? 'batch' : releasing ? 'lease' : undefined;
      if (kind === undefined || (kind === 'lease' && ownRelease)) return false;
      if (kind === 'batch') batches += 1;
      if (held !== undefined && held.kind !== kind) {
        overlapped += 1;
        const other = held;
        held = undefined;
        setImmediate(other.go);
        return false;
      }
      const body: Buffer[] = [];
      request.on('data', (chunk: Buffer) => body.push(chunk));
      hold(kind, () => {
        if (kind === 'batch') {
          response.writeHead(200, { 'content-type': 'application/xml' });
          response.end('<?xml version="1.0" encoding="UTF-8"?><DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></DeleteResult>');
          return;
        }
        const key = decodeURIComponent(url.pathname.split('/').slice(2).join('/'));
        ownRelease = true;
        void raw.send(new PutObjectCommand({ Bucket: server.bucket, Key: key, Body: Buffer.concat(body) })).then(({ ETag }) => {
          ownRelease = false;
          response.writeHead(200, ETag === undefined ? {} : { etag: ETag });
          response.end();
        });
      });
      return true;
    });
    try {
      for (let turn = 2; turn < 2 + COMPACT_AFTER_APPENDS && batches === 0; turn += 1) await buildSession(sessionId, 1, turn);
    } finally {
      server.intercept(undefined);
    }
    expect(batches).toBeGreaterThan(0);
    expect(overlapped).toBe(batches);
  });

  it('reads the same records at every stage of a compaction, and later appends go after the run', async () => {
    const sessionId = 'stages';
    const store = processStore();
    const appendOne = async (index: number) => {
      const lock = await store.lockSession(sessionId);
      await store.sessionLog(sessionId).append([{ type: 'note', index }]);
      await lock.release();
    };
    const expected = (count: number): LogRecord[] => Array.from({ length: count }, (_, index) => ({ type: 'note', index }));
    const readFresh = async () => (await processStore().sessionLog(sessionId).read()).records;
    const streamFresh = async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of processStore().sessionLog(sessionId).readStream?.() ?? []) chunks.push(Buffer.from(chunk));
      return Buffer.concat(chunks).toString('utf8');
    };
    const jsonl = (count: number) => expected(count).map((record) => `${JSON.stringify(record)}\n`).join('');

    for (let index = 0; index < COMPACT_AFTER_APPENDS + 1; index += 1) await appendOne(index);
    // The last release compacted appends 2..5 into one run; the appends it holds stay until the next compaction.
    const digits = (sequence: number) => String(sequence).padStart(16, '0');
    const run = `${digits(2)}-${digits(COMPACT_AFTER_APPENDS + 1)}.jsonl`;
    expect(await sessionKeys(sessionId)).toEqual([`${digits(1)}.jsonl`, run, ...Array.from({ length: COMPACT_AFTER_APPENDS }, (_, index) => `${digits(index + 2)}.jsonl`)]);
    expect(await readFresh()).toEqual(expected(COMPACT_AFTER_APPENDS + 1));
    expect(await streamFresh()).toBe(jsonl(COMPACT_AFTER_APPENDS + 1));

    // A crash part-way through removing what the run holds: some of them gone, the rest still there.
    await raw.send(new DeleteObjectCommand({ Bucket: server.bucket, Key: `${prefix}/sessions/${sessionId}/${digits(3)}.jsonl` }));
    expect(await readFresh()).toEqual(expected(COMPACT_AFTER_APPENDS + 1));
    expect(await streamFresh()).toBe(jsonl(COMPACT_AFTER_APPENDS + 1));

    // A run written by a crashed compaction whose appends were never removed, then read with them.
    const ends = await processStore().sessionLog(sessionId).readEnds?.(64 * 1024, 1024 * 1024);
    expect(ends).toEqual({ head: expected(COMPACT_AFTER_APPENDS + 1), tail: [], whole: true });

    // A fresh process (no view of the log) appends after the run's last append, never inside it.
    await processStore().sessionLog(sessionId).append([{ type: 'note', index: COMPACT_AFTER_APPENDS + 1 }]);
    expect(await sessionKeys(sessionId)).toContain(`${digits(COMPACT_AFTER_APPENDS + 2)}.jsonl`);
    expect(await readFresh()).toEqual(expected(COMPACT_AFTER_APPENDS + 2));

    // The next compaction removes what the previous one superseded and merges the new appends into the run.
    for (let index = COMPACT_AFTER_APPENDS + 2; index < 2 * COMPACT_AFTER_APPENDS + 2; index += 1) await appendOne(index);
    // Appends 6..9 were merged into the run 2..5 (as 2..9) at the release of 9; the release of 10
    // removed what that run holds.
    expect(await sessionKeys(sessionId)).toEqual([`${digits(1)}.jsonl`, `${digits(2)}-${digits(2 * COMPACT_AFTER_APPENDS + 1)}.jsonl`, `${digits(2 * COMPACT_AFTER_APPENDS + 2)}.jsonl`]);
    expect(await readFresh()).toEqual(expected(2 * COMPACT_AFTER_APPENDS + 2));
    expect(await streamFresh()).toBe(jsonl(2 * COMPACT_AFTER_APPENDS + 2));
  });

  it('a run written by hand over appends it does not name in full is never taken for more than it holds', async () => {
    const sessionId = 'hand-run';
    const log = processStore().sessionLog(sessionId);
    for (let index = 0; index < 4; index += 1) await log.append([{ type: 'note', index }]);
    // An older layout-1 reader's view: only appends; the run 2..3 written before its parts are removed.
    const digits = (sequence: number) => String(sequence).padStart(16, '0');
    await raw.send(
      new PutObjectCommand({
        Bucket: server.bucket,
        Key: `${prefix}/sessions/${sessionId}/${digits(2)}-${digits(3)}.jsonl`,
        Body: `${JSON.stringify({ type: 'note', index: 1 })}\n${JSON.stringify({ type: 'note', index: 2 })}\n`,
      }),
    );
    expect((await processStore().sessionLog(sessionId).read()).records).toEqual([0, 1, 2, 3].map((index) => ({ type: 'note', index })));
  });
});

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { ConflictError, CorruptError, InvalidArgumentError, LockedError, NotFoundError } from '@fh/core';
import { createHash, randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { S3BackupStore, type S3BackupStoreOptions } from '../src/index.js';
import { startS3rver, type S3rverHarness } from './s3rver-harness.js';
import { RELEASED_LEASE_BYTES } from '../src/s3-session-lock.js';

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
  prefix = `t-${randomUUID()}`;
  workspace = await mkdtemp(join(tmpdir(), 'fh-s3-workspace-'));
  context.onTestFinished(() => rm(workspace, { recursive: true, force: true }));
});

function createStore(options: Partial<S3BackupStoreOptions> = {}): S3BackupStore {
  const store = new S3BackupStore({ bucket: server.bucket, prefix, clientConfig: server.clientConfig, ...options });
  stores.push(store);
  return store;
}

async function writeWorkspaceFile(name: string, bytes: Uint8Array | string, mode = 0o644): Promise<string> {
  const path = join(workspace, name);
  await writeFile(path, bytes);
  await chmod(path, mode);
  return path;
}

async function objectBytes(key: string): Promise<Buffer> {
  const response = await raw.send(new GetObjectCommand({ Bucket: server.bucket, Key: key }));
  return Buffer.from(await response.Body!.transformToByteArray());
}

async function bucketKeys(under: string): Promise<string[]> {
  const response = await raw.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: under }));
  return (response.Contents ?? []).map((object) => object.Key!);
}

function sha256(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Bytes that are not valid UTF-8, with a NUL, so nothing can compare them as text. */
const BINARY = Buffer.from([0xff, 0xfe, 0x00, 0x41, 0xc3, 0x28, 0x0a, 0x80]);

describe('putBackup', () => {
  it('uploads the exact bytes with mode, size and sha256 in the object metadata', async () => {
    const store = createStore();
    const source = await writeWorkspaceFile('tool.sh', BINARY, 0o755);

    const info = await store.putBackup('session-1', 'aaaaaaaaaaaaaaaa@v1', source);

    expect(info).toEqual({ size: 8, mode: 0o755, sha256: sha256(BINARY) });
    const key = `${prefix}/file-history/session-1/aaaaaaaaaaaaaaaa@v1`;
    expect(await objectBytes(key)).toEqual(BINARY);
    const head = await raw.send(new HeadObjectCommand({ Bucket: server.bucket, Key: key }));
    expect(head.Metadata).toEqual({ 'fh-mode': '755', 'fh-size': '8', 'fh-sha256': sha256(BINARY) });
    expect(await readFile(source)).toEqual(BINARY);
  });

  it('backs up an empty file as an empty object', async () => {
    const store = createStore();
    const source = await writeWorkspaceFile('empty.txt', '', 0o600);

    expect(await store.putBackup('s', 'e@v1', source)).toEqual({ size: 0, mode: 0o600, sha256: sha256('') });
    expect(await objectBytes(`${prefix}/file-history/s/e@v1`)).toEqual(Buffer.alloc(0));
  });

  it('uploads a file larger than the part size in parts, byte for byte', async () => {
    const store = createStore({ partSizeBytes: 5 * 1024 * 1024 });
    const bytes = Buffer.alloc(11 * 1024 * 1024 + 17);
    for (let index = 0; index < bytes.length; index += 1) bytes[index] = (index * 7 + (index >> 12)) & 0xff;
    const source = await writeWorkspaceFile('big.bin', bytes);
    const postsBefore = server.requestCounts.get('POST') ?? 0;

    const info = await store.putBackup('s', 'big@v1', source);

    expect(info).toEqual({ size: bytes.length, mode: 0o644, sha256: sha256(bytes) });
    expect(sha256(await objectBytes(`${prefix}/file-history/s/big@v1`))).toBe(sha256(bytes));
    expect((server.requestCounts.get('POST') ?? 0) - postsBefore).toBe(2);
  });

  it('runs one multipart upload at a time by default, so several large files do not multiply the buffers', async () => {
    const store = createStore({ partSizeBytes: 5 * 1024 * 1024 });
    const sources = await Promise.all(['l1', 'l2', 'l3'].map((name, index) => writeWorkspaceFile(name, Buffer.alloc(6 * 1024 * 1024, index))));
    const events: string[] = [];
    server.intercept((request) => {
      if (request.method === 'POST' && request.url?.includes('?uploads')) events.push('create');
      if (request.method === 'POST' && request.url?.includes('uploadId=')) events.push('complete');
      return false;
    });

    const infos = await Promise.all(sources.map((source, index) => store.putBackup('s', `l${index}@v1`, source)));

    server.intercept(undefined);
    expect(infos.map((info) => info.size)).toEqual([6291456, 6291456, 6291456]);
    expect(events).toEqual(['create', 'complete', 'create', 'complete', 'create', 'complete']);
  });

  it('never overwrites a backup: a second put of the same name is a ConflictError (412)', async () => {
    const store = createStore();
    const first = await writeWorkspaceFile('a.txt', 'first version\n');
    const second = await writeWorkspaceFile('b.txt', 'second version\n');
    await store.putBackup('s', 'x@v1', first);

    const error = await store.putBackup('s', 'x@v1', second).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).message).toBe(
      `putBackup s3://${server.bucket}/${prefix}/file-history/s/x@v1: the backup already exists (backups are written once)`,
    );
    expect((error as ConflictError).cause).toMatchObject({ name: 'PreconditionFailed', $metadata: { httpStatusCode: 412 } });
    expect((await objectBytes(`${prefix}/file-history/s/x@v1`)).toString()).toBe('first version\n');
  });

  it('refuses a multipart upload over an existing backup at completion, leaving the object as it was', async () => {
    const store = createStore({ partSizeBytes: 5 * 1024 * 1024 });
    const small = await writeWorkspaceFile('small.txt', 'original\n');
    await store.putBackup('s', 'y@v1', small);
    const large = await writeWorkspaceFile('large.bin', Buffer.alloc(6 * 1024 * 1024, 7));

    await expect(store.putBackup('s', 'y@v1', large)).rejects.toBeInstanceOf(ConflictError);
    expect((await objectBytes(`${prefix}/file-history/s/y@v1`)).toString()).toBe('original\n');
  });

  it('throws NotFoundError for a missing source and InvalidArgumentError for a folder, writing nothing', async () => {
    const store = createStore();
    await mkdir(join(workspace, 'folder'));

    const missing = await store.putBackup('s', 'm@v1', join(workspace, 'nope.txt')).catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as Error).message).toBe(`putBackup: source "${join(workspace, 'nope.txt')}": ENOENT (does not exist)`);
    await expect(store.putBackup('s', 'd@v1', join(workspace, 'folder'))).rejects.toThrow(
      new InvalidArgumentError(`putBackup: source "${join(workspace, 'folder')}" is not a regular file`),
    );
    expect(await bucketKeys(`${prefix}/`)).toEqual([]);
  });

  it('rejects names that are not a single key segment', async () => {
    const store = createStore();
    const source = await writeWorkspaceFile('a.txt', 'a');
    for (const name of ['', '.', '..', 'a/b', 'a\\b', 'a\0b']) {
      await expect(store.putBackup('s', name, source)).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(store.statBackup(name, 'x@v1')).rejects.toBeInstanceOf(InvalidArgumentError);
    }
    expect(() => store.sessionLog('../other')).toThrow(InvalidArgumentError);
  });
});

describe('statBackup', () => {
  it('reads size, mode and sha256 from metadata with one HeadObject, and null for a missing backup', async () => {
    const store = createStore();
    const source = await writeWorkspaceFile('run.sh', '#!/bin/sh\necho hi\n', 0o750);
    await store.putBackup('s', 'r@v1', source);
    const getsBefore = server.requestCounts.get('GET') ?? 0;
    const headsBefore = server.requestCounts.get('HEAD') ?? 0;

    expect(await store.statBackup('s', 'r@v1')).toEqual({ size: 18, mode: 0o750, sha256: sha256('#!/bin/sh\necho hi\n') });
    expect(await store.statBackup('s', 'missing@v1')).toBeNull();
    expect(server.requestCounts.get('GET') ?? 0).toBe(getsBefore);
    expect((server.requestCounts.get('HEAD') ?? 0) - headsBefore).toBe(2);
  });

  it('reports mode 0o644 and no sha256 for an object written without fh metadata', async () => {
    const store = createStore();
    await raw.send(new PutObjectCommand({ Bucket: server.bucket, Key: `${prefix}/file-history/s/foreign@v1`, Body: 'abc' }));

    expect(await store.statBackup('s', 'foreign@v1')).toEqual({ size: 3, mode: 0o644 });
  });
});

describe('restoreBackup and openBackup', () => {
  it('streams the exact bytes into a new file', async () => {
    const store = createStore();
    await store.putBackup('s', 'b@v1', await writeWorkspaceFile('b.bin', BINARY, 0o700));
    const destination = join(workspace, 'restored.tmp');

    await store.restoreBackup('s', 'b@v1', destination);

    expect(await readFile(destination)).toEqual(BINARY);
    const chunks: Uint8Array[] = [];
    for await (const chunk of await store.openBackup('s', 'b@v1')) chunks.push(chunk);
    expect(Buffer.concat(chunks)).toEqual(BINARY);
  });

  it('stops a download cleanly when the reader breaks off early', async () => {
    const store = createStore();
    const bytes = Buffer.alloc(3 * 1024 * 1024, 9);
    await store.putBackup('s', 'long@v1', await writeWorkspaceFile('long.bin', bytes));

    let received = 0;
    for await (const chunk of await store.openBackup('s', 'long@v1')) {
      received += chunk.length;
      break;
    }

    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(bytes.length);
    expect(await store.statBackup('s', 'long@v1')).toMatchObject({ size: bytes.length });
  });

  it('refuses an existing destination with ConflictError and leaves it unchanged', async () => {
    const store = createStore();
    await store.putBackup('s', 'b@v1', await writeWorkspaceFile('b.txt', 'backup'));
    const destination = await writeWorkspaceFile('taken.tmp', 'precious');

    await expect(store.restoreBackup('s', 'b@v1', destination)).rejects.toBeInstanceOf(ConflictError);
    expect(await readFile(destination, 'utf8')).toBe('precious');
  });

  it('throws NotFoundError for a missing backup without creating the destination', async () => {
    const store = createStore();
    const destination = join(workspace, 'never.tmp');

    const error = await store.restoreBackup('s', 'gone@v1', destination).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toBe(
      `restoreBackup s3://${server.bucket}/${prefix}/file-history/s/gone@v1 to "${destination}": the backup does not exist`,
    );
    await expect(stat(destination)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(store.openBackup('s', 'gone@v1')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses an object whose bytes no longer match its sha256 with CorruptError and removes the destination', async () => {
    const store = createStore();
    await store.putBackup('s', 'c@v1', await writeWorkspaceFile('c.txt', 'abcdef'));
    const key = `${prefix}/file-history/s/c@v1`;
    const head = await raw.send(new HeadObjectCommand({ Bucket: server.bucket, Key: key }));
    await raw.send(new PutObjectCommand({ Bucket: server.bucket, Key: key, Body: 'abcdeX', Metadata: head.Metadata }));
    const destination = join(workspace, 'c.tmp');

    const error = await store.restoreBackup('s', 'c@v1', destination).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(CorruptError);
    expect((error as Error).message).toBe(
      `backup s3://${server.bucket}/${key} is corrupt: sha256 ${sha256('abcdeX')} read, ${sha256('abcdef')} recorded`,
    );
    expect(await readdir(workspace)).toEqual(['c.txt']);
    const reading = (async () => {
      for await (const chunk of await store.openBackup('s', 'c@v1')) void chunk;
    })();
    await expect(reading).rejects.toBeInstanceOf(CorruptError);
  });

  it('refuses an object shorter than its recorded size', async () => {
    const store = createStore();
    await store.putBackup('s', 'd@v1', await writeWorkspaceFile('d.txt', 'abcdef'));
    const key = `${prefix}/file-history/s/d@v1`;
    const head = await raw.send(new HeadObjectCommand({ Bucket: server.bucket, Key: key }));
    await raw.send(new PutObjectCommand({ Bucket: server.bucket, Key: key, Body: 'abc', Metadata: head.Metadata }));

    await expect(store.restoreBackup('s', 'd@v1', join(workspace, 'd.tmp'))).rejects.toThrow(
      new CorruptError(`backup s3://${server.bucket}/${key} is corrupt: 3 bytes read, 6 recorded`),
    );
    expect(await readdir(workspace)).toEqual(['d.txt']);
  });
});

describe('carryBackup, listBackups, deleteBackup', () => {
  it('copies on the server with metadata kept, downloading nothing, and reports an existing target', async () => {
    const store = createStore();
    await store.putBackup('from', 'k@v1', await writeWorkspaceFile('k.sh', BINARY, 0o755));
    const getsBefore = server.requestCounts.get('GET') ?? 0;

    expect(await store.carryBackup('from', 'to', 'k@v1')).toBe('copied');
    expect(await store.carryBackup('from', 'to', 'k@v1')).toBe('exists');

    expect(server.requestCounts.get('GET') ?? 0).toBe(getsBefore);
    expect(await store.statBackup('to', 'k@v1')).toEqual({ size: 8, mode: 0o755, sha256: sha256(BINARY) });
    expect(await objectBytes(`${prefix}/file-history/to/k@v1`)).toEqual(BINARY);
  });

  it('throws NotFoundError when the source backup is missing', async () => {
    const store = createStore();
    await expect(store.carryBackup('from', 'to', 'none@v1')).rejects.toBeInstanceOf(NotFoundError);
    expect(await bucketKeys(`${prefix}/`)).toEqual([]);
  });

  it('lists and deletes backups; deleting a missing backup is not an error', async () => {
    const store = createStore();
    const source = await writeWorkspaceFile('f.txt', 'f');
    await store.putBackup('s', 'a@v1', source);
    await store.putBackup('s', 'a@v2', source);
    await store.putBackup('other', 'b@v1', source);

    expect((await store.listBackups('s')).sort()).toEqual(['a@v1', 'a@v2']);
    await store.deleteBackup('s', 'a@v1');
    await store.deleteBackup('s', 'a@v1');
    expect(await store.listBackups('s')).toEqual(['a@v2']);
    expect(await store.listBackups('unknown')).toEqual([]);
  });

  it('lists past the 1,000-key page size', async () => {
    const store = createStore({ concurrency: 32 });
    const names = Array.from({ length: 1003 }, (_, index) => `n${String(index).padStart(4, '0')}@v1`);
    await Promise.all(
      names.map((name) => raw.send(new PutObjectCommand({ Bucket: server.bucket, Key: `${prefix}/file-history/s/${name}`, Body: '' }))),
    );

    expect(await store.listBackups('s')).toEqual(names);
    await store.deleteSession('s');
    expect(await bucketKeys(`${prefix}/`)).toEqual([]);
  }, 120_000); // 2,006 requests to s3rver: 31 s on a loaded 2-core machine
});

describe('sessions', () => {
  it('lists sessions with their bytes and backup counts, and deletes one with its records and lock', async () => {
    const store = createStore();
    const source = await writeWorkspaceFile('f.txt', '12345');
    await store.putBackup('one', 'a@v1', source);
    await store.putBackup('one', 'a@v2', source);
    await store.sessionLog('one').append([{ type: 'user', n: 1 }]);
    await store.putBackup('two', 'b@v1', source);
    const lock = await store.lockSession('two');
    await lock.release();
    await store.lockSession('one');

    const sessions = await store.listSessions();
    expect(sessions.map(({ sessionId, backups }) => ({ sessionId, backups }))).toEqual([
      { sessionId: 'one', backups: 2 },
      { sessionId: 'two', backups: 1 },
    ]);
    const logBytes = '{"type":"user","n":1}\n'.length;
    const lockBytes = (await objectBytes(`${prefix}/sessions/one/lock.json`)).length;
    expect(sessions[0]!.bytes).toBe(10 + logBytes + lockBytes);
    expect(sessions[1]!.bytes).toBe(5);
    expect(sessions[0]!.lastModified.getTime()).toBeGreaterThan(Date.now() - 60_000);

    await store.deleteSession('one');
    await store.deleteSession('never-existed');
    expect(await bucketKeys(`${prefix}/`)).toEqual([`${prefix}/file-history/two/b@v1`]);
    expect((await store.listSessions()).map((session) => session.sessionId)).toEqual(['two']);
  });
});

describe('session log', () => {
  it('reads back the appended records in order, one immutable object per append', async () => {
    const store = createStore();
    const log = store.sessionLog('s');
    await log.append([
      { type: 'user', uuid: 'u1', text: 'héllo' },
      { type: 'assistant', uuid: 'a1' },
    ]);
    await log.append([]);
    await log.append([{ type: 'file-history-snapshot', messageId: 'u1' }]);

    expect(await store.sessionLog('s').read()).toEqual({
      records: [
        { type: 'user', uuid: 'u1', text: 'héllo' },
        { type: 'assistant', uuid: 'a1' },
        { type: 'file-history-snapshot', messageId: 'u1' },
      ],
      skipped: [],
    });
    expect(await bucketKeys(`${prefix}/sessions/s/`)).toEqual([
      `${prefix}/sessions/s/0000000000000001.jsonl`,
      `${prefix}/sessions/s/0000000000000002.jsonl`,
    ]);
    expect((await objectBytes(`${prefix}/sessions/s/0000000000000002.jsonl`)).toString()).toBe(
      '{"type":"file-history-snapshot","messageId":"u1"}\n',
    );
  });

  it('readEnds fetches the first and last objects that fit, or reads everything when they cover the log', async () => {
    const store = createStore();
    const log = store.sessionLog('ends');
    expect(await log.readEnds?.(100, 100)).toEqual({ head: [], tail: [], whole: true });
    const records = Array.from({ length: 10 }, (_, index) => ({ type: 'r', index, pad: 'x'.repeat(20) }));
    for (const record of records) await log.append([record]);
    const size = `${JSON.stringify(records[0])}\n`.length;
    expect(await log.readEnds?.(10 * size, 0)).toEqual({ head: records, tail: [], whole: true });
    expect(await log.readEnds?.(2 * size + 5, 3 * size + 5)).toEqual({ head: records.slice(0, 2), tail: records.slice(7), whole: false });
    expect(await log.readEnds?.(5, 5)).toEqual({ head: [], tail: [], whole: false });
  });

  it('readTail gives the records of the first objects and the last objects\' bytes after the newline before them, or every byte when they cover the log', async () => {
    const store = createStore();
    const log = store.sessionLog('tail');
    const empty = await log.readTail?.(100, 100);
    expect(empty && { ...empty, tail: Buffer.from(empty.tail).toString('utf8') }).toEqual({ head: [], tail: '', whole: true, size: 0 });
    const records = Array.from({ length: 10 }, (_, index) => ({ type: 'r', index, pad: 'x'.repeat(20) }));
    for (const record of records) await log.append([record]);
    const line = (record: object) => `${JSON.stringify(record)}\n`;
    const size = line(records[0] as object).length;
    const text = records.map(line).join('');
    const whole = await log.readTail?.(10 * size, 0);
    expect(whole && { ...whole, tail: Buffer.from(whole.tail).toString('utf8') }).toEqual({ head: [], tail: text, whole: true, size: 10 * size });
    // Another process reads the ends: the same bytes from the objects it fetches (a listing, 2 + 3 objects).
    const other = createStore().sessionLog('tail');
    const gets = () => server.requestCounts.get('GET') ?? 0;
    const before = gets();
    const ends = await other.readTail?.(2 * size + 5, 3 * size + 5);
    expect(gets() - before).toBe(6);
    expect(ends && { ...ends, tail: Buffer.from(ends.tail).toString('utf8') }).toEqual({ head: records.slice(0, 2), tail: `\n${records.slice(7).map(line).join('')}`, whole: false, size: 10 * size });
    // The tail is the log's last bytes.
    expect(text.endsWith(Buffer.from(ends?.tail ?? new Uint8Array()).toString('utf8'))).toBe(true);
    const none = await other.readTail?.(5, 5);
    expect(none && { ...none, tail: Buffer.from(none.tail).toString('utf8') }).toEqual({ head: [], tail: '\n', whole: false, size: 10 * size });
  });

  it('readEnds of a log of many small appends reads 2 objects at the head and 16 per MiB of tail, not the whole log', async () => {
    const writer = createStore().sessionLog('many-ends');
    const records = Array.from({ length: 40 }, (_, index) => ({ type: 'r', index }));
    for (const record of records) await writer.append([record]);
    // Another process: nothing of the log cached.
    const log = createStore().sessionLog('many-ends');
    const gets = () => server.requestCounts.get('GET') ?? 0;
    let before = gets();
    expect(await log.readEnds?.(64 * 1024, 1024 * 1024)).toEqual({ head: records.slice(0, 2), tail: records.slice(24), whole: false });
    // One listing and the 18 objects.
    expect(gets() - before).toBe(19);
    // Log objects never change, so reading the ends again costs one listing.
    before = gets();
    expect(await log.readEnds?.(64 * 1024, 1024 * 1024)).toEqual({ head: records.slice(0, 2), tail: records.slice(24), whole: false });
    expect(gets() - before).toBe(1);
    expect(await log.readEnds?.(64 * 1024, 16 * 1024 * 1024)).toEqual({ head: records, tail: [], whole: true });
  });

  it('reads a session without records as empty', async () => {
    expect(await createStore().sessionLog('nothing').read()).toEqual({ records: [], skipped: [] });
  });

  it('keeps the call order of appends made without awaiting', async () => {
    const store = createStore();
    const log = store.sessionLog('s');
    await Promise.all(Array.from({ length: 20 }, (_, index) => log.append([{ type: 't', index }])));

    expect((await log.read()).records.map((record) => record.index)).toEqual(Array.from({ length: 20 }, (_, index) => index));
  });

  it('lets two sandboxes append to one session without overwriting each other', async () => {
    const first = createStore();
    const second = createStore();
    await first.sessionLog('shared').append([{ type: 'start' }]);
    await second.sessionLog('shared').read();

    await Promise.all([
      first.sessionLog('shared').append([{ type: 'first', n: 1 }, { type: 'first', n: 2 }]),
      second.sessionLog('shared').append([{ type: 'second', n: 1 }, { type: 'second', n: 2 }]),
    ]);
    await first.sessionLog('shared').append([{ type: 'first', n: 3 }]);

    const { records } = await createStore().sessionLog('shared').read();
    expect(records).toHaveLength(6);
    expect(records[0]).toEqual({ type: 'start' });
    const kinds = records.slice(1, 5).map((record) => `${record.type}${String(record.n)}`);
    expect([kinds.slice(0, 2), kinds.slice(2, 4)].sort()).toEqual([
      ['first1', 'first2'],
      ['second1', 'second2'],
    ]);
    expect(records[5]).toEqual({ type: 'first', n: 3 });
  });

  it('skips corrupt lines, numbering them as one JSONL file would, and keeps the records after them', async () => {
    const store = createStore();
    const log = store.sessionLog('s');
    await log.append([{ type: 'a' }, { type: 'b' }]);
    await raw.send(
      new PutObjectCommand({
        Bucket: server.bucket,
        Key: `${prefix}/sessions/s/0000000000000002.jsonl`,
        Body: '{"type":"c"}\nnot json\n[1,2]\n{"type":"d"}\n{"type":"tor',
      }),
    );
    await log.append([{ type: 'e' }]);

    expect(await log.read()).toEqual({
      records: [{ type: 'a' }, { type: 'b' }, { type: 'c' }, { type: 'd' }, { type: 'e' }],
      skipped: [
        { line: 4, reason: 'invalid JSON' },
        { line: 5, reason: 'not an object with a type' },
        { line: 7, reason: 'torn last line' },
      ],
    });
    expect(await bucketKeys(`${prefix}/sessions/s/`)).toHaveLength(3);
  });
});

describe('session lock', () => {
  it('lets one holder at a time lock a session, naming the holder to the others', async () => {
    const first = createStore();
    const second = createStore();
    const lock = await first.lockSession('s');

    const error = await second.lockSession('s').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockedError);
    expect((error as Error).message).toMatch(
      new RegExp(`^session "s" is locked by .+ \\(pid ${process.pid}\\) until \\d{4}-\\d\\d-\\d\\dT.+Z \\(s3://${server.bucket}/${prefix}/sessions/s/lock\\.json\\)$`),
    );
    expect(await second.isSessionLocked('s')).toBe(true);
    expect(await first.isSessionLocked('s')).toBe(false);

    await lock.release();
    await lock.release();
    expect(await second.isSessionLocked('s')).toBe(false);
    const again = await second.lockSession('s');
    await again.release();
    expect(await bucketKeys(`${prefix}/sessions/s/`)).toEqual([]);
  });

  it('releases a lease as a released lease that a later holder takes on its listing, without listing again; a holder between them makes it list', async () => {
    const writer = createStore();
    const held = await writer.lockSession('kept');
    await writer.sessionLog('kept').append([{ type: 'r', n: 1 }]);
    await held.release();
    const lockKey = `${prefix}/sessions/kept/lock.json`;
    const released = JSON.parse((await objectBytes(lockKey)).toString('utf8')) as { holder: string; expiresAtMs: number };
    expect(released).toEqual({ holder: expect.any(String), expiresAtMs: 0 });
    expect((await objectBytes(lockKey)).length).toBe(RELEASED_LEASE_BYTES);
    expect(await writer.isSessionLocked('kept')).toBe(false);

    // Another process reads the log (a listing), then locks: one conditional put, and the read under it sends nothing.
    const reader = createStore();
    const log = reader.sessionLog('kept');
    expect((await log.read()).records).toEqual([{ type: 'r', n: 1 }]);
    const counts = () => ({ GET: server.requestCounts.get('GET') ?? 0, PUT: server.requestCounts.get('PUT') ?? 0 });
    let before = counts();
    const lock = await reader.lockSession('kept');
    expect((await log.read()).records).toEqual([{ type: 'r', n: 1 }]);
    await log.append([{ type: 'r', n: 2 }]);
    expect(counts()).toEqual({ GET: before.GET, PUT: before.PUT + 2 });
    await lock.release();

    // A holder comes between a listing and the lock: the conditional put fails, and the read under the lock lists again and sees its record.
    const late = createStore();
    const lateLog = late.sessionLog('kept');
    expect((await lateLog.read()).records).toHaveLength(2);
    const between = await writer.lockSession('kept');
    await writer.sessionLog('kept').append([{ type: 'r', n: 3 }]);
    await between.release();
    const lateLock = await late.lockSession('kept');
    expect((await lateLog.read()).records.map((record) => record.n)).toEqual([1, 2, 3]);
    await lateLog.append([{ type: 'r', n: 4 }]);
    await lateLock.release();
    expect((await createStore().sessionLog('kept').read()).records.map((record) => record.n)).toEqual([1, 2, 3, 4]);

    // A session deleted under its lock is left with no lock object.
    const cleaner = createStore();
    const cleaning = await cleaner.lockSession('kept');
    await cleaner.deleteSession('kept');
    await cleaning.release();
    expect(await bucketKeys(`${prefix}/sessions/kept/`)).toEqual([]);
  });

  it('takes over a lease whose holder died and never renewed it', async () => {
    const store = createStore();
    await raw.send(
      new PutObjectCommand({
        Bucket: server.bucket,
        Key: `${prefix}/sessions/s/lock.json`,
        Body: JSON.stringify({ holder: 'dead', host: 'gone-sandbox', pid: 1, expiresAtMs: Date.now() - 1000 }),
      }),
    );

    expect(await store.isSessionLocked('s')).toBe(false);
    const lock = await store.lockSession('s');
    expect(JSON.parse((await objectBytes(`${prefix}/sessions/s/lock.json`)).toString())).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('takes over at once an unexpired lease left by a process of this machine that no longer exists, and only that', async () => {
    const machine = `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}/${readlinkSync('/proc/self/ns/pid')}`;
    const exited = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    const lease = (pid: number, leaseMachine: string) =>
      raw.send(
        new PutObjectCommand({
          Bucket: server.bucket,
          Key: `${prefix}/sessions/s/lock.json`,
          Body: JSON.stringify({ holder: 'other', host: 'here', pid, machine: leaseMachine, expiresAtMs: Date.now() + 60_000 }),
        }),
      );
    try {
      await lease(sleeper.pid as number, machine);
      await expect(createStore().lockSession('s')).rejects.toBeInstanceOf(LockedError);
      await lease(exited, 'another-boot/pid:[1]');
      await expect(createStore().lockSession('s')).rejects.toBeInstanceOf(LockedError);
      await lease(exited, machine);
      const lock = await createStore().lockSession('s');
      expect(JSON.parse((await objectBytes(`${prefix}/sessions/s/lock.json`)).toString())).toMatchObject({ pid: process.pid, machine });
      await lock.release();
    } finally {
      sleeper.kill();
    }
  });

  it('renews its lease while held', async () => {
    // Held for 2.5 lease terms: only renewals keep it (a term long enough that a busy machine's
    // event-loop stalls do not let it lapse between renewals).
    const store = createStore({ lockTtlMs: 1_000 });
    const lock = await store.lockSession('s');
    await new Promise((resolve) => setTimeout(resolve, 2_500));

    await expect(createStore().lockSession('s')).rejects.toBeInstanceOf(LockedError);
    await lock.release();
  });
});

describe('prefix', () => {
  it('keeps every object under the normalised prefix', async () => {
    const store = createStore({ prefix: `/${prefix}/nested/` });
    await store.putBackup('s', 'p@v1', await writeWorkspaceFile('p.txt', 'p'));
    await store.sessionLog('s').append([{ type: 'x' }]);

    expect(await bucketKeys(`${prefix}/`)).toEqual([
      `${prefix}/nested/file-history/s/p@v1`,
      `${prefix}/nested/sessions/s/0000000000000001.jsonl`,
    ]);
    expect(store.prefix).toBe(`${prefix}/nested/`);
  });

  it('rejects a prefix with empty or dot segments and options that contradict each other', () => {
    expect(() => createStore({ prefix: 'a//b' })).toThrow(InvalidArgumentError);
    expect(() => createStore({ prefix: 'a/../b' })).toThrow(InvalidArgumentError);
    expect(() => createStore({ partSizeBytes: 1024 })).toThrow(
      new InvalidArgumentError('partSizeBytes must be an integer of at least 5242880 (5 MiB): 1024'),
    );
    expect(() => new S3BackupStore({ bucket: 'b', client: raw, clientConfig: {} })).toThrow(InvalidArgumentError);
    expect(() => new S3BackupStore({ bucket: '' })).toThrow(InvalidArgumentError);
  });

  it('declares its capabilities and owns no workspace path', () => {
    const store = createStore();
    expect(store.kind).toBe('s3');
    expect(store.capabilities).toEqual({ hardLinks: false, serverSideCopy: true, locking: true, sha256: true });
    expect(store.containsPath(join(workspace, 'x'))).toBe(false);
  });
});

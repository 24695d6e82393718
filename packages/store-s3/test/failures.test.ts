import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { ConflictError, FileHistory, NotFoundError, PermissionError, UnavailableError } from '@fh/core';
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { S3BackupStore, type S3BackupStoreOptions } from '../src/index.js';
import { startS3rver, type S3rverHarness } from './s3rver-harness.js';

let server: S3rverHarness;
let workspace: string;
const prefix = `t-${randomUUID()}`;
const cleanups: Array<() => unknown> = [];
/** Whether the stores of the running test send through the signed-request client (each test runs both ways). */
let signedRequests = false;

beforeEach(async () => {
  server = await startS3rver();
  workspace = await mkdtemp(join(tmpdir(), 'fh-s3-failures-'));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await server.close();
  await rm(workspace, { recursive: true, force: true });
});

function createStore(options: Partial<S3BackupStoreOptions> = {}): S3BackupStore {
  const store = new S3BackupStore({ bucket: server.bucket, prefix, clientConfig: server.clientConfig, signedRequests, ...options });
  cleanups.push(() => store.destroy());
  return store;
}

function rawClient(): S3Client {
  const client = server.createClient();
  cleanups.push(() => client.destroy());
  return client;
}

async function writeWorkspaceFile(name: string, bytes: Uint8Array | string, mode = 0o644): Promise<string> {
  const path = join(workspace, name);
  await writeFile(path, bytes);
  await chmod(path, mode);
  return path;
}

/** Deterministic bytes, different at every offset within a 256-byte cycle shifted per KiB. */
function patternBytes(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index += 1) bytes[index] = (index + (index >> 10)) & 0xff;
  return bytes;
}

// Every test once through the AWS SDK's client and once through the store's signed-request client.
for (const signed of [false, true]) {
  describe(signed ? 'signed requests' : 'the SDK client', () => {
    beforeEach(() => {
      signedRequests = signed;
    });

    describe('retries', () => {
      it('retries injected 503 SlowDown answers and then succeeds', async () => {
        const store = createStore();
        const source = await writeWorkspaceFile('a.txt', 'retry me\n');
        server.failNext(2, 503);
        const putsBefore = server.requestCounts.get('PUT') ?? 0;

        expect(await store.putBackup('s', 'a@v1', source)).toMatchObject({ size: 9 });

        expect((server.requestCounts.get('PUT') ?? 0) - putsBefore).toBe(3);
        const head = await rawClient().send(new HeadObjectCommand({ Bucket: server.bucket, Key: `${prefix}/file-history/s/a@v1` }));
        expect(head.ContentLength).toBe(9);
      });

      it('retries injected 500 InternalError answers on download and restores the exact bytes', async () => {
        const store = createStore();
        const bytes = patternBytes(70_000);
        await store.putBackup('s', 'b@v1', await writeWorkspaceFile('b.bin', bytes));
        server.failNext(2, 500);
        const getsBefore = server.requestCounts.get('GET') ?? 0;

        await store.restoreBackup('s', 'b@v1', join(workspace, 'b.tmp'));

        expect((await readFile(join(workspace, 'b.tmp'))).equals(bytes)).toBe(true);
        expect((server.requestCounts.get('GET') ?? 0) - getsBefore).toBe(3);
      });

      it('gives up after the SDK standard 3 attempts with UnavailableError and leaves no object', async () => {
        const store = createStore();
        const source = await writeWorkspaceFile('c.txt', 'never stored');
        server.failNext(3, 503);

        const error = await store.putBackup('s', 'c@v1', source).catch((caught: unknown) => caught);

        expect(error).toBeInstanceOf(UnavailableError);
        expect((error as Error).message).toBe(
          `putBackup s3://${server.bucket}/${prefix}/file-history/s/c@v1: S3 SlowDown, HTTP 503: injected by the test ` +
            `(S3 at ${server.endpoint}, bucket "${server.bucket}", cannot be reached or keeps failing after retries)`,
        );
        expect(await store.statBackup('s', 'c@v1')).toBeNull();
        expect(await readFile(source, 'utf8')).toBe('never stored');
      });
    });

    describe('refusals', () => {
      it('turns a conflicting write into ConflictError (412 from If-None-Match)', async () => {
        const first = createStore();
        const second = createStore();
        await first.putBackup('s', 'x@v1', await writeWorkspaceFile('one.txt', 'one'));

        await expect(second.putBackup('s', 'x@v1', await writeWorkspaceFile('two.txt', 'two'))).rejects.toBeInstanceOf(ConflictError);
        const chunks: Uint8Array[] = [];
        for await (const chunk of await second.openBackup('s', 'x@v1')) chunks.push(chunk);
        expect(Buffer.concat(chunks).toString()).toBe('one');
      });

      it('turns an unknown access key into PermissionError naming the bucket and endpoint', async () => {
        const store = createStore({ clientConfig: { ...server.clientConfig, credentials: { accessKeyId: 'WRONG', secretAccessKey: 'x' } } });
        const source = await writeWorkspaceFile('a.txt', 'a');

        const error = await store.putBackup('s', 'a@v1', source).catch((caught: unknown) => caught);

        expect(error).toBeInstanceOf(PermissionError);
        expect((error as Error).message).toContain('S3 InvalidAccessKeyId, HTTP 403');
        expect((error as Error).message).toContain(`(S3 refused access to bucket "${server.bucket}" at ${server.endpoint}: check the credentials`);
        await expect(store.listSessions()).rejects.toBeInstanceOf(PermissionError);
      });

      it('names a missing bucket', async () => {
        const store = createStore({ bucket: 'no-such-bucket' });

        await expect(store.putBackup('s', 'a@v1', await writeWorkspaceFile('a.txt', 'a'))).rejects.toThrow(
          new NotFoundError(
            `putBackup s3://no-such-bucket/${prefix}/file-history/s/a@v1: the bucket "no-such-bucket" does not exist at ${server.endpoint}`,
          ),
        );
      });
    });

    describe('server down', () => {
      it('fails every operation with UnavailableError naming the endpoint and bucket, touching no workspace file', async () => {
        const store = createStore();
        const source = await writeWorkspaceFile('a.txt', 'workspace bytes', 0o640);
        await store.putBackup('s', 'a@v1', source);
        const heldLock = await store.lockSession('held');
        await server.stop();

        const operations: Array<Promise<unknown>> = [
          store.putBackup('s', 'a@v2', source),
          store.statBackup('s', 'a@v1'),
          store.restoreBackup('s', 'a@v1', join(workspace, 'restore.tmp')),
          store.openBackup('s', 'a@v1'),
          store.carryBackup('s', 't', 'a@v1'),
          store.listBackups('s'),
          store.listSessions(),
          store.deleteSession('s'),
          store.sessionLog('s').append([{ type: 'x' }]),
          store.sessionLog('s').read(),
          store.lockSession('s'),
        ];
        const errors = await Promise.all(operations.map((operation) => operation.then(() => undefined, (caught: unknown) => caught)));
        for (const error of errors) {
          expect(error).toBeInstanceOf(UnavailableError);
          expect((error as Error).message).toContain(`(S3 at ${server.endpoint}, bucket "${server.bucket}", cannot be reached`);
          expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
        }
        expect(await readdir(workspace)).toEqual(['a.txt']);
        expect(await readFile(source, 'utf8')).toBe('workspace bytes');
        expect((await stat(source)).mode & 0o777).toBe(0o640);
        await expect(heldLock.release()).resolves.toBeUndefined();
      });

      it('refuses a rewind with UnavailableError when S3 is down (it cannot read the log for an interrupted operation to recover first), changing nothing', async () => {
        const store = createStore();
        const project = join(workspace, 'project');
        await mkdir(join(project, 'src'), { recursive: true });
        await writeFile(join(project, 'src/app.ts'), 'original\n');
        const history = await FileHistory.open({ projectRoot: project, sessionId: 's', store, env: {} });
        await history.makeSnapshot('m1');
        await history.trackEdit('src/app.ts');
        await writeFile(join(project, 'src/app.ts'), 'edited by the agent\n');
        await chmod(join(project, 'src/app.ts'), 0o600);
        await writeFile(join(project, 'created.txt'), 'new file');
        await history.trackEdit('created.txt');
        await history.makeSnapshot('m2');
        await server.stop();

        const refusal = await history.rewind('m1').then(
          () => undefined,
          (error: unknown) => error,
        );

        expect(refusal).toBeInstanceOf(UnavailableError);
        expect((refusal as Error).message).toContain(`(S3 at ${server.endpoint}, bucket "${server.bucket}", cannot be reached`);
        expect(await readFile(join(project, 'src/app.ts'), 'utf8')).toBe('edited by the agent\n');
        expect((await stat(join(project, 'src/app.ts'))).mode & 0o777).toBe(0o600);
        expect(await readFile(join(project, 'created.txt'), 'utf8')).toBe('new file');
        expect((await readdir(project, { recursive: true })).sort()).toEqual(['created.txt', 'src', 'src/app.ts']);
        await history.close();
      });

      it('removes the half-written destination when the server stops in the middle of a download', async () => {
        const store = createStore();
        const bytes = patternBytes(8 * 1024 * 1024);
        await store.putBackup('s', 'big@v1', await writeWorkspaceFile('big.bin', bytes));
        const destination = join(workspace, 'big.tmp');
        let bytesSent = 0;
        server.intercept((request, response) => {
          if (request.method !== 'GET') return false;
          const write = response.write.bind(response) as ServerResponse['write'];
          response.write = ((chunk: Buffer, ...rest: never[]) => {
            bytesSent += chunk.length;
            if (bytesSent > 1024 * 1024) {
              void server.stop();
              return false;
            }
            return write(chunk, ...rest);
          }) as ServerResponse['write'];
          return false;
        });

        const error = await store.restoreBackup('s', 'big@v1', destination).catch((caught: unknown) => caught);

        expect(error).toBeInstanceOf(UnavailableError);
        expect(bytesSent).toBeGreaterThan(1024 * 1024);
        expect(await readdir(workspace)).toEqual(['big.bin']);
        expect((await readFile(join(workspace, 'big.bin'))).equals(bytes)).toBe(true);
      });

      it('leaves no backup and an untouched source when the server stops in the middle of a multipart upload', async () => {
        const store = createStore({ partSizeBytes: 5 * 1024 * 1024, uploadQueueSize: 1 });
        const bytes = patternBytes(16 * 1024 * 1024);
        const source = await writeWorkspaceFile('big.bin', bytes, 0o600);
        let parts = 0;
        server.intercept((request) => {
          if (request.method !== 'PUT' || !request.url?.includes('partNumber=')) return false;
          parts += 1;
          if (parts < 2) return false;
          void server.stop();
          return true;
        });

        const error = await store.putBackup('s', 'big@v1', source).catch((caught: unknown) => caught);

        expect(error).toBeInstanceOf(UnavailableError);
        expect(parts).toBe(2);
        expect(await server.exists(`${prefix}/file-history/s/big@v1`)).toBe(false);
        expect((await readFile(source)).equals(bytes)).toBe(true);
        expect((await stat(source)).mode & 0o777).toBe(0o600);
        expect(await readdir(workspace)).toEqual(['big.bin']);
      });
    });
  });
}

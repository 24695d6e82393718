import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedClientConfig } from '../src/signed-client-config.js';
import { startS3rver, type S3rverHarness } from './s3rver-harness.js';
import { recordSdkImports } from './sdk-imports.js';

// Which SDK modules the store imports.
const imported = recordSdkImports();
const { S3BackupStore } = await import('../src/index.js');

let server: S3rverHarness;
let folder: string;
const timeouts = { connectionTimeoutMs: 10_000, socketTimeoutMs: 60_000 };

beforeAll(async () => {
  server = await startS3rver();
  folder = await mkdtemp(join(tmpdir(), 'fh-s3-signed-'));
});

afterAll(async () => {
  await server.close();
  await rm(folder, { recursive: true, force: true });
});

/** Recompute the SigV4 signature of a request as the server received it (its signed headers only); true when it matches. */
async function signatureMatches(request: { method: string; url: string; headers: IncomingMessage['headers'] }, secretAccessKey: string): Promise<boolean> {
  const authorization = String(request.headers.authorization);
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(authorization);
  if (match === null) return false;
  const [, accessKeyId, , region, signedHeaders, signature] = match as unknown as string[];
  const url = new URL(request.url, 'http://placeholder');
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = value;
  const headers: Record<string, string> = {};
  for (const name of (signedHeaders as string).split(';')) headers[name] = String(request.headers[name]);
  const amzDate = headers['x-amz-date'] as string;
  const signingDate = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
  class Sha256 {
    private hash;
    constructor(secret?: string | Uint8Array) {
      this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', secret);
    }
    update(data: string | Uint8Array): void {
      this.hash.update(data);
    }
    async digest(): Promise<Uint8Array> {
      return new Uint8Array(this.hash.digest());
    }
  }
  const signer = new SignatureV4({ credentials: { accessKeyId: accessKeyId as string, secretAccessKey }, region: region as string, service: 's3', sha256: Sha256 as never, uriEscapePath: false });
  const resigned = await signer.sign({ method: request.method, protocol: 'http:', hostname: url.hostname, path: url.pathname, query, headers }, { signingDate });
  return String(resigned.headers.authorization).endsWith(`Signature=${signature}`);
}

describe('the signed-request client', () => {
  it('backs up, restores, appends, reads and locks without loading the AWS SDK; only a multipart backup loads it', async () => {
    const store = new S3BackupStore({ bucket: server.bucket, prefix: `signed-${randomUUID()}`, clientConfig: server.clientConfig, signedRequests: true, partSizeBytes: 5 * 1024 * 1024 });
    const session = 'signed session (1)!';
    const small = join(folder, 'small.txt');
    await writeFile(small, 'small backup\n', { mode: 0o640 });
    const name = "a file's backup (é)@v1";
    expect(await store.putBackup(session, name, small)).toEqual({ size: 13, mode: 0o640, sha256: createHash('sha256').update('small backup\n').digest('hex') });
    expect(await store.statBackup(session, name)).toEqual({ size: 13, mode: 0o640, sha256: createHash('sha256').update('small backup\n').digest('hex') });
    expect(await store.statBackup(session, 'missing@v1')).toBeNull();
    const restored = join(folder, 'small-restored.txt');
    await store.restoreBackup(session, name, restored);
    expect(await readFile(restored, 'utf8')).toBe('small backup\n');
    expect(await store.carryBackup(session, 'other', name)).toBe('copied');
    expect(await store.carryBackup(session, 'other', name)).toBe('exists');
    expect(await store.listBackups('other')).toEqual([name]);
    const log = store.sessionLog(session);
    await log.append([{ type: 'user', uuid: 'u1', text: 'a & b < c' }]);
    await log.append([{ type: 'x', n: 2 }]);
    expect((await log.read()).records).toEqual([
      { type: 'user', uuid: 'u1', text: 'a & b < c' },
      { type: 'x', n: 2 },
    ]);
    const lock = await store.lockSession(session);
    await expect(store.lockSession(session)).rejects.toMatchObject({ code: 'FH_LOCKED' });
    await lock.release();
    await (await store.lockSession(session)).release();
    expect((await store.listSessions()).map((summary) => summary.sessionId).sort()).toEqual(['other', session].sort());
    await store.deleteSession('other');
    expect(await store.listBackups('other')).toEqual([]);
    expect(imported).toEqual([]);

    const big = join(folder, 'big.bin');
    const bytes = randomBytes(6 * 1024 * 1024 + 17);
    await writeFile(big, bytes);
    expect((await store.putBackup(session, 'big@v1', big)).size).toBe(bytes.length);
    expect([...imported].sort()).toEqual(['@aws-sdk/client-s3', '@aws-sdk/lib-storage']);
    const restoredBig = join(folder, 'big-restored.bin');
    await store.restoreBackup(session, 'big@v1', restoredBig);
    expect((await readFile(restoredBig)).equals(bytes)).toBe(true);
    store.destroy();
  });

  it('signs each request as it goes on the wire (path, query, headers and payload hash)', async () => {
    const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> = [];
    server.intercept((request) => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: { ...request.headers } });
      return false;
    });
    try {
      const store = new S3BackupStore({ bucket: server.bucket, prefix: `sig ${randomUUID()}`, clientConfig: server.clientConfig, signedRequests: true });
      const source = join(folder, 'signed.txt');
      await writeFile(source, 'signed bytes');
      await store.putBackup('s p+a=c!e', "n'ame (1)*@v1", source);
      await store.sessionLog('s p+a=c!e').read();
      await store.deleteSession('s p+a=c!e');
      store.destroy();
    } finally {
      server.intercept(undefined);
    }
    expect(seen.map((request) => request.method)).toEqual(['PUT', 'GET', 'GET', 'GET', 'POST']);
    expect(seen[0]?.headers['x-amz-content-sha256']).toBe(createHash('sha256').update('signed bytes').digest('hex'));
    for (const request of seen) expect(await signatureMatches(request, 'S3RVER')).toBe(true);
  });
});

describe('the signed-request client, unreachable', () => {
  it('names an endpoint without a port as it was given', async () => {
    const store = new S3BackupStore({ bucket: 'b', clientConfig: { ...server.clientConfig, endpoint: 'http://127.0.0.1' }, signedRequests: true });
    const error = await store.listBackups('s').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'FH_UNAVAILABLE', cause: { code: 'ECONNREFUSED' } });
    expect((error as Error).message).toContain('(S3 at http://127.0.0.1, bucket "b", cannot be reached or keeps failing after retries)');
    store.destroy();
  });
});

describe('signedClientConfig', () => {
  const staticEnvironment = { AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK', AWS_REGION: 'eu-west-1', HOME: '/nonexistent-home' };

  it('covers static credentials with a path-style custom endpoint, or AWS S3 in a standard region', () => {
    expect(signedClientConfig('b', {}, true, timeouts, { ...staticEnvironment, AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000', AWS_SESSION_TOKEN: 'T' })).toEqual({
      endpoint: new URL('http://127.0.0.1:9000'),
      customEndpoint: true,
      pathStyle: true,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AK', secretAccessKey: 'SK', sessionToken: 'T' },
      maxAttempts: 3,
      ...timeouts,
    });
    expect(signedClientConfig('my-bucket', {}, false, timeouts, staticEnvironment)).toMatchObject({ endpoint: new URL('https://s3.eu-west-1.amazonaws.com'), customEndpoint: false, pathStyle: false });
    expect(signedClientConfig('my.bucket', {}, false, timeouts, staticEnvironment)).toMatchObject({ pathStyle: true });
    expect(signedClientConfig('b', { region: 'us-east-2', credentials: { accessKeyId: 'A', secretAccessKey: 'S' } }, false, timeouts, { HOME: '/nonexistent-home' })).toMatchObject({ region: 'us-east-2', credentials: { accessKeyId: 'A', secretAccessKey: 'S' } });
  });

  it('leaves to the SDK what only its resolution chains decide', () => {
    const custom = { ...staticEnvironment, AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000' };
    expect(signedClientConfig('b', {}, true, timeouts, { ...custom, AWS_PROFILE: 'dev' })).toBeUndefined();
    expect(signedClientConfig('b', {}, true, timeouts, { AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000', AWS_REGION: 'x' })).toBeUndefined();
    expect(signedClientConfig('b', {}, true, timeouts, { ...custom, AWS_REGION: undefined })).toBeUndefined();
    expect(signedClientConfig('b', {}, false, timeouts, custom)).toBeUndefined();
    expect(signedClientConfig('b', { maxAttempts: 5 }, true, timeouts, custom)).toBeUndefined();
    expect(signedClientConfig('b', { credentials: async () => ({ accessKeyId: 'A', secretAccessKey: 'S' }) }, true, timeouts, custom)).toBeUndefined();
    expect(signedClientConfig('b', {}, true, timeouts, { ...custom, AWS_USE_FIPS_ENDPOINT: 'true' })).toBeUndefined();
    expect(signedClientConfig('b', {}, true, timeouts, { ...custom, AWS_RETRY_MODE: 'adaptive' })).toBeUndefined();
    expect(signedClientConfig('b', {}, false, timeouts, { ...staticEnvironment, AWS_REGION: 'cn-north-1' })).toBeUndefined();
    expect(signedClientConfig('b', {}, false, timeouts, { ...staticEnvironment, AWS_CONFIG_FILE: join(import.meta.dirname, 'signed-client.test.ts') })).toBeUndefined();
  });
});

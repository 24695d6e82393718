import { NoSuchKey, NotFound, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import {
  ConflictError,
  FhError,
  InvalidArgumentError,
  NotFoundError,
  PermissionError,
  UnavailableError,
} from '@fh/core';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { S3BackupStore, translateS3Error } from '../src/index.js';

const target = { endpoint: 'http://127.0.0.1:9', bucket: 'b' };

function serviceError(name: string, status: number, message = `${name} happened`): S3ServiceException {
  return new S3ServiceException({ name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status }, message });
}

function networkError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:9`), { code });
}

describe('translateS3Error', () => {
  const cases: Array<[string, unknown, new (...args: never[]) => FhError, string]> = [
    [
      'NoSuchKey',
      new NoSuchKey({ $metadata: { httpStatusCode: 404 }, message: 'The specified key does not exist.' }),
      NotFoundError,
      'get k: S3 NoSuchKey, HTTP 404: The specified key does not exist. (does not exist)',
    ],
    ['NotFound (HeadObject)', new NotFound({ $metadata: { httpStatusCode: 404 }, message: 'NotFound' }), NotFoundError, 'get k: S3 NotFound, HTTP 404 (does not exist)'],
    ['NoSuchBucket', serviceError('NoSuchBucket', 404), NotFoundError, 'get k: the bucket "b" does not exist at http://127.0.0.1:9'],
    [
      'PreconditionFailed',
      serviceError('PreconditionFailed', 412, 'At least one of the pre-conditions you specified did not hold'),
      ConflictError,
      'get k: S3 PreconditionFailed, HTTP 412: At least one of the pre-conditions you specified did not hold (the object already exists or was changed by another writer)',
    ],
    ['ConditionalRequestConflict', serviceError('ConditionalRequestConflict', 409), ConflictError, 'get k: S3 ConditionalRequestConflict, HTTP 409: ConditionalRequestConflict happened (the object already exists or was changed by another writer)'],
    [
      'AccessDenied',
      serviceError('AccessDenied', 403, 'Access Denied'),
      PermissionError,
      'get k: S3 AccessDenied, HTTP 403: Access Denied (S3 refused access to bucket "b" at http://127.0.0.1:9: check the credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE) and the bucket policy)',
    ],
    ['InvalidAccessKeyId', serviceError('InvalidAccessKeyId', 403), PermissionError, ''],
    ['SignatureDoesNotMatch', serviceError('SignatureDoesNotMatch', 403), PermissionError, ''],
    ['ExpiredToken', serviceError('ExpiredToken', 400), PermissionError, ''],
    [
      'ECONNREFUSED',
      networkError('ECONNREFUSED'),
      UnavailableError,
      'get k: S3 ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9 (S3 at http://127.0.0.1:9, bucket "b", cannot be reached or keeps failing after retries)',
    ],
    ['ECONNRESET', networkError('ECONNRESET'), UnavailableError, ''],
    ['ENOTFOUND', networkError('ENOTFOUND'), UnavailableError, ''],
    ['TimeoutError', Object.assign(new Error('timed out'), { name: 'TimeoutError' }), UnavailableError, ''],
    ['503 SlowDown', serviceError('SlowDown', 503), UnavailableError, ''],
    ['500 InternalError', serviceError('InternalError', 500), UnavailableError, ''],
    [
      'Region is missing',
      new Error('Region is missing'),
      InvalidArgumentError,
      'get k: S3 error: Region is missing (the S3 client is not configured: set AWS_REGION, and AWS_ENDPOINT_URL_S3 for an S3-compatible service)',
    ],
    ['EndpointError', Object.assign(new Error('Custom endpoint `x` was not a valid URI'), { name: 'EndpointError' }), InvalidArgumentError, ''],
    ['400 InvalidBucketName', serviceError('InvalidBucketName', 400), InvalidArgumentError, ''],
    ['anything else', serviceError('MalformedXML', 418), FhError, 'get k: S3 MalformedXML, HTTP 418: MalformedXML happened'],
  ];

  it.each(cases)('translates %s, keeping the raw error as cause', (_label, raw, expectedClass, expectedMessage) => {
    const translated = translateS3Error(raw, 'get k', target);
    expect(translated).toBeInstanceOf(expectedClass);
    expect(translated.constructor).toBe(expectedClass);
    expect(translated.cause).toBe(raw);
    if (expectedMessage) expect(translated.message).toBe(expectedMessage);
  });

  it('passes an FhError through unchanged', () => {
    const error = new ConflictError('already');
    expect(translateS3Error(error, 'x', target)).toBe(error);
  });

  it('reads the errno code inside an AggregateError (happy-eyeballs connects)', () => {
    const raw = new AggregateError([networkError('ECONNREFUSED'), networkError('ECONNREFUSED')], 'connect failed');
    expect(translateS3Error(raw, 'x', target)).toBeInstanceOf(UnavailableError);
  });
});

describe('the store translates errors from a stubbed client', () => {
  let workspace: string;
  let client: S3Client;
  let failWith: unknown;

  beforeAll(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'fh-s3-stub-'));
    client = new S3Client({ region: 'eu-west-1', endpoint: 'https://s3.example.test', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    client.send = (async () => {
      throw failWith;
    }) as S3Client['send'];
  });

  afterAll(async () => {
    client.destroy();
    await rm(workspace, { recursive: true, force: true });
  });

  it('maps AccessDenied on upload to PermissionError naming bucket and endpoint, leaving the workspace alone', async () => {
    failWith = serviceError('AccessDenied', 403, 'Access Denied');
    const store = new S3BackupStore({ bucket: 'locked-bucket', prefix: 'p', client });
    const source = join(workspace, 'a.txt');
    await writeFile(source, 'keep me');

    const error = await store.putBackup('s', 'a@v1', source).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PermissionError);
    expect((error as Error).message).toBe(
      'putBackup s3://locked-bucket/p/file-history/s/a@v1: S3 AccessDenied, HTTP 403: Access Denied (S3 refused access to bucket ' +
        '"locked-bucket" at https://s3.example.test: check the credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE) and the bucket policy)',
    );
    expect((error as Error).cause).toBe(failWith);
    expect(await readdir(workspace)).toEqual(['a.txt']);
  });

  it('reads NotFound on HeadObject as a missing backup and a network failure as UnavailableError', async () => {
    const store = new S3BackupStore({ bucket: 'b', client });
    failWith = new NotFound({ $metadata: { httpStatusCode: 404 }, message: 'NotFound' });
    expect(await store.statBackup('s', 'a@v1')).toBeNull();

    failWith = networkError('ECONNREFUSED');
    await expect(store.statBackup('s', 'a@v1')).rejects.toBeInstanceOf(UnavailableError);
    await expect(store.restoreBackup('s', 'a@v1', join(workspace, 'out.tmp'))).rejects.toBeInstanceOf(UnavailableError);
    await expect(store.sessionLog('s').append([{ type: 'x' }])).rejects.toBeInstanceOf(UnavailableError);
    await expect(store.listSessions()).rejects.toBeInstanceOf(UnavailableError);
    expect(await readdir(workspace)).toEqual(['a.txt']);
  });

  it('maps NoSuchKey on restore to NotFoundError and 412 on copy to "exists"', async () => {
    const store = new S3BackupStore({ bucket: 'b', client });
    failWith = new NoSuchKey({ $metadata: { httpStatusCode: 404 }, message: 'The specified key does not exist.' });
    await expect(store.restoreBackup('s', 'a@v1', join(workspace, 'out.tmp'))).rejects.toBeInstanceOf(NotFoundError);

    failWith = serviceError('PreconditionFailed', 412);
    expect(await store.carryBackup('s', 't', 'a@v1')).toBe('exists');
  });

  it('names the endpoint the SDK takes from AWS_ENDPOINT_URL_S3 when the client has none configured', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_S3', 'http://minio.internal:9000');
    const environmentClient = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    environmentClient.send = (async () => {
      throw networkError('ECONNREFUSED');
    }) as S3Client['send'];
    try {
      const store = new S3BackupStore({ bucket: 'b', client: environmentClient });
      await expect(store.statBackup('s', 'a@v1')).rejects.toThrow('(S3 at http://minio.internal:9000, bucket "b", cannot be reached');
    } finally {
      vi.unstubAllEnvs();
      environmentClient.destroy();
    }
  });
});

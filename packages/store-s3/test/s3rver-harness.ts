/**
 * Starts s3rver on 127.0.0.1 (random port, temp folder) for the tests, with the settings
 * /work/shared/toolchain.md found necessary: the process runs with `--openssl-legacy-provider`
 * (vitest.config.ts), clients use `requestChecksumCalculation: 'WHEN_REQUIRED'` and the S3RVER
 * key, and a request shim enforces `If-None-Match: *` (s3rver ignores it) on PutObject,
 * CopyObject and CompleteMultipartUpload. The shim also lets tests inject failures.
 *
 * s3rver writes an object in place, so a GET racing a PUT of the same key can see a half-written
 * object (a body shorter than its Content-Length, then a stalled socket). Real S3 never shows a
 * partial object, so the shim runs the requests on one key one after another.
 */
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** A request handler a test installs; returns true when it answered the request itself. */
export type Interceptor = (request: IncomingMessage, response: ServerResponse) => boolean;

export interface S3rverHarness {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  readonly port: number;
  /** The bucket created at start. */
  readonly bucket: string;
  /** s3rver's data folder. */
  readonly directory: string;
  /** Client options for this server (path style, S3RVER key, WHEN_REQUIRED checksums). */
  readonly clientConfig: S3ClientConfig;
  /** Requests seen so far, by `METHOD` (`GET`, `PUT`, ...), including failed and intercepted ones. */
  readonly requestCounts: Map<string, number>;
  /** Answer the next `count` requests with `status` (503 SlowDown or 500 InternalError). */
  failNext(count: number, status?: 500 | 503): void;
  /** Let `interceptor` see every request first (until replaced or `undefined`). */
  intercept(interceptor: Interceptor | undefined): void;
  /** A new client for this server. */
  createClient(): S3Client;
  /** Whether an object exists, straight from s3rver's store. */
  exists(key: string): Promise<boolean>;
  /** Stop the server now, cutting open connections; later requests are refused. */
  stop(): Promise<void>;
  /** Stop (if running) and delete the data folder. */
  close(): Promise<void>;
}

interface S3rverInternals {
  httpServer: Server;
  store: { existsObject(bucket: string, key: string): Promise<boolean>; getMetadata(bucket: string, key: string): Promise<{ etag: string }> };
}

/** Start s3rver with one bucket (default `fh-test`). */
export async function startS3rver(options: { bucket?: string } = {}): Promise<S3rverHarness> {
  const bucket = options.bucket ?? 'fh-test';
  const directory = await mkdtemp(join(tmpdir(), 'fh-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    resetOnClose: true,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const internals = server as unknown as S3rverInternals;
  const koa = internals.httpServer.listeners('request')[0] as (request: IncomingMessage, response: ServerResponse) => void;
  internals.httpServer.removeAllListeners('request');

  const requestCounts = new Map<string, number>();
  let failures = 0;
  let failureStatus: 500 | 503 = 503;
  let interceptor: Interceptor | undefined;
  let running = true;
  /** Per object path, the end of the last request on it (see the header comment). */
  const keyQueues = new Map<string, Promise<void>>();

  internals.httpServer.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const method = request.method ?? '';
    requestCounts.set(method, (requestCounts.get(method) ?? 0) + 1);
    if (interceptor?.(request, response)) return;
    if (failures > 0) {
      failures -= 1;
      const code = failureStatus === 503 ? 'SlowDown' : 'InternalError';
      request.resume();
      response.writeHead(failureStatus, { 'content-type': 'application/xml' });
      response.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>injected by the test</Message></Error>`);
      return;
    }
    const key = new URL(request.url ?? '/', 'http://s3rver').pathname;
    const previous = keyQueues.get(key) ?? Promise.resolve();
    const finished = new Promise<void>((resolve) => response.on('close', resolve));
    const queued = previous.then(() => finished);
    keyQueues.set(key, queued);
    void queued.then(() => {
      if (keyQueues.get(key) === queued) keyQueues.delete(key);
    });
    void previous
      .then(() => enforceIfNoneMatch(request, response))
      .then((answered) => {
        if (!answered) koa(request, response);
      });
  });

  /**
   * Answer 412 to a create-only write whose key exists, and to a write or delete with `If-Match`
   * whose object is missing or has another ETag (as S3 does); false when the request may proceed.
   */
  async function enforceIfNoneMatch(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const url = new URL(request.url ?? '/', 'http://s3rver');
    const writes =
      (request.method === 'PUT' && !url.searchParams.has('partNumber')) ||
      (request.method === 'POST' && url.searchParams.has('uploadId'));
    const [, requestBucket = '', ...keyParts] = url.pathname.split('/');
    const key = decodeURIComponent(keyParts.join('/'));
    const ifMatch = request.headers['if-match'];
    if (typeof ifMatch === 'string' && ((writes && !url.searchParams.has('uploadId')) || request.method === 'DELETE')) {
      const etag = await internals.store.getMetadata(requestBucket, key).then(
        (metadata) => metadata.etag,
        () => undefined,
      );
      if (etag === ifMatch) return false;
      return preconditionFailed(request, response, 'If-Match');
    }
    if (request.headers['if-none-match'] !== '*' || !writes) return false;
    if (!(await internals.store.existsObject(requestBucket, key))) return false;
    return preconditionFailed(request, response, 'If-None-Match');
  }

  /** Answer 412 PreconditionFailed naming `condition`. */
  function preconditionFailed(request: IncomingMessage, response: ServerResponse, condition: string): boolean {
    request.resume();
    response.writeHead(412, { 'content-type': 'application/xml' });
    response.end(
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code>' +
        '<Message>At least one of the pre-conditions you specified did not hold</Message>' +
        `<Condition>${condition}</Condition></Error>`,
    );
    return true;
  }

  const endpoint = `http://127.0.0.1:${port}`;
  const clientConfig: S3ClientConfig = {
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };

  const stop = async (): Promise<void> => {
    if (!running) return;
    running = false;
    const closed = server.close();
    internals.httpServer.closeAllConnections();
    await closed;
  };

  return {
    endpoint,
    port,
    bucket,
    directory,
    clientConfig,
    requestCounts,
    failNext(count, status = 503) {
      failures = count;
      failureStatus = status;
    },
    intercept(next) {
      interceptor = next;
    },
    createClient: () => new S3Client(clientConfig),
    exists: (key) => internals.store.existsObject(bucket, key),
    stop,
    async close() {
      await stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A small S3 client for the handful of requests the store sends (PutObject, GetObject,
 * HeadObject, DeleteObject, DeleteObjects, ListObjectsV2, CopyObject): each request signed with
 * Signature Version 4 by the AWS SDK's own signer (`@smithy/signature-v4`), sent with `node:http`/
 * `node:https` (loaded only for an https endpoint) over keep-alive connections, its XML answer
 * read with the SDK's own parser (`@aws-sdk/xml-builder`). Loading it costs a few ms where the
 * SDK's client costs 0.1–0.2 s (its module graph, its credential and endpoint resolution on the
 * first request), which an agent hook pays on every event (issue 16).
 *
 * It covers only configurations whose outcome is known without the SDK's resolution chains
 * (`signedClientConfig` in `signed-client-config.ts`): static credentials, a region, and a custom endpoint addressed
 * path-style or AWS S3 in a standard region. Anything else goes to the SDK. It mirrors the SDK's
 * client where the store looks: `send(new XCommand(input))` resolves with the output fields the
 * store reads, errors carry the S3 error code as `name` and `$metadata.httpStatusCode` (so
 * `translateS3Error` reads them alike), network failures keep their errno `code`, and requests
 * are retried as the SDK's standard mode does (3 attempts, on 5xx, 429, throttling and connection
 * failures, exponential backoff with jitter). Payloads are signed with their sha256
 * (`x-amz-content-sha256`), so S3 checks every body it receives; DeleteObjects carries the
 * Content-MD5 S3 requires.
 */
import { parseXML } from '@aws-sdk/xml-builder';
import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import type { SignedClientConfig } from './signed-client-config.js';

/** A request the store sends: the operation and its input, as the SDK's command classes hold them. */
abstract class Command<Input> {
  abstract readonly operation: string;
  constructor(readonly input: Input) {}
}

/** Inputs the store passes (the SDK's field names). */
interface ObjectInput {
  Bucket: string;
  Key: string;
}
interface PutObjectInput extends ObjectInput {
  Body: string | Uint8Array;
  ContentType?: string;
  ContentLength?: number;
  IfNoneMatch?: string;
  IfMatch?: string;
  Metadata?: Record<string, string>;
}
interface DeleteObjectInput extends ObjectInput {
  IfMatch?: string;
}
interface DeleteObjectsInput {
  Bucket: string;
  Delete: { Objects: Array<{ Key: string }>; Quiet?: boolean };
}
interface ListObjectsV2Input {
  Bucket: string;
  Prefix?: string;
  ContinuationToken?: string;
  StartAfter?: string;
}
interface CopyObjectInput extends ObjectInput {
  CopySource: string;
  MetadataDirective?: string;
  IfNoneMatch?: string;
}

export class PutObjectCommand extends Command<PutObjectInput> {
  readonly operation = 'PutObject';
}
export class GetObjectCommand extends Command<ObjectInput> {
  readonly operation = 'GetObject';
}
export class HeadObjectCommand extends Command<ObjectInput> {
  readonly operation = 'HeadObject';
}
export class DeleteObjectCommand extends Command<DeleteObjectInput> {
  readonly operation = 'DeleteObject';
}
export class DeleteObjectsCommand extends Command<DeleteObjectsInput> {
  readonly operation = 'DeleteObjects';
}
export class ListObjectsV2Command extends Command<ListObjectsV2Input> {
  readonly operation = 'ListObjectsV2';
}
export class CopyObjectCommand extends Command<CopyObjectInput> {
  readonly operation = 'CopyObject';
}

type AnyCommand = PutObjectCommand | GetObjectCommand | HeadObjectCommand | DeleteObjectCommand | DeleteObjectsCommand | ListObjectsV2Command | CopyObjectCommand;

/** One HTTP request before signing. */
interface PlannedRequest {
  method: 'GET' | 'PUT' | 'HEAD' | 'DELETE' | 'POST';
  bucket: string;
  key?: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: Buffer;
}

/** An S3 error answer (or a request that failed), shaped as the SDK shapes its service errors. */
export class S3ServiceError extends Error {
  readonly $metadata: { httpStatusCode: number; requestId?: string; attempts: number };
  readonly $fault: 'client' | 'server';
  readonly Code: string;
  constructor(code: string, message: string, status: number, requestId: string | undefined, attempts: number) {
    super(message);
    this.name = code;
    this.Code = code;
    this.$fault = status >= 500 ? 'server' : 'client';
    this.$metadata = { httpStatusCode: status, ...(requestId === undefined ? {} : { requestId }), attempts };
  }
}

/** Codes S3 answers when a client should slow down (retried like 5xx). */
const THROTTLING_CODES = new Set(['SlowDown', 'Throttling', 'ThrottlingException', 'RequestThrottled', 'RequestLimitExceeded', 'TooManyRequestsException']);

/** Errno codes of a connection failure, retried as the SDK retries them. */
const RETRIED_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

/** The names of HEAD (and other bodiless) error answers, by status, as the SDK names them. */
const STATUS_NAMES: Record<number, string> = { 304: 'NotModified', 400: 'BadRequest', 403: 'Forbidden', 404: 'NotFound', 412: 'PreconditionFailed' };

/** node:crypto's sha256 (or HMAC-sha256 with a secret) with the interface the signer takes. */
class NodeSha256 {
  private hash: Hash | Hmac;
  private readonly secret: Buffer | undefined;
  constructor(secret?: SourceData) {
    this.secret = secret === undefined ? undefined : bytesOf(secret);
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', this.secret);
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

/** What the signer hashes: text or bytes. */
type SourceData = string | ArrayBuffer | ArrayBufferView;

function bytesOf(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * The store's S3 client without the SDK (see the module comment). `send` resolves with the fields
 * the store reads; `config.endpoint()`/`config.region()` answer as the SDK client's do for
 * messages; `destroy` closes its idle connections.
 */
export class SignedS3Client {
  readonly config: { endpoint?: () => Promise<{ protocol: string; hostname: string; port?: string; path: string }>; region: () => Promise<string> };
  private readonly signer: SignatureV4;
  private readonly agent: HttpAgent;
  /** `node:http`'s or, for an https endpoint, `node:https`'s `request` (https, with TLS, is loaded only then). */
  private readonly transport: typeof httpRequest;
  /** ms to add to this machine's clock, learnt from a RequestTimeTooSkewed answer (as the SDK corrects skew). */
  private clockOffsetMs = 0;

  constructor(private readonly options: SignedClientConfig) {
    if (options.endpoint.protocol === 'https:') {
      const https = process.getBuiltinModule('node:https');
      this.agent = new https.Agent({ keepAlive: true, maxSockets: 50 });
      this.transport = https.request;
    } else {
      this.agent = new HttpAgent({ keepAlive: true, maxSockets: 50 });
      this.transport = httpRequest;
    }
    this.signer = new SignatureV4({ credentials: options.credentials, region: options.region, service: 's3', sha256: NodeSha256, uriEscapePath: false, applyChecksum: true });
    const { endpoint } = options;
    this.config = {
      region: () => Promise.resolve(options.region),
      ...(options.customEndpoint
        ? { endpoint: () => Promise.resolve({ protocol: endpoint.protocol, hostname: endpoint.hostname, ...(endpoint.port === '' ? {} : { port: endpoint.port }), path: endpoint.pathname }) }
        : {}),
    };
  }

  /**
   * Send `command`; resolves with its output (the SDK's field names: see `output`), rejects with
   * an {@link S3ServiceError} or the network error (its errno `code` kept) once the attempts are spent.
   */
  async send(command: AnyCommand): Promise<Record<string, unknown>> {
    const planned = plan(command);
    for (let attempt = 1; ; attempt += 1) {
      try {
        const response = await this.request(planned);
        const status = response.statusCode ?? 0;
        if (status >= 300) {
          const text = (await readAll(response)).toString('utf8');
          throw serviceError(status, text, response.headers['x-amz-request-id'] as string | undefined, attempt);
        }
        if (command.operation === 'GetObject') return getObjectOutput(response);
        const text = (await readAll(response)).toString('utf8');
        return output(command, response, text, attempt);
      } catch (error) {
        if (error instanceof S3ServiceError && error.name === 'RequestTimeTooSkewed') this.learnClock(error);
        if (attempt >= this.options.maxAttempts || !retryable(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20_000, 100 * 2 ** (attempt - 1))));
      }
    }
  }

  /** Close idle connections (requests in flight finish). */
  destroy(): void {
    this.agent.destroy();
  }

  private learnClock(error: S3ServiceError & { serverDate?: string }): void {
    const server = error.serverDate === undefined ? Number.NaN : Date.parse(error.serverDate);
    if (Number.isFinite(server)) this.clockOffsetMs = server - Date.now();
  }

  /** Sign and send one request; resolves with the response once its headers arrived. */
  private async request(planned: PlannedRequest): Promise<IncomingMessage> {
    const { endpoint, pathStyle } = this.options;
    const base = endpoint.pathname.replace(/\/+$/, '');
    const hostname = pathStyle ? endpoint.hostname : `${planned.bucket}.${endpoint.hostname}`;
    const path = `${base}${pathStyle ? `/${escapeUri(planned.bucket)}` : ''}/${planned.key === undefined ? '' : escapePath(planned.key)}`;
    const host = endpoint.port === '' ? hostname : `${hostname}:${endpoint.port}`;
    const headers: Record<string, string> = {
      ...planned.headers,
      host,
      'x-amz-content-sha256': createHash('sha256').update(planned.body).digest('hex'),
      ...(planned.body.length > 0 || planned.method === 'PUT' || planned.method === 'POST' ? { 'content-length': String(planned.body.length) } : {}),
    };
    const signed = await this.signer.sign(
      { method: planned.method, protocol: endpoint.protocol, hostname, ...(endpoint.port === '' ? {} : { port: Number(endpoint.port) }), path, query: planned.query, headers, body: planned.body },
      { signingDate: new Date(Date.now() + this.clockOffsetMs) },
    );
    const search = Object.entries(planned.query)
      .map(([name, value]) => (value === '' ? escapeUri(name) : `${escapeUri(name)}=${escapeUri(value)}`))
      .join('&');
    return new Promise((resolve, reject) => {
      const request = this.transport({
        method: planned.method,
        hostname: hostname.replace(/^\[(.*)\]$/, '$1'),
        ...(endpoint.port === '' ? {} : { port: Number(endpoint.port) }),
        path: search === '' ? path : `${path}?${search}`,
        headers: signed.headers,
        agent: this.agent,
      });
      const connectTimer = setTimeout(() => request.destroy(timeoutError(`connection to ${host} timed out after ${this.options.connectionTimeoutMs} ms`)), this.options.connectionTimeoutMs);
      request.once('socket', (socket) => {
        if (!socket.connecting) clearTimeout(connectTimer);
        else socket.once('connect', () => clearTimeout(connectTimer));
      });
      request.setTimeout(this.options.socketTimeoutMs, () => request.destroy(timeoutError(`no answer from ${host} within ${this.options.socketTimeoutMs} ms`)));
      request.once('response', (response) => {
        clearTimeout(connectTimer);
        response.once('end', () => request.setTimeout(0));
        resolve(response);
      });
      request.once('error', (error) => {
        clearTimeout(connectTimer);
        reject(error);
      });
      request.end(planned.body.length > 0 ? planned.body : undefined);
    });
  }
}

/** The HTTP request of `command` (before signing). */
function plan(command: AnyCommand): PlannedRequest {
  const empty = Buffer.alloc(0);
  switch (command.operation) {
    case 'PutObject': {
      const input = command.input;
      const body = typeof input.Body === 'string' ? Buffer.from(input.Body, 'utf8') : Buffer.from(input.Body.buffer, input.Body.byteOffset, input.Body.byteLength);
      const headers: Record<string, string> = {};
      if (input.ContentType !== undefined) headers['content-type'] = input.ContentType;
      if (input.IfNoneMatch !== undefined) headers['if-none-match'] = input.IfNoneMatch;
      if (input.IfMatch !== undefined) headers['if-match'] = input.IfMatch;
      for (const [name, value] of Object.entries(input.Metadata ?? {})) headers[`x-amz-meta-${name.toLowerCase()}`] = value;
      return { method: 'PUT', bucket: input.Bucket, key: input.Key, query: { 'x-id': 'PutObject' }, headers, body };
    }
    case 'GetObject':
      return { method: 'GET', bucket: command.input.Bucket, key: command.input.Key, query: { 'x-id': 'GetObject' }, headers: {}, body: empty };
    case 'HeadObject':
      return { method: 'HEAD', bucket: command.input.Bucket, key: command.input.Key, query: {}, headers: {}, body: empty };
    case 'DeleteObject':
      return { method: 'DELETE', bucket: command.input.Bucket, key: command.input.Key, query: { 'x-id': 'DeleteObject' }, headers: command.input.IfMatch === undefined ? {} : { 'if-match': command.input.IfMatch }, body: empty };
    case 'DeleteObjects': {
      const { Objects, Quiet } = command.input.Delete;
      const xml = `<?xml version="1.0" encoding="UTF-8"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${Quiet === true ? '<Quiet>true</Quiet>' : ''}${Objects.map((object) => `<Object><Key>${escapeXml(object.Key)}</Key></Object>`).join('')}</Delete>`;
      const body = Buffer.from(xml, 'utf8');
      return { method: 'POST', bucket: command.input.Bucket, query: { delete: '' }, headers: { 'content-type': 'application/xml', 'content-md5': createHash('md5').update(body).digest('base64') }, body };
    }
    case 'ListObjectsV2': {
      const { Prefix, ContinuationToken, StartAfter } = command.input;
      const query: Record<string, string> = { 'list-type': '2' };
      if (Prefix !== undefined) query.prefix = Prefix;
      if (ContinuationToken !== undefined) query['continuation-token'] = ContinuationToken;
      if (StartAfter !== undefined) query['start-after'] = StartAfter;
      return { method: 'GET', bucket: command.input.Bucket, query, headers: {}, body: empty };
    }
    case 'CopyObject': {
      const input = command.input;
      const headers: Record<string, string> = { 'x-amz-copy-source': input.CopySource };
      if (input.MetadataDirective !== undefined) headers['x-amz-metadata-directive'] = input.MetadataDirective;
      if (input.IfNoneMatch !== undefined) headers['if-none-match'] = input.IfNoneMatch;
      return { method: 'PUT', bucket: input.Bucket, key: input.Key, query: { 'x-id': 'CopyObject' }, headers, body: empty };
    }
  }
}

/** The output of a (successful, fully read) answer to `command`. */
function output(command: AnyCommand, response: IncomingMessage, text: string, attempts: number): Record<string, unknown> {
  const etag = response.headers.etag;
  switch (command.operation) {
    case 'PutObject':
    case 'DeleteObject':
      return { ...(etag === undefined ? {} : { ETag: etag }) };
    case 'HeadObject':
      return { ContentLength: Number(response.headers['content-length'] ?? 0), Metadata: metadataOf(response), ...(etag === undefined ? {} : { ETag: etag }) };
    case 'CopyObject': {
      // S3 may answer 200 with an error in the body (the copy failed after it started).
      const parsed = parseXML(text) as Record<string, unknown>;
      const error = parsed.Error as Record<string, unknown> | undefined;
      if (error !== undefined) throw new S3ServiceError(String(error.Code ?? 'InternalError'), String(error.Message ?? 'copy failed'), 500, undefined, attempts);
      return {};
    }
    case 'DeleteObjects': {
      const result = ((parseXML(text) as Record<string, unknown>).DeleteResult ?? {}) as Record<string, unknown>;
      const errors = list(result.Error).map((entry) => ({ Key: text0(entry.Key), Code: text0(entry.Code), Message: text0(entry.Message) }));
      return errors.length === 0 ? {} : { Errors: errors };
    }
    case 'ListObjectsV2': {
      const result = ((parseXML(text) as Record<string, unknown>).ListBucketResult ?? {}) as Record<string, unknown>;
      const contents = list(result.Contents).map((entry) => ({
        Key: text0(entry.Key),
        Size: Number(text0(entry.Size) ?? 0),
        ...(entry.LastModified === undefined ? {} : { LastModified: new Date(String(entry.LastModified)) }),
        ...(entry.ETag === undefined ? {} : { ETag: String(entry.ETag) }),
      }));
      const token = text0(result.NextContinuationToken);
      return { Contents: contents, IsTruncated: text0(result.IsTruncated) === 'true', ...(token === undefined || token === '' ? {} : { NextContinuationToken: token }) };
    }
    case 'GetObject':
      throw new Error('GetObject is answered as a stream');
  }
}

/** GetObject's output: the response as `Body` (a Readable, with the SDK's `transformToByteArray`/`transformToString`). */
function getObjectOutput(response: IncomingMessage): Record<string, unknown> {
  const body = Object.assign(response, {
    transformToByteArray: async () => new Uint8Array(await readAll(response)),
    transformToString: async (encoding: BufferEncoding = 'utf8') => (await readAll(response)).toString(encoding),
  });
  const etag = response.headers.etag;
  const length = response.headers['content-length'];
  return { Body: body, Metadata: metadataOf(response), ...(length === undefined ? {} : { ContentLength: Number(length) }), ...(etag === undefined ? {} : { ETag: etag }) };
}

/** The object's user metadata (`x-amz-meta-*` headers, names lowercase without the prefix). */
function metadataOf(response: IncomingMessage): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (name.startsWith('x-amz-meta-') && typeof value === 'string') metadata[name.slice('x-amz-meta-'.length)] = value;
  }
  return metadata;
}

/** The error of an answer with status `status` and body `text` (S3's `<Error><Code>…`, or none for HEAD). */
function serviceError(status: number, text: string, requestId: string | undefined, attempts: number): S3ServiceError {
  let code: string | undefined;
  let message: string | undefined;
  let serverDate: string | undefined;
  if (text.trim() !== '') {
    try {
      const error = (parseXML(text) as Record<string, unknown>).Error as Record<string, unknown> | undefined;
      code = text0(error?.Code);
      message = text0(error?.Message);
      serverDate = text0(error?.ServerTime);
    } catch {
      // Not XML (a proxy's page): named by the status below.
    }
  }
  const name = code ?? STATUS_NAMES[status] ?? (status >= 500 ? 'InternalError' : 'UnknownError');
  return Object.assign(new S3ServiceError(name, message ?? `${name} (HTTP ${status})`, status, requestId, attempts), serverDate === undefined ? {} : { serverDate });
}

/** Whether the SDK's standard retry mode retries `error`. */
function retryable(error: unknown): boolean {
  if (error instanceof S3ServiceError) {
    const status = error.$metadata.httpStatusCode;
    return status >= 500 || status === 429 || THROTTLING_CODES.has(error.name) || error.name === 'RequestTimeTooSkewed' || error.name === 'RequestTimeout';
  }
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && RETRIED_NETWORK_CODES.has(code)) || (error as { name?: unknown }).name === 'TimeoutError';
}

function timeoutError(message: string): Error {
  return Object.assign(new Error(message), { name: 'TimeoutError', code: 'ETIMEDOUT' });
}

/** Every byte of `stream`. */
async function readAll(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** An XML element that may appear once or many times, as a list of elements. */
function list(value: unknown): Array<Record<string, unknown>> {
  if (value === undefined || value === null || value === '') return [];
  return (Array.isArray(value) ? value : [value]) as Array<Record<string, unknown>>;
}

/** An element's text (parseXML gives a string, or an object for an element with attributes). */
function text0(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object') {
    const inner = (value as Record<string, unknown>)['#text'];
    return inner === undefined ? '' : String(inner);
  }
  return String(value);
}

/** RFC 3986 escaping, as SigV4 and S3 take it (`encodeURIComponent` plus `! ' ( ) *`). */
function escapeUri(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** An object key as a URL path: each `/`-separated segment escaped. */
function escapePath(key: string): string {
  return key.split('/').map(escapeUri).join('/');
}

function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

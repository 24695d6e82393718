/**
 * `S3BackupStore`: fh's backups and session records in an S3 bucket, for agents in short-lived
 * cloud sandboxes whose disk disappears. Layout (see `layout.ts`):
 *
 *   <prefix>file-history/<sessionId>/<backupFileName>   backups; metadata fh-mode, fh-size, fh-sha256
 *   <prefix>sessions/<sessionId>/<16-digit seq>.jsonl    session log, one immutable object per append
 *   <prefix>sessions/<sessionId>/lock.json               session lock lease
 *
 * Backups stream both ways and are written once (`If-None-Match: *`); change detection reads the
 * recorded size, mode and sha256 with HeadObject; resume copies on the server (CopyObject).
 * The AWS SDK is imported on the first request, its multipart uploader only for a backup larger
 * than one part (`sdk.ts`): a store that sends nothing loads none of it. With `signedRequests`
 * (the CLI's setting) the requests go through a small signed-request client instead where it
 * covers the configuration (`signed-client.ts`), and only a multipart upload loads the SDK.
 */
import type { GetObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import {
  ConflictError,
  CorruptError,
  FhError,
  InvalidArgumentError,
  NotFoundError,
  type BackupInfo,
  type BackupStore,
  type SessionLock,
  type SessionLog,
  type SessionSummary,
  type StoreCapabilities,
  type WorkspaceFs,
  translateFsError,
  translateSourceError,
} from '@fh/core';
import { createHash } from 'node:crypto';
import { lstatSync, realpathSync, statSync } from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pLimit, { type LimitFunction } from 'p-limit';
import { HashingStream, READ_CHUNK_BYTES, hashFileHandle } from './hashing-stream.js';
import { Layout, METADATA, normalisePrefix, validateName } from './layout.js';
import { MAX_PARTS, MIN_PART_SIZE_BYTES, S3_STORE_DEFAULTS, type S3BackupStoreOptions } from './options.js';
import { listObjects, type S3Context } from './s3-context.js';
import { S3SessionLocks } from './s3-session-lock.js';
import { newLogCursor, S3SessionLog, type LogCursor } from './s3-session-log.js';
import { loadClientModule, loadSignedClientModule, loadStorageModule, type S3Sdk } from './sdk.js';
import { signedClientConfig } from './signed-client-config.js';
import {
  isNotFound,
  isPreconditionFailed,
  translateS3Error,
  type RequestTarget,
} from './translate-error.js';

/** How many times `putBackup` re-reads a source that changed while it was uploaded. */
const PUT_ATTEMPTS = 3;

/** Most keys one DeleteObjects request may name. */
const DELETE_BATCH = 1000;

/**
 * A `BackupStore` and session-log store over S3 (or an S3-compatible service: MinIO, R2, Ceph).
 * The workspace is the real disk (`node:fs/promises`). Every request runs under a bounded
 * concurrency and the SDK's standard retries; S3 errors become the core's errors with the raw
 * error as `cause` (see `translateS3Error`).
 */
export class S3BackupStore implements BackupStore {
  readonly kind = 's3';
  readonly capabilities: StoreCapabilities = { hardLinks: false, serverSideCopy: true, locking: true, sha256: true };
  /** The real file system: sources are read from and restores written to the local disk. */
  readonly workspaceFs: WorkspaceFs = { ...fsPromises, statSync, lstatSync, realpathSync: (path: string) => realpathSync.native(path) } as unknown as WorkspaceFs;
  readonly bucket: string;
  /** The normalised key prefix (`''` or ending in `/`). */
  readonly prefix: string;

  private readonly givenClient: S3Client | undefined;
  private readonly clientConfig: S3BackupStoreOptions['clientConfig'];
  private readonly forcePathStyle: boolean;
  private readonly signedRequests: boolean;
  private sdkLoaded: Promise<S3Sdk> | undefined;
  private sdkClientLoaded: Promise<S3Sdk> | undefined;
  /** The SDK client this store built (undefined until its first use, or when one was given). */
  private builtClient: S3Client | undefined;
  /** The signed-request client this store built, if its requests go through one. */
  private signedClient: { destroy(): void } | undefined;
  private readonly layout: Layout;
  private readonly limit: LimitFunction;
  private readonly largeUploadLimit: LimitFunction;
  private readonly partSizeBytes: number;
  private readonly uploadQueueSize: number;
  private readonly context: S3Context;
  private readonly locks: S3SessionLocks;
  private readonly logCursors = new Map<string, LogCursor>();
  private target: Promise<RequestTarget> | undefined;

  /**
   * Build the store. Does no I/O (the bucket is first contacted by the first operation). Throws
   * `InvalidArgumentError` for an empty bucket, a bad prefix, a part size below 5 MiB, a
   * concurrency below 1, or both `client` and `clientConfig`/`forcePathStyle`.
   */
  constructor(options: S3BackupStoreOptions) {
    if (typeof options.bucket !== 'string' || options.bucket === '') {
      throw new InvalidArgumentError(`bucket must be a non-empty bucket name: ${JSON.stringify(options.bucket)}`);
    }
    if (options.client && (options.clientConfig !== undefined || options.forcePathStyle !== undefined || options.signedRequests === true)) {
      throw new InvalidArgumentError('pass either client or clientConfig/forcePathStyle/signedRequests, not both');
    }
    const partSizeBytes = options.partSizeBytes ?? S3_STORE_DEFAULTS.partSizeBytes;
    if (!Number.isInteger(partSizeBytes) || partSizeBytes < MIN_PART_SIZE_BYTES) {
      throw new InvalidArgumentError(`partSizeBytes must be an integer of at least ${MIN_PART_SIZE_BYTES} (5 MiB): ${partSizeBytes}`);
    }
    const concurrency = options.concurrency ?? S3_STORE_DEFAULTS.concurrency;
    const uploadQueueSize = options.uploadQueueSize ?? S3_STORE_DEFAULTS.uploadQueueSize;
    const largeUploadConcurrency = options.largeUploadConcurrency ?? S3_STORE_DEFAULTS.largeUploadConcurrency;
    for (const [name, value] of [
      ['concurrency', concurrency],
      ['uploadQueueSize', uploadQueueSize],
      ['largeUploadConcurrency', largeUploadConcurrency],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError(`${name} must be an integer of at least 1: ${value}`);
    }
    const lockTtlMs = options.lockTtlMs ?? S3_STORE_DEFAULTS.lockTtlMs;
    if (!(lockTtlMs > 0)) throw new InvalidArgumentError(`lockTtlMs must be a positive number of ms: ${lockTtlMs}`);

    this.bucket = options.bucket;
    this.prefix = normalisePrefix(options.prefix ?? S3_STORE_DEFAULTS.prefix);
    this.layout = new Layout(this.prefix);
    this.limit = pLimit(concurrency);
    this.largeUploadLimit = pLimit(largeUploadConcurrency);
    this.partSizeBytes = partSizeBytes;
    this.uploadQueueSize = uploadQueueSize;
    this.givenClient = options.client;
    this.signedRequests = options.signedRequests ?? false;
    this.clientConfig = options.clientConfig;
    this.forcePathStyle = options.forcePathStyle ?? options.clientConfig?.forcePathStyle ?? false;
    this.context = {
      sdk: () => this.sdk(),
      bucket: this.bucket,
      layout: this.layout,
      limit: this.limit,
      translate: (error, context) => this.translate(error, context),
      describe: (key) => `s3://${this.bucket}/${key}`,
    };
    this.locks = new S3SessionLocks(this.context, lockTtlMs);
  }

  /**
   * The AWS SDK client: the one given in the options, else one built from `clientConfig` on the
   * first call (which imports the SDK, see `sdk.ts`). With `signedRequests`, the store's own
   * requests may go through its signed-request client instead (see {@link S3BackupStore.sdk}).
   */
  async client(): Promise<S3Client> {
    return (await this.sdkClient()).client;
  }

  /**
   * What every request goes through, loaded once: with `signedRequests` and a configuration
   * `signedClientConfig` covers, the small signed-request client (no SDK); else the SDK's client.
   */
  private sdk(): Promise<S3Sdk> {
    this.sdkLoaded ??= (async () => {
      const signed = this.signedRequests
        ? signedClientConfig(this.bucket, this.clientConfig as Record<string, unknown> | undefined, this.forcePathStyle, {
            connectionTimeoutMs: S3_STORE_DEFAULTS.connectionTimeoutMs,
            socketTimeoutMs: S3_STORE_DEFAULTS.socketTimeoutMs,
          })
        : undefined;
      if (signed === undefined) return this.sdkClient();
      const module = await loadSignedClientModule();
      const client = new module.SignedS3Client(signed);
      this.signedClient = client;
      // The same command names and output fields the store reads (see `signed-client.ts`).
      return { s3: module, client } as unknown as S3Sdk;
    })();
    return this.sdkLoaded;
  }

  /** The SDK module and its client, loaded once (multipart uploads always use it). */
  private sdkClient(): Promise<S3Sdk> {
    this.sdkClientLoaded ??= loadClientModule().then((s3) => {
      const client =
        this.givenClient ??
        new s3.S3Client({
          requestHandler: {
            connectionTimeout: S3_STORE_DEFAULTS.connectionTimeoutMs,
            socketTimeout: S3_STORE_DEFAULTS.socketTimeoutMs,
          },
          ...this.clientConfig,
          forcePathStyle: this.forcePathStyle,
        });
      if (this.givenClient === undefined) this.builtClient = client;
      return { s3, client };
    });
    return this.sdkClientLoaded;
  }

  /**
   * Upload the workspace file at `sourcePath` as a new backup object, streaming it (multipart
   * above `partSizeBytes`, at most `largeUploadConcurrency` such uploads at once) so memory stays
   * bounded whatever the file sizes. The file is read
   * twice through one open handle: once to compute its sha256 (stored in the object's metadata
   * with its size and mode), once to upload it while hashing again; if the two reads differ (the
   * file changed meanwhile) the object is deleted and the backup retried, up to 3 times.
   * Written with `If-None-Match: *`: throws `ConflictError` if the backup exists (412).
   * Throws `NotFoundError` for a missing source, `InvalidArgumentError` for a non-regular file,
   * `UnavailableError`/`PermissionError` when S3 fails, and `FhError` if the file kept changing.
   * On failure no backup object is left and the source is untouched.
   */
  async putBackup(sessionId: string, backupFileName: string, sourcePath: string): Promise<BackupInfo> {
    validateName('sessionId', sessionId);
    validateName('backupFileName', backupFileName);
    const key = this.layout.backupKey(sessionId, backupFileName);
    return this.limit(async () => {
      let handle: FileHandle;
      try {
        handle = await fsPromises.open(sourcePath, 'r');
      } catch (error) {
        throw translateSourceError(error, `putBackup: source "${sourcePath}"`);
      }
      try {
        const stats = await handle.stat();
        if (!stats.isFile()) throw new InvalidArgumentError(`putBackup: source "${sourcePath}" is not a regular file`);
        const mode = stats.mode & 0o7777;
        for (let attempt = 1; attempt <= PUT_ATTEMPTS; attempt += 1) {
          const expected = await hashFileHandle(handle);
          const upload = () => this.upload(key, handle, { mode, ...expected });
          const uploaded = expected.size > this.partSizeBytes ? await this.largeUploadLimit(upload) : await upload();
          if (uploaded.size === expected.size && uploaded.sha256 === expected.sha256) return { mode, ...expected };
          await this.deleteKey(key, `putBackup ${this.describe(key)}`);
        }
        throw new FhError(`putBackup: source "${sourcePath}" kept changing while it was uploaded (${PUT_ATTEMPTS} tries)`);
      } catch (error) {
        throw translateSourceError(error, `putBackup: source "${sourcePath}"`);
      } finally {
        await handle.close();
      }
    });
  }

  /**
   * Size (bytes), mode and sha256 of a backup from one HeadObject, without downloading it, or
   * `null` if it does not exist. An object without fh metadata reports mode 0o644 and no sha256.
   * Throws `UnavailableError`/`PermissionError` when S3 fails.
   */
  async statBackup(sessionId: string, backupFileName: string): Promise<BackupInfo | null> {
    validateName('sessionId', sessionId);
    validateName('backupFileName', backupFileName);
    const key = this.layout.backupKey(sessionId, backupFileName);
    return this.limit(async () => {
      try {
        const { client, s3 } = await this.sdk();
        const head = await client.send(new s3.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
        return backupInfoOf(head.ContentLength ?? 0, head.Metadata);
      } catch (error) {
        if (isNotFound(error)) return null;
        throw await this.translate(error, `statBackup ${this.describe(key)}`);
      }
    });
  }

  /**
   * Stream the backup into a new file at `destinationPath` (created exclusively, only once S3
   * answered, so an unreachable S3 creates no file), hashing on the way, then check the byte
   * count and sha256 against the object's metadata. Throws `NotFoundError` for a missing backup,
   * `ConflictError` if the destination exists, `CorruptError` (naming the object, expected and
   * actual values) if the bytes do not match, `UnavailableError` if the transfer fails; on any
   * failure the destination is removed.
   */
  async restoreBackup(sessionId: string, backupFileName: string, destinationPath: string): Promise<void> {
    validateName('sessionId', sessionId);
    validateName('backupFileName', backupFileName);
    const key = this.layout.backupKey(sessionId, backupFileName);
    const described = this.describe(key);
    const context = `restoreBackup ${described} to "${destinationPath}"`;
    await this.limit(async () => {
      const response = await this.getObject(key, context);
      const body = response.Body as Readable;
      let handle: FileHandle;
      try {
        handle = await fsPromises.open(destinationPath, 'wx');
      } catch (error) {
        body.destroy();
        throw translateFsError(error, context);
      }
      const hashing = new HashingStream();
      try {
        await pipeline(body, hashing, handle.createWriteStream());
        checkIntegrity(described, response, hashing.bytes, hashing.digest());
      } catch (error) {
        await handle.close().catch(() => undefined);
        await fsPromises.rm(destinationPath, { force: true });
        throw FhError.isInstance(error) ? error : await this.translate(error, context);
      }
    });
  }

  /**
   * Stream the backup's bytes. The GetObject is sent before this resolves (so a missing backup
   * throws `NotFoundError` here); iterating hashes the bytes and throws `CorruptError` at the end
   * if they do not match the recorded size and sha256, `UnavailableError` if the transfer fails.
   * Stopping early (`break`) closes the connection.
   */
  async openBackup(sessionId: string, backupFileName: string): Promise<AsyncIterable<Uint8Array>> {
    validateName('sessionId', sessionId);
    validateName('backupFileName', backupFileName);
    const key = this.layout.backupKey(sessionId, backupFileName);
    const described = this.describe(key);
    const context = `openBackup ${described}`;
    const response = await this.limit(() => this.getObject(key, context));
    const translate = (error: unknown): Promise<FhError> => this.translate(error, context);
    const body = response.Body as Readable;
    return (async function* verifiedBytes(): AsyncGenerator<Uint8Array> {
      const hashing = new HashingStream();
      body.on('error', (error) => hashing.destroy(error));
      try {
        for await (const chunk of body.pipe(hashing)) yield chunk as Uint8Array;
      } catch (error) {
        throw await translate(error);
      } finally {
        body.destroy();
      }
      checkIntegrity(described, response, hashing.bytes, hashing.digest());
    })();
  }

  /** Delete one backup; a missing backup is not an error. Throws `UnavailableError`/`PermissionError`. */
  async deleteBackup(sessionId: string, backupFileName: string): Promise<void> {
    validateName('sessionId', sessionId);
    validateName('backupFileName', backupFileName);
    const key = this.layout.backupKey(sessionId, backupFileName);
    await this.limit(() => this.deleteKey(key, `deleteBackup ${this.describe(key)}`));
  }

  /** Names of every backup of the session, in key order (ListObjectsV2, paginated); `[]` if none. */
  async listBackups(sessionId: string): Promise<string[]> {
    validateName('sessionId', sessionId);
    const folder = this.layout.backupFolder(sessionId);
    const names: string[] = [];
    for (const object of await listObjects(this.context, folder)) {
      const name = object.Key?.slice(folder.length);
      if (name && !name.includes('/')) names.push(name);
    }
    return names;
  }

  /**
   * Copy the backup into session `toSessionId` on the server (CopyObject, metadata kept; nothing
   * is downloaded), with `If-None-Match: *`. Returns `'copied'`, or `'exists'` (nothing written)
   * if the target exists. Throws `NotFoundError` if the source backup is missing. Objects above
   * 5 GiB exceed CopyObject's limit and fail with the S3 error translated.
   */
  async carryBackup(fromSessionId: string, toSessionId: string, backupFileName: string): Promise<'linked' | 'copied' | 'exists'> {
    validateName('fromSessionId', fromSessionId);
    validateName('toSessionId', toSessionId);
    validateName('backupFileName', backupFileName);
    const source = this.layout.backupKey(fromSessionId, backupFileName);
    const target = this.layout.backupKey(toSessionId, backupFileName);
    return this.limit(async () => {
      try {
        const { client, s3 } = await this.sdk();
        await client.send(
          new s3.CopyObjectCommand({
            Bucket: this.bucket,
            Key: target,
            CopySource: copySource(this.bucket, source),
            MetadataDirective: 'COPY',
            IfNoneMatch: '*',
          }),
        );
        return 'copied';
      } catch (error) {
        if (isPreconditionFailed(error)) return 'exists';
        throw await this.translate(error, `carryBackup ${this.describe(source)} to ${this.describe(target)}`);
      }
    });
  }

  /**
   * Every session with backups or log objects under the prefix: bytes (backups, log objects and
   * lock), number of backups and the newest object's LastModified. Two paginated listings.
   */
  async listSessions(): Promise<SessionSummary[]> {
    const sessions = new Map<string, SessionSummary>();
    for (const root of [this.layout.backupsRoot, this.layout.sessionsRoot]) {
      for (const object of await listObjects(this.context, root)) {
        const place = object.Key === undefined ? undefined : this.layout.classify(object.Key);
        if (place === undefined) continue;
        const summary = sessions.get(place.sessionId) ?? { sessionId: place.sessionId, lastModified: new Date(0), bytes: 0, backups: 0 };
        summary.bytes += object.Size ?? 0;
        if (place.kind === 'backup') summary.backups += 1;
        if (object.LastModified && object.LastModified > summary.lastModified) summary.lastModified = object.LastModified;
        sessions.set(place.sessionId, summary);
      }
    }
    return [...sessions.values()].sort((left, right) => left.sessionId.localeCompare(right.sessionId));
  }

  /**
   * Delete every backup, log object and the lock of the session (DeleteObjects, 1,000 keys a
   * request). A missing session is not an error. Throws the translated error of the first key
   * S3 could not delete.
   */
  async deleteSession(sessionId: string): Promise<void> {
    validateName('sessionId', sessionId);
    const keys: string[] = [];
    for (const folder of [this.layout.backupFolder(sessionId), this.layout.sessionFolder(sessionId)]) {
      for (const object of await listObjects(this.context, folder)) if (object.Key) keys.push(object.Key);
    }
    const batches: string[][] = [];
    for (let start = 0; start < keys.length; start += DELETE_BATCH) batches.push(keys.slice(start, start + DELETE_BATCH));
    await Promise.all(
      batches.map((batch) =>
        this.limit(async () => {
          const context = `deleteSession "${sessionId}" in s3://${this.bucket}/${this.prefix}`;
          let errors;
          try {
            const { client, s3 } = await this.sdk();
            ({ Errors: errors } = await client.send(
              new s3.DeleteObjectsCommand({
                Bucket: this.bucket,
                Delete: { Objects: batch.map((key) => ({ Key: key })), Quiet: true },
              }),
            ));
          } catch (error) {
            throw await this.translate(error, context);
          }
          const first = errors?.[0];
          if (first) {
            const cause = Object.assign(new Error(first.Message ?? first.Code ?? 'delete failed'), { name: first.Code ?? 'Error' });
            throw await this.translate(cause, `${context}: could not delete ${this.describe(first.Key ?? '')}`);
          }
        }),
      ),
    );
    this.locks.forget(sessionId);
    this.logCursors.delete(sessionId);
  }

  /** The session's log (see `S3SessionLog`). Does no I/O; throws `InvalidArgumentError` for a bad id. */
  sessionLog(sessionId: string): SessionLog {
    validateName('sessionId', sessionId);
    return new S3SessionLog(this.context, sessionId, this.cursorOf(sessionId));
  }

  /**
   * Take the session's lock: a lease object renewed in the background until `release` (see
   * `S3SessionLocks`). Throws `LockedError` naming the holder if another unexpired lease exists.
   * The lease is taken on this store's last listing of the session (made now when there is none):
   * when it saw a released lease, the lease is taken with `If-Match` on that lease's ETag, and on
   * success the listing is still the log (no holder came between), so reads under the lease use it
   * without listing again, and appends go on from it; otherwise the next read lists again. A
   * listing made here fetches the log's ends beside the lease's write (`prefetchEnds`). While it
   * is held, this store's appends to the session trust its own view of the log; as it is released
   * (still held), the session's log is compacted when enough appends wait (see
   * `S3SessionLog.compact`; a failed compaction is left for the next holder, the lease is released
   * all the same).
   */
  async lockSession(sessionId: string): Promise<SessionLock> {
    validateName('sessionId', sessionId);
    const cursor = this.cursorOf(sessionId);
    const log = new S3SessionLog(this.context, sessionId, cursor);
    let view = cursor.view;
    if (view === undefined) {
      // Listed now: the log's ends are fetched beside the lease's write (most holders read them next).
      view = await log.listing(true);
      log.prefetchEnds(view);
    }
    let onListing = false;
    const lock = await this.locks.lock(sessionId, {
      beforeRelease: () => log.compact().catch(() => undefined),
      seen: view.lease,
      // A view that was the log all along the lease (with this holder's appends and compaction) is
      // the log as the released lease leaves it: a later lock here can be taken on it.
      onReleased: (released) => {
        if (onListing && cursor.view === view) view.lease = released;
      },
      keepReleased: () => (cursor.view?.objects.length ?? 0) > 0,
    });
    cursor.leases += 1;
    onListing = lock.fromListing && cursor.view === view;
    if (onListing) cursor.current = lock.held;
    else {
      // Another holder may have compacted the log since this store last listed it.
      cursor.nextSequence = undefined;
      cursor.current = undefined;
    }
    let released = false;
    return {
      release: async () => {
        if (!released) {
          released = true;
          cursor.leases -= 1;
          cursor.current = undefined;
        }
        await lock.release();
      },
    };
  }

  /** The session's append cursor, shared by every handle of the session in this store. */
  private cursorOf(sessionId: string): LogCursor {
    let cursor = this.logCursors.get(sessionId);
    if (cursor === undefined) {
      cursor = newLogCursor();
      this.logCursors.set(sessionId, cursor);
    }
    return cursor;
  }

  /** Whether a holder other than this store's own locks has an unexpired lease on the session. */
  async isSessionLocked(sessionId: string): Promise<boolean> {
    validateName('sessionId', sessionId);
    return this.locks.isLocked(sessionId);
  }

  /** Always false: the store keeps nothing on the workspace file system. */
  containsPath(_absolutePath: string): boolean {
    return false;
  }

  /**
   * Close the client's connections if the store built the client (a given client is left alone).
   * The store stays usable: a later request opens new connections.
   */
  destroy(): void {
    this.builtClient?.destroy();
    this.signedClient?.destroy();
  }

  private describe(key: string): string {
    return `s3://${this.bucket}/${key}`;
  }

  /**
   * Upload the file behind `handle` to `key` with its metadata; returns the size and sha256 of
   * the bytes sent. A file of at most one part goes up in one PutObject from a buffer read here
   * (the multipart uploader is not loaded); a bigger one streams through lib-storage's `Upload`.
   */
  private async upload(key: string, handle: FileHandle, expected: BackupInfo & { sha256: string }): Promise<{ size: number; sha256: string }> {
    const params = {
      Bucket: this.bucket,
      Key: key,
      IfNoneMatch: '*',
      ContentType: 'application/octet-stream',
      Metadata: {
        [METADATA.mode]: expected.mode.toString(8),
        [METADATA.size]: String(expected.size),
        [METADATA.sha256]: expected.sha256,
      },
    };
    const failed = async (error: unknown): Promise<never> => {
      if (isPreconditionFailed(error)) {
        throw new ConflictError(`putBackup ${this.describe(key)}: the backup already exists (backups are written once)`, { cause: error });
      }
      throw await this.translate(error, `putBackup ${this.describe(key)}`);
    };
    if (expected.size <= this.partSizeBytes) {
      const body = await readWhole(handle, expected.size);
      try {
        const { client, s3 } = await this.sdk();
        await client.send(new s3.PutObjectCommand({ ...params, Body: body, ContentLength: body.length }));
      } catch (error) {
        return failed(error);
      }
      return { size: body.length, sha256: createHash('sha256').update(body).digest('hex') };
    }
    const [{ client }, { Upload }] = await Promise.all([this.sdkClient(), loadStorageModule()]);
    const hashing = new HashingStream();
    const body = handle.createReadStream({ start: 0, autoClose: false, highWaterMark: READ_CHUNK_BYTES });
    body.on('error', (error) => hashing.destroy(error));
    const upload = new Upload({
      client,
      partSize: Math.max(this.partSizeBytes, Math.ceil(expected.size / MAX_PARTS)),
      queueSize: this.uploadQueueSize,
      params: { ...params, Body: body.pipe(hashing) },
    });
    try {
      await upload.done();
    } catch (error) {
      body.destroy();
      return failed(error);
    }
    return { size: hashing.bytes, sha256: hashing.digest() };
  }

  private async getObject(key: string, context: string): Promise<GetObjectCommandOutput> {
    try {
      const { client, s3 } = await this.sdk();
      return await client.send(new s3.GetObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (isNotFound(error)) throw new NotFoundError(`${context}: the backup does not exist`, { cause: error });
      throw await this.translate(error, context);
    }
  }

  private async deleteKey(key: string, context: string): Promise<void> {
    try {
      const { client, s3 } = await this.sdk();
      await client.send(new s3.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (!isNotFound(error)) throw await this.translate(error, context);
    }
  }

  private async translate(error: unknown, context: string): Promise<FhError> {
    this.target ??= this.resolveTarget();
    return translateS3Error(error, context, await this.target);
  }

  /**
   * The endpoint for messages: the client's configured endpoint, else the one the SDK takes from
   * `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL`, else AWS S3 in the client's region.
   */
  private async resolveTarget(): Promise<RequestTarget> {
    try {
      const { client } = await this.sdk();
      const endpoint = await client.config.endpoint?.();
      if (endpoint) {
        const port = endpoint.port === undefined ? '' : `:${endpoint.port}`;
        return { endpoint: `${endpoint.protocol}//${endpoint.hostname}${port}${endpoint.path === '/' ? '' : endpoint.path}`, bucket: this.bucket };
      }
      const fromEnvironment = process.env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS === 'true' ? undefined : process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL;
      if (fromEnvironment) return { endpoint: fromEnvironment, bucket: this.bucket };
      return { endpoint: `the AWS S3 endpoint of region ${await client.config.region()}`, bucket: this.bucket };
    } catch {
      return { endpoint: 'the AWS S3 endpoint (region not configured)', bucket: this.bucket };
    }
  }
}

/**
 * The bytes of the file behind `handle` from its start, expecting `size` of them: reads up to one
 * byte more, so a file that grew since it was hashed comes back longer (and `putBackup` retries).
 */
async function readWhole(handle: FileHandle, size: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size + 1);
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/**
 * The `x-amz-copy-source` value `bucket/key`, URL-encoded per segment but keeping the characters
 * S3 accepts literally (`@ : , ; = $ &`), because some S3-compatible servers decode it only with
 * `decodeURI`, which leaves their escapes alone.
 */
function copySource(bucket: string, key: string): string {
  const literal: Record<string, string> = { '%40': '@', '%3A': ':', '%2C': ',', '%3B': ';', '%3D': '=', '%24': '$', '%26': '&' };
  const encoded = key
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/%(40|3A|2C|3B|3D|24|26)/g, (escape) => literal[escape] ?? escape))
    .join('/');
  return `${bucket}/${encoded}`;
}

/** BackupInfo from an object's size and fh metadata (mode 0o644 and no sha256 when absent). */
function backupInfoOf(size: number, metadata: Record<string, string> | undefined): BackupInfo {
  const mode = metadata?.[METADATA.mode];
  const sha256 = metadata?.[METADATA.sha256];
  const parsedMode = mode === undefined ? Number.NaN : Number.parseInt(mode, 8);
  return {
    size,
    mode: Number.isNaN(parsedMode) ? 0o644 : parsedMode,
    ...(sha256 ? { sha256 } : {}),
  };
}

/**
 * Throw `CorruptError` (naming the object `described`) unless `bytes` and `sha256` (what was read) match the object's recorded
 * size (fh metadata, else Content-Length) and sha256 (when recorded).
 */
function checkIntegrity(described: string, response: GetObjectCommandOutput, bytes: number, sha256: string): void {
  const recordedSize = response.Metadata?.[METADATA.size];
  const expectedSize = recordedSize === undefined ? response.ContentLength : Number(recordedSize);
  if (expectedSize !== undefined && bytes !== expectedSize) {
    throw new CorruptError(`backup ${described} is corrupt: ${bytes} bytes read, ${expectedSize} recorded`);
  }
  const expectedSha256 = response.Metadata?.[METADATA.sha256];
  if (expectedSha256 !== undefined && sha256 !== expectedSha256) {
    throw new CorruptError(`backup ${described} is corrupt: sha256 ${sha256} read, ${expectedSha256} recorded`);
  }
}

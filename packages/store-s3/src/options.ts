import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';

/** Options of {@link S3BackupStore}. Only `bucket` is required. */
export interface S3BackupStoreOptions {
  /** Bucket holding the backups and session records. It must exist; the store never creates it. */
  bucket: string;
  /**
   * Key prefix under which everything is stored (`team/project` → `team/project/file-history/...`).
   * Leading and trailing `/` are ignored. Default: `''` (the bucket root).
   */
  prefix?: string;
  /**
   * An existing client to use. The store never destroys a client it was given. Mutually
   * exclusive with `clientConfig` and `forcePathStyle`. Default: a client built from `clientConfig`.
   */
  client?: S3Client;
  /**
   * Options for the client the store builds when `client` is not given. Credentials, region and
   * endpoint that are not set here come from the SDK's standard chain (environment variables such
   * as `AWS_REGION`, `AWS_ENDPOINT_URL_S3`, `AWS_REQUEST_CHECKSUM_CALCULATION`; shared config
   * and credentials files; instance roles). Retries are the SDK's standard mode (3 attempts)
   * unless `maxAttempts`/`retryStrategy` are set. Unless `requestHandler` is set, connections time
   * out after 10 s and an idle socket after 60 s, so an unreachable server fails instead of hanging.
   * Default: `{}`.
   */
  clientConfig?: S3ClientConfig;
  /**
   * Address buckets as `https://host/bucket/key` instead of `https://bucket.host/key`, as most
   * S3-compatible services (MinIO, Ceph, s3rver) need. Default: `clientConfig.forcePathStyle`,
   * else false.
   */
  forcePathStyle?: boolean;
  /** Most store operations (S3 requests, uploads, downloads) in flight at once. Default: 16. */
  concurrency?: number;
  /**
   * Part size of multipart uploads in bytes (at least 5 MiB); a backup smaller than this goes up
   * in one PutObject (buffered whole). Raised automatically for files above 10,000 parts.
   * Default: 8 MiB.
   */
  partSizeBytes?: number;
  /** Parts of one multipart upload sent at once. Default: 4. */
  uploadQueueSize?: number;
  /**
   * Multipart uploads (files above `partSizeBytes`) running at once, within `concurrency`. Each
   * holds about `partSizeBytes * (uploadQueueSize + 2)` bytes of buffers (about 80 MB with the
   * defaults), so this bounds the memory a snapshot of several large files takes. Default: 1.
   */
  largeUploadConcurrency?: number;
  /**
   * How long a session lock stays valid without being renewed, in ms. The holder renews it every
   * third of this; a lock whose holder died (a sandbox that disappeared) can be taken over once it
   * expires. Clocks of the machines sharing a bucket must agree to well within this. Default: 60,000.
   */
  lockTtlMs?: number;
  /**
   * Send the store's requests through fh's small signed-request client (`signed-client.ts`: the
   * SDK's own SigV4 signer and XML parser over `node:http`) instead of the AWS SDK's client,
   * whenever the configuration is one it covers (`signedClientConfig`: static credentials, a
   * region, and a custom endpoint addressed path-style or AWS S3 in a standard region); else, and
   * for multipart uploads, the SDK. Saves the SDK's start-up (0.1–0.2 s) in short processes such
   * as an agent hook. Not with `client`. Default: false (the `fh` CLI sets it, see
   * `s3StoreOptionsFromEnvironment`).
   */
  signedRequests?: boolean;
}

/** Defaults of {@link S3BackupStoreOptions}. */
export const S3_STORE_DEFAULTS = {
  prefix: '',
  concurrency: 16,
  partSizeBytes: 8 * 1024 * 1024,
  uploadQueueSize: 4,
  largeUploadConcurrency: 1,
  lockTtlMs: 60_000,
  connectionTimeoutMs: 10_000,
  socketTimeoutMs: 60_000,
} as const;

/** S3's minimum part size of a multipart upload (all parts but the last): 5 MiB. */
export const MIN_PART_SIZE_BYTES = 5 * 1024 * 1024;

/** S3's most parts in one multipart upload. */
export const MAX_PARTS = 10_000;

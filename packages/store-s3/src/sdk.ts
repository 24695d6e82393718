/**
 * The AWS SDK, loaded on first use. Importing `@aws-sdk/client-s3` costs about 0.25 s and
 * `@aws-sdk/lib-storage` about 0.2 s more, which an agent hook would pay on every event: the store
 * imports the client module only when it sends its first request, and the multipart uploader only
 * for a backup larger than one part. Each module is imported once per process.
 */
import type { S3Client } from '@aws-sdk/client-s3';

/** The parts of `@aws-sdk/client-s3` the store uses (its command classes and `S3Client`, see `sdk-client.ts`). */
export type S3Module = typeof import('./sdk-client.js');

/** The `@aws-sdk/lib-storage` module (its multipart `Upload`). */
export type StorageModule = typeof import('@aws-sdk/lib-storage');

/** The SDK module and the client every request of a store goes through. */
export interface S3Sdk {
  readonly s3: S3Module;
  readonly client: S3Client;
}

/** fh's small signed-request client (`signed-client.ts`), which stands in for the SDK's where it covers the configuration. */
export type SignedClientModule = typeof import('./signed-client.js');

let clientModule: Promise<S3Module> | undefined;
let storageModule: Promise<StorageModule> | undefined;
let signedModule: Promise<SignedClientModule> | undefined;

/** `@aws-sdk/client-s3` (the parts in `sdk-client.ts`), imported on the first call. */
export function loadClientModule(): Promise<S3Module> {
  clientModule ??= import('./sdk-client.js');
  return clientModule;
}

/** `signed-client.ts` (a few ms to load, no SDK), imported on the first call. */
export function loadSignedClientModule(): Promise<SignedClientModule> {
  signedModule ??= import('./signed-client.js');
  return signedModule;
}

/** `@aws-sdk/lib-storage`, imported on the first call (only multipart uploads need it). */
export function loadStorageModule(): Promise<StorageModule> {
  storageModule ??= import('@aws-sdk/lib-storage');
  return storageModule;
}

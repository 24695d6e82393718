/**
 * The AWS SDK as `fh hook` loads it on the S3 store when the store's signed-request client does
 * not cover the configuration or a backup needs a multipart upload (otherwise no SDK is loaded:
 * `@fh/store-s3`'s `signed-client.ts`, bundled in `hook-act.cjs`): the entry of the `hook-aws-sdk.cjs` build
 * (tsup.config.ts), one CommonJS file with the client and the commands @fh/store-s3 uses (its
 * `sdk-client` module) from the SDK's ES modules, so only what those need is kept, run with V8's
 * code cache (`code-cache.ts`) on an event's first request. The hook's bundle of the store
 * (`hook-act.cjs`) takes its `sdk-client` and `@aws-sdk/lib-storage` imports from here.
 */
export * from '@fh/store-s3/sdk-client';

/** `@aws-sdk/lib-storage` (the multipart `Upload`), evaluated only when a backup needs more than one part. */
export function storageModule(): typeof import('@aws-sdk/lib-storage') {
  return require('@aws-sdk/lib-storage') as typeof import('@aws-sdk/lib-storage');
}

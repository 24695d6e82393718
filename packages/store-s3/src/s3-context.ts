import type { _Object } from '@aws-sdk/client-s3';
import type { FhError } from '@fh/core';
import type { LimitFunction } from 'p-limit';
import type { Layout } from './layout.js';
import type { S3Sdk } from './sdk.js';

/** What the store's parts (session log, lock) share: the client, the bucket and the limits. */
export interface S3Context {
  /** The SDK module and the client, loaded on the first call (see `sdk.ts`); reject only if the SDK cannot be imported. */
  sdk(): Promise<S3Sdk>;
  readonly bucket: string;
  readonly layout: Layout;
  /** Bounds requests in flight; never call it from inside a function it runs. */
  readonly limit: LimitFunction;
  /** Translate an SDK error into the core's family; `context` opens the message. */
  translate(error: unknown, context: string): Promise<FhError>;
  /** `s3://bucket/key`, for messages. */
  describe(key: string): string;
}

/**
 * Every object under `prefix`, page by page (1,000 keys a request), in key order. `startAfter`
 * skips keys up to and including it. Each page request runs under the context's limit.
 * Throws the core's errors translated from the SDK's.
 */
export async function listObjects(context: S3Context, prefix: string, startAfter?: string): Promise<_Object[]> {
  const objects: _Object[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await context.limit(async () => {
      try {
        const { client, s3 } = await context.sdk();
        return await client.send(
          new s3.ListObjectsV2Command({
            Bucket: context.bucket,
            Prefix: prefix,
            ContinuationToken: continuationToken,
            StartAfter: continuationToken === undefined ? startAfter : undefined,
          }),
        );
      } catch (error) {
        throw await context.translate(error, `list ${context.describe(prefix)}`);
      }
    });
    objects.push(...(page.Contents ?? []));
    continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (continuationToken !== undefined);
  return objects;
}

import type { S3BackupStoreOptions } from './options.js';

/**
 * Options for an S3 store set up only from environment variables, as the `fh` CLI does for
 * `--store s3://bucket/prefix`. The SDK itself reads credentials (`AWS_ACCESS_KEY_ID`,
 * `AWS_PROFILE`, ...), `AWS_REGION`, `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL` and
 * `AWS_REQUEST_CHECKSUM_CALCULATION`; this adds the two defaults S3-compatible services (MinIO,
 * R2, Ceph) need when a custom endpoint is set: path-style addressing, and region `us-east-1` if
 * `AWS_REGION` is unset. `FH_S3_FORCE_PATH_STYLE=1` or `0` overrides the path-style choice.
 * Requests go through the store's small signed-request client where it covers the configuration
 * (`signedRequests`, see `signed-client.ts`); `FH_S3_CLIENT=sdk` sends them all through the SDK.
 */
export function s3StoreOptionsFromEnvironment(
  location: { bucket: string; prefix: string },
  environment: Readonly<Record<string, string | undefined>> = process.env,
): S3BackupStoreOptions {
  const customEndpoint = Boolean(environment.AWS_ENDPOINT_URL_S3 || environment.AWS_ENDPOINT_URL);
  const pathStyleSetting = environment.FH_S3_FORCE_PATH_STYLE;
  const forcePathStyle = pathStyleSetting === '1' || pathStyleSetting === 'true' ? true : pathStyleSetting === '0' || pathStyleSetting === 'false' ? false : customEndpoint;
  return {
    bucket: location.bucket,
    prefix: location.prefix,
    forcePathStyle,
    clientConfig: customEndpoint && !environment.AWS_REGION ? { region: 'us-east-1' } : {},
    signedRequests: environment.FH_S3_CLIENT !== 'sdk',
  };
}

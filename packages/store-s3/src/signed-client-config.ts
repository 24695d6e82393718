/**
 * When the store's requests can go through its small signed-request client (`signed-client.ts`)
 * instead of the AWS SDK's: the configuration that client would use, resolved from the store's
 * options and the environment the SDK would read. Kept apart from the client, so deciding loads
 * neither it nor the SDK.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Static credentials, as the SDK's `credentials` option takes them. */
export interface StaticCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** What `SignedS3Client` (`signed-client.ts`) needs, all resolved up front (see {@link signedClientConfig}). */
export interface SignedClientConfig {
  /** `http(s)://host[:port][/base]` of the service, without the bucket. */
  endpoint: URL;
  /** True when the URL came from the configuration (`AWS_ENDPOINT_URL_S3`, `clientConfig.endpoint`), false for AWS S3's own. */
  customEndpoint: boolean;
  /** `https://host/bucket/key` when true, `https://bucket.host/key` when false. */
  pathStyle: boolean;
  region: string;
  credentials: StaticCredentials;
  /** Attempts per request (the SDK's standard mode: 3). */
  maxAttempts: number;
  connectionTimeoutMs: number;
  socketTimeoutMs: number;
}

/** The `clientConfig` keys whose meaning {@link SignedS3Client} reproduces; any other sends the store to the SDK. */
const COVERED_OPTIONS = new Set(['region', 'endpoint', 'credentials', 'forcePathStyle', 'requestChecksumCalculation', 'responseChecksumValidation']);

/** AWS regions of the standard partition (`eu-west-1`, `ap-southeast-2`): `s3.<region>.amazonaws.com`. */
const STANDARD_REGION = /^(?:us|eu|ap|ca|sa|me|af|il|mx)-[a-z]+-\d{1,2}$/;

/** A bucket name usable as a host label (what the SDK addresses virtual-hosted on AWS). */
const HOST_LABEL_BUCKET = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

/**
 * The configuration {@link SignedS3Client} would use for `bucket`, or undefined when the SDK is
 * needed to know what its client would do: `clientConfig` sets an option besides region,
 * endpoint (a string), static credentials, path style and checksum modes; no static credentials
 * (`clientConfig.credentials`, else `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` with
 * `AWS_SESSION_TOKEN`, ignored by the SDK when `AWS_PROFILE` is set); no region
 * (`clientConfig.region`, else `AWS_REGION`); `AWS_USE_FIPS_ENDPOINT`/`AWS_USE_DUALSTACK_ENDPOINT`
 * or a retry mode other than standard; a custom endpoint (`clientConfig.endpoint`, else
 * `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL` unless `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS`) without
 * path-style addressing; without one, a region outside AWS's standard partition, or a shared
 * config file (`AWS_CONFIG_FILE`, else `~/.aws/config`), which may set the endpoint. Reads
 * `environment` (the SDK reads `process.env`); never throws.
 */
export function signedClientConfig(
  bucket: string,
  clientConfig: Record<string, unknown> | undefined,
  forcePathStyle: boolean,
  timeouts: { connectionTimeoutMs: number; socketTimeoutMs: number },
  environment: Readonly<Record<string, string | undefined>> = process.env,
): SignedClientConfig | undefined {
  const given = clientConfig ?? {};
  for (const [name, value] of Object.entries(given)) if (value !== undefined && !COVERED_OPTIONS.has(name)) return undefined;
  if (isTrue(environment.AWS_USE_FIPS_ENDPOINT) || isTrue(environment.AWS_USE_DUALSTACK_ENDPOINT)) return undefined;
  if (environment.AWS_RETRY_MODE !== undefined && environment.AWS_RETRY_MODE !== 'standard') return undefined;
  const credentials = staticCredentials(given.credentials, environment);
  if (credentials === undefined) return undefined;
  const region = given.region === undefined ? environment.AWS_REGION : given.region;
  if (typeof region !== 'string' || region === '') return undefined;
  const endpointSetting =
    given.endpoint !== undefined
      ? given.endpoint
      : environment.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS === 'true'
        ? undefined
        : environment.AWS_ENDPOINT_URL_S3 || environment.AWS_ENDPOINT_URL || undefined;
  const attempts = environment.AWS_MAX_ATTEMPTS === undefined ? 3 : Number(environment.AWS_MAX_ATTEMPTS);
  if (!Number.isInteger(attempts) || attempts < 1) return undefined;
  const common = { region, credentials, maxAttempts: attempts, ...timeouts };
  if (endpointSetting !== undefined) {
    if (typeof endpointSetting !== 'string' || !forcePathStyle) return undefined;
    let endpoint: URL;
    try {
      endpoint = new URL(endpointSetting);
    } catch {
      return undefined;
    }
    if ((endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') || endpoint.search !== '' || endpoint.username !== '') return undefined;
    return { endpoint, customEndpoint: true, pathStyle: true, ...common };
  }
  if (!STANDARD_REGION.test(region)) return undefined;
  if (existsSync(environment.AWS_CONFIG_FILE || join(environment.HOME || homedir(), '.aws', 'config'))) return undefined;
  const pathStyle = forcePathStyle || !HOST_LABEL_BUCKET.test(bucket) || bucket.includes('--');
  return { endpoint: new URL(`https://s3.${region}.amazonaws.com`), customEndpoint: false, pathStyle, ...common };
}

function isTrue(value: string | undefined): boolean {
  return value !== undefined && value.toLowerCase() === 'true';
}

/** `given` when it is a static credentials object, else the environment's static credentials (see {@link signedClientConfig}). */
function staticCredentials(given: unknown, environment: Readonly<Record<string, string | undefined>>): StaticCredentials | undefined {
  if (given !== undefined) {
    if (typeof given !== 'object' || given === null) return undefined;
    const { accessKeyId, secretAccessKey, sessionToken } = given as Record<string, unknown>;
    if (typeof accessKeyId !== 'string' || typeof secretAccessKey !== 'string' || (sessionToken !== undefined && typeof sessionToken !== 'string')) return undefined;
    return { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) };
  }
  if (environment.AWS_PROFILE) return undefined;
  const accessKeyId = environment.AWS_ACCESS_KEY_ID;
  const secretAccessKey = environment.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = environment.AWS_SESSION_TOKEN;
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

import {
  ConflictError,
  FhError,
  InvalidArgumentError,
  NotFoundError,
  PermissionError,
  UnavailableError,
  errnoCode,
} from '@fh/core';

/** Where a failed request went, for messages: the endpoint (or region) and the bucket. */
export interface RequestTarget {
  /** `http://127.0.0.1:9000`, or `the AWS S3 endpoint of region eu-west-1`. */
  endpoint: string;
  bucket: string;
}

/** S3 error names that mean the object (or upload) does not exist. */
const NOT_FOUND_NAMES = new Set(['NoSuchKey', 'NotFound', 'NoSuchUpload', 'NoSuchBucket']);

/** S3 error names that mean the caller's credentials or policy refused the request. */
const PERMISSION_NAMES = new Set([
  'AccessDenied',
  'AllAccessDisabled',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'TokenRefreshRequired',
  'CredentialsProviderError',
]);

/** Errno codes and error names of a request that never got an answer. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ERR_STREAM_PREMATURE_CLOSE',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'AbortError',
]);

/** The HTTP status of an S3 service error, or undefined (network errors have none). */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const metadata = (error as { $metadata?: { httpStatusCode?: unknown } }).$metadata;
  return typeof metadata?.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
}

/** The S3 error name (`NoSuchKey`, `PreconditionFailed`, ...) or the errno code of a network error. */
export function errorNameOf(error: unknown): string | undefined {
  const code = errnoCode(error);
  if (code !== undefined) return code;
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const innerCode = errnoCode(inner);
      if (innerCode !== undefined) return innerCode;
    }
  }
  if (typeof error === 'object' && error !== null && 'name' in error) {
    const name = (error as { name: unknown }).name;
    return typeof name === 'string' && name !== 'Error' ? name : undefined;
  }
  return undefined;
}

/** True when the error means the object does not exist (404, NoSuchKey, NotFound). */
export function isNotFound(error: unknown): boolean {
  const name = errorNameOf(error);
  return (name !== undefined && NOT_FOUND_NAMES.has(name) && name !== 'NoSuchBucket') || httpStatusOf(error) === 404;
}

/** True when the error is a failed precondition (412; `If-None-Match: *` on an existing key). */
export function isPreconditionFailed(error: unknown): boolean {
  return errorNameOf(error) === 'PreconditionFailed' || httpStatusOf(error) === 412;
}

/**
 * Translate an S3 SDK error into the core's error family, keeping the raw error as `cause`.
 * `context` says what was being done (`putBackup s3://b/p/file-history/s/a@v1`) and opens the
 * message. FhErrors pass through unchanged.
 *
 * NoSuchKey, NotFound, NoSuchUpload, 404 → `NotFoundError`; NoSuchBucket → `NotFoundError` naming
 * the bucket; PreconditionFailed, 412, 409 ConditionalRequestConflict → `ConflictError`;
 * AccessDenied, InvalidAccessKeyId, SignatureDoesNotMatch, expired tokens, 401/403 and missing
 * credentials → `PermissionError`; connection failures (ECONNREFUSED, ECONNRESET, timeouts,
 * DNS) and 5xx answers (after the SDK's retries) → `UnavailableError` naming the endpoint and
 * bucket; a missing region or an invalid endpoint (EndpointError), InvalidBucketName, 400 →
 * `InvalidArgumentError`; anything else → `FhError`.
 */
export function translateS3Error(error: unknown, context: string, target: RequestTarget): FhError {
  if (FhError.isInstance(error)) return error;
  const name = errorNameOf(error);
  const status = httpStatusOf(error);
  const detail = [name, status === undefined ? undefined : `HTTP ${status}`].filter(Boolean).join(', ');
  const raw = error instanceof Error && error.message && error.message !== name ? `: ${error.message}` : '';
  const described = `${context}: S3 ${detail || 'error'}${raw}`;
  const options = { cause: error };

  if (name === 'NoSuchBucket') {
    return new NotFoundError(`${context}: the bucket "${target.bucket}" does not exist at ${target.endpoint}`, options);
  }
  if ((name !== undefined && NOT_FOUND_NAMES.has(name)) || status === 404) {
    return new NotFoundError(`${described} (does not exist)`, options);
  }
  if (name === 'PreconditionFailed' || name === 'ConditionalRequestConflict' || status === 412 || status === 409) {
    return new ConflictError(`${described} (the object already exists or was changed by another writer)`, options);
  }
  if ((name !== undefined && PERMISSION_NAMES.has(name)) || status === 401 || status === 403) {
    return new PermissionError(
      `${described} (S3 refused access to bucket "${target.bucket}" at ${target.endpoint}: check the credentials ` +
        '(AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE) and the bucket policy)',
      options,
    );
  }
  if ((name !== undefined && NETWORK_CODES.has(name)) || (status !== undefined && status >= 500)) {
    return new UnavailableError(
      `${described} (S3 at ${target.endpoint}, bucket "${target.bucket}", cannot be reached or keeps failing after retries)`,
      options,
    );
  }
  if (name === 'EndpointError' || (error instanceof Error && error.message === 'Region is missing')) {
    return new InvalidArgumentError(
      `${described} (the S3 client is not configured: set AWS_REGION, and AWS_ENDPOINT_URL_S3 for an S3-compatible service)`,
      options,
    );
  }
  if (name === 'InvalidBucketName' || status === 400) {
    return new InvalidArgumentError(`${described} (S3 rejected the request as invalid)`, options);
  }
  return new FhError(described, options);
}

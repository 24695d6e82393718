/**
 * Store URIs: where `fh` keeps backups and session records (the `--store` option).
 *
 *   fs:<folder>     the local-disk store (`@fh/store-fs`) rooted at <folder>; `~` expands to the
 *                   home folder and a relative folder is resolved against the current folder.
 *   <folder>        a bare folder is the same as `fs:<folder>`.
 *   s3://<bucket>/<prefix>
 *                   the S3 store (`@fh/store-s3`) in <bucket> under <prefix> (may be empty).
 *                   Credentials, region and endpoint come from the AWS SDK's standard chain
 *                   (AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL_S3, ...); see
 *                   `s3StoreOptionsFromEnvironment` for the defaults added for custom endpoints.
 *                   An endpoint that is not an http(s) URL is refused before the SDK sees it.
 *
 * Default: `fs:$FH_HOME`, or `fs:~/.fh` when FH_HOME is unset. Parsing does no I/O; the store
 * package is imported only when a store is opened, so a command that needs no store loads none.
 */
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { InvalidArgumentError, type BackupStore } from '@fh/core';
import { UsageError } from './cli-errors.js';

/** A parsed `--store` value. */
export type StoreLocation = { kind: 'fs'; folder: string } | { kind: 's3'; bucket: string; prefix: string };

/** What {@link parseStoreUri} needs from the environment. */
export interface StoreUriContext {
  /** Folder a relative path is resolved against. */
  cwd: string;
  /** The user's home folder, for `~`. */
  home: string;
}

/** The store URI used when `--store` is not given: `fs:$FH_HOME`, else `fs:~/.fh`. */
export function defaultStoreUri(environment: NodeJS.ProcessEnv = process.env): string {
  const home = environment.FH_HOME;
  return home !== undefined && home !== '' ? `fs:${home}` : 'fs:~/.fh';
}

/**
 * Parse a `--store` value. Throws {@link UsageError} naming the value when the scheme is unknown
 * or the folder is empty.
 */
export function parseStoreUri(
  uri: string,
  context: StoreUriContext = { cwd: process.cwd(), home: homedir() },
): StoreLocation {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]+):/.exec(uri)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: 'fs', folder: resolveFolder(uri, uri, context) };
  switch (scheme) {
    case 'fs':
      return { kind: 'fs', folder: resolveFolder(uri.slice('fs:'.length), uri, context) };
    case 's3':
      return parseS3Uri(uri);
    default:
      throw new UsageError(`unknown store "${uri}": use fs:<folder> or s3://<bucket>/<prefix>`);
  }
}

/** `s3://bucket/some/prefix` → bucket and prefix (without surrounding `/`). */
function parseS3Uri(uri: string): StoreLocation {
  const match = /^s3:\/\/([^/]+)\/*(.*?)\/*$/i.exec(uri);
  if (match === null) throw new UsageError(`store "${uri}" names no bucket: use s3://<bucket>/<prefix>`);
  return { kind: 's3', bucket: match[1] as string, prefix: match[2] as string };
}

function resolveFolder(folder: string, uri: string, context: StoreUriContext): string {
  if (folder === '') throw new UsageError(`store "${uri}" names no folder: use fs:<folder>`);
  if (folder === '~') return context.home;
  if (folder.startsWith('~/')) return resolve(context.home, folder.slice(2));
  return isAbsolute(folder) ? resolve(folder) : resolve(context.cwd, folder);
}

/** A short, human form of a location for messages (`fs:/home/me/.fh`, `s3://bucket/prefix`). */
export function describeStoreLocation(location: StoreLocation): string {
  if (location.kind === 's3') return `s3://${location.bucket}/${location.prefix}`;
  return `fs:${location.folder}`;
}

/**
 * Open the store a location names, importing its package on first use. For S3, first checks the
 * endpoint the SDK will take from `environment` (see {@link assertS3EndpointUrl}).
 */
export async function openStore(location: StoreLocation, environment: Readonly<Record<string, string | undefined>> = process.env): Promise<BackupStore> {
  if (location.kind === 's3') {
    assertS3EndpointUrl(environment);
    // fh pins its AWS SDK version, so the SDK's notice that later versions will need Node 22 is noise here.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    const { S3BackupStore, s3StoreOptionsFromEnvironment } = await import('@fh/store-s3');
    return new S3BackupStore(s3StoreOptionsFromEnvironment(location));
  }
  const { FsBackupStore } = await import('@fh/store-fs');
  return new FsBackupStore({ root: location.folder });
}

/**
 * Throw `InvalidArgumentError` (exit 2) naming the variable when the S3 endpoint set in the
 * environment (`AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`, as the AWS SDK reads them, unless
 * `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is true) is not an http:// or https:// URL.
 */
export function assertS3EndpointUrl(environment: Readonly<Record<string, string | undefined>>): void {
  if (environment.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.toLowerCase() === 'true') return;
  const name = environment.AWS_ENDPOINT_URL_S3 ? 'AWS_ENDPOINT_URL_S3' : environment.AWS_ENDPOINT_URL ? 'AWS_ENDPOINT_URL' : undefined;
  if (name === undefined) return;
  const value = environment[name] as string;
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new InvalidArgumentError(`${name} must be an http:// or https:// URL such as http://127.0.0.1:9000, not ${JSON.stringify(value)}; nothing was read or written`);
  }
}

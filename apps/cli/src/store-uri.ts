/**
 * Store URIs: where `fh` keeps backups and session records (the `--store` option).
 *
 *   fs:<folder>     the local-disk store (`@fh/store-fs`) rooted at <folder>; `~` expands to the
 *                   home folder and a relative folder is resolved against the current folder.
 *   <folder>        a bare folder is the same as `fs:<folder>`.
 *
 * Default: `fs:$FH_HOME`, or `fs:~/.fh` when FH_HOME is unset. Parsing does no I/O; the store
 * package is imported only when a store is opened, so a command that needs no store loads none.
 */
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { BackupStore } from '@fh/core';
import { UsageError } from './cli-errors.js';

/** A parsed `--store` value. */
export type StoreLocation = { kind: 'fs'; folder: string };

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
    default:
      throw new UsageError(`unknown store "${uri}": use fs:<folder>`);
  }
}

function resolveFolder(folder: string, uri: string, context: StoreUriContext): string {
  if (folder === '') throw new UsageError(`store "${uri}" names no folder: use fs:<folder>`);
  if (folder === '~') return context.home;
  if (folder.startsWith('~/')) return resolve(context.home, folder.slice(2));
  return isAbsolute(folder) ? resolve(folder) : resolve(context.cwd, folder);
}

/** A short, human form of a location for messages (`fs:/home/me/.fh`). */
export function describeStoreLocation(location: StoreLocation): string {
  return `fs:${location.folder}`;
}

/** Open the store a location names, importing its package on first use. */
export async function openStore(location: StoreLocation): Promise<BackupStore> {
  const { FsBackupStore } = await import('@fh/store-fs');
  return new FsBackupStore({ root: location.folder });
}

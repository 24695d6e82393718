import * as fsPromises from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { nodeFileSystem, type FsBackupStoreFileSystem } from '../src/index.js';

const folders: string[] = [];

afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A fresh temp folder, removed after the test. */
export async function temporaryFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'fh-store-fs-'));
  folders.push(folder);
  return folder;
}

/** An errno error as Node throws it. */
export function errnoError(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected, ${syscall} '${path}'`), { code, syscall, path });
}

/** The store's real file system (`fs/promises` plus sync metadata calls) with some members replaced (fault injection). */
export function faultyFileSystem(overrides: Partial<FsBackupStoreFileSystem>): FsBackupStoreFileSystem {
  return { ...nodeFileSystem, ...overrides } as FsBackupStoreFileSystem;
}

/** Every entry under `folder` as sorted relative paths; [] when the folder does not exist. */
export async function listTree(folder: string): Promise<string[]> {
  try {
    const entries = await fsPromises.readdir(folder, { recursive: true });
    return entries.map(String).sort();
  } catch {
    return [];
  }
}

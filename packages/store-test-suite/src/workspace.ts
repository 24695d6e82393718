/**
 * Per-test helpers: a fresh harness, a session id, and small workspace operations with exact
 * modes (memfs has no umask, so every file the suite writes gets an explicit chmod).
 */
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import {
  backupFileName,
  errnoCode,
  FileHistory,
  type BackupStore,
  type FileHistoryOptions,
  type WorkspaceFs,
} from '@fh/core';
import { afterEach, beforeEach } from 'vitest';
import type { ConformanceOptions, StoreHarness } from './harness.js';

/** What every test of the suite works with. */
export interface Workspace {
  harness: StoreHarness;
  store: BackupStore;
  fs: WorkspaceFs;
  root: string;
  sessionId: string;
  granularityMs: number;
  /** Open a history of this test's session (suite granularity, no env switch) with `overrides`. */
  open(overrides?: Partial<FileHistoryOptions>): Promise<FileHistory>;
  /** Absolute path of a project-relative path. */
  path(relativePath: string): string;
  /** Write a file (creating folders) and chmod it to `mode` (default 0o644). */
  write(relativePath: string, content: string | Uint8Array, mode?: number): Promise<void>;
  /** A file's bytes (a plain Uint8Array), or null when nothing is there. */
  bytes(relativePath: string): Promise<Uint8Array | null>;
  /** A file's text (UTF-8), or null when nothing is there. */
  text(relativePath: string): Promise<string | null>;
  /** A file's permission bits (`mode & 0o7777`). */
  mode(relativePath: string): Promise<number>;
  /** Backup objects of this session as `{ name: { text, mode } }`, for exact comparison. */
  backups(): Promise<Record<string, { text: string; mode: number }>>;
  /** The backup name of a project-relative path at `version`. */
  backupName(relativePath: string, version: number): string;
  /** Every regular file under the root as `{ relativePath: text }` (for "nothing changed" checks). */
  tree(): Promise<Record<string, string>>;
  /** Histories opened by `open`, closed after the test. */
  histories: FileHistory[];
}

/** Wait `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A plain Uint8Array holding `text` as UTF-8. */
export function utf8(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

/**
 * Register beforeEach/afterEach hooks that give each test a fresh {@link Workspace}; returns a
 * getter for the current one.
 */
export function useWorkspace(options: ConformanceOptions): () => Workspace {
  let current: Workspace | undefined;
  beforeEach(async () => {
    current = createWorkspace(await options.createHarness(), options.timestampGranularityMs ?? 20);
  });
  afterEach(async () => {
    const workspace = current;
    current = undefined;
    if (workspace === undefined) return;
    for (const history of workspace.histories) await history.close();
    await workspace.harness.cleanup();
  });
  return () => {
    if (current === undefined) throw new Error('the workspace exists only inside a test');
    return current;
  };
}

function createWorkspace(harness: StoreHarness, granularityMs: number): Workspace {
  const { store, projectRoot: root } = harness;
  const fs = store.workspaceFs;
  const sessionId = `session-${randomUUID()}`;
  const path = (relativePath: string) => join(root, relativePath);
  const bytes = async (relativePath: string) => {
    try {
      return new Uint8Array(await fs.readFile(path(relativePath)));
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw error;
    }
  };
  const workspace: Workspace = {
    harness,
    store,
    fs,
    root,
    sessionId,
    granularityMs,
    histories: [],
    async open(overrides = {}) {
      const history = await FileHistory.open({
        projectRoot: root,
        sessionId,
        store,
        timestampGranularityMs: granularityMs,
        env: {},
        ...overrides,
      });
      workspace.histories.push(history);
      return history;
    },
    path,
    async write(relativePath, content, mode = 0o644) {
      await fs.mkdir(dirname(path(relativePath)), { recursive: true });
      await fs.writeFile(path(relativePath), content);
      await fs.chmod(path(relativePath), mode);
    },
    bytes,
    async text(relativePath) {
      const content = await bytes(relativePath);
      return content === null ? null : Buffer.from(content).toString('utf8');
    },
    async mode(relativePath) {
      return Number((await fs.stat(path(relativePath))).mode) & 0o7777;
    },
    async backups() {
      const objects = await harness.listBackupObjects(sessionId);
      const result: Record<string, { text: string; mode: number }> = {};
      for (const name of Object.keys(objects).sort()) {
        const object = objects[name] as { bytes: Uint8Array; mode: number };
        result[name] = { text: Buffer.from(object.bytes).toString('utf8'), mode: object.mode & 0o7777 };
      }
      return result;
    },
    backupName(relativePath, version) {
      return backupFileName(path(relativePath), version);
    },
    async tree() {
      const result: Record<string, string> = {};
      const walk = async (folder: string, prefix: string) => {
        for (const name of (await fs.readdir(folder)).map(String).sort()) {
          const full = join(folder, name);
          const stats = await fs.lstat(full);
          if (stats.isDirectory()) await walk(full, `${prefix}${name}/`);
          else if (stats.isFile()) result[`${prefix}${name}`] = Buffer.from(await fs.readFile(full)).toString('latin1');
          else if (stats.isSymbolicLink()) result[`${prefix}${name}`] = `-> symlink`;
        }
      };
      await walk(root, '');
      return result;
    },
  };
  return workspace;
}

/** The contract between the conformance suite and a store's test file (see PLAN.md). */
import type { BackupStore } from '@fh/core';

/** A fresh store and project folder for one test, plus direct access to the store's backing state. */
export interface StoreHarness {
  /** The store under test. */
  store: BackupStore;
  /** Absolute path of a fresh, empty project folder on `store.workspaceFs`. */
  projectRoot: string;
  /** The store's backing state, for exact assertions: every backup object of a session, by name. */
  listBackupObjects(sessionId: string): Promise<Record<string, { bytes: Uint8Array; mode: number }>>;
  /** Remove the backup object directly (to simulate a lost backup), bypassing the store API. */
  removeBackupObject(sessionId: string, backupFileName: string): Promise<void>;
  /**
   * Overwrite a backup object's bytes directly (to simulate a damaged backup: truncated, a flipped
   * byte), keeping whatever metadata the store recorded for it, bypassing the store API.
   */
  replaceBackupBytes(sessionId: string, backupFileName: string, bytes: Uint8Array): Promise<void>;
  /**
   * Put a symbolic link named `backupFileName` in the session's backup folder, leading to
   * `target` (a path outside the store holding other bytes), bypassing the store API: a store
   * must never read through it. Required of stores that offer `readBackupSync`.
   */
  linkBackupObject?(sessionId: string, backupFileName: string, target: string): Promise<void>;
  /** Remove everything the harness created. */
  cleanup(): Promise<void>;
}

/** How a store runs the suite. */
export interface ConformanceOptions {
  /** Store name used in test titles: `'memfs'`, `'fs'`, `'s3'`. */
  name: string;
  /** Create a fresh harness; called once per test. */
  createHarness(): Promise<StoreHarness>;
  /**
   * The workspace is the real disk: the 5,000-file test then also runs with the process limited to
   * 256 open files (`prlimit`, like `ulimit -n 256`).
   */
  realFileSystem: boolean;
  /**
   * Timestamp granularity (ms) the suite opens histories with. Default 20: tests that need the
   * timestamp shortcut wait a little longer than this.
   */
  timestampGranularityMs?: number;
  /**
   * The store offers `readBackupSync` (a sync read of small local backups): the suite tests it,
   * refusals included (the harness must then have `linkBackupObject`). Default false: the suite
   * checks the store does not offer it.
   */
  syncRead?: boolean;
  /** Files in the bounded-concurrency test. Default 5,000 (issue 2 rule 7). */
  manyFilesCount?: number;
}

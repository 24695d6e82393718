/**
 * Where a session's records and backups come from: fh's own store (`--store fs:<folder>`, default
 * `fs:$FH_HOME`, else `fs:~/.fh`) or Claude Code's config folder (`--claude [configDir]`, default
 * `$CLAUDE_CONFIG_DIR`, else `~/.claude`), which is only read.
 *
 * The root a session's tracking paths resolve against differs:
 * - fh: the `projectRoot` of its `fh-session` record (default: the worktree). When that is a folder
 *   around the worktree, only tracked paths inside the worktree are rewound.
 * - Claude Code: the worktree, for the snapshots taken while the session was in it (Claude Code
 *   re-roots its file history when it enters a worktree); earlier snapshots are not rewound.
 */
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import {
  NotFoundError,
  parseFhSessionRecord,
  restoreStateFromLog,
  worktreeSnapshotMessageIds,
  type BackupStore,
  type FileHistoryState,
  type LogRecord,
  type WorktreeSession,
} from '@fh/core';
import { ClaudeCodeStore, FsBackupStore } from '@fh/store-fs';
import { UsageError } from './errors.js';

/** The options that name a session's source. */
export interface SourceOptions {
  session: string;
  /** `--store <uri>`. */
  store?: string;
  /** `--claude [configDir]`: `true` when given without a folder. */
  claude?: string | boolean;
}

/** A session's records and backups, opened read-only. */
export interface SessionSource {
  kind: 'fs' | 'claude';
  sessionId: string;
  /** Human name of where the session lives (`fs:/home/me/.fh`, `Claude Code /home/me/.claude`). */
  location: string;
  store: BackupStore;
  /** Every record of the session's log or transcript, in order. */
  records: LogRecord[];
  /**
   * The root the state's tracking paths resolve against, the rebuilt state and, for Claude Code,
   * the snapshots that may be rewound into the worktree.
   */
  history(worktree: WorktreeSession): Promise<{ projectRoot: string; state: FileHistoryState; eligibleMessageIds?: ReadonlySet<string> }>;
}

function homeFolder(environment: NodeJS.ProcessEnv): string {
  const home = environment.HOME;
  return home !== undefined && home !== '' ? home : homedir();
}

function expandFolder(folder: string, environment: NodeJS.ProcessEnv, cwd: string): string {
  if (folder === '~') return homeFolder(environment);
  if (folder.startsWith('~/')) return resolve(homeFolder(environment), folder.slice(2));
  return isAbsolute(folder) ? resolve(folder) : resolve(cwd, folder);
}

/** The fh store folder `--store` names (`fs:<folder>` or a bare folder). Throws `UsageError` for another scheme. */
export function storeFolder(uri: string | undefined, environment: NodeJS.ProcessEnv, cwd: string): string {
  const value = uri ?? (environment.FH_HOME !== undefined && environment.FH_HOME !== '' ? `fs:${environment.FH_HOME}` : 'fs:~/.fh');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]+):/.exec(value)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'fs') throw new UsageError(`unknown store "${value}": use fs:<folder>`);
  const folder = scheme === 'fs' ? value.slice('fs:'.length) : value;
  if (folder === '') throw new UsageError(`store "${value}" names no folder: use fs:<folder>`);
  return expandFolder(folder, environment, cwd);
}

/** The Claude Code config folder `--claude` names (`true`: `$CLAUDE_CONFIG_DIR`, else `~/.claude`). */
export function claudeFolder(claude: string | true, environment: NodeJS.ProcessEnv, cwd: string): string {
  if (claude === true || claude === '') {
    const configured = environment.CLAUDE_CONFIG_DIR;
    return configured !== undefined && configured !== '' ? resolve(cwd, configured) : resolve(homeFolder(environment), '.claude');
  }
  return expandFolder(claude, environment, cwd);
}

/**
 * Open the session the options name. Throws `UsageError` when both `--store` and `--claude` are
 * given, and `NotFoundError` when the session has no records and no backups there.
 */
export async function openSource(options: SourceOptions, environment: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<SessionSource> {
  const claude = options.claude;
  if (claude !== undefined && claude !== false) {
    if (options.store !== undefined) throw new UsageError('give either --store or --claude, not both');
    return openClaude(options.session, claudeFolder(claude, environment, cwd));
  }
  return openFh(options.session, storeFolder(options.store, environment, cwd));
}

async function openFh(sessionId: string, folder: string): Promise<SessionSource> {
  const store = new FsBackupStore({ root: folder });
  const location = `fs:${folder}`;
  const { records } = await store.sessionLog(sessionId).read();
  if (records.length === 0 && (await store.listBackups(sessionId)).length === 0) {
    throw new NotFoundError(`session "${sessionId}" not found in ${location}; nothing was changed (fh --store ${location} sessions lists them)`);
  }
  const recordedRoot = records.map((record) => parseFhSessionRecord(record)).find((record) => record !== undefined)?.projectRoot;
  return {
    kind: 'fs',
    sessionId,
    location,
    store,
    records,
    async history(worktree) {
      const projectRoot = recordedRoot === undefined ? worktree.worktreePath : resolve(recordedRoot);
      return { projectRoot, state: restoreStateFromLog(records, { projectRoot }) };
    },
  };
}

async function openClaude(sessionId: string, configDir: string): Promise<SessionSource> {
  const store = new ClaudeCodeStore({ configDir });
  const location = `Claude Code ${configDir}`;
  const { records } = await store.sessionLog(sessionId).read();
  if (records.length === 0) throw new NotFoundError(`Claude Code session "${sessionId}" has no transcript in ${configDir}; nothing was changed (fh --claude ${configDir} sessions lists them)`);
  return {
    kind: 'claude',
    sessionId,
    location,
    store,
    records,
    async history(worktree) {
      const projectRoot = worktree.worktreePath;
      const session = await store.readSession(sessionId, { projectRoot });
      return { projectRoot, state: session.state, eligibleMessageIds: worktreeSnapshotMessageIds(records, projectRoot) };
    },
  };
}

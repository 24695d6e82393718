/**
 * ClaudeCodeStore: Claude Code's own session data as a BackupStore, so fh can list, preview and
 * rewind real Claude Code sessions (issue 3, "Claude Code sessions").
 *
 * Layout under the Claude Code config folder (`~/.claude`, or `$CLAUDE_CONFIG_DIR`):
 *   projects/{project slug}/{sessionId}.jsonl   the session's transcript: messages, summaries,
 *                                               file-history-snapshot and -delta records, ...
 *   file-history/{sessionId}/{hash}@v{n}        backups, `{sha256(absolute path)[:16]}@v{version}`
 * The project slug is the session's first working folder with every character other than
 * `[A-Za-z0-9]` replaced by `-` (longer than 200 characters: cut to 200, then `-` and a hash).
 * Transcripts are found by scanning `projects/*` for `{sessionId}.jsonl`, so the slug is only
 * computed when this store creates a session.
 *
 * Existing sessions are read-only: every write to them throws `UnsupportedError`. A session this
 * store creates (the target of a resume or fork) is writable: its backups go to
 * `file-history/{newId}/` and its transcript to `projects/{slug(projectRoot)}/{newId}.jsonl`.
 * There is no session locking (Claude Code has none to respect).
 */
import {
  FileHistory,
  InvalidArgumentError,
  NotFoundError,
  UnsupportedError,
  FhError,
  errnoCode,
  promptForResubmit,
  isTranscriptMessage,
  baseFolderTracker,
  chainFileHistoryRecords,
  restoreStateFromLog,
  restoreStateWithOutside,
  OUTSIDE_ROOT,
  type BackupBytes,
  type BackupInfo,
  type BackupStore,
  type FileHistoryState,
  type LogReadResult,
  type LogRecord,
  type SessionLog,
  type SessionSummary,
  type SkippedLine,
  type StoreCapabilities,
  type WorkspaceFs,
  translateFsError,
} from '@fh/core';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { FsBackupStoreFileSystem } from './fs-backup-store-options.js';
import { FsBackupStore, nodeFileSystem } from './fs-backup-store.js';
import { FsSessionLog } from './fs-session-log.js';
import { validateName } from './names.js';

/** Options of {@link ClaudeCodeStore}. */
export interface ClaudeCodeStoreOptions {
  /** The Claude Code config folder, e.g. `~/.claude` (see {@link defaultClaudeConfigDir}). Required. */
  configDir: string;
  /**
   * Project root of the sessions this store creates (their transcript goes to
   * `projects/{slug(projectRoot)}/`). Needed only to create sessions. Default: none.
   */
  projectRoot?: string;
  /** The file system to work through. Default: `node:fs/promises`. */
  fileSystem?: FsBackupStoreFileSystem;
}

/** One Claude Code session as {@link ClaudeCodeStore.listClaudeSessions} lists it. */
export interface ClaudeCodeSessionInfo {
  sessionId: string;
  /** The session's first working folder (first `cwd` in its transcript), if recorded. */
  projectPath: string | undefined;
  /** Absolute path of the transcript, if the session has one. */
  transcriptPath: string | undefined;
  /**
   * The name of the `projects/` folder holding the transcript (Claude Code's slug of the folder
   * the session ran in, see {@link claudeProjectSlug}), if the session has one: what says where
   * a session that records no `cwd` ran.
   */
  projectFolder: string | undefined;
  /** Latest mtime of its transcript and backups. */
  lastModified: Date;
  /** Bytes of its transcript and backups. */
  bytes: number;
  /** Number of backup files. */
  backups: number;
}

/** One snapshot (rewind point) of a Claude Code session. */
export interface ClaudeCodeSnapshotInfo {
  /** The user message the snapshot belongs to. */
  messageId: string;
  timestamp: Date;
  /** The prompt text of that message (as a person would edit it again), if the transcript has it. */
  prompt: string | undefined;
  /** Tracking paths of the files the snapshot records, sorted. */
  files: string[];
  /** Tracking paths whose backup is gone from `file-history/` (Claude Code prunes old backups), sorted. */
  unavailable: string[];
}

/** A Claude Code session read and rebuilt by {@link ClaudeCodeStore.readSession}. */
export interface ClaudeCodeSession {
  sessionId: string;
  /** The project root the state's tracking paths are relative to. */
  projectRoot: string;
  /** The working folder the transcript records (its first `cwd`); undefined when it records none. */
  recordedProjectRoot: string | undefined;
  transcriptPath: string | undefined;
  /** The rebuilt file-history state; entries whose backup is gone carry `error`. */
  state: FileHistoryState;
  /** The snapshots, oldest first, with prompt texts. */
  snapshots: ClaudeCodeSnapshotInfo[];
  /** Every transcript record, in order. */
  records: LogRecord[];
  /** Transcript lines that could not be read (a torn last line, corrupt lines). */
  skipped: SkippedLine[];
  /** Warnings from rebuilding the state (dropped keys, malformed records). */
  warnings: string[];
  /**
   * The files the session tracked outside `projectRoot` (Claude Code keys them by absolute path:
   * plan files, `/tmp`, a sibling project): their state, rooted at `/` (tracking paths are the
   * absolute paths without the leading `/`; same snapshots as `state`), and their absolute paths.
   * Entries whose backup is gone carry `error`.
   */
  outside: { state: FileHistoryState; files: string[] };
}

/** Options of {@link ClaudeCodeStore.readSession} and {@link ClaudeCodeStore.openFileHistory}. */
export interface ClaudeCodeReadOptions {
  /** The project folder to rebuild against and rewind into. Default: the session's first `cwd`. */
  projectRoot?: string;
  /** The project folder when `projectRoot` is not given and the transcript records no `cwd`. */
  fallbackProjectRoot?: string;
}

const MAX_SLUG_LENGTH = 200;

/** Signed 32-bit string hash Claude Code uses (under Node) for long project slugs. */
function slugHash(text: string): string {
  let hash = 0;
  for (let index = 0; index < text.length; index += 1) hash = ((hash << 5) - hash + text.charCodeAt(index)) | 0;
  return Math.abs(hash).toString(36);
}

/**
 * The folder name Claude Code gives a project under `projects/`: every character other than
 * `[A-Za-z0-9]` becomes `-`; a result longer than 200 characters is cut to 200 and followed by `-`
 * and a base-36 hash of the path (the Node build's hash; Claude Code's Bun build hashes
 * differently, which only matters for paths that long).
 */
export function claudeProjectSlug(projectPath: string): string {
  const slug = projectPath.replace(/[^a-zA-Z0-9]/g, '-');
  return slug.length <= MAX_SLUG_LENGTH ? slug : `${slug.slice(0, MAX_SLUG_LENGTH)}-${slugHash(projectPath)}`;
}

/** Claude Code's config folder: `$CLAUDE_CONFIG_DIR` if set, else `~/.claude`. */
export function defaultClaudeConfigDir(environment: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const configured = environment.CLAUDE_CONFIG_DIR;
  return configured !== undefined && configured !== '' ? resolve(configured) : join(home, '.claude');
}

/** Record types fh writes for itself; they are not written into Claude Code transcripts. */
function isFhOnlyRecord(record: LogRecord): boolean {
  return record.type.startsWith('fh-');
}

/** A BackupStore over a Claude Code config folder, laid out as described at the top of this file. */
export class ClaudeCodeStore implements BackupStore {
  readonly kind = 'claude-code';
  readonly capabilities: StoreCapabilities = { hardLinks: true, serverSideCopy: false, locking: false, sha256: false };
  readonly workspaceFs: WorkspaceFs;
  /** Absolute Claude Code config folder. */
  readonly configDir: string;
  /** Project root of sessions this store creates, if given. */
  readonly projectRoot: string | undefined;
  private readonly backups: FsBackupStore;
  private readonly fs: FsBackupStoreFileSystem;
  /** Sessions this store created (their new-session check); only these may be written. */
  private readonly created = new Map<string, Promise<void>>();
  /** Transcript paths of sessions this store created. */
  private readonly createdTranscripts = new Map<string, string>();

  /** Throws `InvalidArgumentError` when `configDir` is missing or `projectRoot` is not absolute. */
  constructor(options: ClaudeCodeStoreOptions) {
    if (typeof options?.configDir !== 'string' || options.configDir === '') {
      throw new InvalidArgumentError(`configDir must be the Claude Code config folder: ${JSON.stringify(options?.configDir)}`);
    }
    if (options.projectRoot !== undefined && !isAbsolute(options.projectRoot)) {
      throw new InvalidArgumentError(`projectRoot must be an absolute path: ${JSON.stringify(options.projectRoot)}`);
    }
    this.configDir = resolve(options.configDir);
    this.projectRoot = options.projectRoot === undefined ? undefined : resolve(options.projectRoot);
    this.fs = options.fileSystem ?? nodeFileSystem;
    this.backups = new FsBackupStore({ root: this.configDir, fileSystem: this.fs });
    this.workspaceFs = this.backups.workspaceFs;
  }

  /** Back a file up into a session this store created; `UnsupportedError` for an existing session. */
  async putBackup(sessionId: string, backupFileName: string, sourcePath: string): Promise<BackupInfo> {
    await this.assertWritable(sessionId, 'putBackup');
    return this.backups.putBackup(sessionId, backupFileName, sourcePath);
  }

  /** Store backups from bytes into a session this store created (see `FsBackupStore.putBackups`); `UnsupportedError` for an existing session. */
  async putBackups(sessionId: string, items: readonly BackupBytes[]): Promise<Array<BackupInfo | Error>> {
    await this.assertWritable(sessionId, 'putBackups');
    return this.backups.putBackups(sessionId, items);
  }

  /** Size and mode of a backup in `file-history/{sessionId}/`, or null. */
  statBackup(sessionId: string, backupFileName: string): Promise<BackupInfo | null> {
    return this.backups.statBackup(sessionId, backupFileName);
  }

  /** Copy a backup to a new file (see `FsBackupStore.restoreBackup`). */
  restoreBackup(sessionId: string, backupFileName: string, destinationPath: string): Promise<void> {
    return this.backups.restoreBackup(sessionId, backupFileName, destinationPath);
  }

  /** Stream a backup's bytes; `NotFoundError` if it is missing. */
  openBackup(sessionId: string, backupFileName: string): Promise<AsyncIterable<Uint8Array>> {
    return this.backups.openBackup(sessionId, backupFileName);
  }

  /** A small backup's bytes, read synchronously (see `FsBackupStore.readBackupSync`); undefined over `maxBytes`. */
  readBackupSync(sessionId: string, backupFileName: string, maxBytes: number): Uint8Array | undefined {
    return this.backups.readBackupSync(sessionId, backupFileName, maxBytes);
  }

  /** Delete a backup of a session this store created; `UnsupportedError` for an existing session. */
  async deleteBackup(sessionId: string, backupFileName: string): Promise<void> {
    await this.assertWritable(sessionId, 'deleteBackup');
    await this.backups.deleteBackup(sessionId, backupFileName);
  }

  /** Names of the files in `file-history/{sessionId}/`. */
  listBackups(sessionId: string): Promise<string[]> {
    return this.backups.listBackups(sessionId);
  }

  /**
   * Hard-link (or copy) a backup of any session into a session this store creates. The source is
   * only read. `UnsupportedError` when the target is an existing Claude Code session.
   */
  async carryBackup(fromSessionId: string, toSessionId: string, backupFileName: string): Promise<'linked' | 'copied' | 'exists'> {
    await this.assertWritable(toSessionId, 'carryBackup');
    return this.backups.carryBackup(fromSessionId, toSessionId, backupFileName);
  }

  /** Every session with a transcript or backups. */
  async listSessions(): Promise<SessionSummary[]> {
    return (await this.listClaudeSessions()).map(({ sessionId, lastModified, bytes, backups }) => ({ sessionId, lastModified, bytes, backups }));
  }

  /** Remove a session this store created; `UnsupportedError` for an existing Claude Code session. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.assertWritable(sessionId, 'deleteSession');
    await this.backups.deleteSession(sessionId);
    const transcript = this.createdTranscripts.get(sessionId);
    if (transcript !== undefined) await this.fs.rm(transcript, { force: true });
  }

  /**
   * The session's transcript as a log. `read` finds `projects/* /{sessionId}.jsonl` (a session
   * without one reads as empty). `append` works only for sessions this store creates (and needs
   * `projectRoot` for the first append). fh's own `fh-*` records are left out of the transcript,
   * so appending only those is a no-op, for any session.
   */
  sessionLog(sessionId: string): SessionLog {
    validateName('sessionId', sessionId);
    const store = this;
    return {
      read: async (): Promise<LogReadResult> => {
        const path = await this.findTranscript(sessionId);
        return path === undefined ? { records: [], skipped: [] } : new FsSessionLog(this.fs, path).read();
      },
      readStream: async function* (this: void) {
        const path = await store.findTranscript(sessionId);
        if (path !== undefined) yield* new FsSessionLog(store.fs, path).readStream();
      },
      recordForm: 'claude-code',
      append: async (records: readonly LogRecord[]): Promise<void> => {
        const kept = records.filter((record) => !isFhOnlyRecord(record));
        if (kept.length === 0) return;
        await this.assertWritable(sessionId, 'append to the transcript of');
        await new FsSessionLog(this.fs, await this.transcriptForWriting(sessionId)).append(kept);
      },
    };
  }

  /**
   * True for the session data fh reads and writes in the Claude Code config folder: the folder
   * itself, `file-history/` (backups) and `projects/` (transcripts). Other files there (settings,
   * say, in a dotfiles project) are ordinary project files.
   */
  containsPath(absolutePath: string): boolean {
    const path = resolve(absolutePath);
    const projects = join(this.configDir, 'projects');
    return this.backups.containsPath(path) || path === projects || path.startsWith(`${projects}${sep}`);
  }

  /** Absolute path of the session's transcript (`projects/* /{sessionId}.jsonl`), or undefined. */
  async findTranscript(sessionId: string): Promise<string | undefined> {
    validateName('sessionId', sessionId);
    const created = this.createdTranscripts.get(sessionId);
    if (created !== undefined) return created;
    for (const project of (await this.readdirOrEmpty(join(this.configDir, 'projects'))).sort()) {
      const path = join(this.configDir, 'projects', project, `${sessionId}.jsonl`);
      const stats = await this.statOrNull(path);
      if (stats?.isFile()) return path;
    }
    return undefined;
  }

  /**
   * Every Claude Code session (transcripts under `projects/`, backup folders under
   * `file-history/`), newest first, with its project path taken from the first `cwd` its
   * transcript records. Sub-agent transcripts (`agent-*.jsonl`) are not sessions.
   */
  async listClaudeSessions(): Promise<ClaudeCodeSessionInfo[]> {
    const sessions = new Map<string, ClaudeCodeSessionInfo>();
    const entry = (sessionId: string): ClaudeCodeSessionInfo => {
      let info = sessions.get(sessionId);
      if (info === undefined) {
        info = { sessionId, projectPath: undefined, transcriptPath: undefined, projectFolder: undefined, lastModified: new Date(0), bytes: 0, backups: 0 };
        sessions.set(sessionId, info);
      }
      return info;
    };
    const note = (info: ClaudeCodeSessionInfo, size: number, mtimeMs: number) => {
      info.bytes += size;
      if (mtimeMs > info.lastModified.getTime()) info.lastModified = new Date(mtimeMs);
    };
    const projectsFolder = join(this.configDir, 'projects');
    for (const project of (await this.readdirOrEmpty(projectsFolder)).sort()) {
      for (const name of (await this.readdirOrEmpty(join(projectsFolder, project))).sort()) {
        if (!name.endsWith('.jsonl') || name.startsWith('agent-')) continue;
        const path = join(projectsFolder, project, name);
        const stats = await this.statOrNull(path);
        if (!stats?.isFile()) continue;
        const info = entry(name.slice(0, -'.jsonl'.length));
        if (info.transcriptPath !== undefined) continue;
        info.transcriptPath = path;
        info.projectFolder = project;
        info.projectPath = await this.firstCwd(path);
        note(info, stats.size, stats.mtimeMs);
      }
    }
    const historyFolder = join(this.configDir, 'file-history');
    for (const sessionId of await this.readdirOrEmpty(historyFolder)) {
      const folder = join(historyFolder, sessionId);
      const folderStats = await this.statOrNull(folder);
      if (!folderStats?.isDirectory()) continue;
      const info = entry(sessionId);
      const names = await this.readdirOrEmpty(folder);
      if (names.length === 0) note(info, 0, folderStats.mtimeMs);
      for (const name of names) {
        const stats = await this.statOrNull(join(folder, name));
        if (!stats?.isFile()) continue;
        info.backups += 1;
        note(info, stats.size, stats.mtimeMs);
      }
    }
    return [...sessions.values()].sort((a, b) => b.lastModified.getTime() - a.lastModified.getTime() || a.sessionId.localeCompare(b.sessionId));
  }

  /**
   * Read a session's transcript and rebuild its file-history state against `projectRoot`
   * (default: its first `cwd`) from the file-history records of its current chain, in chain
   * order, as Claude Code's resume does (`chainFileHistoryRecords`: records of an abandoned
   * branch are left out, so files only it tracked are not tracked). Backups missing from `file-history/{sessionId}/` are marked
   * unavailable (entry `error`), so a rewind reports those files as failed and restores the rest.
   * Throws `NotFoundError` when the session has neither a transcript nor backups, and
   * `InvalidArgumentError` when no project root is given, recorded (a `cwd`) or offered as `fallbackProjectRoot`.
   */
  async readSession(sessionId: string, options: ClaudeCodeReadOptions = {}): Promise<ClaudeCodeSession> {
    const transcriptPath = await this.findTranscript(sessionId);
    const backupNames = new Set(await this.listBackups(sessionId));
    if (transcriptPath === undefined && backupNames.size === 0) {
      throw new NotFoundError(`Claude Code session "${sessionId}" not found in ${this.configDir}`);
    }
    const { records, skipped } = transcriptPath === undefined ? { records: [], skipped: [] } : await new FsSessionLog(this.fs, transcriptPath).read();
    const recordedRoot = records.find((record) => typeof record.cwd === 'string' && record.cwd !== '')?.cwd as string | undefined;
    const projectRoot = options.projectRoot ?? recordedRoot ?? options.fallbackProjectRoot;
    if (projectRoot === undefined) {
      throw new InvalidArgumentError(`Claude Code session "${sessionId}" records no working folder (no cwd in its transcript); nothing was read: give the folder it ran in as projectRoot`);
    }
    const warnings: string[] = [];
    const onWarning = (message: string) => warnings.push(message);
    let rebuilt: FileHistoryState;
    let outside: { state: FileHistoryState; files: string[] } = { state: { snapshots: [], trackedFiles: new Set(), snapshotSequence: 0 }, files: [] };
    // Claude Code's resume reads the file-history records of the current chain only, in chain
    // order (`chainFileHistoryRecords`); the base folder of each is the one in effect where it
    // stands in the file, so the tracker runs over every record in file order first.
    const chainRecords = chainFileHistoryRecords(records);
    if (projectRoot.startsWith('/')) {
      const tracker = baseFolderTracker({ recordedRoot: recordedRoot ?? projectRoot, projectRoot });
      const folders = new Map<unknown, string>();
      for (const record of records) folders.set(record, tracker(record));
      const baseFolder = (record: unknown) => folders.get(record) ?? projectRoot;
      const split = restoreStateWithOutside(chainRecords, { projectRoot, ...(recordedRoot === undefined ? {} : { recordedRoot }), baseFolder, onWarning });
      rebuilt = split.project;
      outside = { state: markMissingBackups(split.outside, backupNames, sessionId), files: split.outsideFiles };
    } else {
      rebuilt = restoreStateFromLog(chainRecords, { projectRoot, onWarning });
    }
    const state = markMissingBackups(rebuilt, backupNames, sessionId);
    const prompts = new Map<string, string>();
    for (const record of records) {
      if (record.type === 'user' && isTranscriptMessage(record)) prompts.set(record.uuid, promptForResubmit(record).text);
    }
    const snapshots = state.snapshots.map((snapshot) => {
      const entries = Object.entries(snapshot.trackedFileBackups);
      return {
        messageId: snapshot.messageId,
        timestamp: snapshot.timestamp,
        prompt: prompts.get(snapshot.messageId),
        files: entries.map(([path]) => path).sort(),
        unavailable: entries.filter(([, backup]) => backup.error !== undefined).map(([path]) => path).sort(),
      };
    });
    return { sessionId, projectRoot: resolve(projectRoot), recordedProjectRoot: recordedRoot, transcriptPath, state, snapshots, records, skipped, warnings, outside };
  }

  /**
   * A `FileHistory` over a Claude Code session, for diff stats and rewinds of its files into the
   * project folder (default: the session's first `cwd`), with backups Claude Code pruned marked
   * unavailable (a rewind reports those files as failed and restores the rest). Nothing is written
   * to the Claude Code folder: the history has no log, and tracking an edit throws
   * `UnsupportedError` (existing sessions are read-only). Throws what {@link readSession} throws.
   */
  async openFileHistory(sessionId: string, options: ClaudeCodeReadOptions = {}): Promise<FileHistory> {
    const session = await this.readSession(sessionId, options);
    return FileHistory.open({ projectRoot: session.projectRoot, sessionId, store: this, log: false, initialState: session.state });
  }

  /**
   * A `FileHistory` over the session's files outside its project (see
   * {@link ClaudeCodeSession.outside}), rooted at `/`, for their diff stats and — only when a
   * front end was explicitly asked to include them — their rewind (never through a symlink: the
   * rewind's own rule, applied from `/`). Undefined when the session tracked no file outside.
   * Like {@link openFileHistory}, it has no log and writes nothing to the Claude Code folder.
   */
  async openOutsideFileHistory(session: ClaudeCodeSession): Promise<FileHistory | undefined> {
    if (session.outside.files.length === 0) return undefined;
    return FileHistory.open({ projectRoot: OUTSIDE_ROOT, sessionId: session.sessionId, store: this, log: false, initialState: session.outside.state });
  }

  /**
   * Absolute paths of a session's sub-agent transcripts, sorted: `projects/{slug}/agent-*.jsonl`
   * beside the session's transcript whose first record names the session (Claude Code 2.0.x), and
   * `projects/{slug}/{sessionId}/subagents/agent-*.jsonl` (later versions). `[]` without a transcript.
   */
  async findSubagentTranscripts(sessionId: string): Promise<string[]> {
    const transcript = await this.findTranscript(sessionId);
    if (transcript === undefined) return [];
    const folder = transcript.slice(0, transcript.length - `${sessionId}.jsonl`.length);
    const found: string[] = [];
    for (const name of await this.readdirOrEmpty(join(folder, sessionId, 'subagents'))) {
      if (name.startsWith('agent-') && name.endsWith('.jsonl')) found.push(join(folder, sessionId, 'subagents', name));
    }
    for (const name of await this.readdirOrEmpty(folder)) {
      if (!name.startsWith('agent-') || !name.endsWith('.jsonl')) continue;
      if ((await this.firstSessionId(join(folder, name))) === sessionId) found.push(join(folder, name));
    }
    return found.sort();
  }

  /**
   * Throw `UnsupportedError` unless the session is new or was created by this store. The check runs
   * once per session: concurrent writes to a new session (a resume carrying many backups) share it,
   * so the first write's folder never makes the others see an "existing" session.
   */
  private assertWritable(sessionId: string, operation: string): Promise<void> {
    validateName('sessionId', sessionId);
    let check = this.created.get(sessionId);
    if (check === undefined) {
      check = this.checkNewSession(sessionId);
      this.created.set(sessionId, check);
      check.catch(() => this.created.delete(sessionId));
    }
    return check.catch((error: unknown) => {
      throw FhError.hasCode(error, 'FH_UNSUPPORTED')
        ? new UnsupportedError(`${operation} Claude Code session "${sessionId}": existing Claude Code sessions are read-only`)
        : error;
    });
  }

  private async checkNewSession(sessionId: string): Promise<void> {
    const existing =
      (await this.findTranscript(sessionId)) !== undefined ||
      (await this.statOrNull(join(this.configDir, 'file-history', sessionId))) !== null;
    if (existing) throw new UnsupportedError(`Claude Code session "${sessionId}" already exists`);
  }

  private async transcriptForWriting(sessionId: string): Promise<string> {
    const known = this.createdTranscripts.get(sessionId);
    if (known !== undefined) return known;
    if (this.projectRoot === undefined) {
      throw new UnsupportedError(`creating the transcript of Claude Code session "${sessionId}" needs the store's projectRoot option`);
    }
    const path = join(this.configDir, 'projects', claudeProjectSlug(this.projectRoot), `${sessionId}.jsonl`);
    this.createdTranscripts.set(sessionId, path);
    return path;
  }

  /** The first `cwd` field of a transcript, reading only as far as needed. */
  private firstCwd(path: string): Promise<string | undefined> {
    return this.firstField(path, 'cwd');
  }

  /** The first `sessionId` field of a transcript, reading only as far as needed. */
  private firstSessionId(path: string): Promise<string | undefined> {
    return this.firstField(path, 'sessionId');
  }

  /** The first non-empty string value of `field` in a transcript's records, reading only as far as needed. */
  private async firstField(path: string, field: string): Promise<string | undefined> {
    let handle;
    try {
      handle = await this.fs.open(path, 'r');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return undefined;
      throw translateFsError(error, `read transcript "${path}"`);
    }
    try {
      for await (const line of handle.readLines()) {
        if (!line.includes(`"${field}"`)) continue;
        try {
          const value = (JSON.parse(line) as Record<string, unknown>)[field];
          if (typeof value === 'string' && value !== '') return value;
        } catch {
          // A corrupt or torn line: keep looking in the next ones.
        }
      }
      return undefined;
    } finally {
      await handle.close();
    }
  }

  private async statOrNull(path: string) {
    try {
      return await this.fs.stat(path);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return null;
      throw translateFsError(error, `stat "${path}"`);
    }
  }

  private async readdirOrEmpty(path: string): Promise<string[]> {
    try {
      return await this.fs.readdir(path);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return [];
      throw translateFsError(error, `list "${path}"`);
    }
  }
}

/** Mark entries whose backup is not among `present` as unavailable (never read as "did not exist"). */
function markMissingBackups(state: FileHistoryState, present: ReadonlySet<string>, sessionId: string): FileHistoryState {
  return {
    ...state,
    snapshots: state.snapshots.map((snapshot) => ({
      ...snapshot,
      trackedFileBackups: Object.fromEntries(
        Object.entries(snapshot.trackedFileBackups).map(([path, backup]) => [
          path,
          backup.backupFileName === null || backup.error !== undefined || present.has(backup.backupFileName)
            ? backup
            : { ...backup, error: `backup ${backup.backupFileName} missing from Claude Code session ${sessionId}` },
        ]),
      ),
    })),
  };
}

/**
 * Where open command windows and the session's pre-image cache live between `beginCommand` and
 * `endCommand`, which may run in two processes (an agent's PreToolUse and PostToolUse hooks).
 * `@fh/command-probe` keeps them as JSON files (`FsCommandJournal`); {@link MemoryCommandJournal}
 * keeps them in memory for one process (`fh run`, embedding hosts, tests).
 *
 * Record format (version 1), one window:
 *   { "version": 1, "windowId", "sessionId", "command"?, "startedAt": ISO, "kind": "git"|"walk",
 *     "probeState": <probe JSON>, "entries": { path: { "facts": EntryFacts, "preImage": PreImage } },
 *     "ignored": { path: EntryFacts }, "notCaptured": [{ "path", "reason" }] }
 * The pre-image cache: { path: { "backup": FileHistoryBackup, "facts": EntryFacts, "attached": bool } }.
 */
import type { FileHistoryBackup } from '../types.js';
import type { JsonValue } from './command-probe.js';
import type { EntryFacts } from './facts.js';

/** Version of {@link CommandWindowRecord}; a record of another version is refused. */
export const COMMAND_WINDOW_RECORD_VERSION = 1;

/** Where a file's before-bytes are, as decided at `beginCommand`. */
export type PreImage =
  /** The current checkpoint already tracks the file: its v1 stays, nothing to keep. */
  | { kind: 'tracked' }
  /** A backup in the store (made at this begin, or an unchanged earlier one reused). */
  | { kind: 'backup'; backup: FileHistoryBackup }
  /** Not kept: the reason (a symlink, over a size cap, the copy failed). */
  | { kind: 'none'; reason: string };

/** One file fh holds the before-bytes of for a window. */
export interface WindowEntry {
  /** The file's facts at begin. */
  facts: EntryFacts;
  preImage: PreImage;
}

/** A begun command window as the journal keeps it (see the top of this file). */
export interface CommandWindowRecord {
  version: typeof COMMAND_WINDOW_RECORD_VERSION;
  windowId: string;
  sessionId: string;
  /** The command line, for messages; absent when the host did not give it. */
  command?: string;
  /** When `beginCommand` started listing, ISO-8601. Windows are ordered by it (then by id). */
  startedAt: string;
  kind: 'git' | 'walk';
  probeState: JsonValue;
  /** Files fh holds the before-bytes of (git: dirty and untracked; walk: every file), by tracking path. */
  entries: Record<string, WindowEntry>;
  /** Ignored paths at begin, with their facts (folders end with `/`). */
  ignored: Record<string, EntryFacts>;
  /** Files whose before-bytes were not kept at begin, with why (reported by `endCommand` only if they changed). */
  notCaptured: Array<{ path: string; reason: string }>;
}

/** One cached pre-image: a backup of a file as it was, for later windows to reuse while the file is unchanged. */
export interface PreImageCacheEntry {
  backup: FileHistoryBackup;
  /** The file's facts when the backup was made. */
  facts: EntryFacts;
  /** True once a checkpoint refers to the backup: the command stage never deletes it then. */
  attached: boolean;
}

/** Tracking path → cached pre-image. */
export type PreImageCache = Record<string, PreImageCacheEntry>;

/** Keeps windows and the pre-image cache of one session (see the top of this file). */
export interface CommandJournal {
  /** Save a window; durable when the promise resolves. Replaces a window of the same id. */
  saveWindow(record: CommandWindowRecord): Promise<void>;
  /** The window `windowId`, or undefined when there is none (never begun, or already ended). */
  loadWindow(windowId: string): Promise<CommandWindowRecord | undefined>;
  /** Every open window of the session, any order. */
  listWindows(): Promise<CommandWindowRecord[]>;
  /** Forget a window; a missing one is not an error. */
  removeWindow(windowId: string): Promise<void>;
  /** The session's pre-image cache (`{}` when none). */
  loadPreImages(): Promise<PreImageCache>;
  /** Replace the pre-image cache; durable when the promise resolves. */
  savePreImages(cache: PreImageCache): Promise<void>;
}

/** A {@link CommandJournal} in memory: for one process (`fh run`, a harness, tests). */
export class MemoryCommandJournal implements CommandJournal {
  private readonly windows = new Map<string, CommandWindowRecord>();
  private cache: PreImageCache = {};

  async saveWindow(record: CommandWindowRecord): Promise<void> {
    this.windows.set(record.windowId, structuredClone(record));
  }

  async loadWindow(windowId: string): Promise<CommandWindowRecord | undefined> {
    const record = this.windows.get(windowId);
    return record === undefined ? undefined : structuredClone(record);
  }

  async listWindows(): Promise<CommandWindowRecord[]> {
    return [...this.windows.values()].map((record) => structuredClone(record));
  }

  async removeWindow(windowId: string): Promise<void> {
    this.windows.delete(windowId);
  }

  async loadPreImages(): Promise<PreImageCache> {
    return structuredClone(this.cache);
  }

  async savePreImages(cache: PreImageCache): Promise<void> {
    this.cache = structuredClone(cache);
  }
}

/**
 * The global options every command shares, and what they resolve to: the output printer, the
 * project folder, the store and the session.
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { BackupStore } from '@fh/core';
import { UsageError } from './cli-errors.js';
import { Output } from './output.js';
import { plainError } from './plain-errors.js';
import { defaultStoreUri, openStore, parseStoreUri, type StoreLocation } from './store-uri.js';

/** Global options as commander parses them. */
export interface GlobalOptions {
  /** `--store <uri>`. */
  store?: string;
  /** `--session <id>`. */
  session?: string;
  /** `--project <folder>`. */
  project?: string;
  /** `--other-project`: let a writing command use a `--project` other than the session's recorded one. */
  otherProject?: boolean;
  /** `--claude [configDir]`: `true` when given without a folder. */
  claude?: string | boolean;
  /** `--json`. */
  json?: boolean;
  /** `--verbose`: errors keep fh's internal names (backup objects, temp files). */
  verbose?: boolean;
}

/** What a command runs with. Resolution is lazy: a command that needs no store opens none. */
export class CommandContext {
  readonly output: Output;
  readonly options: GlobalOptions;
  readonly environment: NodeJS.ProcessEnv;
  readonly cwd: string;
  private storePromise: Promise<BackupStore> | undefined;

  constructor(options: GlobalOptions, environment: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()) {
    this.options = options;
    this.environment = environment;
    this.cwd = cwd;
    this.output = new Output({ json: options.json === true, environment });
  }

  /**
   * An error's text for output: without fh's internal names (`plainError`) unless `--verbose`;
   * `path` (project-relative) stands for a temp file the text names.
   */
  errorText(text: string, path?: string): string {
    return this.options.verbose === true ? text : plainError(text, path === undefined ? {} : { path });
  }

  /** The project root: `--project` resolved against the current folder, else the current folder. */
  get projectRoot(): string {
    return this.options.project === undefined ? this.cwd : resolve(this.cwd, this.options.project);
  }

  /** The parsed `--store` (default `fs:$FH_HOME` or `fs:~/.fh`). */
  get storeLocation(): StoreLocation {
    return parseStoreUri(this.options.store ?? defaultStoreUri(this.environment), { cwd: this.cwd, home: this.home });
  }

  /** The user's home folder (`HOME` wins over the passwd entry, so tests can move it). */
  get home(): string {
    const home = this.environment.HOME;
    return home !== undefined && home !== '' ? home : homedir();
  }

  /** The Claude Code config folder when `--claude` is given, else undefined. */
  get claudeConfigDir(): string | undefined {
    const claude = this.options.claude;
    if (claude === undefined || claude === false) return undefined;
    if (claude === true || claude === '') {
      const configured = this.environment.CLAUDE_CONFIG_DIR;
      return configured !== undefined && configured !== '' ? resolve(this.cwd, configured) : resolve(this.home, '.claude');
    }
    if (claude === '~') return this.home;
    return claude.startsWith('~/') ? resolve(this.home, claude.slice(2)) : resolve(this.cwd, claude);
  }

  /** The session id from `--session` or `FH_SESSION_ID`, or undefined. `--session ''` is a usage error. */
  get sessionIdOption(): string | undefined {
    if (this.options.session === '') throw new UsageError('--session needs a session id, not an empty string');
    const id = this.options.session ?? this.environment.FH_SESSION_ID;
    return id === undefined || id === '' ? undefined : id;
  }

  /** The store, opened once. */
  store(): Promise<BackupStore> {
    this.storePromise ??= openStore(this.storeLocation, this.environment);
    return this.storePromise;
  }
}

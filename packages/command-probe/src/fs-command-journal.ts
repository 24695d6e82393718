/**
 * `FsCommandJournal`: a `CommandJournal` as JSON files in one folder per session, for command
 * windows that begin and end in different processes (an agent's PreToolUse and PostToolUse hooks).
 *
 * Layout of `folder`: `window-{windowId}.json` (one open window, record version 1, see
 * `command-journal.ts` in `@fh/core`), `preimages.json` (the pre-image cache). Each file is
 * written to a temp name, fsynced, and renamed into place, then the folder is fsynced, so a reader
 * sees the old or the new file, never half of one, and a power loss keeps a written one. A window file that does not parse or has another version is refused
 * with an error naming it. The files are small (one window, the cache), so each read, write and
 * removal is a few synchronous system calls, not a round trip to the thread pool per call; only
 * the fsync of a write waits on the thread pool.
 */
import { COMMAND_WINDOW_RECORD_VERSION, CorruptError, type CommandJournal, type CommandWindowRecord, type PreImageCache } from '@fh/core';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** `fsync(2)` on the thread pool: the only call of a write that waits for the disk. */
const fsyncDescriptor = promisify(fsync);

const WINDOW_PREFIX = 'window-';
const CACHE_FILE = 'preimages.json';

/** See the top of this file. */
export class FsCommandJournal implements CommandJournal {
  /** @param folder Absolute folder of one session's windows (created on first write). */
  constructor(readonly folder: string) {}

  async saveWindow(record: CommandWindowRecord): Promise<void> {
    await this.write(`${WINDOW_PREFIX}${record.windowId}.json`, JSON.stringify(record));
  }

  async loadWindow(windowId: string): Promise<CommandWindowRecord | undefined> {
    return this.readWindow(`${WINDOW_PREFIX}${windowId}.json`);
  }

  async listWindows(): Promise<CommandWindowRecord[]> {
    let names: string[];
    try {
      names = readdirSync(this.folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const records = await Promise.all(names.filter((name) => name.startsWith(WINDOW_PREFIX) && name.endsWith('.json')).map((name) => this.readWindow(name)));
    return records.filter((record): record is CommandWindowRecord => record !== undefined);
  }

  async removeWindow(windowId: string): Promise<void> {
    rmSync(join(this.folder, `${WINDOW_PREFIX}${windowId}.json`), { force: true });
  }

  async loadPreImages(): Promise<PreImageCache> {
    const text = await this.read(CACHE_FILE);
    if (text === undefined) return {};
    try {
      const cache = JSON.parse(text) as PreImageCache;
      for (const entry of Object.values(cache)) entry.backup.backupTime = new Date(entry.backup.backupTime);
      return cache;
    } catch {
      // The cache only saves copies: an unreadable one is started afresh.
      return {};
    }
  }

  async savePreImages(cache: PreImageCache): Promise<void> {
    await this.write(CACHE_FILE, JSON.stringify(cache));
  }

  private async readWindow(name: string): Promise<CommandWindowRecord | undefined> {
    const text = await this.read(name);
    if (text === undefined) return undefined;
    let record: CommandWindowRecord;
    try {
      record = JSON.parse(text) as CommandWindowRecord;
    } catch (error) {
      throw new CorruptError(`command window file ${join(this.folder, name)} is not JSON; remove it to drop that window`, { cause: error });
    }
    if (record?.version !== COMMAND_WINDOW_RECORD_VERSION) {
      throw new CorruptError(`command window file ${join(this.folder, name)} has version ${JSON.stringify(record?.version)}, fh reads version ${COMMAND_WINDOW_RECORD_VERSION}; remove it to drop that window`);
    }
    for (const entry of Object.values(record.entries)) {
      if (entry.preImage.kind === 'backup') entry.preImage.backup.backupTime = new Date(entry.preImage.backup.backupTime);
    }
    return record;
  }

  private async read(name: string): Promise<string | undefined> {
    try {
      return readFileSync(join(this.folder, name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  private async write(name: string, text: string): Promise<void> {
    mkdirSync(this.folder, { recursive: true });
    const temporary = join(this.folder, `.tmp-${randomBytes(6).toString('hex')}`);
    const descriptor = openSync(temporary, 'wx', 0o600);
    try {
      try {
        writeSync(descriptor, text);
        await fsyncDescriptor(descriptor);
      } finally {
        closeSync(descriptor);
      }
      renameSync(temporary, join(this.folder, name));
      // The name too: a window record the folder lost at a power loss would leave the command's
      // changes uncaptured.
      const folder = openSync(this.folder, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
      try {
        await fsyncDescriptor(folder);
      } finally {
        closeSync(folder);
      }
    } catch (error) {
      try {
        unlinkSync(temporary);
      } catch {
        // Gone already: nothing to tidy.
      }
      throw error;
    }
  }
}

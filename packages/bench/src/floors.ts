/**
 * Floors and helpers shared by the bench's scenarios: a timed child process (the `fh` CLI as an
 * agent runs it, and `node -e 0` beside it), synchronous stats over many files, and the work of
 * `trackEdit` done by hand (stat + copy + an fsync'd record).
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants, readFileSync, statSync } from 'node:fs';
import { copyFile, link, open, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Contender } from './measure.js';

/** The built `fh` CLI (run `npm run build` first; `npm run bench` does). */
export const cliPath = fileURLToPath(new URL('../../../apps/cli/dist/cli.js', import.meta.url));

/** What a timed child process did. */
export interface ChildRun {
  /** Wall time from spawn to exit, in ms. */
  ms: number;
  exitCode: number | null;
  stderr: string;
}

/**
 * Spawn `command` with `args`, write `input` to its stdin and wait for it to exit; the time is
 * spawn to exit. Asynchronous, so a server in this process (s3rver) goes on answering the child.
 */
export function timedChild(command: string, args: readonly string[], input: string | Buffer, environment: NodeJS.ProcessEnv = process.env, cwd?: string): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { stdio: ['pipe', 'ignore', 'pipe'], env: environment, ...(cwd === undefined ? {} : { cwd }) });
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on('error', () => {});
    child.on('error', reject);
    child.on('close', (exitCode) => {
      resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, exitCode, stderr: Buffer.concat(stderr).toString('utf8') });
    });
    child.stdin.end(input);
  });
}

/** `node -e 0` with the same stdin: the start-up floor every hook event pays. */
export async function nodeStart(input: string | Buffer): Promise<number> {
  return (await timedChild(process.execPath, ['-e', '0'], input)).ms;
}

/** `statSync` of every path (absolute): the floor of a scan over tracked files, as fh stats them. */
export function syncStats(paths: readonly string[]): void {
  for (const path of paths) statSync(path);
}

/** Durable append of `bytes` to a file (what a session log append costs: write + fsync). */
export async function durableAppend(path: string, bytes: string): Promise<void> {
  const handle = await open(path, 'a');
  try {
    await handle.write(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The work of `trackEdit` on a new file, by hand: stat, copy it to `backup`, append `record` durably to `log`. */
export async function trackEditFloor(source: string, backup: string, log: string, record: string): Promise<void> {
  await stat(source);
  await copyFile(source, backup, constants.COPYFILE_FICLONE);
  await durableAppend(log, record);
}

/** fsync each of `paths` (files or folders), all at once: what a batch of durable writes costs beyond the writes. */
export async function fsyncAll(paths: readonly string[]): Promise<void> {
  await Promise.all(
    paths.map(async (path) => {
      const handle = await open(path, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }),
  );
}

/** The sha256 of a fresh copy, read back (from the page cache): the content hash every backup records (issue 10). */
export function hashCopy(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/**
 * A backup made as a durable store must make it, by hand, before its fsyncs: copied to a temp
 * name, hashed, then linked to its name and the temp removed (so no half-copied backup is ever
 * under its name: what `FsBackupStore.putBackup` does).
 */
export async function copyIntoPlace(source: string, backup: string): Promise<void> {
  const temporary = `${backup}.floor-tmp`;
  await copyFile(source, temporary, constants.COPYFILE_FICLONE);
  hashCopy(temporary);
  await link(temporary, backup);
  await unlink(temporary);
}

/**
 * Flush every dirty page and pending journal entry of the machine (`sync`), untimed before each
 * contender of a row with fsyncs: an fsync on ext4 also writes out what others left unsynced, so
 * without it a contender that runs after one that does not fsync pays for that one's writes, and
 * the rotation order decides the ratio.
 */
export async function settleDisk(): Promise<void> {
  await new Promise<void>((resolve, reject) => execFile('sync', (error) => (error === null ? resolve() : reject(error))));
}

/** `contenders` with {@link settleDisk} after each one's own `prepare`. */
export function settled(contenders: readonly Contender[]): Contender[] {
  return contenders.map((contender) => ({
    ...contender,
    prepare: async (round: number) => {
      await contender.prepare?.(round);
      await settleDisk();
    },
  }));
}

/**
 * The work of a durable `trackEdit` on a new file, by hand (issue 10: a backup records its content
 * hash, and its bytes and folder entry are durable before the record that references it): stat,
 * copy it into place as `backup` ({@link copyIntoPlace}), fsync it, then its folder, then append
 * `record` durably to `log`.
 */
export async function durableTrackEditFloor(source: string, backup: string, log: string, record: string): Promise<void> {
  await stat(source);
  await copyIntoPlace(source, backup);
  await fsyncAll([backup]);
  await fsyncAll([dirname(backup)]);
  await durableAppend(log, record);
}

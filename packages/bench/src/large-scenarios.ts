/**
 * Two scenarios of `npm run bench`:
 * - `large-file`: `trackEdit` of one 1 GiB file (a fresh session each round) against the floor:
 *   stat + copyFile + sha256 of the copy + fsync of the copy (fh records a content hash of every
 *   backup, issue 10, and makes it durable before its record); the floor without the hash is
 *   printed beside it for information.
 * - `diff-stats`: `getDiffStats` of a checkpoint with 1,000 tracked / 10 changed files against
 *   the floor: the same 1,000 sync stats, reading the 10 changed files and their backups, and
 *   jsdiff's `diffLines` of each pair (what fh counts lines with).
 */
import { createHash } from 'node:crypto';
import { constants, readFileSync, statSync } from 'node:fs';
import { copyFile, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_TIMESTAMP_GRANULARITY_MS, FileHistory, backupFileName } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { diffLines } from 'diff';
import { interleave } from './measure.js';
import { registerScenario, type BenchContext } from './runner.js';
import { createFiles, editFiles } from './workspace.js';

const GIB = 1024 * 1024 * 1024;

/** Write `bytes` of non-repeating-looking data to `path` in 1 MiB blocks. */
async function writeLargeFile(path: string, bytes: number): Promise<void> {
  const handle = await open(path, 'w');
  try {
    const block = Buffer.alloc(1024 * 1024);
    for (let offset = 0; offset < bytes; offset += block.length) {
      block.writeUInt32LE(offset / block.length, 0);
      for (let index = 4; index < block.length; index += 4096) block.writeUInt32LE((offset + index) >>> 0, index);
      await handle.write(block, 0, Math.min(block.length, bytes - offset));
    }
  } finally {
    await handle.close();
  }
}

/** The floor of one backup: stat, copyFile, (a sha256 of the copy,) fsync of the copy. */
async function copyAndSync(source: string, copy: string, hashed: boolean): Promise<void> {
  statSync(source);
  await copyFile(source, copy, constants.COPYFILE_FICLONE);
  const handle = await open(copy, 'r+');
  try {
    if (hashed) {
      const hash = createHash('sha256');
      for await (const chunk of handle.createReadStream({ highWaterMark: 1024 * 1024, autoClose: false, start: 0 })) hash.update(chunk as Uint8Array);
      hash.digest('hex');
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function largeFile(context: BenchContext): Promise<void> {
  const { folders, log } = context;
  const store = new FsBackupStore({ root: folders.store });
  const source = join(folders.project, 'large.bin');
  log('writing a 1 GiB file ...');
  await writeLargeFile(source, GIB);
  const floorCopy = join(folders.floor, 'large.bin.copy');
  const session = (round: number) => `large-${round}`;
  let history: FileHistory | undefined;
  context.defer(() => history?.close());
  const times = await interleave(3, [
    {
      name: 'fh',
      prepare: async (round) => {
        if (history !== undefined) {
          await history.close();
          await store.deleteSession(session(round - 1));
        }
        history = await FileHistory.open({ projectRoot: folders.project, sessionId: session(round), store });
        await history.makeSnapshot(`large-turn-${round}`);
      },
      run: async () => {
        await history?.trackEdit(source);
      },
    },
    {
      name: 'floor',
      prepare: async () => {
        await rm(floorCopy, { force: true });
      },
      run: () => copyAndSync(source, floorCopy, false),
    },
    {
      name: 'hashed floor',
      prepare: async () => {
        await rm(floorCopy, { force: true });
      },
      run: () => copyAndSync(source, floorCopy, true),
    },
  ]);
  const backups = await store.listBackups(session(2));
  if (backups.length !== 1) throw new Error(`the 1 GiB trackEdit left ${backups.length} backups, expected 1`);
  context.report({ scenario: 'trackEdit of one 1 GiB file', fh: times.get('fh') ?? [], floors: [{ name: 'stat + copyFile + sha256 + fsync', times: times.get('hashed floor') ?? [], factor: 1.5 }] });
  context.report({ scenario: '  against stat + copyFile + fsync (no hash)', fh: times.get('fh') ?? [], floors: [{ name: 'stat + copyFile + fsync', times: times.get('floor') ?? [] }], kind: 'info' });
}

async function diffStats(context: BenchContext): Promise<void> {
  const { folders, log } = context;
  const store = new FsBackupStore({ root: folders.store });
  log('1,000 tracked files, 10 of them changed after the checkpoint ...');
  const tracked = (await createFiles(folders.project, 1000, 2048)).map((path) => join(folders.project, path));
  const relative = tracked.map((path) => path.slice(folders.project.length + 1));
  const changed = relative.filter((_, index) => index % 100 === 0);
  // Files older than their backups by more than the timestamp granularity, as a user's files are:
  // files written within it of their backup get a byte comparison (the racy case), which is rare
  // in a session and is not what this scenario measures.
  await new Promise((resolve) => setTimeout(resolve, DEFAULT_TIMESTAMP_GRANULARITY_MS + 200));
  const history = await context.open({ projectRoot: folders.project, sessionId: 'diff-stats', store });
  await history.makeSnapshot('diff-0');
  await Promise.all(tracked.map((path) => history.trackEdit(path)));
  await new Promise((resolve) => setTimeout(resolve, DEFAULT_TIMESTAMP_GRANULARITY_MS + 200));
  await history.makeSnapshot('diff-target');
  await editFiles(folders.project, changed, 0, 'diff-stats');
  const backupOf = (path: string) => join(folders.store, 'file-history', 'diff-stats', history.state.snapshots.at(-1)?.trackedFileBackups[path]?.backupFileName ?? backupFileName(path, 1));
  const changedSet = new Set(changed);
  const times = await interleave(15, [
    {
      name: 'fh',
      run: async () => {
        const stats = await history.getDiffStats('diff-target');
        if (stats.filesChanged.length !== changed.length) throw new Error(`getDiffStats found ${stats.filesChanged.length} changed files, expected ${changed.length}`);
      },
    },
    {
      name: 'floor',
      run: async () => {
        for (const path of relative) {
          statSync(join(folders.project, path));
          if (!changedSet.has(path)) continue;
          diffLines(readFileSync(join(folders.project, path), 'utf8'), readFileSync(backupOf(path), 'utf8'));
        }
      },
    },
  ]);
  context.report({ scenario: 'getDiffStats, 1,000 tracked / 10 changed', fh: times.get('fh') ?? [], floors: [{ name: 'sync stats + reads + diffLines', times: times.get('floor') ?? [], factor: 1.5 }] });
}

registerScenario({ name: 'large-file', description: 'trackEdit of one 1 GiB file against stat + copy + sha256 + fsync', run: largeFile });
registerScenario({ name: 'diff-stats', description: 'getDiffStats (1,000 tracked / 10 changed) against stats + reads + jsdiff', run: diffStats });

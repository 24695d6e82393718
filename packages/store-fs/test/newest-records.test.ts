import { FileHistory, latestStateFromTail, LOG_HEAD_BYTES, LOG_TAIL_BYTES_STEPS, readNewestRecords, tailAnchor, type LogRecord } from '@fh/core';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { temporaryFolder } from './helpers.js';

/** A session of `turns` turns over 30 tracked files (one changed per turn), on real files. */
async function session(turns: number, filler = 0) {
  const folder = await temporaryFolder();
  const projectRoot = join(folder, 'project');
  await mkdir(join(projectRoot, 'src'), { recursive: true });
  const paths = Array.from({ length: 30 }, (_, index) => `src/f${index}.ts`);
  await Promise.all(paths.map((path, index) => writeFile(join(projectRoot, path), `export const v${index} = 0;\n`)));
  const store = new FsBackupStore({ root: join(folder, 'store') });
  const history = await FileHistory.open({ projectRoot, sessionId: 's1', store, timestampGranularityMs: 0, env: {} });
  await history.makeSnapshot('turn-0');
  for (const path of paths) await history.trackEdit(path);
  if (filler > 0) await store.sessionLog('s1').append([{ type: 'user', uuid: 'long', message: { role: 'user', content: 'x'.repeat(filler) } }]);
  for (let turn = 1; turn < turns; turn += 1) {
    await writeFile(join(projectRoot, paths[turn % paths.length] as string), `export const v${turn} = ${turn};\n`);
    await history.makeSnapshot(`turn-${turn}`);
  }
  const newest = history.state.snapshots.at(-1);
  await history.close();
  return { folder, projectRoot, store, log: store.sessionLog('s1'), newest };
}

/** The records from the newest `fh-snapshot` full record on, as the whole log holds them. */
function fromNewestFull(records: readonly LogRecord[]): LogRecord[] {
  const start = records.findLastIndex((record) => record.type === 'fh-snapshot' && record.kind === 'full');
  return records.slice(start);
}

describe('readNewestRecords', () => {
  it('parses a small log from its newest full record on, with its fh-session record, and the whole log only when asked', async () => {
    const { projectRoot, log, newest } = await session(5);
    const { records } = await log.read();
    const read = await readNewestRecords(log);
    expect(read?.ends.whole).toBe(false);
    expect(read?.ends.head).toEqual(records.filter((record) => record.type === 'fh-session'));
    expect(read?.ends.tail).toEqual(fromNewestFull(records));
    expect(read?.ends.tail.length).toBeLessThan(records.length);
    // One record found by its type anywhere in the bytes read, newest first, without a whole parse.
    expect(read?.newestOf('fh-session')).toEqual(records[0]);
    expect(read?.newestOf('file-history-delta')).toEqual(records.findLast((record) => record.type === 'file-history-delta'));
    expect(read?.newestOf('file-history-delta', (record) => record.trackingPath === 'src/f3.ts')).toMatchObject({ trackingPath: 'src/f3.ts' });
    expect(read?.newestOf('user')).toBeUndefined();
    expect(tailAnchor(read?.ends.tail ?? [])).toBe(0);
    expect(read?.allRecords?.()).toEqual(records);
    // The tail settles the newest snapshot exactly as the whole log does.
    expect(latestStateFromTail(read?.ends.tail ?? [], { projectRoot })?.state.snapshots.at(-1)).toEqual(newest);
  });

  it('returns what it read before while the log is unchanged, and reads again once a record is appended', async () => {
    const { log } = await session(3);
    const first = await readNewestRecords(log);
    expect(await readNewestRecords(log, first)).toBe(first);
    const added = { type: 'user', uuid: 'u-added', message: { role: 'user', content: 'later' } };
    await log.append([added]);
    const again = await readNewestRecords(log, first);
    expect(again).not.toBe(first);
    expect(again?.ends.tail.at(-1)).toEqual(added);
    expect(again?.ends.tail.slice(0, -1)).toEqual(first?.ends.tail);
  });

  it('reads a log longer than one read from its tail: the fh-session record from its head, no whole-log records', async () => {
    const { projectRoot, log, newest } = await session(8, LOG_HEAD_BYTES + (LOG_TAIL_BYTES_STEPS[0] as number));
    const { records } = await log.read();
    const read = await readNewestRecords(log);
    expect(read?.allRecords).toBeUndefined();
    // The long prompt is before the tail's bytes; the newest delta is in them.
    expect(read?.newestOf('user')).toBeUndefined();
    expect(read?.newestOf('fh-snapshot', (record) => record.kind === 'diff')).toEqual(records.findLast((record) => record.kind === 'diff'));
    expect(read?.ends.head).toEqual(records.filter((record) => record.type === 'fh-session'));
    expect(read?.ends.tail).toEqual(fromNewestFull(records));
    expect(latestStateFromTail(read?.ends.tail ?? [], { projectRoot })?.state.snapshots.at(-1)).toEqual(newest);
    // Unchanged but not read whole: parsed again (only a whole read is compared byte for byte).
    expect(await readNewestRecords(log, read)).not.toBe(read);
  });

  it('skips a torn last line and a corrupt line after the full record, as a whole read does', async () => {
    const { folder, log } = await session(3);
    const file = join(folder, 'store', 'sessions', 's1.jsonl');
    await appendFile(file, '{"type":"user","uuid":"broken"\n{"type":"user","uuid":"ok"}\n{"type":"fh-snap');
    const { records } = await log.read();
    const read = await readNewestRecords(log);
    expect(read?.ends.tail).toEqual(fromNewestFull(records));
    expect(read?.ends.tail.at(-1)).toEqual({ type: 'user', uuid: 'ok' });
  });

  it('gives undefined for a log without an fh full record (Claude Code form), so the caller reads it as before', async () => {
    const folder = await temporaryFolder();
    const store = new FsBackupStore({ root: join(folder, 'store') });
    const log = store.sessionLog('cc');
    await log.append([
      { type: 'file-history-snapshot', messageId: 'm1', snapshot: { messageId: 'm1', trackedFileBackups: {}, timestamp: '2026-01-01T00:00:00.000Z' }, isSnapshotUpdate: false },
    ]);
    expect(await readNewestRecords(log)).toBeUndefined();
  });
});

/**
 * The bare rewind's check for an interrupted operation on a real session log (`pointFreeLog`,
 * issue 10's journal): a log without a timeline point is searched once, then only what was
 * appended since; a point appended later, a log grown past the tail read, and a log replaced by
 * another are each found.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { capturePoint, FileHistory, POINT_FREE_EDGE_BYTES, POINT_FREE_TAIL_BYTES, pointFreeLog, type SessionLog } from '@fh/core';
import { describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { temporaryFolder } from './helpers.js';

/** `log` with its reads counted (the real log does the reading). */
function counted(log: SessionLog): { log: SessionLog; reads: { stream: number; tail: number } } {
  const reads = { stream: 0, tail: 0 };
  return {
    reads,
    log: {
      append: (records) => log.append(records),
      read: () => log.read(),
      readStream: () => {
        reads.stream += 1;
        return (log.readStream as () => AsyncIterable<Uint8Array>)();
      },
      readTail: (headBytes, tailBytes) => {
        reads.tail += 1;
        return (log.readTail as NonNullable<SessionLog['readTail']>)(headBytes, tailBytes);
      },
    },
  };
}

async function setUp() {
  const base = await temporaryFolder();
  const store = new FsBackupStore({ root: join(base, 'store') });
  const path = join(base, 'store', 'sessions', 's.jsonl');
  const { log, reads } = counted(store.sessionLog('s'));
  /** What pointFreeLog must find when the log holds no point: its whole lines and their last bytes. */
  const clean = async () => {
    const bytes = await readFile(path);
    const lines = bytes.lastIndexOf(0x0a) + 1;
    return { bytes: lines, edge: bytes.subarray(Math.max(0, lines - POINT_FREE_EDGE_BYTES), lines) };
  };
  return { log, reads, path, clean };
}

describe('pointFreeLog', () => {
  it('scans a log without points once, then reads only its newest bytes; a point record appended later is found', async () => {
    const { log, reads, clean } = await setUp();
    expect(await pointFreeLog(log)).toEqual({ bytes: 0, edge: Buffer.alloc(0) });
    await log.append([{ type: 'user', uuid: 'u1', text: 'x'.repeat(200) }]);
    const first = await pointFreeLog(log);
    expect(first).toEqual(await clean());
    expect(reads).toEqual({ stream: 2, tail: 0 });

    await log.append([{ type: 'fh-snapshot', v: 2, text: 'y'.repeat(100) }]);
    const second = await pointFreeLog(log, first);
    expect(second).toEqual(await clean());
    const third = await pointFreeLog(log, second);
    expect(third).toEqual(second);
    expect(reads).toEqual({ stream: 2, tail: 2 });

    await log.append([{ type: 'fh-point', v: 1, pointId: 'p1' }]);
    expect(await pointFreeLog(log, third)).toBeUndefined();
    // A legacy undo point counts as a point too (from scratch, the whole log is searched).
    const legacy = await setUp();
    await legacy.log.append([{ type: 'user', uuid: 'u1' }, { type: 'fh-undo-point', undoId: 'p0' }]);
    expect(await pointFreeLog(legacy.log)).toBeUndefined();
  });

  it('a log grown past the tail it reads is searched again whole, and a point in it is found', async () => {
    const { log, reads, clean } = await setUp();
    await log.append([{ type: 'user', uuid: 'u1' }]);
    const known = await pointFreeLog(log);
    await log.append([{ type: 'user', uuid: 'u2', text: 'z'.repeat(POINT_FREE_TAIL_BYTES) }]);
    const grown = await pointFreeLog(log, known);
    expect(grown).toEqual(await clean());
    expect(reads).toEqual({ stream: 2, tail: 1 });
    await log.append([{ type: 'fh-point', v: 1, pointId: 'p1' }, { type: 'user', uuid: 'u3', text: 'z'.repeat(POINT_FREE_TAIL_BYTES) }]);
    expect(await pointFreeLog(log, grown)).toBeUndefined();
    expect(reads).toEqual({ stream: 3, tail: 2 });
  });

  it('a torn last line is not counted as known: the append that cuts it off and writes a point there is found', async () => {
    const { log, path, reads, clean } = await setUp();
    await log.append([{ type: 'user', uuid: 'u1', text: 'b'.repeat(100) }]);
    // Torn where its last bytes equal those the point written in its place has there.
    await writeFile(path, Buffer.concat([await readFile(path), Buffer.from(`{"type":"user","pad":"${'x'.repeat(100)}`)]));
    const known = await pointFreeLog(log);
    expect(known).toEqual(await clean());
    // The next process's first append cuts the torn line off.
    await new FsBackupStore({ root: join(path, '..', '..') }).sessionLog('s').append([{ type: 'fh-point', pad: 'x'.repeat(200) }]);
    expect((await readFile(path, 'utf8')).endsWith(`\n{"type":"fh-point","pad":"${'x'.repeat(200)}"}\n`)).toBe(true);
    expect(await pointFreeLog(log, known)).toBeUndefined();
    expect(reads).toEqual({ stream: 1, tail: 1 });
  });

  it('a log replaced by another (a point before the bytes it knew) is searched again whole', async () => {
    const { log, path, reads } = await setUp();
    await log.append([{ type: 'user', uuid: 'u1', text: 'a'.repeat(300) }]);
    const known = await pointFreeLog(log);
    await writeFile(path, Buffer.concat([Buffer.from('{"type":"fh-point","v":1,"pointId":"p1"}\n'), await readFile(path)]));
    expect(await pointFreeLog(log, known)).toBeUndefined();
    expect(reads).toEqual({ stream: 2, tail: 1 });
  });
});

describe('the bare FileHistory.rewind', () => {
  it('rolls back a point appended after an earlier rewind found none (same process, same log)', async () => {
    const base = await temporaryFolder();
    const projectRoot = join(base, 'project');
    const store = new FsBackupStore({ root: join(base, 'store') });
    const { mkdir } = await import('node:fs/promises');
    await mkdir(projectRoot);
    await writeFile(join(projectRoot, 'a.txt'), 'a at t1\n');
    await writeFile(join(projectRoot, 'b.txt'), 'b at t1\n');
    const history = await FileHistory.open({ projectRoot, sessionId: 's', store, env: {} });
    try {
      await history.makeSnapshot('t1');
      await history.trackEdit('a.txt');
      await history.trackEdit('b.txt');
      await writeFile(join(projectRoot, 'a.txt'), 'a now\n');
      const plain = await history.rewind('t1');
      expect([plain.restored, plain.recovered]).toEqual([['a.txt'], undefined]);

      await history.makeSnapshot('t2');
      await writeFile(join(projectRoot, 'a.txt'), 'a later\n');
      await writeFile(join(projectRoot, 'b.txt'), 'b later\n');
      await capturePoint({ projectRoot, fs: await import('node:fs/promises') }, { store, sessionId: 's' }, { paths: ['a.txt', 'b.txt'], operation: 'rewind', messageId: 't1' });
      // The interrupted rewind wrote one file.
      await writeFile(join(projectRoot, 'a.txt'), 'a at t1\n');

      const result = await history.rewind('t2');
      expect(result.recovered?.map((recovery) => [recovery.operation, recovery.outcome, recovery.restored])).toEqual([['rewind', 'rolled-back', ['a.txt']]]);
      expect(result.restored).toEqual(['a.txt', 'b.txt']);
      expect([await readFile(join(projectRoot, 'a.txt'), 'utf8'), await readFile(join(projectRoot, 'b.txt'), 'utf8')]).toEqual(['a at t1\n', 'b at t1\n']);
    } finally {
      await history.close();
    }
  });
});

import { constants } from 'node:fs';
import { FileHistory, PermissionError, diffSnapshotRecord, fhSessionRecord, fullSnapshotRecord, rebuildStateFromLog } from '@fh/core';
import { open, readFile, readdir, readlink, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { errnoError, faultyFileSystem, temporaryFolder } from './helpers.js';

/** How the store opens a log for appending: O_APPEND | O_CREAT | O_RDWR | O_NOFOLLOW. */
const APPEND_FLAGS = constants.O_APPEND | constants.O_CREAT | constants.O_RDWR | constants.O_NOFOLLOW;

describe('FsSessionLog', () => {
  it('reads a missing log as empty', async () => {
    const root = join(await temporaryFolder(), 'store');
    expect(await new FsBackupStore({ root }).sessionLog('s1').read()).toEqual({ records: [], skipped: [] });
  });

  it('appends JSONL lines to sessions/{id}.jsonl, creating folders, and reads them back in order', async () => {
    const root = join(await temporaryFolder(), 'deep', 'store');
    const log = new FsBackupStore({ root }).sessionLog('s1');
    await log.append([{ type: 'a', n: 1 }, { type: 'b', at: new Date('2026-01-02T03:04:05.000Z') }]);
    await log.append([]);
    await log.append([{ type: 'c', text: 'ünïcødé\nline' }]);
    expect(await readFile(join(root, 'sessions', 's1.jsonl'), 'utf8')).toBe(
      '{"type":"a","n":1}\n{"type":"b","at":"2026-01-02T03:04:05.000Z"}\n{"type":"c","text":"ünïcødé\\nline"}\n',
    );
    expect(await log.read()).toEqual({
      records: [{ type: 'a', n: 1 }, { type: 'b', at: '2026-01-02T03:04:05.000Z' }, { type: 'c', text: 'ünïcødé\nline' }],
      skipped: [],
    });
  });

  it('skips a torn last line and corrupt lines with their line numbers, never hiding later records', async () => {
    const root = join(await temporaryFolder(), 'store');
    await mkdir(join(root, 'sessions'), { recursive: true });
    await writeFile(
      join(root, 'sessions', 's1.jsonl'),
      '{"type":"a"}\n{"type":\n"just a string"\n{"type":"b"}\n\n{"type":7}\n{"type":"c"}\n{"type":"d","snap',
    );
    const log = new FsBackupStore({ root }).sessionLog('s1');
    expect(await log.read()).toEqual({
      records: [{ type: 'a' }, { type: 'b' }, { type: 'c' }],
      skipped: [
        { line: 2, reason: 'invalid JSON' },
        { line: 3, reason: 'not an object with a type' },
        { line: 6, reason: 'not an object with a type' },
        { line: 8, reason: 'torn last line' },
      ],
    });
  });

  it('cuts a torn last line off before the next append, so it is not skipped (and warned of) on every later read', async () => {
    const root = join(await temporaryFolder(), 'store');
    await mkdir(join(root, 'sessions'), { recursive: true });
    await writeFile(join(root, 'sessions', 's1.jsonl'), '{"type":"a"}\n{"type":"b","cu');
    const log = new FsBackupStore({ root }).sessionLog('s1');
    expect((await log.read()).skipped).toEqual([{ line: 2, reason: 'torn last line' }]);
    await log.append([{ type: 'c' }]);
    expect(await readFile(join(root, 'sessions', 's1.jsonl'), 'utf8')).toBe('{"type":"a"}\n{"type":"c"}\n');
    expect(await log.read()).toEqual({ records: [{ type: 'a' }, { type: 'c' }], skipped: [] });

    const long = `{"type":"d","text":"${'x'.repeat(200_000)}`;
    await writeFile(join(root, 'sessions', 's2.jsonl'), `{"type":"a"}\n${long}`);
    await new FsBackupStore({ root }).sessionLog('s2').append([{ type: 'e' }]);
    expect(await readFile(join(root, 'sessions', 's2.jsonl'), 'utf8')).toBe('{"type":"a"}\n{"type":"e"}\n');
    await writeFile(join(root, 'sessions', 's3.jsonl'), '{"type":"f","cu');
    await new FsBackupStore({ root }).sessionLog('s3').append([{ type: 'g' }]);
    expect(await readFile(join(root, 'sessions', 's3.jsonl'), 'utf8')).toBe('{"type":"g"}\n');
  });

  it('keeps a last line without its \\n that is whole JSON, and starts the append on a new line', async () => {
    const root = join(await temporaryFolder(), 'store');
    await mkdir(join(root, 'sessions'), { recursive: true });
    await writeFile(join(root, 'sessions', 's1.jsonl'), '{"type":"a"}\n{"type":"b"}');
    const log = new FsBackupStore({ root }).sessionLog('s1');
    await log.append([{ type: 'c' }]);
    expect(await readFile(join(root, 'sessions', 's1.jsonl'), 'utf8')).toBe('{"type":"a"}\n{"type":"b"}\n{"type":"c"}\n');
    expect(await log.read()).toEqual({ records: [{ type: 'a' }, { type: 'b' }, { type: 'c' }], skipped: [] });
  });

  it('fsyncs the file before append returns, and the folder when the file is new', async () => {
    const root = join(await temporaryFolder(), 'store');
    const synced: string[] = [];
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        open: (async (path: string, flags?: string) => {
          const handle = await open(path, flags);
          const sync = handle.sync.bind(handle);
          handle.sync = async () => {
            await sync();
            synced.push(`${String(path).slice(root.length)} ${flags}`);
          };
          return handle;
        }) as never,
      }),
    });
    const log = store.sessionLog('s1');
    await log.append([{ type: 'a' }]);
    expect(synced).toEqual([`/sessions/s1.jsonl ${APPEND_FLAGS}`, '/sessions r']);
    await log.append([{ type: 'b' }]);
    expect(synced).toEqual([`/sessions/s1.jsonl ${APPEND_FLAGS}`, '/sessions r', `/sessions/s1.jsonl ${APPEND_FLAGS}`]);
  });

  it('with holdOpen, opens the file once, appends by write + fsync, and close releases it (a later append reopens)', async () => {
    const root = join(await temporaryFolder(), 'store');
    const opened: string[] = [];
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        open: (async (path: string, flags?: string) => {
          opened.push(`${String(path).slice(root.length)} ${flags}`);
          return open(path, flags);
        }) as never,
      }),
    });
    const log = store.sessionLog('s1', { holdOpen: true });
    const path = join(root, 'sessions', 's1.jsonl');
    await log.append([{ type: 'a' }]);
    await log.append([{ type: 'b' }]);
    await log.append([{ type: 'c' }]);
    expect(opened).toEqual([`/sessions/s1.jsonl ${APPEND_FLAGS}`, '/sessions r']);
    expect(await openDescriptorsOf(path)).toBe(1);
    await log.close?.();
    expect(await openDescriptorsOf(path)).toBe(0);
    await log.append([{ type: 'd' }]);
    expect(opened).toEqual([`/sessions/s1.jsonl ${APPEND_FLAGS}`, '/sessions r', `/sessions/s1.jsonl ${APPEND_FLAGS}`]);
    await log.close?.();
    expect(await readFile(path, 'utf8')).toBe('{"type":"a"}\n{"type":"b"}\n{"type":"c"}\n{"type":"d"}\n');
    expect(await openDescriptorsOf(path)).toBe(0);
  });

  it('a FileHistory keeps its own log open while open and closes it on close', async () => {
    const folder = await temporaryFolder();
    const projectRoot = join(folder, 'project');
    await mkdir(projectRoot);
    await writeFile(join(projectRoot, 'a.txt'), 'a\n');
    const store = new FsBackupStore({ root: join(folder, 'store') });
    const history = await FileHistory.open({ projectRoot, sessionId: 's1', store, env: {} });
    await history.makeSnapshot('m1');
    await history.trackEdit('a.txt');
    const path = join(folder, 'store', 'sessions', 's1.jsonl');
    expect(await openDescriptorsOf(path)).toBe(1);
    await history.close();
    expect(await openDescriptorsOf(path)).toBe(0);
    const { records } = await store.sessionLog('s1').read();
    expect(records.map((record) => record.type)).toEqual(['fh-session', 'fh-snapshot', 'file-history-delta']);
  });

  it('readEnds returns the whole lines of the first and last bytes, or every record when they cover the file', async () => {
    const root = join(await temporaryFolder(), 'store');
    const log = new FsBackupStore({ root }).sessionLog('s1');
    expect(await log.readEnds?.(100, 100)).toEqual({ head: [], tail: [], whole: true });
    const records = Array.from({ length: 10 }, (_, index) => ({ type: 'r', index, pad: 'x'.repeat(20) }));
    await log.append(records);
    const line = `${JSON.stringify(records[0])}\n`.length;
    expect(await log.readEnds?.(10 * line, 0)).toEqual({ head: records, tail: [], whole: true });
    expect(await log.readEnds?.(2 * line + 5, 3 * line + 5)).toEqual({ head: records.slice(0, 2), tail: records.slice(7), whole: false });
    expect(await log.readEnds?.(5, 5)).toEqual({ head: [], tail: [], whole: false });
  });

  it('readTail returns the whole lines of the first bytes and the raw last bytes, or every byte when they cover the file', async () => {
    const root = join(await temporaryFolder(), 'store');
    const log = new FsBackupStore({ root }).sessionLog('s1');
    expect(await log.readTail?.(100, 100)).toEqual({ head: [], tail: new Uint8Array(0), whole: true, size: 0 });
    const records = Array.from({ length: 10 }, (_, index) => ({ type: 'r', index, pad: 'x'.repeat(20) }));
    await log.append(records);
    const text = records.map((record) => `${JSON.stringify(record)}\n`).join('');
    const line = `${JSON.stringify(records[0])}\n`.length;
    const whole = await log.readTail?.(5 * line, 5 * line);
    expect({ ...whole, tail: Buffer.from(whole?.tail ?? []).toString('utf8') }).toEqual({ head: [], tail: text, whole: true, size: text.length });
    const ends = await log.readTail?.(2 * line + 5, 3 * line + 5);
    expect({ ...ends, tail: Buffer.from(ends?.tail ?? []).toString('utf8') }).toEqual({ head: records.slice(0, 2), tail: text.slice(-(3 * line + 5)), whole: false, size: text.length });
  });

  it('opens a long session from the end of its log: the state equals the whole-log rebuild, and a corrupt line before the records it needs is not read', async () => {
    const root = join(await temporaryFolder(), 'store');
    const project = await temporaryFolder();
    const store = new FsBackupStore({ root });
    const entry = (version: number) => ({ backupFileName: `00000000000000aa@v${version}`, version, backupTime: new Date(1_000 + version), size: 3, mode: 0o644 });
    const lines = [JSON.stringify(fhSessionRecord({ sessionId: 's1', projectRoot: project, createdAt: new Date(0) })), 'not json'];
    const pad = Object.fromEntries(Array.from({ length: 1500 }, (_, index) => [`pad/file-${index}.txt`, entry(1)]));
    for (let sequence = 1; sequence <= 400; sequence += 1) {
      const changed = { 'a.txt': entry(sequence + 1) };
      lines.push(JSON.stringify(sequence % 50 === 1 ? fullSnapshotRecord({ messageId: `m${sequence}`, timestamp: new Date(sequence), trackedFileBackups: { ...pad, ...changed } }, sequence) : diffSnapshotRecord(`m${sequence}`, new Date(sequence), sequence, sequence - 1, changed)));
    }
    await mkdir(join(root, 'sessions'), { recursive: true });
    await writeFile(join(root, 'sessions', 's1.jsonl'), `${lines.join('\n')}\n`);
    const warnings: string[] = [];
    const history = await FileHistory.open({ projectRoot: project, sessionId: 's1', store, onWarning: (message) => warnings.push(message) });
    const whole = await rebuildStateFromLog(store.sessionLog('s1'), { projectRoot: project });
    expect(history.state.snapshots.map((snapshot) => ({ ...snapshot }))).toEqual(whole.state.snapshots.map((snapshot) => ({ ...snapshot })));
    expect(history.state.snapshots.map((snapshot) => snapshot.messageId)).toEqual(Array.from({ length: 100 }, (_, index) => `m${301 + index}`));
    expect(history.state.snapshotSequence).toBe(400);
    expect(whole.skippedLines.get('invalid JSON')).toEqual({ count: 1, firstLine: 2 });
    expect(warnings).toEqual([]);
    await history.makeSnapshot('m401');
    await history.close();
    const after = await rebuildStateFromLog(store.sessionLog('s1'), { projectRoot: project });
    expect([after.state.snapshotSequence, after.state.snapshots.at(-1)?.messageId, after.state.snapshots.length]).toEqual([401, 'm401', 100]);
  });

  it('keeps concurrent appends whole, each record on its own line', async () => {
    const root = join(await temporaryFolder(), 'store');
    const log = new FsBackupStore({ root }).sessionLog('s1');
    await Promise.all(Array.from({ length: 50 }, (_, index) => log.append([{ type: 'n', index, pad: 'x'.repeat(index * 100) }])));
    const { records, skipped } = await log.read();
    expect(skipped).toEqual([]);
    expect(records.map((record) => record.index).sort((left, right) => Number(left) - Number(right))).toEqual(
      Array.from({ length: 50 }, (_, index) => index),
    );
  });

  it('translates a refused append into PermissionError naming the log', async () => {
    const root = join(await temporaryFolder(), 'store');
    const store = new FsBackupStore({
      root,
      fileSystem: faultyFileSystem({
        open: (async (path: string) => {
          throw errnoError('EACCES', 'open', path);
        }) as never,
      }),
    });
    const error = await store.sessionLog('s1').append([{ type: 'a' }]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PermissionError);
    expect((error as Error).message).toBe(`append to session log "${join(root, 'sessions', 's1.jsonl')}": EACCES (permission denied)`);
  });
});

/** How many of this process's file descriptors are open on `path` (from /proc/self/fd). */
async function openDescriptorsOf(path: string): Promise<number> {
  let count = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target === path) count += 1;
  }
  return count;
}

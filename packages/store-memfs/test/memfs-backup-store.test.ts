import { createHash } from 'node:crypto';
import {
  ConflictError,
  CorruptError,
  FhError,
  InvalidArgumentError,
  LockedError,
  NotFoundError,
  PermissionError,
  UnavailableError,
  UnsupportedError,
} from '@fh/core';
import { Volume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { MemfsBackupStore } from '../src/index.js';


function storeWith(files: Record<string, string> = {}) {
  const volume = Volume.fromJSON(files);
  return { volume, store: new MemfsBackupStore({ volume }) };
}

async function collect(iterable: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of iterable) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('MemfsBackupStore construction', () => {
  it('defaults to a new volume and the /.fh root', () => {
    const store = new MemfsBackupStore();
    expect(store.root).toBe('/.fh');
    expect(store.volume).toBeInstanceOf(Volume);
    expect(store.kind).toBe('memfs');
    expect(store.capabilities).toEqual({ hardLinks: true, serverSideCopy: false, locking: true, sha256: false });
  });

  it('uses the volume as the workspace file system', async () => {
    const { store } = storeWith({ '/w/a.txt': 'hello' });
    expect(Buffer.from(await store.workspaceFs.readFile('/w/a.txt')).toString()).toBe('hello');
  });

  it('rejects a relative root', () => {
    expect(() => new MemfsBackupStore({ root: 'store' })).toThrow(InvalidArgumentError);
    expect(() => new MemfsBackupStore({ root: 'store' })).toThrow('root must be an absolute path: "store"');
  });
});

describe('putBackup', () => {
  it('stores the exact bytes and the permission bits at file-history/{session}/{name}', async () => {
    const { volume, store } = storeWith({ '/w/a.sh': '#!/bin/sh\necho hi\n' });
    await volume.promises.chmod('/w/a.sh', 0o751);
    const info = await store.putBackup('s1', 'abc@v1', '/w/a.sh');
    expect(info).toEqual({ size: 18, mode: 0o751, sha256: createHash('sha256').update('#!/bin/sh\necho hi\n').digest('hex') });
    expect(volume.readFileSync('/.fh/file-history/s1/abc@v1', 'utf8')).toBe('#!/bin/sh\necho hi\n');
    expect(Number(volume.statSync('/.fh/file-history/s1/abc@v1').mode) & 0o7777).toBe(0o751);
    expect(volume.readdirSync('/.fh/file-history/s1')).toEqual(['abc@v1']);
  });

  it('is a copy, not a link: a later write to the source leaves the backup unchanged', async () => {
    const { volume, store } = storeWith({ '/w/a.txt': 'before' });
    await store.putBackup('s1', 'abc@v1', '/w/a.txt');
    volume.writeFileSync('/w/a.txt', 'after, longer');
    expect(volume.readFileSync('/.fh/file-history/s1/abc@v1', 'utf8')).toBe('before');
    expect(Number(volume.statSync('/.fh/file-history/s1/abc@v1').nlink)).toBe(1);
  });

  it('refuses to overwrite an existing backup with ConflictError and keeps its bytes', async () => {
    const { volume, store } = storeWith({ '/w/a.txt': 'one', '/w/b.txt': 'two' });
    await store.putBackup('s1', 'abc@v1', '/w/a.txt');
    await expect(store.putBackup('s1', 'abc@v1', '/w/b.txt')).rejects.toThrow(ConflictError);
    expect(volume.readFileSync('/.fh/file-history/s1/abc@v1', 'utf8')).toBe('one');
    expect(volume.readdirSync('/.fh/file-history/s1')).toEqual(['abc@v1']);
  });

  it('throws NotFoundError naming a missing source and leaves nothing behind', async () => {
    const { volume, store } = storeWith({ '/w/x': '' });
    const error = await store.putBackup('s1', 'abc@v1', '/w/missing.txt').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toContain('"/w/missing.txt"');
    expect(volume.existsSync('/.fh/file-history/s1')).toBe(false);
  });

  it('throws InvalidArgumentError for a directory source', async () => {
    const { store } = storeWith({ '/w/dir/a.txt': 'x' });
    await expect(store.putBackup('s1', 'abc@v1', '/w/dir')).rejects.toThrow(InvalidArgumentError);
    expect(await store.listBackups('s1')).toEqual([]);
  });

  it.each(['', '.', '..', 'a/b', 'a\\b', 'a\0b', '.fh-tmp-1'])('rejects the name %j with InvalidArgumentError', async (name) => {
    const { store } = storeWith({ '/w/a.txt': 'x' });
    await expect(store.putBackup(name, 'abc@v1', '/w/a.txt')).rejects.toThrow(InvalidArgumentError);
    await expect(store.putBackup('s1', name, '/w/a.txt')).rejects.toThrow(InvalidArgumentError);
    await expect(store.putBackup('s1', name, '/w/a.txt')).rejects.toThrow(/^backupFileName must/);
  });
});

describe('statBackup, openBackup, deleteBackup, listBackups', () => {
  it('reports size and mode, or null for a missing backup', async () => {
    const { volume, store } = storeWith({ '/w/a.txt': '12345' });
    volume.chmodSync('/w/a.txt', 0o600);
    await store.putBackup('s1', 'abc@v1', '/w/a.txt');
    expect(await store.statBackup('s1', 'abc@v1')).toEqual({ size: 5, mode: 0o600 });
    expect(await store.statBackup('s1', 'abc@v2')).toBeNull();
    expect(await store.statBackup('nope', 'abc@v1')).toBeNull();
  });

  it('streams exact bytes across chunk boundaries', async () => {
    const content = Buffer.alloc(200_000);
    for (let index = 0; index < content.length; index++) content[index] = index % 251;
    const volume = new Volume();
    volume.mkdirSync('/w');
    volume.writeFileSync('/w/big.bin', content);
    const store = new MemfsBackupStore({ volume });
    await store.putBackup('s1', 'big@v1', '/w/big.bin');
    expect((await collect(await store.openBackup('s1', 'big@v1'))).equals(content)).toBe(true);
  });

  it('openBackup throws NotFoundError before streaming when the backup is missing', async () => {
    const { store } = storeWith();
    await expect(store.openBackup('s1', 'abc@v1')).rejects.toThrow(NotFoundError);
  });

  it('deletes a backup, and deleting a missing one is not an error', async () => {
    const { store } = storeWith({ '/w/a.txt': 'x' });
    await store.putBackup('s1', 'abc@v1', '/w/a.txt');
    await store.putBackup('s1', 'abc@v2', '/w/a.txt');
    await store.deleteBackup('s1', 'abc@v1');
    await store.deleteBackup('s1', 'abc@v1');
    expect(await store.listBackups('s1')).toEqual(['abc@v2']);
    expect(await store.listBackups('unknown')).toEqual([]);
  });

  it('does not list a leftover temp file as a backup', async () => {
    const { volume, store } = storeWith({ '/.fh/file-history/s1/.fh-tmp-0011': 'partial', '/.fh/file-history/s1/abc@v1': 'x' });
    expect(await store.listBackups('s1')).toEqual(['abc@v1']);
    expect(volume.existsSync('/.fh/file-history/s1/.fh-tmp-0011')).toBe(true);
  });
});

describe('restoreBackup', () => {
  it('writes the exact bytes to a new file', async () => {
    const { volume, store } = storeWith({ '/w/a.txt': 'original' });
    await store.putBackup('s1', 'abc@v1', '/w/a.txt');
    await store.restoreBackup('s1', 'abc@v1', '/w/restored.txt');
    expect(volume.readFileSync('/w/restored.txt', 'utf8')).toBe('original');
  });

  it('never overwrites: an existing destination gives ConflictError and keeps its bytes', async () => {
    const { volume, store } = storeWith({ '/w/a.txt': 'original', '/w/b.txt': 'keep me' });
    await store.putBackup('s1', 'abc@v1', '/w/a.txt');
    await expect(store.restoreBackup('s1', 'abc@v1', '/w/b.txt')).rejects.toThrow(ConflictError);
    expect(volume.readFileSync('/w/b.txt', 'utf8')).toBe('keep me');
  });

  it('throws NotFoundError for a missing backup and creates nothing', async () => {
    const { volume, store } = storeWith({ '/w/a.txt': 'x' });
    await expect(store.restoreBackup('s1', 'abc@v1', '/w/out.txt')).rejects.toThrow(NotFoundError);
    expect(volume.existsSync('/w/out.txt')).toBe(false);
  });

  it('throws NotFoundError naming a missing destination folder', async () => {
    const { store } = storeWith({ '/w/a.txt': 'x' });
    await store.putBackup('s1', 'abc@v1', '/w/a.txt');
    await expect(store.restoreBackup('s1', 'abc@v1', '/w/gone/out.txt')).rejects.toThrow(/"\/w\/gone\/out.txt".*ENOENT/);
  });

  it('throws CorruptError and removes the destination when the copy is short', async () => {
    const { volume, store: plain } = storeWith({ '/w/a.txt': 'original' });
    await plain.putBackup('s1', 'abc@v1', '/w/a.txt');
    const promises = volume.promises;
    const copyFile = promises.copyFile.bind(promises);
    Object.defineProperty(promises, 'copyFile', {
      configurable: true,
      value: async (source: string, destination: string, mode?: number) => {
        await copyFile(source, destination, mode);
        await promises.truncate(destination, 3);
      },
    });
    const store = new MemfsBackupStore({ volume });
    await expect(store.restoreBackup('s1', 'abc@v1', '/w/out.txt')).rejects.toThrow(CorruptError);
    await expect(store.restoreBackup('s1', 'abc@v1', '/w/out.txt')).rejects.toThrow('wrote 3 bytes, the backup has 8');
    expect(volume.existsSync('/w/out.txt')).toBe(false);
  });
});

describe('carryBackup', () => {
  it('hard-links a backup into another session', async () => {
    const { volume, store } = storeWith({ '/w/a.txt': 'carried' });
    await store.putBackup('old', 'abc@v1', '/w/a.txt');
    expect(await store.carryBackup('old', 'new', 'abc@v1')).toBe('linked');
    expect(volume.readFileSync('/.fh/file-history/new/abc@v1', 'utf8')).toBe('carried');
    expect(volume.statSync('/.fh/file-history/new/abc@v1').ino).toBe(volume.statSync('/.fh/file-history/old/abc@v1').ino);
  });

  it("returns 'exists' and changes nothing when the target exists", async () => {
    const { volume, store } = storeWith({ '/w/a.txt': 'one', '/w/b.txt': 'two' });
    await store.putBackup('old', 'abc@v1', '/w/a.txt');
    await store.putBackup('new', 'abc@v1', '/w/b.txt');
    expect(await store.carryBackup('old', 'new', 'abc@v1')).toBe('exists');
    expect(volume.readFileSync('/.fh/file-history/new/abc@v1', 'utf8')).toBe('two');
  });

  it('throws NotFoundError for a missing source backup', async () => {
    const { store } = storeWith();
    await expect(store.carryBackup('old', 'new', 'abc@v1')).rejects.toThrow(NotFoundError);
    expect(await store.listBackups('new')).toEqual([]);
  });
});

describe('sessions', () => {
  it('lists sessions with backups or records, with bytes, backups and last change', async () => {
    const { store } = storeWith({ '/w/a.txt': '12345', '/w/b.txt': '123' });
    await store.putBackup('s1', 'a@v1', '/w/a.txt');
    await store.putBackup('s1', 'b@v1', '/w/b.txt');
    await store.sessionLog('s2').append([{ type: 'x' }]);
    const sessions = (await store.listSessions()).sort((left, right) => left.sessionId.localeCompare(right.sessionId));
    expect(sessions.map(({ sessionId, bytes, backups }) => ({ sessionId, bytes, backups }))).toEqual([
      { sessionId: 's1', bytes: 8, backups: 2 },
      { sessionId: 's2', bytes: '{"type":"x"}\n'.length, backups: 0 },
    ]);
    for (const session of sessions) expect(Date.now() - session.lastModified.getTime()).toBeLessThan(60_000);
  });

  it('lists nothing for an empty store', async () => {
    expect(await new MemfsBackupStore().listSessions()).toEqual([]);
  });

  it('deletes a session with its backups and records, and a missing one quietly', async () => {
    const { volume, store } = storeWith({ '/w/a.txt': 'x' });
    await store.putBackup('s1', 'a@v1', '/w/a.txt');
    await store.sessionLog('s1').append([{ type: 'x' }]);
    await store.deleteSession('s1');
    await store.deleteSession('s1');
    expect(await store.listSessions()).toEqual([]);
    expect(volume.existsSync('/.fh/file-history/s1')).toBe(false);
    expect(volume.existsSync('/.fh/sessions/s1.jsonl')).toBe(false);
  });
});

describe('session log', () => {
  it('reads a missing log as empty', async () => {
    expect(await new MemfsBackupStore().sessionLog('s1').read()).toEqual({ records: [], skipped: [] });
  });

  it('appends records as JSONL and reads them back in order', async () => {
    const { volume, store } = storeWith();
    const log = store.sessionLog('s1');
    await log.append([{ type: 'a', n: 1 }, { type: 'b', when: new Date('2026-01-02T03:04:05.000Z') }]);
    await log.append([{ type: 'c' }]);
    await log.append([]);
    expect(volume.readFileSync('/.fh/sessions/s1.jsonl', 'utf8')).toBe(
      '{"type":"a","n":1}\n{"type":"b","when":"2026-01-02T03:04:05.000Z"}\n{"type":"c"}\n',
    );
    expect(await log.read()).toEqual({
      records: [{ type: 'a', n: 1 }, { type: 'b', when: '2026-01-02T03:04:05.000Z' }, { type: 'c' }],
      skipped: [],
    });
  });

  it('skips corrupt and torn lines with their line numbers, keeping later records; the next append cuts the torn last line off', async () => {
    const { volume, store } = storeWith({
      '/.fh/sessions/s1.jsonl': '{"type":"a"}\nnot json\n[1,2]\n\n{"type":"b"}\r\n{"no":"type"}\n{"type":"c"}\n{"type":"d","cut',
    });
    const log = store.sessionLog('s1');
    expect(await log.read()).toEqual({
      records: [{ type: 'a' }, { type: 'b' }, { type: 'c' }],
      skipped: [
        { line: 2, reason: 'invalid JSON' },
        { line: 3, reason: 'not an object with a type' },
        { line: 6, reason: 'not an object with a type' },
        { line: 8, reason: 'torn last line' },
      ],
    });
    await log.append([{ type: 'e' }]);
    const after = await log.read();
    expect(after.records).toEqual([{ type: 'a' }, { type: 'b' }, { type: 'c' }, { type: 'e' }]);
    expect(after.skipped).toEqual([
      { line: 2, reason: 'invalid JSON' },
      { line: 3, reason: 'not an object with a type' },
      { line: 6, reason: 'not an object with a type' },
    ]);
    expect(volume.readFileSync('/.fh/sessions/s1.jsonl', 'utf8')).toMatch(/\{"type":"c"\}\n\{"type":"e"\}\n$/);
  });
});

describe('locks', () => {
  it('a second lock of a session throws LockedError naming it until the first is released', async () => {
    const { volume, store } = storeWith();
    const other = new MemfsBackupStore({ volume });
    const lock = await store.lockSession('s1');
    expect(await other.isSessionLocked('s1')).toBe(true);
    expect(await other.isSessionLocked('s2')).toBe(false);
    await expect(other.lockSession('s1')).rejects.toThrow(LockedError);
    await expect(store.lockSession('s1')).rejects.toThrow('session "s1" is locked');
    await lock.release();
    await lock.release();
    expect(await store.isSessionLocked('s1')).toBe(false);
    const again = await other.lockSession('s1');
    await again.release();
  });

  it('locks on different volumes are independent', async () => {
    const lock = await new MemfsBackupStore().lockSession('s1');
    expect(await new MemfsBackupStore().isSessionLocked('s1')).toBe(false);
    await lock.release();
  });
});

describe('containsPath', () => {
  it('is true for the root and the folders the store writes only', () => {
    const store = new MemfsBackupStore({ root: '/home/u/.fh' });
    expect(store.containsPath('/home/u/.fh')).toBe(true);
    expect(store.containsPath('/home/u/.fh/file-history/s1/a@v1')).toBe(true);
    expect(store.containsPath('/home/u/.fh/../.fh/sessions/s1.jsonl')).toBe(true);
    expect(store.containsPath('/home/u/.fh/../.fh/x')).toBe(false);
    expect(store.containsPath('/home/u/.fhx/a')).toBe(false);
    expect(store.containsPath('/home/u/project/a.txt')).toBe(false);
    expect(store.containsPath('/home/u/..fh')).toBe(false);
  });
});

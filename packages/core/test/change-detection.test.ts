import { createHash } from 'node:crypto';
import { Volume } from 'memfs';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  checkFileChanged,
  createFileHistoryContext,
  NotFoundError,
  type BackupInfo,
  type BackupStore,
  type FileHistoryContext,
  type StoredBackup,
  type WorkspaceFs,
} from '../src/index.js';

/**
 * The part of a store change detection reads (statBackup, openBackup, capabilities), over a memfs
 * folder `/backups`, counting calls so tests can prove which checks read bytes.
 */
function backupReader(volume: Volume, options: { sha256?: boolean } = {}) {
  const calls = { statBackup: 0, openBackup: 0 };
  const store = {
    kind: 'memfs-test',
    capabilities: { hardLinks: false, serverSideCopy: false, locking: false, sha256: options.sha256 === true },
    workspaceFs: volume.promises as unknown as WorkspaceFs,
    async putBackup(): Promise<BackupInfo> {
      throw new Error('change detection never writes backups');
    },
    async statBackup(_sessionId: string, name: string): Promise<BackupInfo | null> {
      calls.statBackup += 1;
      try {
        const stats = await volume.promises.stat(`/backups/${name}`);
        const bytes = await volume.promises.readFile(`/backups/${name}`);
        return {
          size: Number(stats.size),
          mode: Number(stats.mode) & 0o7777,
          ...(options.sha256 === true ? { sha256: createHash('sha256').update(bytes as Buffer).digest('hex') } : {}),
        };
      } catch {
        return null;
      }
    },
    async openBackup(_sessionId: string, name: string): Promise<AsyncIterable<Uint8Array>> {
      calls.openBackup += 1;
      const bytes = await volume.promises.readFile(`/backups/${name}`).then(
        (content) => new Uint8Array(content as Buffer),
        (error: unknown) => {
          throw new NotFoundError(`backup ${name} does not exist`, { cause: error });
        },
      );
      return (async function* chunks() {
        for (let offset = 0; offset < bytes.length; offset += 3) yield bytes.subarray(offset, offset + 3);
      })();
    },
  };
  return { store: store as unknown as BackupStore, calls };
}

let volume: Volume;
let calls: { statBackup: number; openBackup: number };
let context: FileHistoryContext;

async function setUp(options: { sha256?: boolean } = {}) {
  volume = new Volume();
  await volume.promises.mkdir('/backups', { recursive: true });
  await volume.promises.mkdir('/project', { recursive: true });
  const reader = backupReader(volume, options);
  calls = reader.calls;
  context = createFileHistoryContext({ projectRoot: '/project', sessionId: 's', store: reader.store, timestampGranularityMs: 100 });
}

async function file(path: string, content: string | Uint8Array, mode = 0o644) {
  await volume.promises.writeFile(path, content);
  await volume.promises.chmod(path, mode);
}

function entry(overrides: Partial<StoredBackup> = {}): StoredBackup {
  return { backupFileName: 'b@v1', version: 1, backupTime: new Date(), size: 5, mode: 0o644, ...overrides };
}

async function check(backup: StoredBackup) {
  return checkFileChanged(context, '/project/f', await context.fs.stat('/project/f'), backup);
}

describe('checkFileChanged', () => {
  beforeEach(async () => {
    await setUp();
    await file('/backups/b@v1', 'hello');
  });

  it('calls a different size changed without reading anything', async () => {
    await file('/project/f', 'hello!');
    expect(await check(entry())).toEqual({ changed: true, reason: 'size' });
    expect(calls).toEqual({ statBackup: 0, openBackup: 0 });
  });

  it('calls different permission bits changed without reading anything', async () => {
    await file('/project/f', 'hello', 0o755);
    expect(await check(entry())).toEqual({ changed: true, reason: 'mode' });
    expect(calls).toEqual({ statBackup: 0, openBackup: 0 });
  });

  it('trusts timestamps older than the backup time minus the granularity', async () => {
    await file('/project/f', 'HELLO');
    expect(await check(entry({ backupTime: new Date(Date.now() + 10_000) }))).toEqual({ changed: false, by: 'timestamps' });
    expect(calls.openBackup).toBe(0);
  });

  it('compares bytes when the file changed within the granularity of the backup time', async () => {
    await file('/project/f', 'hellO');
    expect(await check(entry({ backupTime: new Date(Date.now() + 50) }))).toEqual({ changed: true, reason: 'content' });
    expect(calls.openBackup).toBe(1);
  });

  it('catches a same-size edit whose mtime was set back, through ctime', async () => {
    const backupTime = new Date();
    await file('/project/f', 'jello');
    await volume.promises.utimes('/project/f', new Date(backupTime.getTime() - 60_000), new Date(backupTime.getTime() - 60_000));
    expect(await check(entry({ backupTime }))).toEqual({ changed: true, reason: 'content' });
  });

  it('reports identical bytes as unchanged with the moment verification started', async () => {
    await file('/project/f', 'hello');
    const before = Date.now();
    const result = await check(entry());
    expect(result).toMatchObject({ changed: false, by: 'content' });
    expect((result as { verifiedAt: Date }).verifiedAt.getTime()).toBeGreaterThanOrEqual(before);
  });

  it('never calls different invalid UTF-8 bytes equal', async () => {
    await file('/backups/b@v1', new Uint8Array([0xff, 0x80, 0x80]));
    await file('/project/f', new Uint8Array([0xff, 0x80, 0x81]));
    expect(await check(entry({ size: 3 }))).toEqual({ changed: true, reason: 'content' });
  });

  it('uses statBackup for entries without size and mode (Claude Code data), reading the backup time from an ISO string', async () => {
    await file('/project/f', 'hello');
    const claudeEntry = { backupFileName: 'b@v1', version: 1, backupTime: new Date(Date.now() + 10_000).toISOString() } as unknown as StoredBackup;
    expect(await check(claudeEntry)).toEqual({ changed: false, by: 'timestamps' });
    expect(calls).toEqual({ statBackup: 1, openBackup: 0 });
  });

  it('reports a backup the store no longer has as backup-missing', async () => {
    await file('/project/f', 'hello');
    expect(await check(entry({ backupFileName: 'gone@v1', size: undefined, mode: undefined }))).toEqual({ changed: true, reason: 'backup-missing' });
    // A backup time before the file's mtime, so the timestamps cannot settle it and the bytes are needed.
    expect(await check(entry({ backupFileName: 'gone@v1', backupTime: new Date(0) }))).toEqual({ changed: true, reason: 'backup-missing' });
  });

  it('hashes the workspace file instead of reading the backup when the store records sha256', async () => {
    await setUp({ sha256: true });
    await file('/backups/b@v1', 'hello');
    await file('/project/f', 'hello');
    expect(await check(entry())).toMatchObject({ changed: false, by: 'content' });
    await file('/project/f', 'hellp');
    expect(await check(entry())).toEqual({ changed: true, reason: 'content' });
    expect(calls).toEqual({ statBackup: 2, openBackup: 0 });
  });
});

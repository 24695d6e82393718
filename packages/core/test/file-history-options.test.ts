import { Volume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { FileHistory, InvalidArgumentError, type BackupStore } from '../src/index.js';

const store = {
  putBackup: async () => ({ size: 0, mode: 0 }),
  workspaceFs: new Volume().promises,
  sessionLog: () => ({}),
  capabilities: { hardLinks: false, serverSideCopy: false, locking: false, sha256: false },
} as unknown as BackupStore;

describe('FileHistory.open options', () => {
  it('refuses a relative project root, an empty session id, a missing store and bad knobs, naming each', async () => {
    await expect(FileHistory.open({ projectRoot: 'relative', sessionId: 's', store })).rejects.toThrow('projectRoot must be an absolute path, got "relative"');
    await expect(FileHistory.open({ projectRoot: '/p', sessionId: '', store })).rejects.toThrow('sessionId must be a non-empty string, got ""');
    await expect(FileHistory.open({ projectRoot: '/p', sessionId: 's', store: undefined as unknown as BackupStore })).rejects.toThrow(
      'store must be a BackupStore (for example an FsBackupStore), got undefined',
    );
    await expect(FileHistory.open({ projectRoot: '/p', sessionId: 's', store, concurrency: 0 })).rejects.toThrow('concurrency must be a positive integer, got 0');
    await expect(FileHistory.open({ projectRoot: '/p', sessionId: 's', store, concurrency: '4' as never })).rejects.toThrow('concurrency must be a positive integer, got "4"');
    await expect(FileHistory.open({ projectRoot: '/p', sessionId: 's', store, rebuild: 'newest' as never })).rejects.toThrow(
      new InvalidArgumentError(`rebuild must be 'all' or 'latest', got "newest"`),
    );
    await expect(FileHistory.open(undefined as never)).rejects.toThrow(
      new InvalidArgumentError('FileHistory.open takes an options object ({ projectRoot, sessionId, store }), got undefined'),
    );
    await expect(FileHistory.open({ projectRoot: '/p', sessionId: 's', store, timestampGranularityMs: -1 })).rejects.toThrow(InvalidArgumentError);
    await expect(FileHistory.open({ projectRoot: '/p', sessionId: 's', store, diffSizeCapBytes: Number.NaN })).rejects.toThrow(
      'diffSizeCapBytes must be a finite number >= 0, got NaN',
    );
  });

  it('reads FH_DISABLE_FILE_CHECKPOINTING as 1 or true, and otherwise stays on', async () => {
    for (const value of ['1', 'true', 'TRUE']) {
      expect((await FileHistory.open({ projectRoot: '/p', sessionId: 's', store, env: { FH_DISABLE_FILE_CHECKPOINTING: value } })).enabled).toBe(false);
    }
    for (const value of ['0', '', 'no']) {
      expect((await FileHistory.open({ projectRoot: '/p', sessionId: 's', store, env: { FH_DISABLE_FILE_CHECKPOINTING: value }, log: false })).enabled).toBe(true);
    }
  });
});

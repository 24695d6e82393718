import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3rver, type S3rverHarness } from './s3rver-harness.js';
import { recordSdkImports } from './sdk-imports.js';

// Which SDK modules the store imports, and when (the harness imported the client module before).
const imported = recordSdkImports();
const { S3BackupStore } = await import('../src/index.js');

let server: S3rverHarness;
let folder: string;

beforeAll(async () => {
  server = await startS3rver();
  folder = await mkdtemp(join(tmpdir(), 'fh-s3-lazy-'));
});

afterAll(async () => {
  await server.close();
  await rm(folder, { recursive: true, force: true });
});

describe('S3BackupStore loads the AWS SDK only when it needs it', () => {
  it('no SDK for a store that sends nothing, the client for a small backup, the multipart uploader only for a big one', async () => {
    const store = new S3BackupStore({ bucket: server.bucket, prefix: `lazy-${randomUUID()}`, clientConfig: server.clientConfig, partSizeBytes: 5 * 1024 * 1024 });
    const session = 'lazy-session';
    store.sessionLog(session);
    expect(store.containsPath('/tmp/x')).toBe(false);
    expect(imported).toEqual([]);

    const small = join(folder, 'small.txt');
    await writeFile(small, 'small backup\n', { mode: 0o640 });
    expect(await store.putBackup(session, 'small@v1', small)).toEqual({ size: 13, mode: 0o640, sha256: createHash('sha256').update('small backup\n').digest('hex') });
    expect(imported).toEqual(['@aws-sdk/client-s3']);
    const restoredSmall = join(folder, 'small-restored.txt');
    await store.restoreBackup(session, 'small@v1', restoredSmall);
    expect(await readFile(restoredSmall, 'utf8')).toBe('small backup\n');

    const big = join(folder, 'big.bin');
    const bytes = randomBytes(6 * 1024 * 1024 + 17);
    await writeFile(big, bytes);
    expect((await store.putBackup(session, 'big@v1', big)).size).toBe(bytes.length);
    expect(imported).toEqual(['@aws-sdk/client-s3', '@aws-sdk/lib-storage']);
    const restoredBig = join(folder, 'big-restored.bin');
    await store.restoreBackup(session, 'big@v1', restoredBig);
    expect((await readFile(restoredBig)).equals(bytes)).toBe(true);
    store.destroy();
  });
});

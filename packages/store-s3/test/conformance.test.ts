import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { runConformanceSuite } from '@fh/store-test-suite';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { S3BackupStore } from '../src/index.js';
import { startS3rver, type S3rverHarness } from './s3rver-harness.js';

let server: S3rverHarness;
let raw: S3Client;

beforeAll(async () => {
  server = await startS3rver();
  raw = server.createClient();
});

afterAll(async () => {
  raw.destroy();
  await server.close();
});

/** Every object under `prefix` with its bytes, read straight from the bucket (not through the store). */
async function readObjects(prefix: string): Promise<Array<{ name: string; bytes: Uint8Array; mode: number }>> {
  const objects: Array<{ name: string; bytes: Uint8Array; mode: number }> = [];
  let continuationToken: string | undefined;
  do {
    const page = await raw.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: prefix, ContinuationToken: continuationToken }));
    const keys = (page.Contents ?? []).map((object) => object.Key!);
    for (let start = 0; start < keys.length; start += 32) {
      const batch = keys.slice(start, start + 32).map(async (key) => {
        const response = await raw.send(new GetObjectCommand({ Bucket: server.bucket, Key: key }));
        const bytes = await response.Body!.transformToByteArray();
        return { name: key.slice(prefix.length), bytes, mode: Number.parseInt(response.Metadata?.['fh-mode'] ?? 'NaN', 8) };
      });
      objects.push(...(await Promise.all(batch)));
    }
    continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (continuationToken !== undefined);
  return objects;
}

// Once through the AWS SDK's client, once through the store's signed-request client (what the
// fh CLI uses where it covers the configuration, see signed-client.ts).
for (const signedRequests of [false, true]) {
  runConformanceSuite({
    name: signedRequests ? 's3 (signed requests)' : 's3',
    realFileSystem: true,
    // 1,000 rather than 5,000 files keeps the suite near 20 s against s3rver (each backup is an HTTP
    // request); the fs store runs the full 5,000 under the same open-files limit.
    manyFilesCount: 1000,
    async createHarness() {
      const base = await mkdtemp(join(tmpdir(), 'fh-conformance-s3-'));
      const projectRoot = join(base, 'project');
      await mkdir(projectRoot);
      const prefix = `conformance-${randomUUID()}`;
      const store = new S3BackupStore({ bucket: server.bucket, prefix, clientConfig: server.clientConfig, signedRequests });
      const sessionPrefix = (sessionId: string) => `${prefix}/file-history/${sessionId}/`;
      return {
        store,
        projectRoot,
        async listBackupObjects(sessionId) {
          const result: Record<string, { bytes: Uint8Array; mode: number }> = {};
          for (const { name, bytes, mode } of await readObjects(sessionPrefix(sessionId))) result[name] = { bytes, mode };
          return result;
        },
        async removeBackupObject(sessionId, backupFileName) {
          await raw.send(new DeleteObjectCommand({ Bucket: server.bucket, Key: `${sessionPrefix(sessionId)}${backupFileName}` }));
        },
        async replaceBackupBytes(sessionId, backupFileName, bytes) {
          const key = `${sessionPrefix(sessionId)}${backupFileName}`;
          const head = await raw.send(new HeadObjectCommand({ Bucket: server.bucket, Key: key }));
          await raw.send(new PutObjectCommand({ Bucket: server.bucket, Key: key, Body: bytes, Metadata: head.Metadata }));
        },
        async cleanup() {
          store.destroy();
          await rm(base, { recursive: true, force: true });
        },
      };
    },
  });
}

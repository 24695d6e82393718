/**
 * Issue 6's cross-machine resume: machine 1 (a child process) works in folder 1 with the S3 store
 * over four turns and is gone, folder and all; machine 2 (another child process) starts in an
 * empty folder 2 with only the bucket, resumes the session into a new one and rewinds to
 * machine 1's first turn. Exact bytes and modes.
 */
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { backupFileName } from '@fh/core';
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runFixture } from './child-process.js';
import { startS3rver, type S3rverHarness } from './s3rver-harness.js';

const OLD_SESSION = 'a0a0a0a0-0000-4000-8000-000000000001';
const NEW_SESSION = 'b0b0b0b0-0000-4000-8000-000000000002';

const ORIGINAL = {
  'src/app.ts': { content: 'console.log("v0");\n', mode: 0o644 },
  'bin/run.sh': { content: '#!/bin/sh\necho original\n', mode: 0o755 },
  'README.md': { content: 'not tracked\n', mode: 0o600 },
} as const;

let server: S3rverHarness;
let raw: S3Client;
const folders: string[] = [];

beforeAll(async () => {
  server = await startS3rver();
  raw = server.createClient();
});

afterAll(async () => {
  raw.destroy();
  await server.close();
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function temporaryFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'fh-s3-machine-'));
  folders.push(folder);
  return folder;
}

/** Every regular file under `folder` (relative path → bytes as hex and permission bits). */
async function filesOf(folder: string): Promise<Record<string, { hex: string; mode: number }>> {
  const files: Record<string, { hex: string; mode: number }> = {};
  for (const entry of await readdir(folder, { recursive: true })) {
    const stats = await stat(join(folder, entry));
    if (stats.isFile()) files[entry] = { hex: (await readFile(join(folder, entry))).toString('hex'), mode: stats.mode & 0o7777 };
  }
  return files;
}

/** Every object under `prefix` (key → bytes as hex and fh metadata). */
async function objectsOf(prefix: string): Promise<Record<string, { hex: string; metadata: Record<string, string> | undefined }>> {
  const objects: Record<string, { hex: string; metadata: Record<string, string> | undefined }> = {};
  const listing = await raw.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: prefix }));
  for (const { Key: key } of listing.Contents ?? []) {
    const response = await raw.send(new GetObjectCommand({ Bucket: server.bucket, Key: key }));
    objects[key!.slice(prefix.length)] = { hex: Buffer.from(await response.Body!.transformToByteArray()).toString('hex'), metadata: response.Metadata };
  }
  return objects;
}

function hex(text: string): string {
  return Buffer.from(text).toString('hex');
}

it('resumes on another machine from the bucket alone and rewinds to the first turn, exact bytes and modes', { timeout: 60_000 }, async () => {
  const prefix = `cross-machine-${randomUUID()}`;
  const machineOne = await temporaryFolder();
  const folderOne = join(machineOne, 'project');
  for (const [path, { content, mode }] of Object.entries(ORIGINAL)) {
    await mkdir(join(folderOne, path, '..'), { recursive: true });
    await writeFile(join(folderOne, path), content);
    await chmod(join(folderOne, path), mode);
  }

  const first = JSON.parse(await runFixture('record-turns.ts', [server.endpoint, server.bucket, prefix, folderOne, OLD_SESSION], folderOne));
  expect(first).toEqual({ snapshots: ['turn-1', 'turn-2', 'turn-3', 'turn-4'] });
  const oldBackups = await objectsOf(`${prefix}/file-history/${OLD_SESSION}/`);
  expect(oldBackups[backupFileName(join(folderOne, 'src/app.ts'), 1)]?.hex).toBe(hex(ORIGINAL['src/app.ts'].content));
  expect(oldBackups[backupFileName(join(folderOne, 'bin/run.sh'), 1)]?.metadata?.['fh-mode']).toBe('755');
  await rm(machineOne, { recursive: true, force: true });

  const machineTwo = await temporaryFolder();
  const folderTwo = join(machineTwo, 'project');
  await mkdir(folderTwo);
  const second = JSON.parse(
    await runFixture('resume-and-rewind.ts', [server.endpoint, server.bucket, prefix, folderTwo, OLD_SESSION, NEW_SESSION, 'turn-1'], machineTwo),
  );

  expect(second.canRestore).toBe(true);
  expect(second.resume.missing).toEqual([]);
  expect(second.resume.linked).toEqual([]);
  expect(second.resume.copied).toEqual(Object.keys(oldBackups).sort());
  expect(second.diffStats.filesChanged).toEqual(['bin/run.sh', 'src/app.ts']);
  expect(second.rewind).toEqual({ messageId: 'turn-1', restored: ['bin/run.sh', 'src/app.ts'], deleted: [], skipped: [], failed: [] });
  expect(second.snapshots).toEqual(['turn-1', 'turn-2', 'turn-3', 'turn-4', 'resumed-turn']);

  expect(await filesOf(folderTwo)).toEqual({
    'bin/run.sh': { hex: hex(ORIGINAL['bin/run.sh'].content), mode: 0o755 },
    'src/app.ts': { hex: hex(ORIGINAL['src/app.ts'].content), mode: 0o644 },
  });

  expect(await objectsOf(`${prefix}/file-history/${OLD_SESSION}/`)).toEqual(oldBackups);
  const newBackups = await objectsOf(`${prefix}/file-history/${NEW_SESSION}/`);
  for (const name of Object.keys(oldBackups)) expect(newBackups[name]).toEqual(oldBackups[name]);
  const appEntry = second.after.trackedFileBackups['src/app.ts'];
  expect(newBackups[appEntry.backupFileName]?.hex).toBe(hex(ORIGINAL['src/app.ts'].content));
});

import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runRoundTripChild, sha256OfFile, writeRandomFile } from './round-trip.js';
import { startS3rver, type S3rverHarness } from './s3rver-harness.js';

const SIZE = 200 * 1024 * 1024;
/** Issue 6: a 1 GiB file goes through with peak memory under 250 MB; 200 MB must do no worse. */
const PEAK_RSS_LIMIT = 250 * 1000 * 1000;

let server: S3rverHarness;
let folder: string;

beforeAll(async () => {
  server = await startS3rver();
  folder = await mkdtemp(join(tmpdir(), 'fh-s3-memory-'));
});

afterAll(async () => {
  await server.close();
  await rm(folder, { recursive: true, force: true });
});

it('streams a 200 MB backup up and back down with peak memory under 250 MB', { timeout: 120_000 }, async () => {
  const source = join(folder, 'large.bin');
  const destination = join(folder, 'large.restored');
  const expectedSha256 = await writeRandomFile(source, SIZE);

  const result = await runRoundTripChild(server.endpoint, server.bucket, source, destination);

  expect(result.put).toEqual({ size: SIZE, mode: 0o644, sha256: expectedSha256 });
  expect(result.stat).toEqual({ size: SIZE, mode: 0o644, sha256: expectedSha256 });
  expect((await stat(destination)).size).toBe(SIZE);
  expect(await sha256OfFile(destination)).toBe(expectedSha256);
  expect(result.peakRssBytes).toBeLessThan(PEAK_RSS_LIMIT);
  console.info(
    `200 MiB round trip: put ${Math.round(result.putMs)} ms, restore ${Math.round(result.restoreMs)} ms, ` +
      `child peak RSS ${(result.peakRssBytes / 1e6).toFixed(1)} MB`,
  );
});

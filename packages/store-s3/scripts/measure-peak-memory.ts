/**
 * Measure the store's peak memory on a large streamed round trip (issue 6: 1 GiB under 250 MB).
 * Starts s3rver on 127.0.0.1, writes a random file by streaming, and backs it up and restores it
 * in a child process whose peak RSS is reported next to a 1 MiB baseline run (the same child
 * with a tiny file: what the runtime and the SDK take by themselves).
 *
 *   npm run measure-memory -w @fh/store-s3 -- [size in MiB, default 1024]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runRoundTripChild, sha256OfFile, writeRandomFile } from '../test/round-trip.js';
import { startS3rver } from '../test/s3rver-harness.js';

const sizeMiB = Number(process.argv[2] ?? 1024);
const server = await startS3rver();
const folder = await mkdtemp(join(tmpdir(), 'fh-s3-peak-memory-'));
try {
  const runs: Array<[string, number]> = [
    ['baseline 1 MiB', 1024 * 1024],
    [`${sizeMiB} MiB`, sizeMiB * 1024 * 1024],
  ];
  for (const [label, size] of runs) {
    const source = join(folder, 'source.bin');
    const destination = join(folder, 'restored.bin');
    const expected = await writeRandomFile(source, size);
    const result = await runRoundTripChild(server.endpoint, server.bucket, source, destination);
    const restored = await sha256OfFile(destination);
    if (result.put.sha256 !== expected || restored !== expected) throw new Error(`${label}: round trip changed the bytes`);
    const mibPerSecond = (ms: number) => (size / 1024 / 1024 / (ms / 1000)).toFixed(0);
    console.log(
      `${label.padEnd(16)} put ${Math.round(result.putMs)} ms (${mibPerSecond(result.putMs)} MiB/s), ` +
        `restore ${Math.round(result.restoreMs)} ms (${mibPerSecond(result.restoreMs)} MiB/s), ` +
        `peak RSS ${(result.peakRssBytes / 1e6).toFixed(1)} MB, bytes verified`,
    );
    await rm(source);
    await rm(destination);
  }
} finally {
  await server.close();
  await rm(folder, { recursive: true, force: true });
}

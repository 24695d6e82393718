/**
 * S3 figures for `npm run bench` (issue 6): `makeSnapshot` and `rewind` with `@fh/store-s3`
 * against s3rver on 127.0.0.1 (started here, in this process), interleaved round by round with
 * the same operations on `@fh/store-fs`, so the S3 / fs ratios come from one run on one machine.
 *
 * s3rver is a local stand-in: every request is a loopback HTTP round trip plus s3rver's own
 * writes (object, metadata and MD5 files) in this process, so the ratios show the cost of going
 * through the S3 protocol, not a real S3 network's latency.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileHistory, type BackupStore } from '@fh/core';
import { S3BackupStore } from '@fh/store-s3';
import S3rver from 's3rver';
import { interleave } from './measure.js';
import { editFiles } from './workspace.js';

/** What {@link measureS3} works on: the benchmark's project and the files it tracks and edits. */
export interface S3BenchInput {
  /** Absolute project folder (the benchmark's workspace). */
  project: string;
  /** Tracked files, relative to `project`. */
  tracked: readonly string[];
  /** The subset edited before each round. */
  changed: readonly string[];
  /** The fs store the S3 store is compared with. */
  fsStore: BackupStore;
  /** Rounds per scenario. */
  rounds: number;
  /** Wait past the timestamp granularity, so unchanged files are settled before timing. */
  settle(): Promise<void>;
}

/** Times in ms per contender (`fs`, `s3`) of each scenario. */
export interface S3BenchTimes {
  snapshot: Map<string, number[]>;
  rewind: Map<string, number[]>;
}

/** Start s3rver, time makeSnapshot and rewind on both stores, stop s3rver. */
export async function measureS3(input: S3BenchInput): Promise<S3BenchTimes> {
  // fh pins its AWS SDK version, so the SDK's notice that later versions will need Node 22 is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const directory = await mkdtemp(join(tmpdir(), 'fh-bench-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: 'fh-bench', configs: [] }] });
  const { port } = await server.run();
  const s3Store = new S3BackupStore({
    bucket: 'fh-bench',
    prefix: 'bench',
    clientConfig: {
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    },
  });
  const histories: FileHistory[] = [];
  try {
    const open = async (sessionId: string, store: BackupStore) => {
      const history = await FileHistory.open({ projectRoot: input.project, sessionId, store });
      histories.push(history);
      await history.makeSnapshot('setup-0');
      await Promise.all(input.tracked.map((path) => history.trackEdit(path)));
      await history.makeSnapshot('setup-1');
      return history;
    };
    const snapshots = { fs: await open('s3-bench-snapshot-fs', input.fsStore), s3: await open('s3-bench-snapshot-s3', s3Store) };
    const rewinds = { fs: await open('s3-bench-rewind-fs', input.fsStore), s3: await open('s3-bench-rewind-s3', s3Store) };
    await input.settle();
    for (const history of [...Object.values(snapshots), ...Object.values(rewinds)]) await history.makeSnapshot('setup-2');
    for (const history of Object.values(rewinds)) await history.makeSnapshot('target');

    const snapshot = await interleave(
      input.rounds,
      Object.entries(snapshots).map(([name, history]) => ({
        name,
        prepare: (round: number) => editFiles(input.project, input.changed, round, `s3-bench-${name}`),
        run: async (round: number) => {
          await history.makeSnapshot(`turn-${round}`);
        },
      })),
    );
    const rewind = await interleave(
      input.rounds,
      Object.entries(rewinds).map(([name, history]) => ({
        name,
        prepare: (round: number) => editFiles(input.project, input.changed, round, `s3-bench-rewind-${name}`),
        run: async () => {
          const result = await history.rewind('target');
          if (result.restored.length !== input.changed.length) {
            throw new Error(`${name} rewind restored ${result.restored.length} files, expected ${input.changed.length}`);
          }
        },
      })),
    );
    return { snapshot, rewind };
  } finally {
    for (const history of histories) await history.close();
    s3Store.destroy();
    await server.close();
    await rm(directory, { recursive: true, force: true });
  }
}

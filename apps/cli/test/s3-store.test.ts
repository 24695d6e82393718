/**
 * `fh --store s3://bucket/prefix` end to end: the built CLI against s3rver on 127.0.0.1 (random
 * port, temp folder; see /work/shared/toolchain.md and packages/store-s3/test/s3rver-harness.ts),
 * configured only through the environment as a user would (AWS_ENDPOINT_URL_S3, credentials,
 * WHEN_REQUIRED checksums, which s3rver needs).
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTree, runCli, sandbox, writeFiles, type CliResult, type Sandbox } from './helpers.js';

const SESSION = 's3-session';
const server = { bucket: 'fh-cli-test', endpoint: '' };
let s3rver: S3rver;
let s3rverFolder: string;
let raw: S3Client;

beforeAll(async () => {
  s3rverFolder = await mkdtemp(join(tmpdir(), 'fh-cli-s3rver-'));
  s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3rverFolder, configureBuckets: [{ name: server.bucket, configs: [] }] });
  const { port } = await s3rver.run();
  server.endpoint = `http://127.0.0.1:${port}`;
  raw = new S3Client({
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
});

afterAll(async () => {
  raw.destroy();
  await s3rver.close();
  await rm(s3rverFolder, { recursive: true, force: true });
});

function s3Environment(endpoint: string): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
  };
}

function fhS3(box: Sandbox, uri: string, args: readonly string[], endpoint = server.endpoint): Promise<CliResult> {
  return runCli(['--store', uri, '--project', box.project, ...args], { cwd: box.project, home: box.home, env: s3Environment(endpoint) });
}

async function keysUnder(prefix: string): Promise<string[]> {
  const listing = await raw.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: prefix }));
  return (listing.Contents ?? []).map((object) => object.Key!.slice(prefix.length));
}

describe('fh --store s3://bucket/prefix', () => {
  it('snapshots, lists and rewinds with backups and records in the bucket, exact bytes and modes', async () => {
    const box = await sandbox();
    const uri = `s3://${server.bucket}/cli-${randomUUID()}`;
    const prefix = `${uri.slice(`s3://${server.bucket}/`.length)}/`;
    await writeFiles(box.project, { 'a.txt': 'one\n', 'run.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 } });

    expect((await fhS3(box, uri, ['--session', SESSION, 'snapshot', 'm1', '--prompt', 'first prompt'])).exitCode).toBe(0);
    expect((await fhS3(box, uri, ['--session', SESSION, 'track', 'a.txt', 'run.sh', 'c.txt'])).exitCode).toBe(0);
    await writeFiles(box.project, { 'a.txt': 'one\ntwo\n', 'c.txt': 'new file\n', 'run.sh': { content: '#!/bin/sh\necho bye\n', mode: 0o700 } });
    expect((await fhS3(box, uri, ['--session', SESSION, 'snapshot', 'm2', '--prompt', 'second prompt'])).exitCode).toBe(0);

    const list = await fhS3(box, uri, ['--json', '--session', SESSION, 'list']);
    expect(list.exitCode).toBe(0);
    expect((JSON.parse(list.stdout) as { checkpoints: Array<{ messageId: string; filesChanged: string[] }> }).checkpoints.map(
      ({ messageId, filesChanged }) => [messageId, filesChanged],
    )).toEqual([
      ['m1', ['a.txt', 'c.txt', 'run.sh']],
      ['m2', []],
    ]);

    const rewind = await fhS3(box, uri, ['--json', '--session', SESSION, 'rewind', 'm1', '--yes']);
    expect(rewind.exitCode).toBe(0);
    expect(JSON.parse(rewind.stdout).code).toEqual({ restored: ['a.txt', 'run.sh'], deleted: ['c.txt'], skipped: [], failed: [] });
    expect(await readTree(box.project)).toEqual({
      'a.txt': { content: 'one\n', mode: 0o644 },
      'run.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 },
    });

    const backups = await keysUnder(`${prefix}file-history/${SESSION}/`);
    expect(backups.length).toBeGreaterThanOrEqual(4);
    expect(backups.filter((name) => /^[0-9a-f]{16}@v\d+$/.test(name))).toHaveLength(5);
    expect(backups.filter((name) => /^[0-9a-f]{16}@undo-[0-9a-f]{12}$/.test(name))).toHaveLength(3);
    expect(backups).toHaveLength(8);
    // One object per append, or a compacted run of appends (log layout 2), and the lock object: a
    // released lease once the last command released it (lock layout 2).
    const sessionObjects = await keysUnder(`${prefix}sessions/${SESSION}/`);
    expect(sessionObjects.filter((name) => name !== 'lock.json').every((name) => /^(\d{16}-)?\d{16}\.jsonl$/.test(name))).toBe(true);
    expect(sessionObjects).toContain('lock.json');

    const sessions = await fhS3(box, uri, ['--json', 'sessions']);
    expect(JSON.parse(sessions.stdout)).toMatchObject({ source: uri, sessions: [{ sessionId: SESSION, checkpoints: 2 }] });
    expect(sessions.stderr).toBe('');
  });

  it('fails with one line naming the endpoint and bucket when S3 cannot be reached, touching no file', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'keep\n' });

    const result = await fhS3(box, `s3://${server.bucket}/down`, ['--session', SESSION, 'snapshot', 'm1'], 'http://127.0.0.1:1');

    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`(S3 at http://127.0.0.1:1, bucket "${server.bucket}", cannot be reached or keeps failing after retries)`);
    expect(await readTree(box.project)).toEqual({ 'a.txt': { content: 'keep\n', mode: 0o644 } });
  });

  it('fh hook: an edit whose bucket does not exist is blocked (exit 2), through the signed-request client and the SDK', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'a.txt': 'precious\n' });
    const event = JSON.stringify({ session_id: 'nb', cwd: box.project, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: 'a.txt' } });
    for (const client of ['signed', 'sdk']) {
      const result = await runCli(['--store', 's3://no-such-bucket/x', 'hook'], { cwd: box.project, home: box.home, input: event, env: { ...s3Environment(server.endpoint), FH_S3_CLIENT: client } });
      expect({ client, exitCode: result.exitCode, stdout: result.stdout }).toEqual({ client, exitCode: 2, stdout: '' });
      expect(result.stderr).toMatch(/^fh hook: could not back up a\.txt before the Edit call: the store cannot be used: .*no-such-bucket.*\. The Edit call was blocked so that no edit goes ahead without its backup: nothing was changed; fix what is named above and retry it, or set FH_DISABLE_FILE_CHECKPOINTING=1 to let edits go ahead without backups\.\n$/);
    }
    expect(await readFile(join(box.project, 'a.txt'), 'utf8')).toBe('precious\n');
  });

  it('fh hook: a prompt, an edit of a new file and an ignored event load no AWS SDK (the signed-request client sends); FH_S3_CLIENT=sdk loads it', async () => {
    const box = await sandbox();
    await writeFiles(box.project, { 'build.sh': { content: '#!/bin/sh\necho build\n', mode: 0o755 } });
    // Which bundled files the hook process runs (it reads each with readFileSync: code-cache.ts).
    const preload = join(box.home, 'loaded.cjs');
    await writeFile(
      preload,
      "const fs = require('node:fs'); const read = fs.readFileSync; const seen = new Set();\n" +
        "fs.readFileSync = function (file, ...rest) { if (typeof file === 'string' && file.endsWith('.cjs')) seen.add(require('node:path').basename(file)); return read.call(this, file, ...rest); };\n" +
        "process.on('exit', () => fs.appendFileSync(process.env.FH_TEST_LOADED, [...seen].sort().join(',') + '\\n'));\n",
    );
    const loaded = join(box.home, 'loaded.txt');
    const prefix = `hook-${randomUUID()}`;
    const fixture = async (name: string, session: string) =>
      (await readFile(new URL(`./fixtures/hooks/${name}.json`, import.meta.url), 'utf8')).replaceAll('__PROJECT__', box.project).replaceAll('__HOME__', box.home).replaceAll('__SESSION__', session);
    const hook = async (name: string, session: string, extra: Record<string, string> = {}) =>
      runCli(['--store', `s3://${server.bucket}/${prefix}`, 'hook'], {
        cwd: box.project,
        home: box.home,
        input: await fixture(name, session),
        env: { ...s3Environment(server.endpoint), CLAUDE_PROJECT_DIR: box.project, NODE_OPTIONS: `--require ${preload}`, FH_TEST_LOADED: loaded, ...extra },
      });
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    expect(await hook('user-prompt-submit', 'signed')).toEqual(quiet);
    expect(await hook('pre-tool-use-edit', 'signed')).toEqual(quiet);
    expect(await hook('post-tool-use-write', 'signed')).toEqual(quiet);
    expect(await keysUnder(`${prefix}/file-history/signed/`)).toHaveLength(1);
    expect((await keysUnder(`${prefix}/sessions/signed/`)).length).toBeGreaterThanOrEqual(3);
    expect((await readFile(loaded, 'utf8')).split('\n')).toEqual(['hook-act.cjs', 'hook-act.cjs', '', '']);
    await rm(loaded);
    expect(await hook('user-prompt-submit', 'sdk', { FH_S3_CLIENT: 'sdk' })).toEqual(quiet);
    expect(await readFile(loaded, 'utf8')).toBe('hook-act.cjs,hook-aws-sdk.cjs\n');
  });
});

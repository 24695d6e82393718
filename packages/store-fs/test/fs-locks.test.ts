import { LockedError } from '@fh/core';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FsBackupStore } from '../src/index.js';
import { temporaryFolder } from './helpers.js';

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Start a node process that takes the session lock; resolves once it holds it. */
async function holdLockInChild(root: string, sessionId: string, staleMs: number, halfWritten?: string): Promise<ChildProcess> {
  const tsx = createRequire(import.meta.url).resolve('tsx');
  const script = fileURLToPath(new URL('./fixtures/hold-session-lock.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', tsx, script, root, sessionId, String(staleMs), ...(halfWritten === undefined ? [] : [halfWritten])], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  let errors = '';
  child.stderr!.on('data', (data: Buffer) => (errors += data.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (data: Buffer) => {
      output += data.toString();
      if (output.includes('locked\n')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`lock holder exited with ${code}: ${errors}`)));
  });
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

describe('session locks', () => {
  it('a second lock in the same process throws LockedError naming the session, until released', async () => {
    const root = join(await temporaryFolder(), 'store');
    const store = new FsBackupStore({ root });
    const other = new FsBackupStore({ root });
    expect(await store.isSessionLocked('s1')).toBe(false);
    const lock = await store.lockSession('s1');
    expect((await stat(join(root, 'locks', 's1.lock'))).isDirectory()).toBe(true);
    expect(await other.isSessionLocked('s1')).toBe(true);
    expect(await other.isSessionLocked('s2')).toBe(false);
    const error = await other.lockSession('s1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockedError);
    expect((error as Error).message).toBe(
      `session "s1" is locked: another process or handle has it open (${join(root, 'locks', 's1.lock')}); a lock left by a process that died goes stale after 10 s`,
    );
    await lock.release();
    await lock.release();
    expect(await store.isSessionLocked('s1')).toBe(false);
    await (await other.lockSession('s1')).release();
  });

  it('a holder that stalled past lockStaleMs while another process took its lock over appends nothing: LockedError naming the session', async () => {
    const root = join(await temporaryFolder(), 'store');
    const store = new FsBackupStore({ root, lockStaleMs: 2000 });
    const lock = await store.lockSession('stalled');
    const log = store.sessionLog('stalled');
    await log.append([{ type: 'before' }]);
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const script = fileURLToPath(new URL('./fixtures/take-stale-lock.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', tsx, script, root, 'stalled', '2000'], { stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(child);
    let output = '';
    const said = (line: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => output.includes(`${line}\n`) && resolve();
        child.stdout!.on('data', (data: Buffer) => {
          output += data.toString();
          check();
        });
        child.once('exit', (code) => reject(new Error(`child exited with ${code} before saying ${line}`)));
        check();
      });
    await said('trying');
    // This process stalls (its event loop blocked, so the lock is not refreshed) while the child
    // waits out the stale time and takes the lock over.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 4500);
    await said('locked');
    await expect(log.append([{ type: 'after' }])).rejects.toThrow(
      new LockedError(`session "stalled" lost its lock ${join(root, 'locks', 'stalled.lock')}: this process stalled for over 2 s without refreshing it and another process took it over, so nothing was appended to its log; run the command again`),
    );
    expect(await readFile(join(root, 'sessions', 'stalled.jsonl'), 'utf8')).toBe('{"type":"before"}\n');
    await lock.release();
    child.stdin!.end();
    await exited(child);
    expect(child.exitCode).toBe(0);
  });

  it('a lock held by another process refuses this one until that process releases it', async () => {
    const root = join(await temporaryFolder(), 'store');
    const store = new FsBackupStore({ root });
    const child = await holdLockInChild(root, 'shared', 10_000);
    expect(await store.isSessionLocked('shared')).toBe(true);
    await expect(store.lockSession('shared')).rejects.toThrow('session "shared" is locked');
    child.stdin!.end();
    await exited(child);
    expect(child.exitCode).toBe(0);
    expect(await store.isSessionLocked('shared')).toBe(false);
    await (await store.lockSession('shared')).release();
  });

  it('a lock left by a killed process of this machine is taken over at once', async () => {
    const root = join(await temporaryFolder(), 'store');
    const store = new FsBackupStore({ root, lockStaleMs: 60_000 });
    const child = await holdLockInChild(root, 'crashed', 60_000);
    await expect(store.lockSession('crashed')).rejects.toThrow(LockedError);
    child.kill('SIGKILL');
    await exited(child);
    await (await store.lockSession('crashed')).release();
  });

  it('a lock whose holder is not known to be gone (no holder record: another machine) becomes stale after lockStaleMs and can be taken', async () => {
    const root = join(await temporaryFolder(), 'store');
    const store = new FsBackupStore({ root, lockStaleMs: 2000 });
    const child = await holdLockInChild(root, 'crashed', 2000);
    child.kill('SIGKILL');
    await exited(child);
    await rm(join(root, 'locks', 'crashed.lock', 'holder.json'));
    await expect(store.lockSession('crashed')).rejects.toThrow(LockedError);
    // proper-lockfile may date a fresh lock up to 1 s ahead (its mtime-precision probe), so the
    // lock is stale at most lockStaleMs + 1 s after the holder died.
    await sleep(3200);
    expect(await store.isSessionLocked('crashed')).toBe(false);
    await (await store.lockSession('crashed')).release();
  });

  it('the lock folder holds its holder record from the moment it exists, and release removes both', async () => {
    const root = join(await temporaryFolder(), 'store');
    const store = new FsBackupStore({ root });
    const lock = await store.lockSession('s1');
    expect(JSON.parse(await readFile(join(root, 'locks', 's1.lock', 'holder.json'), 'utf8'))).toEqual({ pid: process.pid, host: hostname() });
    expect(await readdir(join(root, 'locks'))).toEqual(['s1.lock']);
    await lock.release();
    expect(await readdir(join(root, 'locks'))).toEqual([]);
  });

  it('a lock left by an older fh (empty folder, holder record beside it) of a gone process is taken over at once', async () => {
    const root = join(await temporaryFolder(), 'store');
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    await mkdir(join(root, 'locks', 'old.lock'), { recursive: true });
    await writeFile(join(root, 'locks', 'old.lock.holder.json'), `${JSON.stringify({ pid: gone, host: hostname() })}\n`);
    const store = new FsBackupStore({ root, lockStaleMs: 60_000 });
    await (await store.lockSession('old')).release();
    expect(await readdir(join(root, 'locks'))).toEqual([]);
  });

  describe('temp files of a holder that did not release its lock', () => {
    /** A session folder with one backup and, from a lock holder, one half-written temp; another session's temp beside it. */
    async function sessionWithTemp() {
      const root = join(await temporaryFolder(), 'store');
      const folder = join(root, 'file-history', 's1');
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, 'a@v1'), 'a backup');
      await mkdir(join(root, 'file-history', 's2'));
      await writeFile(join(root, 'file-history', 's2', '.fh-tmp-fedcba9876543210-3'), 'another session');
      return { root, folder, temp: join(folder, '.fh-tmp-0123456789abcdef-1') };
    }

    it.each(['SIGKILL', 'SIGTERM'] as const)('the next lock after a holder ended by %s removes the .fh-tmp-* files of its session folder, and nothing else', async (signal) => {
      const { root, folder, temp } = await sessionWithTemp();
      const child = await holdLockInChild(root, 's1', 60_000, temp);
      child.kill(signal);
      await exited(child);
      // SIGTERM: the holder's exit handler released the lock and left the unclean mark; SIGKILL: the dead holder's lock is taken over.
      if (signal === 'SIGTERM') expect((await readdir(join(root, 'locks'))).sort()).toEqual(['s1.lock.unclean']);
      const lock = await new FsBackupStore({ root, lockStaleMs: 60_000 }).lockSession('s1');
      try {
        expect(await readdir(folder)).toEqual(['a@v1']);
        expect(await readdir(join(root, 'file-history', 's2'))).toEqual(['.fh-tmp-fedcba9876543210-3']);
        expect(await readdir(join(root, 'locks'))).toEqual(['s1.lock']);
      } finally {
        await lock.release();
      }
    });

    it('a stale lock taken over leaves the unclean mark, so its session folder is tidied', async () => {
      const { root, folder, temp } = await sessionWithTemp();
      const child = await holdLockInChild(root, 's1', 2000, temp);
      child.kill('SIGKILL');
      await exited(child);
      await rm(join(root, 'locks', 's1.lock', 'holder.json'));
      await sleep(3200);
      const lock = await new FsBackupStore({ root, lockStaleMs: 2000 }).lockSession('s1');
      try {
        expect(await readdir(folder)).toEqual(['a@v1']);
      } finally {
        await lock.release();
      }
    });

    it('after a clean release the next lock leaves the session folder unlisted (a temp there stays) and no mark', async () => {
      const { root, folder, temp } = await sessionWithTemp();
      const child = await holdLockInChild(root, 's1', 60_000, temp);
      child.stdin!.end();
      await exited(child);
      expect(child.exitCode).toBe(0);
      expect(await readdir(join(root, 'locks'))).toEqual([]);
      const lock = await new FsBackupStore({ root }).lockSession('s1');
      try {
        expect((await readdir(folder)).sort()).toEqual(['.fh-tmp-0123456789abcdef-1', 'a@v1']);
      } finally {
        await lock.release();
      }
      expect(await readdir(join(root, 'locks'))).toEqual([]);
    });
  });

  const strace = spawnSync('strace', ['-V']).status === 0;
  it.skipIf(!strace)('a process SIGKILLed at any system call on its lock folder leaves no lock the next process must wait for (strace-injected kills)', async () => {
    if (!strace) console.log('skipped: strace is not installed');
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const script = fileURLToPath(new URL('./fixtures/hold-session-lock.ts', import.meta.url));
    // The first system calls on the lock folder's path: the check whether it is held, before the
    // temp folder is made; proper-lockfile's utimes of the lock just taken (an older fh was killed
    // here with its holder not yet written, and the next command waited the 10 s stale time);
    // the rename that releases it.
    const moments = ['statx:when=1', 'utimensat:when=1', 'rename:when=1'];
    const outcomes: string[] = [];
    for (const moment of moments) {
      const root = join(await temporaryFolder(), 'store');
      const lockPath = join(root, 'locks', 'killed.lock');
      const [syscalls, when] = moment.split(':') as [string, string];
      const child = spawn(
        'strace',
        ['-f', '-qq', '-o', '/dev/null', '-P', lockPath, '-e', `inject=${syscalls}:signal=SIGKILL:${when}`, process.execPath, '--import', tsx, script, root, 'killed', '60000'],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      );
      children.push(child);
      child.stdout!.on('data', (data: Buffer) => {
        if (data.toString().includes('locked')) child.stdin!.end();
      });
      const ended = await new Promise<string>((resolve) => child.once('exit', (exitCode, signal) => resolve(signal ?? `exit ${exitCode}`)));
      const store = new FsBackupStore({ root, lockStaleMs: 60_000 });
      const started = Date.now();
      const lock = await store.lockSession('killed');
      expect(Date.now() - started).toBeLessThan(2000);
      await lock.release();
      expect((await readdir(join(root, 'locks'))).filter((name) => !name.includes('.fh-tmp-'))).toEqual([]);
      outcomes.push(`${moment}: ${ended}`);
    }
    // Every moment was reached and the holder killed there (strace ends by the tracee's signal).
    expect(outcomes).toEqual(moments.map((moment) => `${moment}: SIGKILL`));
  }, 60_000);
});

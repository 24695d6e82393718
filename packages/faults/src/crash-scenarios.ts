/**
 * Every crash point of trackEdit, makeSnapshot, rewind and undo, on the crash-simulating file
 * system (`crash-fs.ts`), with the invariants checked after recovery (issue 10):
 *
 * 1. no half-written file: every project file holds the bytes and mode it had before the
 *    operation or the ones the operation was writing, and no fh temp file stays visible once a
 *    later command ran;
 * 2. no reference to a missing or wrong backup: every backup the reopened session's snapshots and
 *    live undo points name exists with its recorded size (and sha256, where recorded);
 * 3. undo reaches the pre-rewind state: after a rewind or an undo interrupted anywhere, the
 *    recovery (`fh undo`, as a user runs it) leaves the project exactly as before the rewind;
 * 4. nothing outside the root: a folder beside the project and the store is never touched.
 *
 * For each operation the run is repeated with the crash at call 1, 2, … N (N: the mutating calls
 * of a run without a crash), each both as a killed process (everything written stays) and as a
 * power loss (only what was fsynced stays).
 */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { FileHistory, LockedError, RewindSession, listUndoPoints, type SessionLock, type WorkspaceFs } from '@fh/core';
import { FsBackupStore, type FsBackupStoreFileSystem } from '@fh/store-fs';
import { Volume } from 'memfs';
import { CrashError, CrashVolume } from './crash-fs.js';

const PROJECT = '/p';
const STORE = '/.fh';
const OUTSIDE = '/elsewhere';
const SESSION = 's';

/** An fs store over a crash volume, with in-process locks (proper-lockfile would lock the real disk). */
class CrashStore extends FsBackupStore {
  private static readonly held = new WeakMap<object, Set<string>>();

  constructor(private readonly crash: CrashVolume) {
    super({ root: STORE, fileSystem: crash.fs as unknown as FsBackupStoreFileSystem });
  }

  override async lockSession(sessionId: string): Promise<SessionLock> {
    let held = CrashStore.held.get(this.crash);
    if (held === undefined) {
      held = new Set();
      CrashStore.held.set(this.crash, held);
    }
    if (held.has(sessionId)) throw new LockedError(`session "${sessionId}" is locked`);
    held.add(sessionId);
    await this.removeTemporaryFiles(sessionId);
    const set = held;
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        set.delete(sessionId);
      },
    };
  }

  override async isSessionLocked(sessionId: string): Promise<boolean> {
    return CrashStore.held.get(this.crash)?.has(sessionId) === true;
  }
}

/** A project file as a test compares it: bytes (utf8) and permission bits, or a link's target. */
type Tree = Record<string, string>;

/** The project (or any folder) as `path → "mode:bytes"` / `"link:target"`, sorted, folders as `path/`. */
export function readTree(volume: Volume, root: string): Tree {
  const tree: Tree = {};
  const walk = (folder: string) => {
    let names: string[];
    try {
      names = volume.readdirSync(folder).map(String).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = posix.join(folder, name);
      const stats = volume.lstatSync(path);
      const key = posix.relative(root, path);
      if (stats.isSymbolicLink()) tree[key] = `link:${String(volume.readlinkSync(path))}`;
      else if (stats.isDirectory()) {
        tree[`${key}/`] = '';
        walk(path);
      } else tree[key] = `${(Number(stats.mode) & 0o7777).toString(8)}:${String(volume.readFileSync(path))}`;
    }
  };
  walk(root);
  return tree;
}

/** One operation under test: how to set the volume up and what to run (through the crash fs). */
interface Operation {
  name: 'trackEdit' | 'makeSnapshot' | 'rewind' | 'undo';
  /** Build the state before the operation, on a plain (uncrashed) volume. */
  setup(crash: CrashVolume): Promise<void>;
  /** The operation as one command runs it. */
  run(crash: CrashVolume): Promise<void>;
}

async function openHistory(crash: CrashVolume): Promise<FileHistory> {
  const store = new CrashStore(crash);
  return FileHistory.open({ projectRoot: PROJECT, sessionId: SESSION, store, fs: crash.fs as unknown as WorkspaceFs, env: {} });
}

async function withHistory(crash: CrashVolume, action: (history: FileHistory) => Promise<void>): Promise<void> {
  const history = await openHistory(crash);
  try {
    await action(history);
  } finally {
    if (!crash.crashed) await history.close();
  }
}

function write(volume: Volume, path: string, text: string, mode = 0o644): void {
  volume.mkdirSync(posix.dirname(path), { recursive: true });
  volume.writeFileSync(path, text);
  volume.chmodSync(path, mode);
}

/** Files at the first checkpoint, then edits, a deletion, a new file, a mode change. */
async function baseSetup(crash: CrashVolume): Promise<void> {
  const volume = crash.volume;
  write(volume, `${OUTSIDE}/keep.txt`, 'outside\n');
  write(volume, `${PROJECT}/a.txt`, 'a at m1\n');
  write(volume, `${PROJECT}/sub/b.txt`, 'b at m1\n', 0o600);
  write(volume, `${PROJECT}/sub/deep/c.sh`, '#!/bin/sh\necho c at m1\n', 0o755);
  await withHistory(crash, async (history) => {
    await history.makeSnapshot('m1');
    for (const path of ['a.txt', 'sub/b.txt', 'sub/deep/c.sh', 'sub/new.txt']) await history.trackEdit(path);
  });
  write(volume, `${PROJECT}/a.txt`, 'a after m1, longer than before\n');
  volume.unlinkSync(`${PROJECT}/sub/b.txt`);
  write(volume, `${PROJECT}/sub/new.txt`, 'new after m1\n');
  volume.chmodSync(`${PROJECT}/sub/deep/c.sh`, 0o700);
}

async function rewindToM1(crash: CrashVolume): Promise<void> {
  await withHistory(crash, async (history) => {
    await new RewindSession({ history }).restore({ messageId: 'm1', mode: 'code' });
  });
}

async function undoOnce(crash: CrashVolume): Promise<void> {
  await withHistory(crash, async (history) => {
    await new RewindSession({ history }).undoRewind();
  });
}

export const OPERATIONS: readonly Operation[] = [
  {
    name: 'trackEdit',
    setup: async (crash) => {
      await baseSetup(crash);
      write(crash.volume, `${PROJECT}/sub/deep/d.txt`, 'd, tracked in m2\n');
      await withHistory(crash, (history) => history.makeSnapshot('m2').then(() => undefined));
    },
    run: (crash) => withHistory(crash, (history) => history.trackEdit('sub/deep/d.txt').then(() => undefined)),
  },
  {
    name: 'makeSnapshot',
    setup: baseSetup,
    run: (crash) => withHistory(crash, (history) => history.makeSnapshot('m2').then(() => undefined)),
  },
  { name: 'rewind', setup: baseSetup, run: rewindToM1 },
  {
    name: 'undo',
    setup: async (crash) => {
      await baseSetup(crash);
      await rewindToM1(crash);
    },
    run: undoOnce,
  },
];

/** One invariant broken at one crash point. */
export interface Violation {
  operation: string;
  crashAt: number;
  loss: 'kill' | 'power';
  invariant: string;
  detail: string;
}

/** What a run over every crash point of one operation found. */
export interface CrashReport {
  operation: string;
  /** Mutating calls of an uninterrupted run: the crash points. */
  points: number;
  /** Crashed runs checked (2 per point: kill and power loss). */
  trials: number;
  violations: Violation[];
  /** Bytes of project files that recovery could not bring back to the expected state. */
  bytesLost: number;
}

/** Options of {@link runCrashPoints}. */
export interface CrashRunOptions {
  /** Check the "undo after an interrupted undo reaches the pre-rewind state" invariant (needs the journal). */
  checkInterruptedUndo?: boolean;
  /** Only every `stride`-th crash point (1: all). */
  stride?: number;
}

/**
 * Run `operation` with a crash at each of its mutating calls, recover and check the invariants.
 * Returns what was found (never throws for a violation).
 */
export async function runCrashPoints(operation: Operation, options: CrashRunOptions = {}): Promise<CrashReport> {
  const prepare = async () => {
    const crash = new CrashVolume(new Volume());
    crash.volume.mkdirSync(PROJECT, { recursive: true });
    crash.volume.mkdirSync(STORE, { recursive: true });
    await operation.setup(crash);
    const fresh = crash.afterKill();
    fresh.markAllDurable();
    return fresh;
  };
  const reference = await prepare();
  const before = readTree(reference.volume, PROJECT);
  const outsideBefore = readTree(reference.volume, OUTSIDE);
  const preRewind = operation.name === 'undo' ? await preRewindTree() : before;
  await operation.run(reference);
  const after = readTree(reference.volume, PROJECT);
  const points = reference.calls;

  const report: CrashReport = { operation: operation.name, points, trials: 0, violations: [], bytesLost: 0 };
  const stride = options.stride ?? 1;
  for (let crashAt = 1; crashAt <= points; crashAt += stride) {
    for (const loss of ['kill', 'power'] as const) {
      const crash = await prepare();
      crash.crashAt = crashAt;
      try {
        await operation.run(crash);
      } catch (error) {
        if (!(error instanceof CrashError) && !crash.crashed) throw error;
      }
      const survivor = loss === 'kill' ? crash.afterKill() : crash.afterPowerLoss();
      report.trials += 1;
      const violation = (invariant: string, detail: string) => report.violations.push({ operation: operation.name, crashAt, loss, invariant, detail });
      await checkAfterCrash(operation, survivor, { before, after, preRewind, outsideBefore }, violation, options, (bytes) => {
        report.bytesLost += bytes;
      });
    }
  }
  return report;
}

/** The project as it was before the rewind an undo scenario undoes. */
async function preRewindTree(): Promise<Tree> {
  const crash = new CrashVolume(new Volume());
  crash.volume.mkdirSync(PROJECT, { recursive: true });
  crash.volume.mkdirSync(STORE, { recursive: true });
  await baseSetup(crash);
  return readTree(crash.volume, PROJECT);
}

async function checkAfterCrash(
  operation: Operation,
  survivor: CrashVolume,
  trees: { before: Tree; after: Tree; preRewind: Tree; outsideBefore: Tree },
  violation: (invariant: string, detail: string) => void,
  options: CrashRunOptions,
  lost: (bytes: number) => void,
): Promise<void> {
  const volume = survivor.volume;
  const project = readTree(volume, PROJECT);
  for (const [path, value] of Object.entries(project)) {
    if (path.endsWith('/') || isTemporary(path)) continue;
    if (value !== trees.before[path] && value !== trees.after[path]) violation('no half-written file', `${path} holds ${JSON.stringify(value)}`);
  }
  if (JSON.stringify(readTree(volume, OUTSIDE)) !== JSON.stringify(trees.outsideBefore)) violation('nothing outside the root', 'the folder beside the project changed');

  // Recovery: the next command opens the session (taking its lock), as any fh command does.
  let history: FileHistory;
  try {
    history = await openHistory(survivor);
  } catch (error) {
    violation('session opens after the crash', (error as Error).message);
    return;
  }
  try {
    await checkReferences(history, survivor, violation);
    if (operation.name === 'rewind' || (operation.name === 'undo' && options.checkInterruptedUndo === true)) {
      const session = new RewindSession({ history });
      const points = await listUndoPoints({ store: history.store, sessionId: SESSION });
      const expected = trees.preRewind;
      const isInterruptedUndo = operation.name === 'undo';
      // A user undoes the interrupted operation's rewind: once after a rewind, once more after an undo.
      // With a pending point (killed after its point was saved, perhaps before any file changed:
      // a rewind copies every file beside its target first), the user's undo rolls it back and
      // tidies its folders, as any next command that writes the project does.
      const nowAt = stripTemporary(readTree(volume, PROJECT));
      if ((!sameTree(nowAt, expected) || points.some((point) => point.status === 'pending')) && points.length > 0) {
        try {
          await session.undoRewind();
        } catch (error) {
          violation('undo reaches the pre-rewind state', `fh undo failed: ${(error as Error).message}`);
        }
      }
      const finalTree = readTree(volume, PROJECT);
      if (!sameTree(stripTemporary(finalTree), expected)) {
        const wrong = Object.keys({ ...expected, ...finalTree }).filter((path) => expected[path] !== finalTree[path] && !isTemporary(path));
        violation('undo reaches the pre-rewind state', `${isInterruptedUndo ? 'after an interrupted undo' : 'after an interrupted rewind'}: ${wrong.join(', ')} differ`);
        lost(wrong.reduce((sum, path) => sum + (expected[path]?.length ?? 0), 0));
      }
    }
    const temps = Object.keys(readTree(volume, PROJECT)).filter(isTemporary);
    if (operation.name === 'rewind' && temps.length > 0) {
      // Temps are removed by the next command that writes their folder (the undo above wrote them all).
      violation('no temp file left', temps.join(', '));
    }
  } finally {
    await history.close();
  }
  const storeTemps = Object.keys(readTree(volume, `${STORE}/file-history/${SESSION}`)).filter((name) => name.startsWith('.fh-tmp-'));
  if (storeTemps.length > 0) violation('no temp file left', `store temps ${storeTemps.join(', ')} after the session was opened`);
}

/** Every backup the session's snapshots and live undo points name exists with its size and hash. */
async function checkReferences(history: FileHistory, survivor: CrashVolume, violation: (invariant: string, detail: string) => void): Promise<void> {
  const volume = survivor.volume;
  const check = (label: string, name: string, size: number | undefined, sha256: string | undefined) => {
    const path = `${STORE}/file-history/${SESSION}/${name}`;
    let bytes: Buffer;
    try {
      bytes = volume.readFileSync(path) as Buffer;
    } catch {
      violation('no reference to a missing or wrong backup', `${label} names ${name}, which is missing`);
      return;
    }
    if (size !== undefined && bytes.length !== size) violation('no reference to a missing or wrong backup', `${label}: ${name} has ${bytes.length} bytes, recorded ${size}`);
    else if (sha256 !== undefined && createHash('sha256').update(bytes).digest('hex') !== sha256) violation('no reference to a missing or wrong backup', `${label}: ${name} does not match its sha256`);
  };
  for (const snapshot of history.state.snapshots) {
    for (const [path, backup] of Object.entries(snapshot.trackedFileBackups)) {
      if (backup.backupFileName !== null && backup.error === undefined) check(`snapshot ${snapshot.messageId} ${path}`, backup.backupFileName, backup.size, backup.sha256);
    }
  }
  for (const point of await listUndoPoints({ store: history.store, sessionId: SESSION })) {
    for (const entry of point.entries) {
      if (entry.backupFileName !== null) check(`undo point ${point.undoId.slice(0, 8)} ${entry.path}`, entry.backupFileName, entry.size, undefined);
    }
  }
}

function isTemporary(path: string): boolean {
  return /(^|\/)\..+\.fh-[0-9a-f]{12}\.tmp$/.test(path);
}

function stripTemporary(tree: Tree): Tree {
  return Object.fromEntries(Object.entries(tree).filter(([path]) => !isTemporary(path)));
}

function sameTree(a: Tree, b: Tree): boolean {
  return JSON.stringify(stripTemporary(a)) === JSON.stringify(stripTemporary(b));
}

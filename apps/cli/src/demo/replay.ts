/**
 * The replay behind `fh demo`: a git repository's last commits become agent turns in a temporary
 * workspace, then every checkpoint is rewound to and checked against git.
 *
 * Turn i: snapshot (message id i), then for every path commit i deletes, `trackEdit` and delete it,
 * then for every path it writes, `trackEdit` and write it with git's bytes and executable bit (so
 * a file that replaces a folder, or the reverse, is tracked once the other is gone, as an agent's
 * edits would be). Checkpoint i therefore holds the tree of the commit before commit i. Each rewind (newest checkpoint first) is followed by a comparison of every path
 * the replay touched with git's tree at that checkpoint: presence, bytes, executable bit. Finally
 * the last rewind is undone and the workspace compared again.
 *
 * Shell turns: when the history can run commands (`runCommand`), every third turn applies its
 * commit through a shell command instead, inside a command window (`beginCommand` /
 * `endCommand`): `git rm` and `git checkout <commit> -- <paths>` in the workspace, which is then a
 * git work tree of its own (its objects borrowed from the repository through
 * `objects/info/alternates`, so nothing is copied and the repository is only read). What the
 * command changed is captured by the window, not by `trackEdit`, and verified the same way.
 *
 * Symlinks and submodules are reported and skipped (fh backs up regular files only).
 */
import { randomUUID } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, rmdir, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RewindResult } from '@fh/core';
import { UsageError } from '../cli-errors.js';
import { blobId, BlobReader, Git, GitMode, type CommitInfo, type TreeEntry } from './git.js';

/** The file-history operations the replay drives (an `@fh/core` FileHistory satisfies it). */
export interface DemoHistory {
  trackEdit(path: string): Promise<unknown>;
  makeSnapshot(messageId: string): Promise<unknown>;
  rewind(messageId: string): Promise<RewindResult>;
  /**
   * Optional: run `command` (argument lists run one after the other in the workspace, no shell
   * parsing) inside a command window, and return what the window could not capture (one line
   * each). Present: every third turn is a shell turn.
   */
  runCommand?(commands: ReadonlyArray<readonly string[]>): Promise<string[]>;
}

/** Every how many turns one is applied through a shell command (when the history can). */
const SHELL_TURN_EVERY = 3;

/** What the replay needs. */
export interface ReplayOptions {
  repositoryRoot: string;
  /** How many commits to replay at most. */
  commits: number;
  /** An empty folder to replay in (the workspace). */
  workspace: string;
  /** Open the history once the workspace holds the starting tree. */
  openHistory(): Promise<DemoHistory>;
  /** Undo the most recent rewind; returns the paths it could not put back. */
  undoLastRewind(): Promise<Array<{ path: string; error: string }>>;
  /** Called after each replayed commit and each rewind (for a progress bar): steps done of all (twice the commits replayed). */
  onStep?(done: number, total: number): void;
}

/** One replayed commit and the rewind to its checkpoint. */
export interface DemoTurn {
  /** 1-based turn number (oldest commit first). */
  turn: number;
  /** `edit`: applied file by file with trackEdit; `shell`: through a shell command in a command window. */
  kind: 'edit' | 'shell';
  messageId: string;
  commit: string;
  subject: string;
  /** Paths the commit changes (a rename counts once). */
  files: number;
  insertions: number;
  deletions: number;
  /** Symlink and submodule paths the replay skipped in this commit. */
  skipped: string[];
  /** Wall time of `rewind` to this turn's checkpoint, in ms. */
  rewindMs: number;
  /** Paths the rewind restored or deleted. */
  rewoundFiles: number;
  /** True when every touched path matched git after the rewind. */
  verified: boolean;
  /** One line per difference from git (empty when verified). */
  mismatches: string[];
}

/** The whole demo's outcome. */
export interface ReplayReport {
  repositoryRoot: string;
  /** Commits asked for. */
  requested: number;
  /** Commits found and replayed (fewer when the history is shorter). */
  replayed: number;
  /** The tree the workspace started from: the oldest commit's parent, or git's empty tree. */
  baseCommit: string | null;
  /** Why the replay started from the empty tree, when it did. */
  baseNote: string | null;
  turns: DemoTurn[];
  /** Distinct regular-file paths the replay tracked. */
  trackedFiles: number;
  /** Time to replay every commit (snapshots, tracking, writes), in ms. */
  replayMs: number;
  /** Sum of every rewind's time, in ms. */
  rewindMs: number;
  /**
   * The undo of the last rewind, checked against git. `skipped` when the last rewind changed no
   * file: it saved no undo point, so there is nothing to undo (`verified` is then true).
   */
  undo: { ms: number; verified: boolean; mismatches: string[]; skipped: boolean };
  /** The replay itself left the workspace equal to the newest commit (before any rewind). */
  replayVerified: boolean;
  replayMismatches: string[];
  /** True when everything was verified. */
  ok: boolean;
}

/** How many file operations run at once. */
const CONCURRENCY = 16;

/** Replay, rewind and verify (see the module comment). Throws on git or I/O failures. */
export async function replayRepository(options: ReplayOptions): Promise<ReplayReport> {
  const git = new Git(options.repositoryRoot);
  const format = await git.objectFormat();
  const commits = (await git.hasObject('HEAD')) ? await git.listCommits(options.commits) : [];
  if (commits.length === 0) throw new UsageError(`${options.repositoryRoot} has no commits to replay`);
  const { baseTree, baseCommit, baseNote } = await chooseBase(git, commits[0] as CommitInfo);
  const blobs = new BlobReader(options.repositoryRoot);
  try {
    const touched = new Set<string>();
    const skippedPaths = new Set<string>();
    const workspace = options.workspace;

    const baseEntries = await git.listTree(baseTree);
    await forEachLimited([...baseEntries], async ([path, entry]) => {
      if (isRegular(entry.mode)) await writeEntry(workspace, path, entry, blobs);
      else skippedPaths.add(path);
    });

    const history = await options.openHistory();
    if (history.runCommand !== undefined) await prepareWorkTree(git, workspace, baseTree, baseCommit);
    let steps = 0;
    const step = (): void => {
      steps += 1;
      options.onStep?.(steps, commits.length * 2);
    };
    const checkpoints: Array<{ messageId: string; tree: string; notCaptured: string[]; turn: Omit<DemoTurn, 'rewindMs' | 'rewoundFiles' | 'verified' | 'mismatches'> }> = [];
    const replayStart = performance.now();
    let previous = baseTree;
    for (const [index, commit] of commits.entries()) {
      const messageId = randomUUID();
      try {
        await history.makeSnapshot(messageId);
        const changes = await git.diffTrees(previous, commit.id);
        const counts = await git.lineCounts(previous, commit.id);
        const skipped: string[] = [];
        const removals: string[] = [];
        const writes: Array<{ path: string; entry: TreeEntry }> = [];
        for (const change of changes) {
          const fromRegular = change.status === 'A' || isRegular(change.fromMode);
          const toRegular = change.status === 'D' || isRegular(change.toMode);
          if (!fromRegular || !toRegular) {
            for (const path of new Set([change.fromPath, change.toPath])) {
              skipped.push(path);
              skippedPaths.add(path);
            }
            continue;
          }
          if (change.status === 'D' || change.status === 'R') removals.push(change.fromPath);
          if (change.status !== 'D') writes.push({ path: change.toPath, entry: { mode: change.toMode, id: change.toId } });
        }
        const shell = history.runCommand !== undefined && index % SHELL_TURN_EVERY === SHELL_TURN_EVERY - 1 && (removals.length > 0 || writes.length > 0);
        let notCaptured: string[] = [];
        if (shell) {
          for (const path of [...removals, ...writes.map((write) => write.path)]) touched.add(path);
          notCaptured = await (history.runCommand as NonNullable<DemoHistory['runCommand']>)(shellCommands(commit.id, removals, writes.map((write) => write.path)));
        } else {
          const track = async (path: string): Promise<void> => {
            await history.trackEdit(path);
            touched.add(path);
          };
          await forEachLimited(removals, track);
          await forEachLimited(removals, (path) => removeFile(workspace, path));
          await forEachLimited(writes, ({ path }) => track(path));
          await forEachLimited(writes, ({ path, entry }) => writeEntry(workspace, path, entry, blobs));
        }
        checkpoints.push({
          messageId,
          tree: previous,
          notCaptured,
          turn: { turn: index + 1, kind: shell ? 'shell' : 'edit', messageId, commit: commit.id, subject: commit.subject, files: changes.length, ...counts, skipped },
        });
      } catch (error) {
        throw new Error(`replaying turn ${index + 1} (${commit.id.slice(0, 8)} ${commit.subject}): ${errorMessage(error)}`, { cause: error });
      }
      previous = commit.id;
      step();
    }
    const replayMs = performance.now() - replayStart;

    const verifiable = [...touched].filter((path) => !skippedPaths.has(path)).sort();
    const trees = new Map<string, Map<string, TreeEntry>>();
    const treeOf = async (treeish: string): Promise<Map<string, TreeEntry>> => {
      let entries = trees.get(treeish);
      if (entries === undefined) {
        entries = await git.listTree(treeish);
        trees.set(treeish, entries);
      }
      return entries;
    };
    const replayMismatches = await compareWithTree(workspace, verifiable, await treeOf(previous), format);

    const turns: DemoTurn[] = [];
    for (const checkpoint of [...checkpoints].reverse()) {
      const start = performance.now();
      let result: RewindResult | undefined;
      let rewindError: string | undefined;
      try {
        result = await history.rewind(checkpoint.messageId);
      } catch (error) {
        rewindError = `rewind threw: ${errorMessage(error)}`;
      }
      const rewindMs = performance.now() - start;
      const mismatches = [
        ...checkpoint.notCaptured.map((line) => `the shell command's window did not capture ${line}`),
        ...(rewindError === undefined ? [] : [rewindError]),
        ...(result?.failed ?? []).map((failure) => `${failure.path}: rewind failed: ${failure.error.message}`),
        ...(await compareWithTree(workspace, verifiable, await treeOf(checkpoint.tree), format)),
      ];
      turns.unshift({
        ...checkpoint.turn,
        rewindMs,
        rewoundFiles: result === undefined ? 0 : result.restored.length + result.deleted.length,
        verified: mismatches.length === 0,
        mismatches,
      });
      step();
    }

    const beforeLastRewind = checkpoints.length > 1 ? (checkpoints[1] as { tree: string }).tree : previous;
    const undoSkipped = (turns[0]?.rewoundFiles ?? 0) === 0;
    const undoStart = performance.now();
    let undoFailures: Array<{ path: string; error: string }> = [];
    if (!undoSkipped) {
      try {
        undoFailures = await options.undoLastRewind();
      } catch (error) {
        undoFailures = [{ path: '(all)', error: `undo threw: ${errorMessage(error)}` }];
      }
    }
    const undoMs = undoSkipped ? 0 : performance.now() - undoStart;
    const undoMismatches = undoSkipped
      ? []
      : [
          ...undoFailures.map((failure) => `${failure.path}: undo failed: ${failure.error}`),
          ...(await compareWithTree(workspace, verifiable, await treeOf(beforeLastRewind), format)),
        ];

    const ok = replayMismatches.length === 0 && turns.every((turn) => turn.verified) && undoMismatches.length === 0;
    return {
      repositoryRoot: options.repositoryRoot,
      requested: options.commits,
      replayed: commits.length,
      baseCommit,
      baseNote,
      turns,
      trackedFiles: verifiable.length,
      replayMs,
      rewindMs: turns.reduce((sum, turn) => sum + turn.rewindMs, 0),
      undo: { ms: undoMs, verified: undoMismatches.length === 0, mismatches: undoMismatches, skipped: undoSkipped },
      replayVerified: replayMismatches.length === 0,
      replayMismatches,
      ok,
    };
  } finally {
    blobs.close();
  }
}

/** Paths per `git rm` / `git checkout` command line. */
const PATHS_PER_COMMAND = 200;

/** The shell turn's commands: `git rm` of the removals, then `git checkout <commit> -- <writes>`. */
function shellCommands(commit: string, removals: readonly string[], writes: readonly string[]): string[][] {
  const commands: string[][] = [];
  for (let start = 0; start < removals.length; start += PATHS_PER_COMMAND) {
    const paths = removals.slice(start, start + PATHS_PER_COMMAND);
    // --cached --ignore-unmatch then rm: a path the index does not know (an earlier edit turn
    // created it) is removed from the work tree all the same.
    commands.push(['git', 'rm', '-q', '-f', '--cached', '--ignore-unmatch', '--', ...paths], ['rm', '-f', '--', ...paths]);
  }
  for (let start = 0; start < writes.length; start += PATHS_PER_COMMAND) commands.push(['git', 'checkout', '-q', commit, '--', ...writes.slice(start, start + PATHS_PER_COMMAND)]);
  return commands;
}

/**
 * Make the workspace a git work tree of its own for shell turns: `git init`, the repository's
 * objects borrowed through `objects/info/alternates` (nothing copied, the repository only read),
 * the index and HEAD set to the starting tree.
 */
async function prepareWorkTree(git: Git, workspace: string, baseTree: string, baseCommit: string | null): Promise<void> {
  const objects = resolve(git.repositoryRoot, await git.text(['rev-parse', '--git-path', 'objects']));
  const local = new Git(workspace);
  await local.run(['init', '-q']);
  await writeFile(join(workspace, '.git', 'objects', 'info', 'alternates'), `${objects}\n`);
  await local.run(['read-tree', baseTree]);
  if (baseCommit !== null) await local.run(['update-ref', 'HEAD', baseCommit]);
  await local.run(['update-index', '-q', '--refresh']).catch(() => undefined);
}

async function chooseBase(git: Git, oldest: CommitInfo): Promise<{ baseTree: string; baseCommit: string | null; baseNote: string | null }> {
  const parent = oldest.parents[0];
  if (parent === undefined) {
    const shallow = (await git.text(['rev-parse', '--is-shallow-repository'])) === 'true';
    return {
      baseTree: await git.emptyTreeId(),
      baseCommit: null,
      baseNote: shallow
        ? `the oldest commit ${oldest.id.slice(0, 12)} is the edge of this shallow clone (its parents are not here): starting from the empty tree`
        : 'the oldest commit is the root commit: starting from the empty tree',
    };
  }
  if (!(await git.hasObject(parent))) {
    return {
      baseTree: await git.emptyTreeId(),
      baseCommit: null,
      baseNote: `the oldest commit's parent ${parent.slice(0, 12)} is not in this (shallow) clone: starting from the empty tree`,
    };
  }
  return { baseTree: parent, baseCommit: parent, baseNote: null };
}

function isRegular(mode: string): boolean {
  return mode === GitMode.file || mode === GitMode.executable;
}

async function writeEntry(workspace: string, path: string, entry: TreeEntry, blobs: BlobReader): Promise<void> {
  const absolute = join(workspace, path);
  const bytes = await blobs.read(entry.id);
  await mkdir(dirname(absolute), { recursive: true });
  await writeFile(absolute, bytes);
  await chmod(absolute, entry.mode === GitMode.executable ? 0o755 : 0o644);
}

/** Delete a file and the folders it leaves empty (as a git checkout does). */
async function removeFile(workspace: string, path: string): Promise<void> {
  await unlink(join(workspace, path));
  let folder = dirname(path);
  while (folder !== '.' && folder !== '') {
    try {
      await rmdir(join(workspace, folder));
    } catch {
      return;
    }
    folder = dirname(folder);
  }
}

/** Compare each path of the workspace with a git tree; one line per difference. */
async function compareWithTree(
  workspace: string,
  paths: readonly string[],
  tree: ReadonlyMap<string, TreeEntry>,
  format: 'sha1' | 'sha256',
): Promise<string[]> {
  const mismatches: Array<string | undefined> = new Array(paths.length);
  await forEachLimited([...paths.entries()], async ([index, path]) => {
    mismatches[index] = await compareOne(join(workspace, path), path, tree.get(path), format);
  });
  return mismatches.filter((line): line is string => line !== undefined);
}

async function compareOne(absolute: string, path: string, expected: TreeEntry | undefined, format: 'sha1' | 'sha256'): Promise<string | undefined> {
  let stats;
  try {
    stats = await lstat(absolute);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    return expected === undefined ? undefined : `${path}: missing, git has it`;
  }
  // A folder where git has no file (the file became a folder) is no file: as git has it.
  if (expected === undefined) return stats.isDirectory() ? undefined : `${path}: exists, git does not have it`;
  if (!stats.isFile()) return `${path}: is not a regular file`;
  if (blobId(await readFile(absolute), format) !== expected.id) return `${path}: bytes differ from git`;
  const executable = (stats.mode & 0o100) !== 0;
  if (executable !== (expected.mode === GitMode.executable)) {
    return `${path}: executable bit is ${executable ? 'set' : 'clear'}, git has ${expected.mode}`;
  }
  return undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Run `task` over `items`, at most {@link CONCURRENCY} at a time. */
async function forEachLimited<Item>(items: readonly Item[], task: (item: Item) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as Item;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

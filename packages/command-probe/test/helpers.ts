import { FileHistory, RewindSession, type CommandCapture, type CommandWindow } from '@fh/core';
import { FsBackupStore } from '@fh/store-fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsCommandJournal, NodeCommandProbe, type NodeCommandProbeOptions } from '../src/index.js';

/** What is at one path of a tree: a file's bytes and permission bits, or a symlink's target. */
export type TreeEntry = { type: 'file'; bytes: string; mode: number } | { type: 'symlink'; target: string };

/** Every file and symlink under `root` (not `.git`), by `/` path; bytes as base64. */
export function readTree(root: string): Record<string, TreeEntry> {
  const tree: Record<string, TreeEntry> = {};
  const visit = (folder: string): void => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== '.git') visit(path);
        continue;
      }
      const absolute = join(root, path);
      const stats = lstatSync(absolute);
      tree[path] = stats.isSymbolicLink() ? { type: 'symlink', target: readlinkSync(absolute) } : { type: 'file', bytes: readFileSync(absolute).toString('base64'), mode: stats.mode & 0o7777 };
    }
  };
  visit('');
  return tree;
}

/** Run a bash script in `cwd`; returns its exit code (the output is kept for failures). */
export function sh(cwd: string, script: string): number {
  const result = spawnSync('bash', ['-e', '-c', script], { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' } });
  if (result.error !== undefined) throw result.error;
  return result.status ?? 1;
}

/** A fresh git repository with one commit made by `script` (run before `git add -A && git commit`). */
export function gitRepository(project: string, script: string): void {
  execFileSync('git', ['init', '-q', '-b', 'main', project]);
  sh(project, `git config user.email t@example.com && git config user.name t && ${script} && git add -A && git commit -qm base`);
}

/** One test's world: a project folder, a store, an open history with a first checkpoint. */
export interface World {
  base: string;
  project: string;
  history: FileHistory;
  probe: NodeCommandProbe;
  journal: FsCommandJournal;
  storeRoot: string;
  close(): Promise<void>;
}

export async function openWorld(
  prepare: (project: string) => void,
  options: { sessionId?: string; timestampGranularityMs?: number; probe?: Omit<NodeCommandProbeOptions, 'stateDir'>; store?: (root: string) => FsBackupStore } = {},
): Promise<World> {
  const base = mkdtempSync(join(tmpdir(), 'fh-cmd-'));
  const project = join(base, 'project');
  prepare(project);
  const storeRoot = join(base, 'store');
  const store = options.store?.(storeRoot) ?? new FsBackupStore({ root: storeRoot });
  const sessionId = options.sessionId ?? 's1';
  const history = await FileHistory.open({ projectRoot: project, sessionId, store, ...(options.timestampGranularityMs === undefined ? {} : { timestampGranularityMs: options.timestampGranularityMs }) });
  await history.makeSnapshot('m1');
  const stateDir = join(base, 'commands', sessionId);
  const probe = new NodeCommandProbe({ stateDir, ...options.probe });
  const journal = new FsCommandJournal(stateDir);
  return {
    base,
    project,
    history,
    probe,
    journal,
    storeRoot,
    async close() {
      await probe.close();
      await history.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Begin a window, run `script` in the project with bash, end the window. */
export async function runInWindow(world: World, script: string, windowId?: string): Promise<{ window: CommandWindow; capture: CommandCapture; exitCode: number }> {
  const window = await world.history.beginCommand({ probe: world.probe, journal: world.journal, ...(windowId === undefined ? {} : { windowId }), command: script });
  const exitCode = sh(world.project, script);
  const capture = await world.history.endCommand(window.windowId, { probe: world.probe, journal: world.journal });
  return { window, capture, exitCode };
}

/** Rewind the files to checkpoint `messageId`, returning the tree; then undo, returning that tree too. */
export async function rewindAndUndo(world: World, messageId = 'm1'): Promise<{ rewound: Record<string, TreeEntry>; undone: Record<string, TreeEntry> }> {
  const session = new RewindSession({ history: world.history });
  await session.restore({ messageId, mode: 'code' });
  const rewound = readTree(world.project);
  await session.undoRewind();
  const undone = readTree(world.project);
  return { rewound, undone };
}

/** Files in the store's backup folder of the session (count and total bytes). */
export function storeBackups(world: World, sessionId = 's1'): { count: number; bytes: number } {
  const folder = join(world.storeRoot, 'file-history', sessionId);
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => !name.startsWith('.'));
  } catch {
    return { count: 0, bytes: 0 };
  }
  return { count: names.length, bytes: names.reduce((sum, name) => sum + lstatSync(join(folder, name)).size, 0) };
}

/** The benchmark's files on disk: a project folder of many small files, a store folder, a floor folder. */
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';

/** Folders of one benchmark run. */
export interface BenchFolders {
  base: string;
  project: string;
  store: string;
  floor: string;
}

/**
 * Fresh temp folders for a run, under `FH_BENCH_DIR` (default: the system temp folder). The floor's
 * folder is a session-like folder inside the store (`store/file-history/bench-floor`), next to the
 * folders fh writes its backups to, and the floor's records go to `store/sessions`, next to the
 * session logs: on ext4 the cost of creating a file depends on where its folder
 * sits on the disk (a plain 4 KiB copy measured 0.18 ms into one folder and 0.88 ms into another in
 * the same run), so floor and fh create their files in the same kind of place.
 */
export async function createFolders(): Promise<BenchFolders> {
  const base = await mkdtemp(join(process.env.FH_BENCH_DIR ?? tmpdir(), 'fh-bench-'));
  const store = join(base, 'store');
  const folders = { base, project: join(base, 'project'), store, floor: join(store, 'file-history', 'bench-floor') };
  await Promise.all([mkdir(folders.project), mkdir(folders.floor, { recursive: true }), mkdir(join(store, 'sessions'), { recursive: true })]);
  return folders;
}

/** Remove a run's folders. */
export async function removeFolders(folders: BenchFolders): Promise<void> {
  await rm(folders.base, { recursive: true, force: true });
}

/** `count` files of about `bytes` bytes in 100 folders under `root`; returns their relative paths. */
export async function createFiles(root: string, count: number, bytes: number): Promise<string[]> {
  const paths = Array.from({ length: count }, (_, index) => `module-${String(index % 100).padStart(2, '0')}/file-${index}.ts`);
  await Promise.all(Array.from({ length: 100 }, (_, index) => mkdir(join(root, `module-${String(index).padStart(2, '0')}`), { recursive: true })));
  const line = 'export const value = "0123456789abcdefghijklmnopqrstuvwxyz";\n';
  const body = line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
  const limit = pLimit(32);
  await Promise.all(paths.map((path) => limit(() => writeFile(join(root, path), `// ${path}\n${body}`))));
  return paths;
}

/** Append one line to each file: a small agent edit that changes the size. */
export async function editFiles(root: string, paths: readonly string[], round: number, who: string): Promise<void> {
  await Promise.all(paths.map((path) => appendFile(join(root, path), `// ${who} edit ${round}\n`)));
}

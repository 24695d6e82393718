/**
 * The CLI tests run the built binary (`node dist/cli.js`) as a subprocess. Before they start,
 * build it (and the packages it imports, and `fh-worktree-restore`, which one test runs on a
 * session `fh hook` recorded) with turbo when any of their sources is newer than the build, so
 * `npx vitest run` in apps/cli always tests the current code.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Newest modification time (ms) of the files under `folder`, or 0 when it does not exist. */
function newestMtime(folder: string): number {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function oldestOutput(files: readonly string[]): number {
  let oldest = Number.POSITIVE_INFINITY;
  for (const file of files) {
    try {
      oldest = Math.min(oldest, statSync(file).mtimeMs);
    } catch {
      return 0;
    }
  }
  return oldest;
}

export default function setup(): void {
  const packages = ['apps/cli', 'apps/worktree-restore', 'packages/core', 'packages/store-fs', 'packages/store-s3'];
  const sources = Math.max(...packages.map((folder) => newestMtime(join(repositoryRoot, folder, 'src'))));
  const outputs = oldestOutput([
    join(repositoryRoot, 'apps/cli/dist/cli.js'),
    join(repositoryRoot, 'apps/worktree-restore/dist/cli.js'),
    join(repositoryRoot, 'packages/core/dist/index.js'),
    join(repositoryRoot, 'packages/store-fs/dist/index.js'),
    join(repositoryRoot, 'packages/store-s3/dist/index.js'),
  ]);
  if (sources <= outputs) return;
  execFileSync('npx', ['turbo', 'run', 'build', '--filter=@fh/cli', '--filter=@fh/worktree-restore', '--output-logs=errors-only'], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/**
 * The tests run the built binary (`node dist/cli.js`) as a subprocess. Before they start, build it
 * (and the packages it bundles) with turbo when any of their sources is newer than the build, so
 * `npx vitest run` here always tests the current code.
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

function mtimeOrZero(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): void {
  // The `fh` CLI too: some tests drive a session's hooks with it.
  const sources = Math.max(...['apps/worktree-restore/src', 'apps/cli/src', 'packages/core/src', 'packages/store-fs/src'].map((folder) => newestMtime(join(repositoryRoot, folder))));
  const built = Math.min(...['apps/worktree-restore/dist/cli.js', 'apps/cli/dist/cli.js'].map((file) => mtimeOrZero(join(repositoryRoot, file))));
  if (sources <= built) return;
  execFileSync('npx', ['turbo', 'run', 'build', '--filter=@fh/worktree-restore', '--output-logs=errors-only'], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

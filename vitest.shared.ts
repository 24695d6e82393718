import { fileURLToPath } from 'node:url';

/**
 * Resolve the workspace packages to their TypeScript sources in tests, so a package's
 * tests always run against the current code of the packages it depends on.
 */
export const workspaceAliases: Record<string, string> = {
  '@fh/core': fileURLToPath(new URL('./packages/core/src/index.ts', import.meta.url)),
  '@fh/store-fs': fileURLToPath(new URL('./packages/store-fs/src/index.ts', import.meta.url)),
  '@fh/store-memfs': fileURLToPath(new URL('./packages/store-memfs/src/index.ts', import.meta.url)),
  '@fh/store-s3': fileURLToPath(new URL('./packages/store-s3/src/index.ts', import.meta.url)),
  '@fh/command-probe': fileURLToPath(new URL('./packages/command-probe/src/index.ts', import.meta.url)),
  '@fh/store-test-suite': fileURLToPath(new URL('./packages/store-test-suite/src/index.ts', import.meta.url)),
};

import { defineConfig, type Options } from 'tsup';

/** Packages bundled into the output, so Node resolves and loads a few files instead of dozens. */
const bundled = ['@fh/core', '@fh/store-fs', '@fh/command-probe', 'ignore', 'diff', 'p-limit', 'yocto-queue', 'proper-lockfile', 'graceful-fs', 'retry', 'signal-exit', 'commander', 'picocolors'];

const shared: Options = {
  format: ['esm'],
  sourcemap: true,
  target: 'node20',
  noExternal: bundled,
  external: ['@fh/store-s3'],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __fhCreateRequire } from 'node:module';\nconst require = __fhCreateRequire(import.meta.url);",
  },
};

/**
 * Two ESM builds (the `build` script empties dist first):
 * - `cli.js`, split per command: ink, react and cli-progress stay external and load only in the
 *   commands that draw with them; @fh/store-s3 (with the AWS SDK) loads only for s3:// stores.
 * - `hook.js`, one file holding everything `fh hook` needs, because agents run it on every tool
 *   call: loading one module instead of a dozen chunks keeps its start short.
 */
export default defineConfig([
  { ...shared, entry: { cli: 'src/cli.ts' }, splitting: true },
  { ...shared, entry: { hook: 'src/commands/hook.ts' }, splitting: false },
]);

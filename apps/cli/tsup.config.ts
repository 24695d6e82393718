import { defineConfig } from 'tsup';

/**
 * One ESM bundle (split per command). The packages `fh hook` loads on every agent tool call are
 * bundled in, so Node resolves and parses a few files instead of dozens; ink, react and
 * cli-progress stay external and load only in the commands that draw with them.
 */
export default defineConfig({
  entry: ['src/cli.ts'],
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  splitting: true,
  noExternal: [/^@fh\//, 'diff', 'p-limit', 'yocto-queue', 'proper-lockfile', 'graceful-fs', 'retry', 'signal-exit', 'commander', 'picocolors'],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __fhCreateRequire } from 'node:module';\nconst require = __fhCreateRequire(import.meta.url);",
  },
});

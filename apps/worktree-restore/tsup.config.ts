import { defineConfig } from 'tsup';

/**
 * One ESM bundle with a shebang. The fh packages and commander are bundled in, so the binary
 * runs from `dist/` alone; node built-ins stay external.
 */
export default defineConfig({
  entry: ['src/cli.ts'],
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  noExternal: [/^@fh\//, 'diff', 'p-limit', 'yocto-queue', 'proper-lockfile', 'graceful-fs', 'retry', 'signal-exit', 'commander'],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __fhCreateRequire } from 'node:module';\nconst require = __fhCreateRequire(import.meta.url);",
  },
});

import { defineConfig, type Options } from 'tsup';

/** Packages bundled into the output, so Node resolves and loads a few files instead of dozens. */
const bundled = ['@fh/core', '@fh/store-fs', '@fh/store-s3', '@fh/command-probe', 'ignore', 'diff', 'p-limit', 'yocto-queue', 'proper-lockfile', 'graceful-fs', 'retry', 'signal-exit', 'commander', 'picocolors'];

const shared: Options = {
  format: ['esm'],
  sourcemap: true,
  target: 'node20',
  noExternal: bundled,
  // The AWS SDK stays outside: @fh/store-s3 (bundled, so it shares the bundled @fh/core) imports it on its first request.
  external: [/^@aws-sdk\//],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __fhCreateRequire } from 'node:module';\nconst require = __fhCreateRequire(import.meta.url);",
  },
};

/**
 * Two ESM builds (the `build` script empties dist first):
 * - `cli.js`, split per command: ink, react and cli-progress stay external and load only in the
 *   commands that draw with them; @fh/store-s3 loads only for s3:// stores, and the AWS SDK only
 *   on its first request.
 * - `hook.js`, what `fh hook` needs, because agents run it on every tool call: the entry holds
 *   only reading and filtering the event, so an event fh ignores loads one small file.
 * - `hook-act.cjs`, what an event fh acts on runs: `hook-act.ts` with @fh/core, the stores and the
 *   command probe in one CommonJS file, which `hook.js` runs through `vm.Script` with V8's code
 *   cache (`code-cache.ts`), so an event resolves no modules and compiles little; never commander,
 *   ink or the menu.
 */
export default defineConfig([
  { ...shared, entry: { cli: 'src/cli.ts' }, splitting: true },
  { ...shared, entry: { hook: 'src/commands/hook.ts' }, splitting: true, esbuildOptions: (options) => void (options.chunkNames = 'hook-chunks/[name]-[hash]') },
  {
    entry: { 'hook-act': 'src/commands/hook-act.ts' },
    format: ['cjs'],
    outExtension: () => ({ js: '.cjs' }),
    sourcemap: true,
    target: 'node20',
    noExternal: bundled,
    external: [/^@aws-sdk\//],
    // One file run through vm.Script (code-cache.ts): a dynamic import() there has no loader, so
    // esbuild turns the store's lazy imports (the AWS SDK, the lock library) into require().
    esbuildOptions: (options) => void (options.supported = { 'dynamic-import': false }),
  },
]);

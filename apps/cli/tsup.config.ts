import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from 'tsup';
import type { Plugin } from 'esbuild';

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
 * The builds run through vm.Script with V8's code cache (code-cache.ts): one CommonJS file each,
 * with every package in it. A dynamic import() has no loader there, so esbuild turns the lazy
 * imports (the store's package, the lock library, the SDK's) into require() of bundled code. The
 * SDK comes from its ES modules (`module` first), so only what the named imports need is kept.
 */
const codeCached: Options = {
  format: ['cjs'],
  outExtension: () => ({ js: '.cjs' }),
  sourcemap: true,
  target: 'node20',
  noExternal: [/./],
  esbuildOptions: (options) => {
    options.mainFields = ['module', 'main'];
    options.supported = { 'dynamic-import': false };
  },
};

/**
 * In `hook-act.cjs`, @fh/store-s3's `sdk-client` module and `@aws-sdk/lib-storage` come from the
 * separate `hook-aws-sdk.cjs` (with its own code cache, written as the process exits), loaded on
 * the store's first request: an event on the fs store never compiles or runs any of the SDK.
 */
const sdkFromItsBundle: Plugin = {
  name: 'fh-sdk-from-its-bundle',
  setup(build) {
    build.onResolve({ filter: /^\.\/sdk-client\.js$|^@aws-sdk\/lib-storage$/ }, (args) => ({ path: args.path.includes('lib-storage') ? 'storage' : 'client', namespace: 'fh-hook-aws-sdk' }));
    build.onLoad({ filter: /.*/, namespace: 'fh-hook-aws-sdk' }, (args) => ({
      resolveDir: fileURLToPath(new URL('./src', import.meta.url)),
      loader: 'js',
      // lib-storage from the same loaded bundle (its Upload sends through the same client classes).
      contents:
        args.path === 'storage'
          ? "module.exports = require('./sdk-client.js').storageModule();"
          : [
              "const { requireWithCodeCache } = require('./code-cache.ts');",
              "const loaded = requireWithCodeCache(require('node:path').join(__dirname, 'hook-aws-sdk.cjs'), process.env);",
              "process.once('exit', () => loaded.saveCache());",
              'module.exports = loaded.exports;',
            ].join('\n'),
    }));
  },
};

/**
 * signal-exit 3 (proper-lockfile's, in `hook-act.cjs`) requires Node's `assert` for one
 * `assert.equal(typeof cb, 'function', message)` on its own argument. Node's `assert` loads its
 * error formatting, which opens `process.stderr` (on a pipe, as agents run hooks, Node's net
 * streams): about 3 ms of every event that takes the session's lock. It gets this `equal` instead.
 */
const signalExitAssert: Plugin = {
  name: 'fh-signal-exit-assert',
  setup(build) {
    build.onResolve({ filter: /^assert$/ }, (args) => (/[\\/]signal-exit[\\/]/.test(args.importer) ? { path: 'assert', namespace: 'fh-signal-exit-assert' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'fh-signal-exit-assert' }, () => ({
      loader: 'js',
      contents: [
        'module.exports.equal = (actual, expected, message) => {',
        '  if (actual != expected) throw Object.assign(new Error(message), { code: "ERR_ASSERTION", actual, expected, operator: "==" });',
        '};',
      ].join('\n'),
    }));
  },
};

/**
 * The `fh` entry, `cli.js`: one CommonJS file (`dist/package.json` says `commonjs`, written by
 * {@link markCommonJs}; the ES module outputs are `.mjs`) holding `cli.ts` and what `fh hook`
 * runs first (reading and filtering the event: `commands/hook.ts`), so an agent's hook event
 * starts without Node's ES module loader and loads no other file for an event fh ignores.
 * `import.meta.url` is the file's URL, as in an ES module.
 */
const entry: Options = {
  format: ['cjs'],
  outExtension: () => ({ js: '.js' }),
  sourcemap: true,
  target: 'node20',
  noExternal: bundled,
  external: [/^@aws-sdk\//],
  define: { 'import.meta.url': '__fhImportMetaUrl' },
  banner: { js: "#!/usr/bin/env node\nconst __fhImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  onSuccess: markCommonJs,
};

/** Write `dist/package.json`: the `.js` files in `dist` (the entry) are CommonJS. */
async function markCommonJs(): Promise<void> {
  const { writeFile } = await import('node:fs/promises');
  await writeFile(new URL('./dist/package.json', import.meta.url), '{ "type": "commonjs" }\n');
}

/**
 * The builds (the `build` script empties dist first):
 * - `cli.js`, the entry (see {@link entry}): for `fh hook`, the event reader and filter only (no
 *   @fh/core, store or SDK), so an event fh ignores costs `node` start-up and this file.
 * - `program.mjs`, the command table, ES modules split per command: ink, react and cli-progress
 *   stay external and load only in the commands that draw with them; @fh/store-s3 loads only for
 *   s3:// stores, and the AWS SDK only on its first request.
 * - `hook-act.cjs`, what an event fh acts on runs: `hook-act.ts` with @fh/core, the stores and the
 *   command probe in one CommonJS file, which the entry runs through `vm.Script` with V8's code
 *   cache (`code-cache.ts`), so an event resolves no modules and compiles little; never commander,
 *   ink or the menu.
 */
export default defineConfig([
  { ...entry, entry: { cli: 'src/cli.ts' } },
  { ...shared, entry: { program: 'src/program.ts' }, splitting: true, outExtension: () => ({ js: '.mjs' }) },
  { ...codeCached, entry: { 'hook-act': 'src/commands/hook-act.ts' }, esbuildPlugins: [sdkFromItsBundle, signalExitAssert] },
  { ...codeCached, entry: { 'hook-aws-sdk': 'src/hook-aws-sdk.ts' } },
]);

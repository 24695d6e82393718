/**
 * Loading `fh hook`'s acting part (`hook-act.cjs`: the hook's code with @fh/core and the stores
 * bundled into one CommonJS file, see tsup.config.ts) with V8's code cache (issue 16): Node 20 has
 * no `module.enableCompileCache`, so the file is compiled through `vm.Script` with the
 * `cachedData` a previous event left beside it. With the cache, V8 skips parsing and compiling the
 * functions the previous event ran (about half a MiB of source); without it (first run, another
 * Node version, a changed file) the event compiles as usual and then leaves the cache for the next.
 *
 * The cache file is `<file>.<variant>.<node version>-<arch>.v8cache` beside the bundle, else (a read-only
 * install) in `$XDG_CACHE_HOME/fh` or `~/.cache/fh`. It starts with {@link CACHE_MAGIC}, the
 * sha256 of the source it was made from and the sha256 of V8's data, then that data: a cache is
 * used only for that very source and only whole. V8's own check compares the source's length only
 * (plus its version and flags) and does not check its data, so without the digests a bundle changed
 * at the same length (an upgrade that changes one digit) would run the old bundle's compiled
 * functions, and flipped bytes in the data would be run as bytecode. A cache of other bytes, a
 * damaged one or one V8 rejects is not used (one normal compile) and is rewritten, so a stale or
 * damaged cache never gives a wrong program.
 * Written to a temp file and renamed, so concurrent hooks never read half a cache.
 */
/**
 * Node's modules through `process.getBuiltinModule` (see `hook-input.ts`: an ESM import of
 * `node:fs` would load Node's stream modules), which also works in the CommonJS bundles that
 * load the AWS SDK this way (tsup.config.ts).
 */
const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');
const vm = process.getBuiltinModule('node:vm');
const { createHash } = process.getBuiltinModule('node:crypto');
const { createRequire } = process.getBuiltinModule('node:module');

/** How a cache file starts: then ` <source sha256> <data sha256>\n` (hex), then V8's data. */
const CACHE_MAGIC = 'fh-v8-code-cache 2';

/** The sha256 of `bytes`, in hex. */
function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A CommonJS file compiled with the code cache, and how to leave the cache for the next process. */
export interface CachedModule {
  exports: unknown;
  /** True when V8 compiled the file from a cache it accepted. */
  fromCache: boolean;
  /**
   * Write the code cache when the file was compiled without a usable one (call after the work, so
   * the cache holds the functions it ran). Never throws: a cache that cannot be written is skipped.
   */
  saveCache(): void;
}

/** Where the code cache of `file` for `variant` is kept: beside it, then in the user's cache folder. */
function cachePaths(file: string, variant: string, environment: NodeJS.ProcessEnv): string[] {
  const name = `${path.basename(file)}.${variant === '' ? '' : `${variant}.`}${process.version}-${process.arch}.v8cache`;
  const home = environment.XDG_CACHE_HOME || (environment.HOME ? path.join(environment.HOME, '.cache') : undefined);
  return [path.join(path.dirname(file), name), ...(home === undefined ? [] : [path.join(home, 'fh', name)])];
}

/**
 * Run the CommonJS file `file` (absolute) as `require` would, compiled with its code cache when
 * one is there (see the module comment). `variant` names one of several caches of the same file,
 * one per kind of run (`fh hook` keeps one per event kind and store: a cache holds the functions
 * the run that wrote it compiled, and an edit runs other code than a prompt, on S3 the SDK's).
 * Throws what reading or running the file throws.
 */
export function requireWithCodeCache(file: string, environment: NodeJS.ProcessEnv = process.env, variant = ''): CachedModule {
  const bytes = fs.readFileSync(file);
  const prefix = Buffer.from(`${CACHE_MAGIC} ${sha256(bytes)} `);
  const paths = cachePaths(file, variant, environment);
  let cachedData: Buffer | undefined;
  for (const candidate of paths) {
    let data: Buffer;
    try {
      data = fs.readFileSync(candidate);
    } catch {
      continue; // No cache there: the next place, or a normal compile.
    }
    // Made from these very bytes, and whole: else stale or damaged, never used.
    const start = prefix.length + 65;
    if (data.length > start && data.subarray(0, prefix.length).equals(prefix) && data[start - 1] === 0x0a) {
      const payload = data.subarray(start);
      if (data.toString('latin1', prefix.length, start - 1) === sha256(payload)) {
        cachedData = payload;
        break;
      }
    }
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${bytes.toString('utf8')}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  const usable = cachedData !== undefined && script.cachedDataRejected !== true;
  return {
    exports: module.exports,
    fromCache: usable,
    saveCache: () => {
      if (usable) return;
      const payload = script.createCachedData();
      const data = Buffer.concat([prefix, Buffer.from(`${sha256(payload)}\n`), payload]);
      for (const target of paths) {
        const temp = `${target}.${process.pid}.tmp`;
        try {
          fs.mkdirSync(path.dirname(target), { recursive: true });
          fs.writeFileSync(temp, data);
          fs.renameSync(temp, target);
          return;
        } catch {
          fs.rmSync(temp, { force: true });
        }
      }
    },
  };
}

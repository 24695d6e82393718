import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requireWithCodeCache } from '../src/code-cache.js';

const cacheName = (file: string) => `${file}.${process.version}-${process.arch}.v8cache`;
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A CommonJS file that requires a built-in module and exports a function of it. */
function moduleFile(): { folder: string; file: string } {
  const folder = mkdtempSync(join(tmpdir(), 'fh-code-cache-'));
  folders.push(folder);
  const file = join(folder, 'bundle.cjs');
  writeFileSync(file, `const { basename } = require('node:path');\nexports.name = (path) => basename(path) + ':' + __filename.length;\nmodule.exports.twice = (n) => n * 2;\n`);
  return { folder, file };
}

describe('requireWithCodeCache', () => {
  it('runs the file as require would, leaves its code cache beside it, and compiles from that cache next time', () => {
    const { file } = moduleFile();
    const first = requireWithCodeCache(file, {});
    expect(first.fromCache).toBe(false);
    expect((first.exports as { name: (path: string) => string }).name('/a/b.txt')).toBe(`b.txt:${file.length}`);
    first.saveCache();
    const written = statSync(cacheName(file));
    expect(written.size).toBeGreaterThan(0);
    const second = requireWithCodeCache(file, {});
    expect(second.fromCache).toBe(true);
    expect((second.exports as { twice: (n: number) => number }).twice(21)).toBe(42);
    second.saveCache();
    expect(statSync(cacheName(file)).mtimeMs).toBe(written.mtimeMs);
  });

  it('keeps one cache per variant (each event kind compiles its own functions)', () => {
    const { file } = moduleFile();
    requireWithCodeCache(file, {}, 'prompt-fs').saveCache();
    expect(requireWithCodeCache(file, {}, 'prompt-fs').fromCache).toBe(true);
    expect(requireWithCodeCache(file, {}, 'edit-fs').fromCache).toBe(false);
    expect(statSync(`${file}.prompt-fs.${process.version}-${process.arch}.v8cache`).size).toBeGreaterThan(0);
  });

  it('compiles normally past a damaged cache or a changed file, and rewrites the cache', () => {
    const { file } = moduleFile();
    writeFileSync(cacheName(file), Buffer.from('not a V8 code cache'.repeat(100)));
    const damaged = requireWithCodeCache(file, {});
    expect(damaged.fromCache).toBe(false);
    expect((damaged.exports as { twice: (n: number) => number }).twice(2)).toBe(4);
    damaged.saveCache();
    expect(requireWithCodeCache(file, {}).fromCache).toBe(true);
    writeFileSync(file, `exports.twice = (n) => n * 3;\n`);
    const changed = requireWithCodeCache(file, {});
    expect(changed.fromCache).toBe(false);
    expect((changed.exports as { twice: (n: number) => number }).twice(2)).toBe(6);
  });

  it('never runs a cache made from other bytes of the same length (V8 checks the length only), and rewrites it', () => {
    const { file } = moduleFile();
    writeFileSync(file, 'exports.value = () => 111;\n');
    const first = requireWithCodeCache(file, {});
    expect((first.exports as { value: () => number }).value()).toBe(111);
    first.saveCache();
    const made = readFileSync(cacheName(file));
    writeFileSync(file, 'exports.value = () => 222;\n');
    const changed = requireWithCodeCache(file, {});
    expect(changed.fromCache).toBe(false);
    expect((changed.exports as { value: () => number }).value()).toBe(222);
    changed.saveCache();
    expect(readFileSync(cacheName(file)).equals(made)).toBe(false);
    const next = requireWithCodeCache(file, {});
    expect(next.fromCache).toBe(true);
    expect((next.exports as { value: () => number }).value()).toBe(222);
  });

  it('never uses a cache whose data is damaged (V8 does not check it), and rewrites it', () => {
    const { file } = moduleFile();
    requireWithCodeCache(file, {}).saveCache();
    const cache = readFileSync(cacheName(file));
    const headerEnd = cache.indexOf(0x0a) + 1;
    expect(cache.subarray(0, headerEnd).toString()).toMatch(/^fh-v8-code-cache 2 [0-9a-f]{64} [0-9a-f]{64}\n$/);
    const damaged = Buffer.from(cache);
    damaged[damaged.length - 1] = (damaged[damaged.length - 1] as number) ^ 0xff;
    writeFileSync(cacheName(file), damaged);
    const rejected = requireWithCodeCache(file, {});
    expect(rejected.fromCache).toBe(false);
    expect((rejected.exports as { twice: (n: number) => number }).twice(5)).toBe(10);
    rejected.saveCache();
    expect(readFileSync(cacheName(file)).equals(damaged)).toBe(false);
    expect(requireWithCodeCache(file, {}).fromCache).toBe(true);
  });

  it('keeps the cache in $XDG_CACHE_HOME/fh when it cannot be written beside the file', () => {
    const { folder, file } = moduleFile();
    mkdirSync(cacheName(file)); // a folder where the cache would go: the rename onto it fails
    const cacheHome = join(folder, 'cache-home');
    requireWithCodeCache(file, { XDG_CACHE_HOME: cacheHome }).saveCache();
    const fallback = join(cacheHome, 'fh', cacheName('bundle.cjs'));
    expect(readFileSync(fallback).length).toBeGreaterThan(0);
    expect(requireWithCodeCache(file, { XDG_CACHE_HOME: cacheHome }).fromCache).toBe(true);
  });
});

import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/** The published builds (`npm test` builds first): error classes keep their names there too. */
describe('the built @fh/core', () => {
  it.each([
    ['ESM', () => import('../dist/index.js')],
    ['CJS', async () => createRequire(import.meta.url)('../dist/index.cjs')],
  ])('%s: errors are named after their class, not a bundler alias', async (_format, load) => {
    const core = (await load()) as typeof import('../src/index.js');
    expect(new core.FhError('x').name).toBe('FhError');
    expect(new core.NotFoundError('x').name).toBe('NotFoundError');
    expect(new core.InvalidArgumentError('x').name).toBe('InvalidArgumentError');
    expect(new core.FhError('x').constructor.name).toBe('FhError');
  });
});

import { vi } from 'vitest';

/**
 * Record which AWS SDK modules the store imports, in order: each module stays the real one, its
 * first import is pushed onto the returned list. Call it before the store is imported
 * (`await import('../src/index.js')`), so the store's imports go through these mocks.
 */
export function recordSdkImports(): string[] {
  const imported: string[] = [];
  for (const name of ['@aws-sdk/client-s3', '@aws-sdk/lib-storage']) {
    vi.doMock(name, async (importOriginal) => {
      imported.push(name);
      return importOriginal();
    });
  }
  return imported;
}

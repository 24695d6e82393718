import { defineConfig } from 'vitest/config';
import { workspaceAliases } from '../../vitest.shared';

export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
  },
});

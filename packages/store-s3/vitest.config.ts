import { defineConfig } from 'vitest/config';
import { workspaceAliases } from '../../vitest.shared';

export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // Stopping s3rver removes every object the conformance suite wrote: over 30 s on a loaded machine.
    hookTimeout: 120_000,
    // s3rver encrypts ListObjectsV2 continuation tokens with DES, which OpenSSL 3 only offers
    // through the legacy provider (see /work/shared/toolchain.md).
    pool: 'forks',
    execArgv: ['--openssl-legacy-provider'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});

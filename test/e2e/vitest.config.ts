// Vitest configuration of the real-client boot tests (issue 5):
//   npm run test:e2e   (= vitest run --config test/e2e/vitest.config.ts)
// global-setup.ts builds dist/ and the bootable fixture ISO once; the test files boot qemu guests
// one after another (two cores, no KVM: parallel guests would only slow each other down).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The repository root, wherever vitest is started from (the paths below are relative to it).
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/e2e/**/*.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 120_000,
    // Each guest boot has its own hard timeout (support/qemu.ts); a retry would only hide a flake.
    retry: 0,
  },
});

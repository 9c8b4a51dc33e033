// Vitest configuration of the real-client boot tests (issue 5):
//   npm run test:e2e   (= vitest run --config test/e2e/vitest.config.ts)
// global-setup.ts builds dist/ and the bootable fixture ISO once; two test files run at a time: a
// TCG guest keeps one core busy and the service little, so on the 2-core machine two files took
// the tier from 497 s to 266 s wall (2026-11-24, quiet), every boot inside its own timeout.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The repository root, wherever vitest is started from (the paths below are relative to it).
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/e2e/**/*.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 240_000,
    hookTimeout: 120_000,
    // Each guest boot has its own hard timeout (support/qemu.ts); a retry would only hide a flake.
    retry: 0,
  },
});

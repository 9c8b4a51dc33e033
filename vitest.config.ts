// Vitest configuration of the unit tier, in two projects (docs/developer/testing.md):
//   fast  the files test/fast-tier.ts lists: pure and in-process, no child process, tool or database
//         (test/support/fast-tier-guard.ts makes one throw); `npm run test:fast` runs only these.
//   real  every other unit test: real tools, child processes, the embedded PostgreSQL (started once
//         per run by the global setup), Chromium, NetworkManager.
// `npm run test:unit` (and `npm test`) runs both projects, so every unit test runs in CI.
import { configDefaults, defineConfig } from 'vitest/config';
import { FAST_TESTS } from './test/fast-tier.js';

/** Where unit tests live: beside their module, plus the packaging and README checks. */
export const UNIT_TESTS = [
  'src/**/*.test.ts',
  'fixtures/**/*.test.ts',
  'test/packaging/**/*.test.ts',
  'test/docs/**/*.test.ts',
  'test/support/**/*.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Three files at a time, also on two cores (vitest's default there is one): most unit tests
    // wait on sockets, timers, PostgreSQL and child processes, so three workers took the tier from
    // 756 s to 352 s wall on the 2-core machine (2026-11-24, quiet, TEST_DATABASE_URL set), every
    // test passing; the timing-bound tests were already held to bounds for a machine at load 8-14.
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: [...FAST_TESTS],
          setupFiles: ['test/support/fast-tier-guard.ts'],
          // One module cache per worker instead of one per file: loading the service's modules
          // again for each of these small files was most of the tier's time.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'real',
          include: UNIT_TESTS,
          exclude: [...configDefaults.exclude, ...FAST_TESTS],
          globalSetup: ['test/support/embedded-postgres-setup.ts'],
        },
      },
    ],
  },
});

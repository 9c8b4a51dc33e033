// Vitest configuration of the unit tier, in two projects chosen by file name (docs/developer/testing.md):
//   fast  `name.test.ts`: pure and in-process, no child process, tool or database
//         (test/support/fast-tier-guard.ts makes one throw); `npm run test:fast` runs only these.
//   real  `name.<needs>.test.ts`, <needs> one of REAL_PARTS: real tools and child processes, the
//         embedded PostgreSQL (started once per run by the global setup), Chromium, root.
// `npm run test:unit` (and `npm test`) runs both projects, so every unit test runs in CI.
// test/packaging/test-tiers.test.ts keeps the names honest.
import { configDefaults, defineConfig } from 'vitest/config';

/** Where unit tests live: beside their module, plus the packaging and documentation checks. */
export const UNIT_TESTS = [
  'src/**/*.test.ts',
  'fixtures/**/*.test.ts',
  'test/packaging/**/*.test.ts',
  'test/docs/**/*.test.ts',
  'test/support/**/*.test.ts',
];

/**
 * What a real-parts test needs, named in its file name (`name.<needs>.test.ts`), the first that
 * applies: `chromium` drives the browser; `root` mounts a file system or makes a network
 * namespace; `postgres` talks to PostgreSQL or starts the service in-process (which starts
 * one); `tools` runs child processes (external tools, the built CLI, test servers).
 */
export const REAL_PARTS = ['chromium', 'root', 'postgres', 'tools'] as const;

/** The unit tests named for a real part they need. */
export const REAL_TESTS = UNIT_TESTS.map((glob) =>
  glob.replace(/\*\.test\.ts$/, `*.{${REAL_PARTS.join(',')}}.test.ts`),
);

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
          include: UNIT_TESTS,
          exclude: [...configDefaults.exclude, ...REAL_TESTS],
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
          include: REAL_TESTS,
          globalSetup: ['test/support/embedded-postgres-setup.ts'],
        },
      },
    ],
  },
});

// Vitest configuration of the fault and fuzz campaign (issue 15):
//   npm run test:fuzz   CI-sized (a few thousand cases in all, seeded, bounded in time); part of npm test
//   npm run fuzz        the long campaign (FUZZ_MODE=long: ten times the cases, longer soaks)
// Every *.fuzz.test.ts records its figures (cases, crashes, hangs, wrong acceptances, data lost)
// through support/figures.ts; global-setup.ts prints them as one table when the run ends and
// writes them to .cache/fuzz/figures.json.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/fuzz/**/*.fuzz.test.ts'],
    // The embedded PostgreSQL the core's test harness creates databases in (as the unit suite does).
    globalSetup: ['test/fuzz/global-setup.ts', 'test/support/embedded-postgres-setup.ts'],
    pool: 'forks',
    // Two cores: campaigns that start servers and children measure hangs, so they run one file at a time.
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
    retry: 0,
  },
});

// Vitest configuration of the scale-out test (issue 13):
//   npm run test:scale   (= vitest run --config test/scale/vitest.config.ts)
// One file, one cluster (Debian PostgreSQL, s3rver, three replicas, haproxy) whose checks run
// in order; nothing runs beside it (two cores).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The repository root, wherever vitest is started from (the paths below are relative to it).
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/scale/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 400_000,
    retry: 0,
  },
});

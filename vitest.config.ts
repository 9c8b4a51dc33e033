import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'src/**/*.test.ts',
      'fixtures/**/*.test.ts',
      'test/packaging/**/*.test.ts',
      'test/docs/**/*.test.ts',
      'test/support/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/support/embedded-postgres-setup.ts'],
  },
});

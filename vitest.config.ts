import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'properties/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Ceilings for a hung test, not speed checks: generous, so a busy machine (a fresh clone beside
    // another npm test, load 8 on two cores) does not turn a slow test into a failure.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

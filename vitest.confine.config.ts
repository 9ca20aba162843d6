import { defineConfig } from 'vitest/config';

// `npm run test:confine`: the long confinement races (issue 15), kept out of npm test's main share.
export default defineConfig({
  test: {
    include: ['test/confine/**/*.race.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 30 * 60_000,
    hookTimeout: 60_000,
  },
});

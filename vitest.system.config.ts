import { defineConfig } from 'vitest/config';

/** Tests that need more than a few seconds of CPU (floods, races, big trees, Chromium, tmux): run once by `.ci/run`. */
export default defineConfig({
  test: {
    include: ['test/system/**/*.system.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});

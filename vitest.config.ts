import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The fault battery's three costliest files (70 of npm test's CPU-seconds): `npm run reliability`
 * runs them in full (the model-based run at 95 runs, not 8), and CI runs that, so `npm test` leaves
 * them out. Run directly (`npx vitest run test/reliability`), they run.
 */
const reliabilityOnly = [
  'test/reliability/model-stdio.test.ts',
  'test/reliability/fixture-faults.test.ts',
  'test/reliability/transport-faults.test.ts',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'properties/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(process.env.npm_lifecycle_event === 'test' ? reliabilityOnly : [])],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Ceilings for a hung test, not speed checks: generous, so a busy machine (a fresh clone beside
    // another npm test, load 8 on two cores) does not turn a slow test into a failure.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

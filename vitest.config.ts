import { readdirSync, readFileSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';

/** Every test file npm test runs, relative to the repository. */
const testFiles = ['properties', ...readdirSync('test').map((name) => `test/${name}`)]
  .filter((folder) => folder !== 'test/external')
  .flatMap((folder) =>
    folder.endsWith('.ts') ? [folder] : readdirSync(folder, { recursive: true, encoding: 'utf8' }).map((file) => `${folder}/${file}`),
  )
  .filter((file) => file.endsWith('.test.ts'));

/**
 * Unit and property test files share their worker's module cache (vitest's `isolate: false`):
 * importing src afresh for each of them cost 132 CPU-s, shared 74. Not the others: shared, an
 * integration file's runtimes and watchers met a later file's (a sandbox test hung in one run), and
 * a file that replaces a module (`vi.mock`, found by reading the files, so a new mock is isolated
 * without a list) needs a cache of its own.
 */
const shared = testFiles.filter(
  (file) => (file.startsWith('test/unit/') || file.startsWith('properties/')) && !/\bvi\.(?:do)?mock\(/.test(readFileSync(file, 'utf8')),
);

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Ceilings for a hung test, not speed checks: generous, so a busy machine (a fresh clone beside
    // another npm test, load 8 on two cores) does not turn a slow test into a failure.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'units', include: shared, isolate: false } },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/**/*.test.ts', 'properties/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...shared],
          isolate: true,
        },
      },
    ],
  },
});

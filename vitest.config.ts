import { readdirSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const include = ['test/**/*.test.ts', 'properties/**/*.test.ts'];

/**
 * A test file that replaces a module (`vi.mock`) needs a module cache of its own; every other file
 * shares its worker's (vitest's `isolate: false`): importing src afresh for each of 175 files cost a
 * third of the suite's CPU. Found by reading the files, so a new mock is isolated without a list.
 */
const folders = ['properties', ...readdirSync('test').map((name) => `test/${name}`)].filter((folder) => folder !== 'test/external');
const mocking = folders
  .flatMap((folder) =>
    folder.endsWith('.ts') ? [folder] : readdirSync(folder, { recursive: true, encoding: 'utf8' }).map((file) => `${folder}/${file}`),
  )
  .filter((file) => file.endsWith('.test.ts') && /\bvi\.(?:do)?mock\(/.test(readFileSync(file, 'utf8')));

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
      { extends: true, test: { name: 'shared', include, exclude: mocking, isolate: false } },
      { extends: true, test: { name: 'isolated', include: mocking, isolate: true } },
    ],
  },
});

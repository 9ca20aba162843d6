import type { ConfigError, ConfigProblem } from '../../src/errors/index.js';

/** The problem a ConfigError reports at `path`; fails the test, listing what it has, when there is none. */
export function problemAt(error: Pick<ConfigError, 'problems'>, path: string): ConfigProblem {
  const found = error.problems.find((p) => p.path === path);
  if (!found) throw new Error(`no problem at "${path}"; got ${JSON.stringify(error.problems, null, 2)}`);
  return found;
}

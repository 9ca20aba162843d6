/**
 * A `${VAR}` that is not set is needed only by the server that uses it: loaded for a runtime, the
 * file stays usable, that server alone cannot start, and using it says which variable to set.
 */
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { FoundProblem } from './found-problem.js';

/** One unset `${VAR}` of a server entry: the variable, and where it is written. */
export interface UnsetVariable {
  readonly variable: string;
  /** The key path, e.g. `servers.brave.env.BRAVE_API_KEY`. */
  readonly key: string;
  /** `file:line:col`, when the configuration was read from a file. */
  readonly at?: string;
}

/** The server an unset-variable problem belongs to, when it is inside a server entry. */
export function serverOfUnset(problem: FoundProblem): string | undefined {
  const [section, server] = problem.path;
  return problem.unset !== undefined && section === 'servers' && typeof server === 'string' ? server : undefined;
}

/** The problem said for a server: the server cannot start without the variable. */
export function forServer(problem: FoundProblem): FoundProblem {
  const server = serverOfUnset(problem);
  if (server === undefined) return problem;
  return { ...problem, hint: `server "${server}" cannot start without it: ${problem.hint ?? 'export it'}` };
}

/**
 * The error of using a server whose entry has unset `${VAR}` references: names the server and the
 * variables, and says where to set them.
 *
 * @example
 * throw unsetVariablesError('brave', config.unsetVariables.brave);
 */
export function unsetVariablesError(server: string, unset: readonly UnsetVariable[]): McpActorsError {
  const names = [...new Set(unset.map((entry) => entry.variable))];
  const where = unset.map((entry) => (entry.at === undefined ? entry.key : `${entry.key} at ${entry.at}`)).join(', ');
  return new McpActorsError(
    ErrorCode.CONFIG_INVALID,
    `server "${server}" needs ${names.join(', ')}, which ${names.length === 1 ? 'is' : 'are'} not set in the environment (${where}); ` +
      `export ${names.length === 1 ? 'it' : 'them'} where the runtime runs, or write \${${names[0]}:-text} for a default`,
    { details: { server, variables: names, keys: unset.map((entry) => entry.key) } },
  );
}

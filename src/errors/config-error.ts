import { ErrorCode } from './codes.js';
import { McpActorsError, type McpActorsErrorOptions } from './mcp-actors-error.js';

const BRAND = Symbol.for('mcp-actors.config-error');

/** One problem found in a configuration: where it is, what is wrong, what to write instead. */
export interface ConfigProblem {
  /** The key path, e.g. `servers.github.command` or `backoff.initialMs`. */
  readonly path: string;
  readonly problem: string;
  readonly hint?: string;
}

/**
 * A configuration that cannot be used. `problems` lists every mistake found, not just the first,
 * so a person can fix them all in one go.
 */
export class ConfigError extends McpActorsError {
  readonly problems: readonly ConfigProblem[];
  readonly [BRAND] = true;

  constructor(problems: readonly ConfigProblem[], options: McpActorsErrorOptions & { subject?: string } = {}) {
    super(ErrorCode.CONFIG_INVALID, formatProblems(problems, options.subject), {
      ...options,
      details: { ...options.details, problems },
    });
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function isConfigError(value: unknown): value is ConfigError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

function formatProblems(problems: readonly ConfigProblem[], subject = 'configuration'): string {
  const lines = problems.map((p) => `  - ${p.path || '(root)'}: ${p.problem}${p.hint ? ` — ${p.hint}` : ''}`);
  const noun = problems.length === 1 ? 'problem' : 'problems';
  return `invalid ${subject} (${problems.length} ${noun}):\n${lines.join('\n')}`;
}

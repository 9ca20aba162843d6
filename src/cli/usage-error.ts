/**
 * A command line the CLI cannot run: a one-line message that says what to write instead. It
 * exits with code 2 and never shows a stack trace.
 */

const BRAND = Symbol.for('mcp-actors.cli-usage-error');

export class UsageError extends Error {
  readonly [BRAND] = true;

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function isUsageError(value: unknown): value is UsageError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

import type { ErrorCode } from './codes.js';

const BRAND = Symbol.for('mcp-actors.error');

/** Structured facts about an error, for programs rather than people. */
export type ErrorDetails = Readonly<Record<string, unknown>>;

export interface McpActorsErrorOptions {
  readonly cause?: unknown;
  readonly details?: ErrorDetails;
}

/**
 * The one error family of the public boundary: a string `code`, a message that says what to do,
 * and the `cause` it came from.
 *
 * @example
 * try { await client.callTool('echo', { message: 'hi' }); }
 * catch (error) { if (isMcpActorsError(error) && error.code === 'REQUEST_TIMEOUT') retryLater(); }
 */
export class McpActorsError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  readonly [BRAND] = true;

  constructor(code: ErrorCode, message: string, options: McpActorsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'McpActorsError';
    this.code = code;
    this.details = options.details ?? {};
  }

  toJSON(): { name: string; code: ErrorCode; message: string; details: ErrorDetails } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

/** True for any error of the family, even when two copies of the package are loaded. */
export function isMcpActorsError(value: unknown): value is McpActorsError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** Whether a thrown value carries this `code`: a Node errno code such as `ENOENT`, or one of ours. */
export function hasErrorCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/** The message of any thrown value, for wrapping it as a cause. */
export function messageOf(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === 'string') return value;
  // JSON.stringify gives undefined for undefined, a function or a symbol, whatever its type says.
  const json = JSON.stringify(value) as string | undefined;
  return json ?? String(value);
}

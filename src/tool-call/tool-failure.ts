/**
 * A tool call's failure, built in one place: the MCP adapter and the in-process server (and the
 * domain servers it serves) answer a failed call with `toolFailure`, so a failure has one shape
 * wherever it came from. The `ToolResult` says it three ways that agree: `error` (the message),
 * `errorCode` (the finer kind) and `failure`, the error of the family a host reads: an `ErrorCode`
 * as `code`, the same message, `details.kind`, the server's JSON-RPC code in `details.mcpCode` when
 * it answered with one, and `cause` (the SDK's `McpError`, or what the tool threw).
 *
 * A message is worded once, by the layer that knows what happened; nothing here prefixes it.
 */
import { ErrorCode as McpErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, isMcpActorsError, messageOf, type ErrorDetails } from '../errors/mcp-actors-error.js';
import type { SchemaViolation } from '../registry/json-schema-validators.js';
import type { ToolContentBlock } from '../registry/tool-content.js';
import type { ToolErrorCode, ToolResult } from '../registry/tool-descriptor.js';

/** The public code of each finer kind: a kind the error family has keeps its code, the rest are TOOL_FAILED or INVALID_ARGUMENT. */
export const PUBLIC_CODE: Readonly<Record<ToolErrorCode, ErrorCode>> = {
  NOT_FOUND: ErrorCode.NOT_FOUND,
  VALIDATION: ErrorCode.INVALID_ARGUMENT,
  REQUEST_TIMEOUT: ErrorCode.REQUEST_TIMEOUT,
  CANCELLED: ErrorCode.CANCELLED,
  SERVER_ERROR: ErrorCode.TOOL_FAILED,
  CONNECTION_LOST: ErrorCode.CONNECTION_LOST,
  OUTPUT_VALIDATION: ErrorCode.TOOL_FAILED,
  PERMISSION_DENIED: ErrorCode.PERMISSION_DENIED,
  TENANT_MISMATCH: ErrorCode.TENANT_MISMATCH,
  TENANT_ARGUMENT: ErrorCode.TENANT_ARGUMENT,
};

export interface ToolFailureOptions {
  /** What the failure came from: the SDK's `McpError`, the tool's throw. */
  readonly cause?: unknown;
  /** Facts for programs (`mcpCode`, `server`, ...); `kind` is added. */
  readonly details?: ErrorDetails;
  /** ajv error paths, for VALIDATION and OUTPUT_VALIDATION. */
  readonly violations?: readonly SchemaViolation[];
  /** The content the tool answered with (default none). */
  readonly content?: readonly ToolContentBlock[];
  /** Make the message the one text block, as an MCP `isError` result carries it (the in-process server's shape). */
  readonly messageAsText?: boolean;
  readonly data?: unknown;
  /** When the duration was measured already (default: since `started`). */
  readonly durationMs?: number;
}

/**
 * A failed `ToolResult`, carrying its error. Made only for a failure (not a closure per call).
 *
 * @example
 * return toolFailure(started, 'VALIDATION', `validation failed for "echo": ${detail}`, { violations });
 */
export function toolFailure(started: number, kind: ToolErrorCode, message: string, options: ToolFailureOptions = {}): ToolResult {
  const { cause, details, violations } = options;
  const failure = new McpActorsError(PUBLIC_CODE[kind], message, {
    cause,
    details: { ...details, kind, ...(violations === undefined ? {} : { violations }) },
  });
  return {
    success: false,
    content: options.messageAsText === true ? [{ type: 'text', text: message }] : (options.content ?? []),
    data: options.data,
    error: message,
    errorCode: kind,
    ...(violations === undefined ? {} : { violations }),
    failure,
    durationMs: options.durationMs ?? performance.now() - started,
  };
}

/**
 * The failure of a request that threw: an error of the family keeps its message and details, and
 * its cause becomes the failure's (the SDK's `McpError` for a wire error), so nothing is worded
 * twice and nothing is lost; anything else is its own cause.
 */
export function toolFailureOf(started: number, error: unknown): ToolResult {
  const kind = toolErrorCodeOf(error);
  if (!isMcpActorsError(error)) return toolFailure(started, kind, messageOf(error), { cause: error });
  return toolFailure(started, kind, error.message, { cause: error.cause ?? error, details: error.details });
}

/**
 * The kind of a failed request, from the error's structure (its code and the JSON-RPC code it
 * carries), never from its message text.
 */
export function toolErrorCodeOf(error: unknown): ToolErrorCode {
  if (!isMcpActorsError(error)) return 'SERVER_ERROR';
  switch (error.code) {
    case ErrorCode.REQUEST_TIMEOUT:
    case ErrorCode.CANCELLED:
    case ErrorCode.NOT_FOUND:
      return error.code;
    case ErrorCode.PROTOCOL_ERROR:
      return error.details.mcpCode === McpErrorCode.MethodNotFound ? 'NOT_FOUND' : 'SERVER_ERROR';
    // Refused by the client before it was sent (bad arguments or options): not a lost connection.
    case ErrorCode.INVALID_ARGUMENT:
      return 'VALIDATION';
    case ErrorCode.PERMISSION_DENIED:
    case ErrorCode.TENANT_MISMATCH:
    case ErrorCode.TENANT_ARGUMENT:
      return error.code;
    default:
      return 'CONNECTION_LOST';
  }
}

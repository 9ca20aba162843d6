/**
 * Turns whatever the SDK threw for a request into one classified error of the family. The SDK
 * rejects a timeout and an abort alike with -32001, so the caller's signal tells them apart.
 */
import { ErrorCode as McpErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { authErrorOf } from '../auth/auth-error.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import type { ServerConnection } from '../server/server-io.js';

// The SDK's codes as the numbers an McpError carries (its `code` is a plain number).
const REQUEST_TIMEOUT: number = McpErrorCode.RequestTimeout;
const CONNECTION_CLOSED: number = McpErrorCode.ConnectionClosed;

export interface RequestContext {
  readonly server: string;
  /** What was asked, for messages: `call "echo"`, `tools/list`. */
  readonly what: string;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  /** Only asked how it ended. */
  readonly connection: Pick<ServerConnection, 'endedWith'>;
}

export function classifyRequestError(error: unknown, context: RequestContext): McpActorsError {
  const { server, what, timeoutMs, signal, connection } = context;
  const details = { server, request: what };
  if (signal?.aborted) {
    return new McpActorsError(ErrorCode.CANCELLED, `${what} on server "${server}" was cancelled by the caller; MCP cancellation was sent`, {
      cause: signal.reason ?? error,
      details,
    });
  }
  // Before the lost-connection check: a refused credential ends the session too, and says why.
  const authError = authErrorOf(error, { server, what });
  if (authError) return authError;
  const ended = connection.endedWith();
  if (ended && (ended.error.code === ErrorCode.AUTH_REQUIRED || ended.error.code === ErrorCode.AUTH_FAILED)) {
    return new McpActorsError(ended.error.code, `${what} on server "${server}" failed: ${ended.error.message}`, {
      cause: ended.error,
      details: { ...details, ...ended.error.details },
    });
  }
  if (ended || isConnectionClosed(error)) {
    const reason = ended ? `: ${ended.error.message}` : '';
    return new McpActorsError(
      ErrorCode.CONNECTION_LOST,
      `the connection to server "${server}" was lost during ${what}${reason}; the server is restarted per its restart policy, so the call may be retried`,
      { cause: ended?.error ?? error, details },
    );
  }
  if (error instanceof McpError && error.code === REQUEST_TIMEOUT) {
    return new McpActorsError(
      ErrorCode.REQUEST_TIMEOUT,
      `${what} on server "${server}" got no answer within ${timeoutMs} ms; MCP cancellation was sent. Raise timeoutMs (or callTimeoutMs) if the tool is slow`,
      { cause: error, details: { ...details, timeoutMs } },
    );
  }
  if (error instanceof McpError) {
    return new McpActorsError(
      ErrorCode.PROTOCOL_ERROR,
      `server "${server}" answered ${what} with error ${error.code}: ${wireMessageOf(error)}`,
      {
        cause: error,
        details: { ...details, mcpCode: error.code, data: error.data },
      },
    );
  }
  if (isMcpActorsError(error)) return error;
  return new McpActorsError(ErrorCode.CONNECTION_LOST, `${what} on server "${server}" failed: ${messageOf(error)}`, {
    cause: error,
    details,
  });
}

/**
 * The server's own words: the SDK prefixes every McpError's message with `MCP error <code>: `, and an
 * SDK server sends that prefixed message over the wire, where the client's McpError prefixes it
 * again. The code is said once, by the caller, from `error.code`.
 */
export function wireMessageOf(error: McpError): string {
  const prefix = `MCP error ${error.code}: `;
  let message = error.message;
  while (message.startsWith(prefix)) message = message.slice(prefix.length);
  return message;
}

function isConnectionClosed(error: unknown): boolean {
  return error instanceof McpError && error.code === CONNECTION_CLOSED;
}

/**
 * Recognises the ways the SDK's HTTP transports say "not authorized" and turns them into
 * AUTH_REQUIRED (401: no or expired credentials) or AUTH_FAILED (403, a refused token exchange, a
 * scope step-up that did not help). The cause kept is a fresh error carrying only the status and
 * the SDK error's class name: an SDK message may quote a server's body, and a body may echo a token.
 */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';

export interface AuthErrorContext {
  readonly server: string;
  readonly url?: string | undefined;
  /** What was under way: `connect`, `call "echo"`, `tools/list`. */
  readonly what: string;
  /** Whether an `auth` provider was given for this server (unknown: the message names both ways). */
  readonly hasProvider?: boolean | undefined;
}

/** The HTTP status an SDK error stands for, when it is an authorization failure. */
export function authStatusOf(error: unknown): 401 | 403 | 'oauth' | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if (current instanceof UnauthorizedError) return 401;
    if (current instanceof StreamableHTTPError || current instanceof SseError) {
      if (current.code === 401 || current.code === 403) return current.code;
    }
    if (current instanceof OAuthError) return 'oauth';
  }
  return undefined;
}

/** An AUTH_REQUIRED or AUTH_FAILED error for `error`, or `undefined` when it is no authorization failure. */
export function authErrorOf(error: unknown, context: AuthErrorContext): McpActorsError | undefined {
  const status = authStatusOf(error);
  if (status === undefined) return undefined;
  const { server, what } = context;
  const at = context.url ? ` at ${context.url}` : '';
  const kind = error instanceof Error ? error.constructor.name : typeof error;
  const oauthCode = error instanceof OAuthError ? error.errorCode : undefined;
  const cause = new Error(`${kind}${typeof status === 'number' ? ` (HTTP ${status})` : ''}${oauthCode ? ` ${oauthCode}` : ''}`);
  const details = {
    server,
    ...(context.url ? { url: context.url } : {}),
    request: what,
    ...(typeof status === 'number' ? { httpStatus: status } : {}),
    ...(oauthCode ? { oauthError: oauthCode } : {}),
  };
  if (status === 401) {
    const todo =
      context.hasProvider === undefined
        ? `authorize again (agents auth login ${server}) or give the server an OAuth provider or an Authorization header`
        : context.hasProvider
          ? `authorize again (for the CLI: agents auth login ${server}); the provider could neither refresh its token nor finish an authorization`
          : `give the server an OAuth provider (createRuntime({ auth }) or new McpClient(config, { auth })), run "agents auth login ${server}", or set an Authorization header`;
    return new McpActorsError(ErrorCode.AUTH_REQUIRED, `server "${server}"${at} asked for authorization during ${what}: ${todo}`, {
      cause,
      details,
    });
  }
  const reason =
    status === 403
      ? 'refused the credentials (HTTP 403; a scope step-up was tried once where the provider allows it)'
      : `refused the token request${oauthCode ? ` (${oauthCode})` : ''}`;
  return new McpActorsError(
    ErrorCode.AUTH_FAILED,
    `server "${server}"${at} ${reason} during ${what}; check the client's credentials and the scopes it may ask for, then start the server again`,
    { cause, details },
  );
}

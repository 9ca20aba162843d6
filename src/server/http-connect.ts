/**
 * `connectServer` for remote servers (`sse`, `streamable-http`): nothing is spawned, so the
 * handle is the session; the connection ends when the SDK says the transport closed, when the
 * session expires (404), or when the server can no longer be reached.
 *
 * Authorization: an `OAuthClientProvider` given for the server goes to the SDK transport, which
 * discovers, registers, refreshes and retries as the MCP spec says. A 401 or 403 that is left
 * after that is AUTH_REQUIRED / AUTH_FAILED, and not retryable: the server goes to ERROR at once
 * rather than hammering the authorization server through its restarts.
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallbackLogicFunction } from 'xstate';
import { authErrorOf, authStatusOf } from '../auth/auth-error.js';
import { AuthorizingTransport, isNetworkFailure, type HttpClientTransport, type SessionLoss } from '../auth/authorizing-transport.js';
import type { OAuthClientProvider } from '../auth/server-auth.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import type { ConnectInput } from './server-io.js';
import type { ServerEvent } from './server-machine.js';
import type { ClientConnection } from './client-connection.js';
import { handshake } from './connect-client.js';
import { isVersionMismatch, versionMismatch, watchInitializeAnswer } from './protocol-version.js';
import type { ServerRequestHandlers } from './server-requests.js';

type ConnectParams = Parameters<CallbackLogicFunction<ServerEvent, ServerEvent, ConnectInput>>[0];

/** What a connection needs besides the configuration: given by the host, never kept in machine context. */
export interface ConnectExtras {
  readonly auth?: OAuthClientProvider | undefined;
  readonly handlers?: ServerRequestHandlers | undefined;
}

type Kind = 'sse' | 'streamable-http';

function transportFor(kind: Kind, config: ResolvedServerConfig, auth: OAuthClientProvider | undefined): HttpClientTransport {
  const url = new URL(config.url ?? '');
  const requestInit = { headers: { ...config.headers } };
  const options = { requestInit, ...(auth ? { authProvider: auth } : {}) };
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the older HTTP+SSE on purpose: `transport: sse`, and the fallback for servers that speak only it
  return kind === 'sse' ? new SSEClientTransport(url, options) : new StreamableHTTPClientTransport(url, options);
}

/** A 4xx to the first POST that is not about authorization: an older server that speaks only SSE. */
function speaksOnlySse(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth += 1) {
    if (current instanceof StreamableHTTPError) {
      const code = current.code ?? 0;
      return code >= 400 && code < 500 && code !== 401 && code !== 403;
    }
  }
  return false;
}

export function connectHttpServer({ input, sendBack }: ConnectParams, extras: ConnectExtras = {}): () => void {
  const { config } = input;
  const href = new URL(config.url ?? '').href;
  const details = { server: config.name, url: href };
  // Cleared by the cleanup below: a property, so TypeScript does not narrow it to its first value.
  const life = { active: true };
  let handedOver = false;
  let current: AuthorizingTransport | undefined;
  const closings = new Set<Promise<void>>();
  const closeCurrent = (): Promise<void> => {
    const transport = current;
    if (!transport) return Promise.resolve();
    const closing = transport.close().catch(() => undefined);
    closings.add(closing);
    return closing;
  };
  let closeAll: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closeAll ??= closeCurrent()
      .then(() => Promise.all(closings))
      .then(() => undefined));
  sendBack({ type: 'server.spawned', handle: { pid: undefined, close } });

  const lostError = (loss: SessionLoss): McpActorsError =>
    loss.kind === 'unauthorized'
      ? (authErrorOf(loss.error, {
          server: config.name,
          url: href,
          what: 'a request',
          hasProvider: extras.auth !== undefined,
        }) as McpActorsError)
      : loss.kind === 'session-expired'
        ? new McpActorsError(
            ErrorCode.SERVER_CRASHED,
            `the session with server "${config.name}" at ${href} expired (HTTP 404); a new session is started`,
            {
              details: { ...details, reason: 'session-expired' },
            },
          )
        : new McpActorsError(
            ErrorCode.SERVER_CRASHED,
            `server "${config.name}" at ${href} can no longer be reached (${messageOf(loss.error)}); it is reconnected per its restart policy`,
            {
              cause: loss.error,
              details: { ...details, reason: 'unreachable' },
            },
          );

  const attempt = async (kind: Kind): Promise<ClientConnection> => {
    let connection: ClientConnection | undefined;
    let endedEarly: McpActorsError | undefined;
    const end = (error: McpActorsError): void => {
      if (connection) connection.markEnded({ normal: false, error });
      else endedEarly ??= error;
    };
    const transport = new AuthorizingTransport(transportFor(kind, config, extras.auth), extras.auth, (loss) => end(lostError(loss)));
    current = transport;
    transport.onclose = () =>
      end(new McpActorsError(ErrorCode.SERVER_CRASHED, `the connection to server "${config.name}" at ${href} closed`, { details }));
    let answered: string | undefined;
    watchInitializeAnswer(transport, (version) => (answered ??= version));
    try {
      connection = await handshake({ config, transport, pid: undefined, closeTransport: close, handlers: extras.handlers });
    } catch (error) {
      throw versionMismatch(answered, config.name, error) ?? error;
    }
    // Ended between the end of the handshake and now: the machine must still hear of it.
    if (endedEarly) connection.markEnded({ normal: false, error: endedEarly });
    return connection;
  };

  /** The SSE transport's GET can start an authorization outside `send`: finish it and try once more. */
  const attemptAuthorized = async (kind: Kind): Promise<ClientConnection> => {
    try {
      return await attempt(kind);
    } catch (error) {
      if (authStatusOf(error) !== 401 || !current || !life.active || !(await current.finishPendingAuthorization())) throw error;
      await closeCurrent();
      return attempt(kind);
    }
  };

  void (async () => {
    let connection: ClientConnection;
    const first: Kind = config.transport === 'sse' ? 'sse' : 'streamable-http';
    try {
      try {
        connection = await attemptAuthorized(first);
      } catch (error) {
        if (!(first === 'streamable-http' && config.sseFallback && speaksOnlySse(error)) || !life.active) throw error;
        await closeCurrent();
        connection = await attemptAuthorized('sse');
      }
    } catch (error) {
      if (!life.active) return;
      // A protocol version we do not speak cannot get better by trying again.
      if (isVersionMismatch(error)) {
        sendBack({ type: 'server.startFailed', retryable: false, error });
        return;
      }
      const authError =
        (isMcpActorsError(error) && (error.code === ErrorCode.AUTH_REQUIRED || error.code === ErrorCode.AUTH_FAILED) ? error : undefined) ??
        authErrorOf(error, { server: config.name, url: href, what: 'connect', hasProvider: extras.auth !== undefined });
      sendBack({
        type: 'server.startFailed',
        retryable: authError === undefined,
        error:
          authError ??
          new McpActorsError(
            ErrorCode.HANDSHAKE_FAILED,
            `could not connect to server "${config.name}" at ${href}: ${messageOf(error)}; ${isNetworkFailure(error) ? 'nothing answers there: check that the server is up' : 'check the url and that the server is up'}`,
            { cause: error, details },
          ),
      });
      return;
    }
    if (!life.active) return;
    handedOver = true;
    sendBack({ type: 'server.connected', connection });
  })();

  return () => {
    life.active = false;
    if (!handedOver) void close();
  };
}

/**
 * `connectServer` for remote servers (`sse`, `streamable-http`): nothing is spawned, so the
 * handle is the session; the connection ends when the SDK says the transport closed.
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallbackLogicFunction } from 'xstate';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import type { ConnectInput } from '../machines/server-io.js';
import type { ServerEvent } from '../machines/server-machine.js';
import type { ClientConnection } from './client-connection.js';
import { handshake } from './connect-client.js';

type ConnectParams = Parameters<CallbackLogicFunction<ServerEvent, ServerEvent, ConnectInput>>[0];

export function connectHttpServer({ input, sendBack }: ConnectParams): () => void {
  const { config } = input;
  const url = new URL(config.url ?? '');
  const requestInit = { headers: { ...config.headers } };
  const transport: Transport =
    config.transport === 'sse'
      ? new SSEClientTransport(url, { requestInit })
      : new StreamableHTTPClientTransport(url, { requestInit });
  let active = true;
  let handedOver = false;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= transport.close().catch(() => undefined));
  sendBack({ type: 'server.spawned', handle: { pid: undefined, close } });

  void (async () => {
    let connection: ClientConnection | undefined;
    let closedEarly = false;
    const ended = () => ({
      normal: false,
      error: new McpActorsError(ErrorCode.SERVER_CRASHED, `the connection to server "${config.name}" at ${url.href} closed`, {
        details: { server: config.name, url: url.href },
      }),
    });
    transport.onclose = () => {
      if (!connection) closedEarly = true;
      connection?.markEnded({
        normal: false,
        error: new McpActorsError(ErrorCode.SERVER_CRASHED, `the connection to server "${config.name}" at ${url.href} closed`, {
          details: { server: config.name, url: url.href },
        }),
      });
    };
    try {
      connection = await handshake({ config, transport, pid: undefined, closeTransport: close });
    } catch (error) {
      if (!active) return;
      sendBack({
        type: 'server.startFailed',
        retryable: true,
        error: new McpActorsError(
          ErrorCode.HANDSHAKE_FAILED,
          `could not connect to server "${config.name}" at ${url.href}: ${messageOf(error)}; check the url and that the server is up`,
          { cause: error, details: { server: config.name, url: url.href } },
        ),
      });
      return;
    }
    // Closed between the end of the handshake and now: the machine must still hear of it.
    if (closedEarly) connection.markEnded(ended());
    if (!active) return;
    handedOver = true;
    sendBack({ type: 'server.connected', connection });
  })();

  return () => {
    active = false;
    if (!handedOver) void close();
  };
}

/**
 * `connectServer` over any MCP `Transport` a host makes itself (an in-process server's linked
 * transport, a `faultyTransport` around one, a transport of its own): the supervised server machine
 * runs over it like over stdio. What a process would do becomes what a transport can do:
 *
 * - the server "exits" when the transport closes: normally if the transport reported no error
 *   before closing, abnormally (a crash) if it did; either way the machine restarts it per policy;
 * - a message that is not JSON-RPC is counted (`diagnostics().nonJsonLines`, like stray stdout
 *   lines) and dropped before the SDK Client sees it;
 * - a clean stop is `transport.close()`, given `shutdownTimeoutMs` to finish; a kill (a contract
 *   breach: start or ping timeout) calls `close()` and does not wait. A transport that never
 *   finishes closing is abandoned, as a process that ignores SIGTERM is SIGKILLed;
 * - there is no process: `pid` is undefined and no exit code or signal is reported (`lastExit` is
 *   left as it was), and no message-size cap applies (messages are objects, not bytes on a wire).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { fromCallback } from 'xstate';
import type { ResolvedServerConfig } from '../config/server-config.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import type { ConnectInput, ConnectionEnded, ServerHandle, TransportDiagnostics } from './server-io.js';
import type { ServerEvent } from './server-machine.js';
import type { ClientConnection } from './client-connection.js';
import { handshake } from './connect-client.js';
import { answeredVersion, interceptMessages } from './protocol-version.js';
import { StartHandOver } from './start-hand-over.js';
import { withDeadline } from '../timing/deadline.js';

/**
 * Makes a fresh transport for one connection attempt (each restart asks again). Under `McpClient`
 * (and the runtime) it gets the server's configuration as written, `env` and `headers` included;
 * the machine's own copy of it, which inspectors and snapshots show, stays redacted.
 */
export type TransportFactory = (config: ResolvedServerConfig) => Transport | Promise<Transport>;

/** A JSON-RPC 2.0 request, notification or response, by shape. */
function isJsonRpc(message: unknown): message is JSONRPCMessage {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  return m.jsonrpc === '2.0' && (typeof m.method === 'string' || ('id' in m && ('result' in m || 'error' in m)));
}

/**
 * The `connectServer` actor for `McpClient`'s `actors` option (or `serverMachine.provide`): every
 * start makes a transport with `makeTransport` and runs the MCP handshake over it.
 *
 * @example
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new McpClient({ name: 'mine', command: 'in-process' }, { actors: { connectServer: connectOverTransport(() => clientSide) } });
 */
export function connectOverTransport(makeTransport: TransportFactory) {
  return connectWith(makeTransport, undefined);
}

/** The logic `connectOverTransport` made, and its factory (see `withServerConfig`). */
const factories = new WeakMap<object, TransportFactory>();

/**
 * A `connectServer` actor given by a host, made to see `config` (the real one, with its secrets)
 * instead of the machine's redacted copy: `McpClient` calls this on `actors.connectServer`. Logic
 * that `connectOverTransport` did not make is returned as it is.
 */
export function withServerConfig<L extends object>(logic: L, config: ResolvedServerConfig): L {
  const factory = factories.get(logic);
  return factory ? (connectWith(factory, config) as unknown as L) : logic;
}

function connectWith(makeTransport: TransportFactory, realConfig: ResolvedServerConfig | undefined) {
  const logic = fromCallback<ServerEvent, ConnectInput>(({ input, sendBack }) => {
    const config = realConfig ?? input.config;
    const details = { server: config.name, transport: 'in-process' };
    let transport: Transport | undefined;
    let connection: ClientConnection | undefined;
    let reported: Error | undefined;
    // Set by the transport's onclose: a property, so TypeScript does not narrow it to its first value.
    const transportState = { closed: false };
    let version: string | undefined;
    const diagnostics: { nonJsonLines: number; lastNonJsonLine?: string } = { nonJsonLines: 0 };
    const diagnosticsOf = (): TransportDiagnostics => ({ stderrTail: [], ...diagnostics });

    const endedOf = (): ConnectionEnded => ({
      normal: reported === undefined,
      error: new McpActorsError(
        ErrorCode.SERVER_CRASHED,
        reported
          ? `the transport to server "${config.name}" failed and closed (${messageOf(reported)})`
          : `the transport to server "${config.name}" closed`,
        { ...(reported ? { cause: reported } : {}), details },
      ),
    });

    let closing: Promise<void> | undefined;
    const close = (waitMs: number): Promise<void> =>
      (closing ??= (async () => {
        const made = await madeTransport.catch(() => undefined);
        if (!made || transportState.closed) return;
        await withDeadline(
          made.close().catch(() => undefined),
          { ms: waitMs, onTimeout: () => undefined, unref: true },
        );
      })());
    const handle: ServerHandle = {
      pid: undefined,
      diagnostics: diagnosticsOf,
      close: () => close(config.shutdownTimeoutMs),
      kill: () => close(0),
    };

    const madeTransport = Promise.resolve().then(() => makeTransport(config));
    sendBack({ type: 'server.spawned', handle });
    const start = new StartHandOver(config.name, handle, sendBack);

    void (async () => {
      try {
        transport = await madeTransport;
      } catch (error) {
        start.failed(
          new McpActorsError(ErrorCode.SPAWN_FAILED, `could not make the transport of server "${config.name}": ${messageOf(error)}`, {
            cause: error,
            details,
          }),
          false,
        );
        return;
      }
      // Installed before the SDK Client's own handlers (it chains after them).
      transport.onerror = (error) => {
        reported ??= error;
      };
      transport.onclose = () => {
        transportState.closed = true;
        connection?.markEnded(endedOf());
      };
      // Typed as what a transport may really deliver, which is why it is checked.
      interceptMessages(transport, (message: unknown) => {
        if (!isJsonRpc(message)) {
          diagnostics.nonJsonLines += 1;
          // JSON.stringify gives undefined for undefined, a function or a symbol (its type says string).
          const json = JSON.stringify(message) as string | undefined;
          diagnostics.lastNonJsonLine = String(json ?? message).slice(0, 200);
          return false;
        }
        version ??= answeredVersion(message);
        return true;
      });
      try {
        connection = await handshake({
          config,
          transport,
          pid: undefined,
          closeTransport: () => handle.close(),
          killTransport: () => close(0),
          diagnostics: diagnosticsOf,
        });
      } catch (error) {
        start.handshakeFailed(
          error,
          version,
          () =>
            new McpActorsError(
              ErrorCode.HANDSHAKE_FAILED,
              transportState.closed
                ? `the transport to server "${config.name}" closed before the MCP initialize handshake finished${reported ? ` (${messageOf(reported)})` : ''}`
                : `the MCP initialize handshake with server "${config.name}" failed: ${messageOf(error)}`,
              { cause: reported ?? error, details },
            ),
        );
        return;
      }
      start.connected(connection, transportState.closed ? endedOf() : undefined);
    })();

    return start.stop;
  });
  factories.set(logic, makeTransport);
  return logic;
}

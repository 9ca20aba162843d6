/**
 * How every start actor ends (stdio, or any transport a host makes): it tells the machine its
 * start failed — a server answering a protocol version we do not speak is never retried — or hands
 * the connection over, once. A start the machine gave up first (a stop, a start timeout) tells
 * nothing more, and closes what it opened unless it was already handed over.
 */
import type { McpActorsError } from '../errors/mcp-actors-error.js';
import type { ConnectionEnded, ServerExit, ServerHandle } from './server-io.js';
import type { ServerEvent } from './server-machine.js';
import type { ClientConnection } from './client-connection.js';
import { versionMismatch } from './protocol-version.js';

export class StartHandOver {
  #active = true;
  #handedOver = false;

  constructor(
    private readonly serverName: string,
    private readonly handle: Pick<ServerHandle, 'close'>,
    private readonly sendBack: (event: ServerEvent) => void,
  ) {}

  /** Whether the machine still waits for this start. */
  get active(): boolean {
    return this.#active;
  }

  /** The start failed before a handshake (nothing to spawn, no transport). */
  failed(error: McpActorsError, retryable: boolean, exit?: ServerExit): void {
    if (this.#active) this.sendBack({ type: 'server.startFailed', error, retryable, ...(exit ? { exit } : {}) });
  }

  /** The handshake failed: a protocol-version mismatch says so and is final; anything else is `otherwise()`, and may be retried. */
  handshakeFailed(cause: unknown, answeredVersion: string | undefined, otherwise: () => McpActorsError, exit?: ServerExit): void {
    const mismatch = versionMismatch(answeredVersion, this.serverName, cause);
    this.failed(mismatch ?? otherwise(), mismatch === undefined, exit);
  }

  /** The handshake succeeded: from here the machine owns the connection (`ended`: the server is already gone). */
  connected(connection: ClientConnection, ended: ConnectionEnded | undefined): void {
    if (ended) connection.markEnded(ended);
    if (!this.#active) return;
    this.#handedOver = true;
    this.sendBack({ type: 'server.connected', connection });
  }

  /** The start actor's cleanup, which XState runs when the machine leaves the starting state. */
  readonly stop = (): void => {
    this.#active = false;
    if (!this.#handedOver) void this.handle.close();
  };
}

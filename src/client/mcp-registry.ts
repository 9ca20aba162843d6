/**
 * `McpRegistry`: the clients of a host by server name. A duplicate name is refused; disposal
 * stops every client, the last registered first (OTP stops children in reverse start order).
 */
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { McpClient } from './mcp-client.js';

/**
 * @example
 * await using registry = new McpRegistry();
 * registry.register(new McpClient({ name: 'memory', command: 'node', args: [memoryServerPath] }));
 * const result = await registry.require('memory').callTool('read_graph');
 */
export class McpRegistry implements AsyncDisposable {
  private readonly clients = new Map<string, McpClient>();

  /** Adds a client under its own name (or `name`); a name already taken is refused with DUPLICATE_NAME. */
  register(client: McpClient): McpClient;
  register(name: string, client: McpClient): McpClient;
  register(nameOrClient: string | McpClient, maybeClient?: McpClient): McpClient {
    const client = typeof nameOrClient === 'string' ? maybeClient : nameOrClient;
    const name = typeof nameOrClient === 'string' ? nameOrClient : nameOrClient.name;
    if (!client) {
      throw new McpActorsError(ErrorCode.INVALID_ARGUMENT, `register("${name}", client) needs the McpClient to register`);
    }
    if (this.clients.has(name)) {
      throw new McpActorsError(
        ErrorCode.DUPLICATE_NAME,
        `a server named "${name}" is already registered; give the new one another name or unregister the old one first`,
        { details: { name } },
      );
    }
    this.clients.set(name, client);
    return client;
  }

  get(name: string): McpClient | undefined {
    return this.clients.get(name);
  }

  /** Like `get`, but a missing name is a NOT_FOUND error listing the names there are. */
  require(name: string): McpClient {
    const client = this.clients.get(name);
    if (client) return client;
    throw new McpActorsError(
      ErrorCode.NOT_FOUND,
      `no server named "${name}" is registered; registered: ${[...this.clients.keys()].map((n) => `"${n}"`).join(', ') || 'none'}`,
      { details: { name } },
    );
  }

  has(name: string): boolean {
    return this.clients.has(name);
  }

  names(): string[] {
    return [...this.clients.keys()];
  }

  /** Removes a client without stopping it; returns it, or undefined if the name was free. */
  unregister(name: string): McpClient | undefined {
    const client = this.clients.get(name);
    this.clients.delete(name);
    return client;
  }

  /** Stops every server (clients stay registered and can start again). */
  async stopAll(): Promise<void> {
    for (const client of [...this.clients.values()].reverse()) await client.stop();
  }

  /** Disposes every client, even when one fails; the failures are reported together afterwards. */
  async [Symbol.asyncDispose](): Promise<void> {
    const clients = [...this.clients.values()].reverse();
    this.clients.clear();
    const failures: unknown[] = [];
    for (const client of clients) await client.dispose().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} of ${clients.length} servers failed to stop cleanly`);
  }
}

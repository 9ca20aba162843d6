/**
 * A `ServerConnection` over an SDK `Client`, whatever the transport: it knows how the connection
 * ended and tells the machine once, unless the end was asked for with `close()`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { ConnectionEnded, McpCapabilityMetadata, ServerConnection, ServerExit, TransportDiagnostics } from './server-io.js';

export interface ClientConnectionParts {
  readonly serverName: string;
  readonly client: Client;
  readonly pid: number | undefined;
  /** Closes the underlying transport (and process); never rejects. */
  readonly closeTransport: () => Promise<void>;
  /** Kills the underlying process at once (a contract breach); `close()` is used where absent. */
  readonly killTransport?: () => Promise<void>;
  readonly protocolVersion: string | undefined;
  readonly diagnostics?: () => TransportDiagnostics;
  /** How the process ended, once it has (stdio). */
  readonly exit?: () => ServerExit | undefined;
}

export class ClientConnection implements ServerConnection {
  readonly client: Client;
  readonly pid: number | undefined;
  readonly capabilities: McpCapabilityMetadata;
  readonly serverInfo: { readonly name: string; readonly version: string } | undefined;
  readonly protocolVersion: string | undefined;
  readonly diagnostics: (() => TransportDiagnostics) | undefined;
  readonly exit: (() => ServerExit | undefined) | undefined;
  private readonly serverName: string;
  private readonly closeTransport: () => Promise<void>;
  private readonly killTransport: (() => Promise<void>) | undefined;
  private readonly listeners = new Set<(ended: ConnectionEnded) => void>();
  private ended: ConnectionEnded | undefined;
  private closing: Promise<void> | undefined;

  constructor(parts: ClientConnectionParts) {
    this.client = parts.client;
    this.pid = parts.pid;
    this.serverName = parts.serverName;
    this.closeTransport = parts.closeTransport;
    this.killTransport = parts.killTransport;
    const raw = (parts.client.getServerCapabilities() ?? {}) as Record<string, unknown>;
    this.capabilities = {
      tools: raw.tools !== undefined,
      resources: raw.resources !== undefined,
      prompts: raw.prompts !== undefined,
      raw,
    };
    const info = parts.client.getServerVersion();
    this.serverInfo = info ? { name: info.name, version: info.version } : undefined;
    this.protocolVersion = parts.protocolVersion;
    this.diagnostics = parts.diagnostics;
    this.exit = parts.exit;
  }

  /**
   * What a snapshot shows of a connection (inspection serialises events and context as JSON): never
   * the SDK client behind it, whose transport holds the headers and the auth provider.
   */
  toJSON(): { server: string; pid: number | undefined; serverInfo: ClientConnection['serverInfo']; protocolVersion: string | undefined } {
    return { server: this.serverName, pid: this.pid, serverInfo: this.serverInfo, protocolVersion: this.protocolVersion };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ClientConnection(${JSON.stringify(this.toJSON())})`;
  }

  /** Called by the transport glue when the connection ends, asked for or not. First call wins. */
  markEnded(ended: ConnectionEnded): void {
    if (this.ended) return;
    this.ended = ended;
    if (this.closing) return;
    for (const listener of [...this.listeners]) listener(ended);
  }

  endedWith(): ConnectionEnded | undefined {
    return this.ended;
  }

  onEnded(listener: (ended: ConnectionEnded) => void): () => void {
    if (this.ended && !this.closing) {
      const ended = this.ended;
      queueMicrotask(() => listener(ended));
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.client.ping({ timeout: timeoutMs });
  }

  /** Like `close()`, but the process is killed at once (SIGKILL to its group, for stdio). */
  kill(): Promise<void> {
    const kill = this.killTransport;
    if (!kill) return this.close();
    const closing = this.closing;
    if (closing) return Promise.all([closing, kill()]).then(() => undefined);
    return this.end(kill);
  }

  close(): Promise<void> {
    if (this.closing) return this.closing;
    return this.end(this.closeTransport);
  }

  private end(endTransport: () => Promise<void>): Promise<void> {
    // Set before marking the end, so listeners (the machine) never hear of an end that was asked for.
    let release: () => void = () => undefined;
    this.closing = new Promise<void>((resolve) => (release = resolve));
    void (async () => {
      this.markEnded({
        normal: true,
        error: new McpActorsError(ErrorCode.CONNECTION_LOST, `the connection to server "${this.serverName}" was closed`, {
          details: { server: this.serverName },
        }),
      });
      await endTransport();
    })().finally(release);
    return this.closing;
  }
}

/**
 * The seam between the pure server machine and the I/O that serves it: the shapes of the handles
 * the I/O actors hand back and the events they send. Types only — the implementations live in
 * `src/server/` and are passed in with `serverMachine.provide({ actors })`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import type { McpActorsError } from '../errors/mcp-actors-error.js';

/** What the initialize handshake said the server can do (the seeds' `MCPCapabilityMetadata`). */
export interface McpCapabilityMetadata {
  readonly tools: boolean;
  readonly resources: boolean;
  readonly prompts: boolean;
  readonly raw: Readonly<Record<string, unknown>>;
}

/** What a transport noticed that was not fatal: the server's last stderr lines, stray stdout lines. */
export interface TransportDiagnostics {
  readonly stderrTail: readonly string[];
  readonly nonJsonLines: number;
  readonly lastNonJsonLine?: string | undefined;
}

/** Something running that must be closed: a spawned process, an open session. */
export interface ServerHandle {
  readonly pid: number | undefined;
  /** What the transport noticed so far, where it keeps such things (stdio does). */
  diagnostics?(): TransportDiagnostics;
  /** Stops it (for stdio: the stdin / SIGTERM / SIGKILL escalation). Idempotent; never rejects. */
  close(): Promise<void>;
  /**
   * Ends it at once, for a server that broke its contract (start timeout, ping timeout, oversized
   * message): for stdio, SIGKILL to the whole group, no clean stop sequence. Never rejects. Where
   * absent, `close()` is used.
   */
  kill?(): Promise<void>;
  /** How the process ended, once it has (after `close()` or `kill()` resolved); undefined where there is no process. */
  exit?(): ServerExit | undefined;
}

/** How a server's process last ended, as `status().lastExit` shows it. */
export interface ServerExit {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stderrTail: readonly string[];
}

/** How a connection ended when nobody asked it to. */
export interface ConnectionEnded {
  /** A clean exit (code 0): `transient` servers are not restarted after one. */
  readonly normal: boolean;
  readonly error: McpActorsError;
  /** How the process ended, where there is one (stdio). */
  readonly exit?: ServerExit | undefined;
}

/** A server past its initialize handshake. */
export interface ServerConnection extends ServerHandle {
  readonly client: Client;
  readonly capabilities: McpCapabilityMetadata;
  readonly serverInfo: { readonly name: string; readonly version: string } | undefined;
  readonly protocolVersion: string | undefined;
  /** How the connection ended, once it has (also after `close()`). */
  endedWith(): ConnectionEnded | undefined;
  /** Calls `listener` once when the connection ends without `close()`; returns an unsubscribe. */
  onEnded(listener: (ended: ConnectionEnded) => void): () => void;
  /** Sends an MCP ping; rejects if no answer comes within `timeoutMs`. */
  ping(timeoutMs: number): Promise<void>;
}

/** Input of the `connectServer` actor. */
export interface ConnectInput {
  readonly config: ResolvedServerConfig;
  /** Counts connection attempts, so late events of an old attempt can be told apart. */
  readonly generation: number;
}

/** Events the `connectServer` actor sends back, in this order. */
export type ConnectEvent =
  | { readonly type: 'server.spawned'; readonly handle: ServerHandle }
  | { readonly type: 'server.connected'; readonly connection: ServerConnection }
  | {
      readonly type: 'server.startFailed';
      readonly error: McpActorsError;
      readonly retryable: boolean;
      /** How the process ended, when it did before the handshake finished. */
      readonly exit?: ServerExit | undefined;
    };

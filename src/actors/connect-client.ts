/**
 * The MCP initialize handshake over any transport, through the SDK `Client`, turned into a
 * `ServerConnection`. The transport-specific parts (spawning, exit reports) are in the callers.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import type { TransportDiagnostics } from '../machines/server-io.js';
import { CLIENT_INFO } from '../version.js';
import { acceptAnyOutput } from './accept-any-output.js';
import { ClientConnection } from './client-connection.js';

export interface HandshakeParts {
  readonly config: ResolvedServerConfig;
  readonly transport: Transport;
  readonly pid: number | undefined;
  readonly closeTransport: () => Promise<void>;
  readonly diagnostics?: () => TransportDiagnostics;
}

/** Connects a new SDK Client over `transport`; rejects with the SDK's error if the handshake fails. */
export async function handshake(parts: HandshakeParts): Promise<ClientConnection> {
  const { config, transport } = parts;
  let protocolVersion: string | undefined;
  const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version: string) => {
    protocolVersion = version;
    setProtocolVersion?.(version);
  };
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: acceptAnyOutput });
  await client.connect(transport, { timeout: config.startTimeoutMs });
  return new ClientConnection({
    serverName: config.name,
    client,
    pid: parts.pid,
    closeTransport: parts.closeTransport,
    protocolVersion,
    ...(parts.diagnostics ? { diagnostics: parts.diagnostics } : {}),
  });
}

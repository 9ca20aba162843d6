/**
 * The MCP initialize handshake over any transport, through the SDK `Client`, turned into a
 * `ServerConnection`. The transport-specific parts (spawning, exit reports) are in the callers.
 */
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import type { ServerExit, TransportDiagnostics } from './server-io.js';
import { CLIENT_INFO } from '../version.js';
import { acceptAnyOutput } from './accept-any-output.js';
import { ClientConnection } from './client-connection.js';
import { capabilitiesFor, installServerRequestHandlers, type ServerRequestHandlers } from './server-requests.js';
import { withDeadline } from '../timing/deadline.js';

export interface HandshakeParts {
  readonly config: ResolvedServerConfig;
  readonly transport: Transport;
  readonly pid: number | undefined;
  readonly closeTransport: () => Promise<void>;
  readonly killTransport?: () => Promise<void>;
  readonly diagnostics?: () => TransportDiagnostics;
  /** How the process ended, once it has (stdio). */
  readonly exit?: () => ServerExit | undefined;
  /** Answers to the server's own requests (elicitation, sampling); their capabilities are declared only when given. */
  readonly handlers?: ServerRequestHandlers | undefined;
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
  const offersRoots = config.roots.length > 0;
  const client = new Client(CLIENT_INFO, {
    capabilities: { ...(offersRoots ? { roots: { listChanged: true } } : {}), ...capabilitiesFor(parts.handlers) },
    jsonSchemaValidator: acceptAnyOutput,
  });
  installServerRequestHandlers(client, config.name, parts.handlers);
  let rootsAnswered: () => void = () => undefined;
  const rootsListed = new Promise<void>((resolve) => (rootsAnswered = resolve));
  if (offersRoots) {
    client.setRequestHandler(ListRootsRequestSchema, () => {
      queueMicrotask(rootsAnswered);
      return { roots: config.roots.map((root) => ({ uri: pathToFileURL(root).href, name: basename(root) })) };
    });
  }
  await client.connect(transport, { timeout: config.startTimeoutMs });
  if (offersRoots) await settleRoots(client, rootsListed, config.startTimeoutMs);
  return new ClientConnection({
    serverName: config.name,
    client,
    pid: parts.pid,
    closeTransport: parts.closeTransport,
    ...(parts.killTransport ? { killTransport: parts.killTransport } : {}),
    protocolVersion,
    ...(parts.diagnostics ? { diagnostics: parts.diagnostics } : {}),
    ...(parts.exit ? { exit: parts.exit } : {}),
  });
}

/**
 * A server that uses roots asks for them right after `initialized` and applies them
 * asynchronously (server-filesystem takes a few hundred milliseconds): a first call made at once
 * would find no allowed directory. So when roots are offered, RUNNING waits until the server has
 * asked (or a short while has passed without it asking) and has then answered a ping — its
 * request handling being ordered, the ping is answered after the roots were taken in.
 */
async function settleRoots(client: Client, rootsListed: Promise<void>, timeoutMs: number): Promise<void> {
  const asked = await withDeadline(
    rootsListed.then(() => true),
    { ms: ROOTS_REQUEST_WAIT_MS, onTimeout: () => false, unref: true },
  );
  if (!asked) return;
  await delay(ROOTS_SETTLE_MS);
  await client.ping({ timeout: timeoutMs }).catch(() => undefined);
}

/** How long to wait for a server to ask for roots before assuming it does not use them. */
export const ROOTS_REQUEST_WAIT_MS = 250;
/** How long a server is given to apply roots it asked for, before the confirming ping. */
export const ROOTS_SETTLE_MS = 50;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

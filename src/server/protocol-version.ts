/**
 * The protocol version a server answers initialize with, seen on its way to the SDK Client (which
 * rejects an unsupported one with only a sentence), and the error that names both versions. A
 * mismatch cannot get better by trying again: every transport's connect reports it not retryable.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '../errors/codes.js';
import { isMcpActorsError, McpActorsError } from '../errors/mcp-actors-error.js';

/** `details.kind` of a version mismatch. */
const PROTOCOL_VERSION_KIND = 'protocolVersion';

/** Whether `error` is the mismatch `versionMismatch` makes (recognised by structure: code and `details.kind`). */
export function isVersionMismatch(error: unknown): error is McpActorsError {
  return isMcpActorsError(error) && error.code === ErrorCode.HANDSHAKE_FAILED && error.details.kind === PROTOCOL_VERSION_KIND;
}

/** The version in an initialize answer, or undefined for any other message. */
export function answeredVersion(message: JSONRPCMessage): string | undefined {
  const result = 'result' in message ? (message.result as { protocolVersion?: unknown; serverInfo?: unknown } | undefined) : undefined;
  return result && typeof result.protocolVersion === 'string' && result.serverInfo !== undefined ? result.protocolVersion : undefined;
}

/**
 * Runs `look` on every message before the handler the SDK installs on `transport.onmessage` (it
 * installs it in `connect`, after us); `look` returning false drops the message.
 */
export function interceptMessages(transport: Transport, look: (message: JSONRPCMessage) => boolean): void {
  let handler: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (next: Transport['onmessage']) => {
      handler =
        next &&
        ((message, extra) => {
          if (look(message)) next(message, extra);
        });
    },
  });
}

/** Calls `seen` with the protocol version the server answers initialize with. */
export function watchInitializeAnswer(transport: Transport, seen: (version: string) => void): void {
  interceptMessages(transport, (message) => {
    const version = answeredVersion(message);
    if (version !== undefined) seen(version);
    return true;
  });
}

/**
 * HANDSHAKE_FAILED naming both versions when the server answered one we do not speak; else
 * undefined. The server did not answer with a JSON-RPC error (that is PROTOCOL_ERROR): its answer
 * to initialize ends the handshake, so the handshake failed; `details.kind` is `'protocolVersion'`.
 */
export function versionMismatch(answered: string | undefined, serverName: string, cause: unknown): McpActorsError | undefined {
  if (answered === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(answered)) return undefined;
  return new McpActorsError(
    ErrorCode.HANDSHAKE_FAILED,
    `server "${serverName}" speaks MCP protocol version ${answered}, which this client does not support ` +
      `(it speaks ${LATEST_PROTOCOL_VERSION}, and also ${SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== LATEST_PROTOCOL_VERSION).join(', ')}); ` +
      'it is not restarted: upgrade or downgrade the server (or mcp-actors) so they share a version',
    {
      cause,
      details: {
        server: serverName,
        kind: PROTOCOL_VERSION_KIND,
        serverVersion: answered,
        clientVersion: LATEST_PROTOCOL_VERSION,
        supported: [...SUPPORTED_PROTOCOL_VERSIONS],
      },
    },
  );
}

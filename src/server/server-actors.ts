/**
 * The I/O the server machine runs on: one `connectServer` that picks the transport from the
 * config, and the transport-independent close, watch and ping actors.
 */
import { fromCallback } from 'xstate';
import type { ResolvedServerConfig } from '../config/server-config.js';
import type { ConnectInput } from './server-io.js';
import type { ServerEvent } from './server-machine.js';
import { connectHttpServer, type ConnectExtras } from './http-connect.js';
import { closeServer, pingServer, watchServer } from './lifecycle-actors.js';
import { connectStdioServer } from './stdio-connect.js';

export const connectServer = fromCallback<ServerEvent, ConnectInput>((params) =>
  params.input.config.transport === 'stdio' ? connectStdioServer(params) : connectHttpServer(params),
);

export const defaultServerActors = { connectServer, closeServer, watchServer, pingServer };

export type ServerActors = typeof defaultServerActors;

export interface ConnectServerParts extends ConnectExtras {
  /**
   * The configuration with its secrets (header and env values). The machine's context keeps only
   * a redacted copy, so snapshots and inspection never carry them; the connection uses this one.
   */
  readonly config?: ResolvedServerConfig;
}

/** A `connectServer` bound to what a host gave one server: its secrets, auth provider and request handlers. */
export function createConnectServer(parts: ConnectServerParts): ServerActors['connectServer'] {
  return fromCallback<ServerEvent, ConnectInput>((params) => {
    const withSecrets = parts.config ? { ...params, input: { ...params.input, config: parts.config } } : params;
    return withSecrets.input.config.transport === 'stdio' ? connectStdioServer(withSecrets) : connectHttpServer(withSecrets, parts);
  });
}

/**
 * The I/O the server machine runs on: one `connectServer` that picks the transport from the
 * config, and the transport-independent close, watch and ping actors.
 */
import { fromCallback } from 'xstate';
import type { ConnectInput } from '../machines/server-io.js';
import type { ServerEvent } from '../machines/server-machine.js';
import { connectHttpServer } from './http-connect.js';
import { closeServer, pingServer, watchServer } from './lifecycle-actors.js';
import { connectStdioServer } from './stdio-connect.js';

export const connectServer = fromCallback<ServerEvent, ConnectInput>((params) =>
  params.input.config.transport === 'stdio' ? connectStdioServer(params) : connectHttpServer(params),
);

export const defaultServerActors = { connectServer, closeServer, watchServer, pingServer };

export type ServerActors = typeof defaultServerActors;

/**
 * `connectServer` for stdio: spawn the process (in its own group, see StdioProcessTransport), hand
 * the machine a handle to it at once — so a stop at any moment can close it — then run the
 * handshake and report how the process ended if it ends.
 */
import type { CallbackLogicFunction } from 'xstate';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, isMcpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import type { ConnectInput, ConnectionEnded, ServerExit, ServerHandle } from './server-io.js';
import type { ServerEvent } from './server-machine.js';
import type { ClientConnection } from './client-connection.js';
import { handshake } from './connect-client.js';
import { watchInitializeAnswer } from './protocol-version.js';
import { StartHandOver } from './start-hand-over.js';
import { serverEnvironment } from '../process/server-environment.js';
import { isTransientSpawnFailure } from './spawn-failure.js';
import { describeExit, StdioProcessTransport, type ProcessExit } from './stdio-process-transport.js';
import { prepareConfinement, type PreparedConfinement } from '../process/confinement/confinement-plan.js';
import { withDeadline } from '../timing/deadline.js';

type ConnectParams = Parameters<CallbackLogicFunction<ServerEvent, ServerEvent, ConnectInput>>[0];

export function connectStdioServer({ input, sendBack }: ConnectParams): () => void {
  const { config } = input;
  const env = serverEnvironment(config.env);
  let confinement: PreparedConfinement | undefined;
  try {
    confinement = prepareConfinement({
      serverName: config.name,
      setting: config.confine,
      env,
      cwd: config.cwd,
      command: config.command ?? '',
      args: config.args,
    });
  } catch (error) {
    return failBeforeSpawn(error, config.name, sendBack);
  }
  const transport = new StdioProcessTransport({
    command: config.command ?? '',
    args: config.args,
    env,
    confinement: confinement?.plan,
    cwd: config.cwd,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    maxMessageBytes: config.maxMessageBytes,
    stderrLines: config.stderrLines,
    serverName: config.name,
  });
  const started = transport.start();
  if (confinement) void transport.exited.then(() => confinement.dispose());
  const handle: ServerHandle = {
    get pid() {
      return transport.pid;
    },
    diagnostics: () => transport.diagnostics(),
    close: async () => {
      await started.catch(() => undefined);
      await transport.close();
    },
    kill: () => transport.kill(),
    exit: () => processExit(transport.exit),
  };
  sendBack({ type: 'server.spawned', handle });
  const start = new StartHandOver(config.name, handle, sendBack);

  void (async () => {
    try {
      await started;
    } catch (error) {
      // A missing or non-executable command cannot start by trying again; a lack of resources can.
      start.failed(spawnError(error, config.name), isTransientSpawnFailure(error));
      return;
    }
    let connection: ClientConnection | undefined;
    let answeredVersion: string | undefined;
    watchInitializeAnswer(transport, (version) => (answeredVersion ??= version));
    // Installed before the SDK's own onclose (which it chains after this one), so the exit is
    // known before pending requests are rejected.
    transport.onclose = () => {
      const exit = transport.exit;
      if (connection && exit) connection.markEnded(endedBy(exit, config.name));
    };
    try {
      connection = await handshake({
        config,
        transport,
        pid: transport.pid,
        closeTransport: () => handle.close(),
        killTransport: () => transport.kill(),
        diagnostics: () => transport.diagnostics(),
        exit: () => processExit(transport.exit),
      });
    } catch (error) {
      if (!start.active) return;
      const exit = transport.exit ?? (await settleSoon(transport.exited));
      start.handshakeFailed(error, answeredVersion, () => handshakeError(error, exit, config.name), processExit(exit));
      return;
    }
    start.connected(connection, transport.exit && endedBy(transport.exit, config.name));
  })();

  return start.stop;
}

/** A start that cannot even spawn (confinement asked for and unavailable): the machine is told as for a failed spawn. */
function failBeforeSpawn(error: unknown, serverName: string, sendBack: ConnectParams['sendBack']): () => void {
  const handle: ServerHandle = {
    pid: undefined,
    diagnostics: () => ({ nonJsonLines: 0, stderrTail: [] }),
    close: () => Promise.resolve(undefined),
  };
  sendBack({ type: 'server.spawned', handle });
  const start = new StartHandOver(serverName, handle, sendBack);
  queueMicrotask(() => start.failed(spawnError(error, serverName), false));
  return start.stop;
}

function endedBy(exit: ProcessExit, serverName: string): ConnectionEnded {
  const error =
    exit.reason ??
    new McpActorsError(ErrorCode.SERVER_CRASHED, describeExit(exit, serverName), {
      details: { server: serverName, code: exit.code, signal: exit.signal, stderrTail: exit.stderrTail },
    });
  return { normal: exit.normal && !exit.reason, error, exit: exitSummary(exit) };
}

/** The exit of a process that ran (a spawn that never happened has neither code nor signal). */
function processExit(exit: ProcessExit | undefined): ServerExit | undefined {
  return exit && (exit.code !== null || exit.signal !== null) ? exitSummary(exit) : undefined;
}

function exitSummary(exit: ProcessExit): ServerExit {
  return { code: exit.code, signal: exit.signal, stderrTail: exit.stderrTail };
}

function spawnError(error: unknown, serverName: string): McpActorsError {
  if (isMcpActorsError(error)) return error;
  return new McpActorsError(ErrorCode.SPAWN_FAILED, `could not spawn server "${serverName}": ${messageOf(error)}`, {
    cause: error,
    details: { server: serverName },
  });
}

function handshakeError(error: unknown, exit: ProcessExit | undefined, serverName: string): McpActorsError {
  if (exit && !exit.requested) {
    return new McpActorsError(
      ErrorCode.SERVER_EXITED,
      `${describeExit(exit, serverName)} — before the MCP initialize handshake finished; check the command and its arguments`,
      { cause: exit.reason ?? error, details: { server: serverName, code: exit.code, signal: exit.signal, stderrTail: exit.stderrTail } },
    );
  }
  return new McpActorsError(
    ErrorCode.HANDSHAKE_FAILED,
    `the MCP initialize handshake with server "${serverName}" failed: ${messageOf(error)}`,
    { cause: error, details: { server: serverName } },
  );
}

/** The exit, if it comes within a moment (a handshake failure often precedes the exit event). */
function settleSoon(exited: Promise<ProcessExit>): Promise<ProcessExit | undefined> {
  return withDeadline<ProcessExit | undefined>(exited, { ms: 250, onTimeout: () => undefined, unref: true });
}

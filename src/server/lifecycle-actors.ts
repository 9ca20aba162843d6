/**
 * The transport-independent I/O of the server machine: closing what was spawned, watching a
 * connection for its end, and the optional ping liveness probe.
 */
import { fromCallback, fromPromise } from 'xstate';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError, messageOf } from '../errors/mcp-actors-error.js';
import type { ServerConnection, ServerExit } from './server-io.js';
import type { CloseInput, ServerEvent } from './server-machine.js';

/**
 * Closes what was spawned; with `kill` (a contract breach), kills it at once where the handle can.
 * Resolves with how the process ended, so `status().lastExit` shows the end the runtime caused too.
 */
export const closeServer = fromPromise<ServerExit | undefined, CloseInput>(async ({ input }) => {
  const { handle } = input;
  if (!handle) return undefined;
  if (input.kill && handle.kill) await handle.kill();
  else await handle.close();
  return handle.exit?.();
});

export const watchServer = fromCallback<ServerEvent, { connection: ServerConnection }>(({ input, sendBack }) =>
  input.connection.onEnded((ended) => sendBack({ type: 'server.ended', ended })),
);

/** Pings every `intervalMs`; one ping unanswered within the interval reports the server hung. */
export const pingServer = fromCallback<ServerEvent, { connection: ServerConnection; intervalMs: number }>(({ input, sendBack }) => {
  const { connection, intervalMs } = input;
  if (intervalMs <= 0) return undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = (): void => {
    timer = setTimeout(() => {
      connection.ping(intervalMs).then(
        () => {
          if (!stopped) schedule();
        },
        (error: unknown) => {
          if (stopped || connection.endedWith()) return;
          sendBack({
            type: 'ping.failed',
            error: new McpActorsError(
              ErrorCode.PING_TIMEOUT,
              `server did not answer a ping within ${intervalMs} ms (${messageOf(error)}); it is treated as hung and restarted`,
              { cause: error, details: { pid: connection.pid, intervalMs } },
            ),
          });
        },
      );
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
});

/**
 * Waiting for a server to be RUNNING on behalf of one request: starts a stopped server (lazy
 * start), keeps waiting through restarts, and gives up only at the request's own deadline, when
 * the server reaches ERROR, when someone stops it, or when the caller aborts.
 */
import type { Actor } from 'xstate';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { ServerConnection } from '../machines/server-io.js';
import { publicStateOf, type serverMachine, type ServerSnapshot } from '../machines/server-machine.js';

export interface AwaitOptions {
  /** False while an asked-for stop is under way: then a call may not start the server again. */
  readonly mayStart?: () => boolean;
  readonly what: string;
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

export function serverInErrorError(snapshot: ServerSnapshot, what: string): McpActorsError {
  const { config, lastError, restartCount } = snapshot.context;
  const reason = lastError ? `: ${lastError.message}` : '';
  return new McpActorsError(
    ErrorCode.SERVER_IN_ERROR,
    `server "${config.name}" is in ERROR (after ${restartCount} automatic restart${restartCount === 1 ? '' : 's'})${reason}. ` +
      `${what} cannot run until start() or reconnect() is called once the cause is fixed`,
    { cause: lastError, details: { server: config.name, reason: lastError?.code, restarts: restartCount } },
  );
}

export function awaitConnection(actor: Actor<typeof serverMachine>, options: AwaitOptions): Promise<ServerConnection> {
  const { what, deadline, timeoutMs, signal } = options;
  const initial = actor.getSnapshot();
  const name = initial.context.config.name;
  const ready = readyConnection(initial);
  if (ready) return Promise.resolve(ready);
  if (publicStateOf(initial) === 'ERROR') return Promise.reject(serverInErrorError(initial, what));
  if (signal?.aborted) return Promise.reject(cancelled(name, what, signal));
  const mayStart = options.mayStart ?? (() => true);
  if (!mayStart() && publicStateOf(initial) !== 'STARTING') return Promise.reject(stoppedError(name, what));

  return new Promise<ServerConnection>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      subscription.unsubscribe();
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const onAbort = (): void => finish(() => reject(cancelled(name, what, signal)));
    const timer = setTimeout(() => {
      const snapshot = actor.getSnapshot();
      const last = snapshot.context.lastError;
      finish(() =>
        reject(
          new McpActorsError(
            ErrorCode.REQUEST_TIMEOUT,
            `${what} waited ${timeoutMs} ms for server "${name}" to start and it is still ${publicStateOf(snapshot)}` +
              `${last ? ` (last error: ${last.message})` : ''}; raise timeoutMs or startTimeoutMs, or check the server`,
            { cause: last, details: { server: name, timeoutMs, state: publicStateOf(snapshot) } },
          ),
        ),
      );
    }, Math.max(0, deadline - Date.now()));
    signal?.addEventListener('abort', onAbort, { once: true });

    let sawStart = false;
    const check = (snapshot: ServerSnapshot): void => {
      const connection = readyConnection(snapshot);
      const state = publicStateOf(snapshot);
      if (connection) finish(() => resolve(connection));
      else if (state === 'ERROR') finish(() => reject(serverInErrorError(snapshot, what)));
      else if (state === 'STOPPED' && sawStart) finish(() => reject(stoppedError(name, what)));
      else if (state !== 'STOPPED') sawStart = true;
    };
    const subscription = actor.subscribe({ next: check });
    const now = publicStateOf(actor.getSnapshot());
    if (now === 'STOPPED' || now === 'STOPPING') actor.send({ type: 'server.start', explicit: false });
    check(actor.getSnapshot());
  });
}

function stoppedError(server: string, what: string): McpActorsError {
  return new McpActorsError(
    ErrorCode.SERVER_STOPPED,
    `server "${server}" was stopped (stop() or dispose() was called) while ${what} waited for it; call it again once the server may run`,
    { details: { server } },
  );
}

function readyConnection(snapshot: ServerSnapshot): ServerConnection | undefined {
  return publicStateOf(snapshot) === 'RUNNING' ? snapshot.context.connection : undefined;
}

function cancelled(server: string, what: string, signal: AbortSignal | undefined): McpActorsError {
  return new McpActorsError(ErrorCode.CANCELLED, `${what} on server "${server}" was cancelled by the caller before it was sent`, {
    cause: signal?.reason,
    details: { server },
  });
}

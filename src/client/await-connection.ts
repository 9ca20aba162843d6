/**
 * Waiting for a server to be RUNNING on behalf of one request: starts a stopped server (lazy
 * start), keeps waiting through restarts, and gives up only at the request's own deadline, when
 * the server reaches ERROR, when someone stops it, or when the caller aborts.
 */
import { linkCallSignal } from '../registry/call-signal.js';
import { waitFor } from 'xstate';
import { ErrorCode } from '../errors/codes.js';
import { McpActorsError } from '../errors/mcp-actors-error.js';
import type { ServerConnection } from '../server/server-io.js';
import { publicStateOf, refusesLazyStart, type ServerActorRef, type ServerSnapshot } from '../server/server-machine.js';

export interface AwaitOptions {
  /**
   * Asked for by start() or reconnect(): true. Otherwise a call, which starts the server only
   * when the machine allows a lazy start (not while an asked-for stop is under way, never once
   * the server is retired: its `refusesLazyStart` guard).
   */
  readonly explicit?: boolean;
  readonly what: string;
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * The error of a request a server in ERROR cannot serve, in the words of whoever holds the
 * `McpClient`: `start()` or `reconnect()` begins afresh. The runtime words it for its own readers
 * (see tool-call/server-down.ts), from `details`: `server`, `restarts`, `reason` and `lastError`.
 */
export function serverInErrorError(snapshot: ServerSnapshot, what: string): McpActorsError {
  const { config, lastError, restartCount } = snapshot.context;
  const gaveUp = `gave up after ${restartCount} automatic restart${restartCount === 1 ? '' : 's'} and is in ERROR`;
  const reason = lastError ? ` (${lastError.code}: ${lastError.message})` : '';
  // start() and reconnect() are themselves the way back: name the other, never the call that failed.
  const remedy =
    what === 'start()' || what === 'reconnect()'
      ? `fix the cause, then call ${what} again`
      : `${what} did not run; fix the cause, then call start() or reconnect()`;
  return new McpActorsError(ErrorCode.SERVER_IN_ERROR, `server "${config.name}" ${gaveUp}${reason}; ${remedy}`, {
    cause: lastError,
    details: {
      server: config.name,
      reason: lastError?.code,
      restarts: restartCount,
      ...(lastError ? { lastError: { code: lastError.code, message: lastError.message } } : {}),
    },
  });
}

export async function awaitConnection(actor: ServerActorRef, options: AwaitOptions): Promise<ServerConnection> {
  const { what, deadline, timeoutMs, signal } = options;
  const initial = actor.getSnapshot();
  const name = initial.context.config.name;
  const ready = readyConnection(initial);
  if (ready) return ready;
  if (publicStateOf(initial) === 'ERROR') throw serverInErrorError(initial, what);
  if (signal?.aborted) throw cancelled(name, what, signal);
  if (options.explicit !== true && refusesLazyStart(initial.context) && publicStateOf(initial) !== 'STARTING')
    throw stoppedError(name, what);

  const now = publicStateOf(initial);
  if (now === 'STOPPED' || now === 'STOPPING') actor.send({ type: 'server.start', explicit: false });
  // Settled: RUNNING, ERROR, or STOPPED again once a start was under way (someone stopped it).
  let sawStart = false;
  const settled = (snapshot: ServerSnapshot): boolean => {
    const state = publicStateOf(snapshot);
    if (readyConnection(snapshot) || state === 'ERROR' || (state === 'STOPPED' && sawStart)) return true;
    if (state !== 'STOPPED') sawStart = true;
    return false;
  };
  let snapshot: ServerSnapshot;
  // waitFor listens to the signal it is given: give it one of this wait's own, linked to the
  // caller's, so the caller's signal holds one listener however many wait on it.
  const link = signal ? linkCallSignal(signal) : undefined;
  try {
    snapshot = await waitFor(actor, settled, { timeout: Math.max(0, deadline - Date.now()), ...(link ? { signal: link.signal } : {}) });
  } catch {
    if (signal?.aborted) throw cancelled(name, what, signal);
    const last = actor.getSnapshot();
    if (last.status !== 'active') throw stoppedError(name, what);
    const lastError = last.context.lastError;
    throw new McpActorsError(
      ErrorCode.REQUEST_TIMEOUT,
      `${what} waited ${timeoutMs} ms for server "${name}" to start and it is still ${publicStateOf(last)}` +
        `${lastError ? ` (last error: ${lastError.message})` : ''}; raise timeoutMs or startTimeoutMs, or check the server`,
      { cause: lastError, details: { server: name, timeoutMs, state: publicStateOf(last) } },
    );
  } finally {
    link?.unlink();
  }
  const connection = readyConnection(snapshot);
  if (connection) return connection;
  if (publicStateOf(snapshot) === 'ERROR') throw serverInErrorError(snapshot, what);
  throw stoppedError(name, what);
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
